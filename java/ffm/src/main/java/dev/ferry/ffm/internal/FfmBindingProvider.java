package dev.ferry.ffm.internal;

import dev.ferry.spi.BindingProvider;
import dev.ferry.spi.EntryBuffers;
import dev.ferry.spi.NativeBinding;

/**
 * Not API: makes the FFM binding known to ferry-core through {@link java.util.ServiceLoader}
 * (see {@link BindingProvider}), with the scoped entry buffers ({@link #entryBuffers()}).
 * Creating it does not load libferry; {@link #binding()} does.
 *
 * <p>Thread safety: stateless.
 */
public final class FfmBindingProvider implements BindingProvider {
    /** Made by {@link java.util.ServiceLoader}. */
    public FfmBindingProvider() {
    }

    @Override
    public String name() {
        return "ffm";
    }

    @Override
    public NativeBinding binding() {
        return FfmBinding.INSTANCE;
    }

    @Override
    public EntryBuffers entryBuffers() {
        return ScopedEntryBuffers.INSTANCE;
    }
}
