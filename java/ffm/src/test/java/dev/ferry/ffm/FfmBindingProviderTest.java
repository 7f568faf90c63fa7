package dev.ferry.ffm;

import dev.ferry.ffm.internal.FfmBinding;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.ferry.internal.binding.Bindings;
import dev.ferry.spi.BindingProvider;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** ferry-ffm is found as a service: the way ferry-core binds it on the module path. */
class FfmBindingProviderTest {

    @Test
    void serviceLoaderFindsTheFfmProvider() {
        List<BindingProvider> found = ServiceLoader.load(BindingProvider.class).stream()
                .map(ServiceLoader.Provider::get).collect(Collectors.toList());
        assertEquals(1, found.size(), () -> "providers: " + found);
        assertEquals("ffm", found.get(0).name());
        assertSame(FfmBinding.INSTANCE, found.get(0).binding());
    }

    @Test
    void defaultBindingIsTheProvidersBinding() {
        assertSame(FfmBinding.INSTANCE, Bindings.ffm());
        assertSame(FfmBinding.INSTANCE, Bindings.byName("ffm"));
    }
}
