package dev.ferry.flink;

import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.runtime.state.StateBackendFactory;

/**
 * Makes a {@link FerryStateBackend} from a job's configuration: a job switches to Ferry with
 * {@code state.backend.type: dev.ferry.flink.FerryStateBackendFactory}. The options are those of
 * {@link FerryOptions}.
 *
 * <p>Thread safety: stateless.
 */
public final class FerryStateBackendFactory implements StateBackendFactory<FerryStateBackend> {
    /** Creates the factory (Flink instantiates it by class name). */
    public FerryStateBackendFactory() {
    }

    @Override
    public FerryStateBackend createFromConfig(ReadableConfig config, ClassLoader classLoader)
            throws IllegalConfigurationException {
        return new FerryStateBackend().configure(config, classLoader);
    }
}
