package dev.ferry.bench.kafka;

import dev.ferry.StoreOptions;
import dev.ferry.bench.BenchData;
import dev.ferry.kafka.FerryStoreConfig;
import dev.ferry.kafka.FerryStoreOptionsSetter;
import dev.ferry.kafka.FerryStores;
import java.util.Map;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Ferry's Kafka Streams stores ({@link FerryStores#persistentKeyValueStore} on RocksDB,
 * {@link FerryStores#lmdbKeyValueStore} on LMDB) with their default configuration, through the
 * binding the parameter names; workloads and units in {@link KafkaStoreBase}. The built-in store
 * on the same data: {@link RocksJavaKafkaBench}.
 */
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {BenchData.NATIVE_ACCESS, BenchData.UNSAFE, BenchData.HEAP})
public class KafkaBench extends KafkaStoreBase {
    @Param({"ROCKSDB", "LMDB"})
    public String engine;
    @Param({"jni", "ffm"})
    public String binding;
    /** {@code ferry.restore.buffer.bytes}, or {@code default} for the store's default. */
    @Param({"default"})
    public String restoreBuffer;

    @Override
    KeyValueBytesStoreSupplier supplier() {
        return engine.equals("LMDB") ? FerryStores.lmdbKeyValueStore("bench") : FerryStores.persistentKeyValueStore("bench");
    }

    @Override
    Map<String, Object> configs() {
        Map<String, Object> c = new java.util.HashMap<>(Map.of(FerryStoreConfig.OPTIONS_SETTER, BindingSetter.class, BindingSetter.BINDING, binding));
        if (restoreBuffer != null && !restoreBuffer.equals("default")) {
            c.put(FerryStoreConfig.RESTORE_BUFFER_BYTES, Long.parseLong(restoreBuffer));
        }
        // more of Ferry's keys for an A/B run: -Dbench.kafka.config='ferry.lmdb.restore.runs=false;k=v'
        // (JMH: -jvmArgsAppend -Dbench.kafka.config=...)
        String more = System.getProperty("bench.kafka.config", "");
        for (String kv : more.split(";")) {
            if (!kv.isBlank()) {
                int eq = kv.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("bench.kafka.config: expected key=value, got '" + kv + "'");
                }
                c.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
            }
        }
        return c;
    }

    /** Opens the store on the benchmark's binding (an application leaves Ferry's run-time choice). */
    public static final class BindingSetter implements FerryStoreOptionsSetter {
        static final String BINDING = "ferry.bench.binding";

        @Override
        public void setOptions(String storeName, StoreOptions options, Map<String, Object> configs) {
            options.binding(configs.get(BINDING).toString());
        }
    }
}
