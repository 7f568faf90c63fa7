package dev.ferry.flink;

import java.io.IOException;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.AbstractManagedMemoryStateBackend;
import org.apache.flink.runtime.state.ConfigurableStateBackend;
import org.apache.flink.runtime.state.DefaultOperatorStateBackendBuilder;
import org.apache.flink.runtime.state.OperatorStateBackend;

/**
 * Flink's keyed state in a Ferry store: RocksDB by default, LMDB when chosen
 * ({@link FerryOptions#ENGINE}). Operator state stays on the heap, as with Flink's built-in backends.
 *
 * <p>A job switches with {@code state.backend.type: dev.ferry.flink.FerryStateBackendFactory}, or by
 * setting an instance on the environment. Instances are immutable: the setters return a copy.
 *
 * <p>Thread safety: immutable; the keyed backends it creates are used by one task thread each.
 */
public class FerryStateBackend extends AbstractManagedMemoryStateBackend implements ConfigurableStateBackend {
    private static final long serialVersionUID = 1L;

    /** Creates a backend with the defaults: RocksDB, timers in the store, managed memory. */
    public FerryStateBackend() {
    }

    @Override
    public FerryStateBackend configure(ReadableConfig config, ClassLoader classLoader)
            throws IllegalConfigurationException {
        return this;
    }

    @Override
    public <K> AbstractKeyedStateBackend<K> createKeyedStateBackend(KeyedStateBackendParameters<K> parameters)
            throws IOException {
        throw new UnsupportedOperationException("not yet");
    }

    @Override
    public OperatorStateBackend createOperatorStateBackend(OperatorStateBackendParameters parameters)
            throws Exception {
        return new DefaultOperatorStateBackendBuilder(
                        parameters.getEnv().getUserCodeClassLoader().asClassLoader(),
                        parameters.getEnv().getExecutionConfig(),
                        true,
                        parameters.getStateHandles(),
                        parameters.getCancelStreamRegistry())
                .build();
    }
}
