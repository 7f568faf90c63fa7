package dev.ferry.kafka;

import dev.ferry.StoreOptions;
import java.util.Map;

/**
 * Adjusts the {@link StoreOptions} of each Ferry state store before it opens: Ferry's counterpart of
 * Kafka Streams' {@code RocksDBConfigSetter}. Name the implementing class (public, with a public
 * no-argument constructor) in the Streams configuration under {@link FerryStoreConfig#OPTIONS_SETTER}:
 *
 * <pre>{@code
 * props.put(FerryStoreConfig.OPTIONS_SETTER, MyFerryOptions.class);
 *
 * public class MyFerryOptions implements FerryStoreOptionsSetter {
 *     public void setOptions(String storeName, StoreOptions options, Map<String, Object> configs) {
 *         if (options.engine() == Engine.ROCKSDB) options.compression(Compression.LZ4);
 *     }
 * }
 * }</pre>
 *
 * <p>One instance is made per store opening; {@link #setOptions} runs on the stream thread that
 * opens the store, after the {@code ferry.*} configuration keys have been applied, so it has the last
 * word. Setting an option of the other engine throws {@link IllegalArgumentException} (check
 * {@link StoreOptions#engine()}), which fails the store's initialization.
 */
public interface FerryStoreOptionsSetter {
    /**
     * Sets options for one store.
     *
     * @param storeName the state store's name (the same for every partition of one store)
     * @param options the options the store will open with; change them in place
     * @param configs the application's configuration, as {@code StateStoreContext.appConfigs()} gives it
     */
    void setOptions(String storeName, StoreOptions options, Map<String, Object> configs);
}
