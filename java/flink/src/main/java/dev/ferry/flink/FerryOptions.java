package dev.ferry.flink;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/**
 * The configuration options of {@link FerryStateBackend}, under {@code state.backend.ferry.}. Where
 * Flink's RocksDB backend has the same option ({@code state.backend.rocksdb.timer-service.factory},
 * {@code .memory.managed}, {@code .memory.fixed-per-slot}, {@code .memory.write-buffer-ratio},
 * {@code .localdir}), its key is read when Ferry's is not set, so a job's configuration carries over.
 *
 * <p>Thread safety: constants only.
 */
public final class FerryOptions {
    private FerryOptions() {
    }

    /** Which engine keeps the keyed state: {@code rocksdb} (the default) or {@code lmdb}. */
    public static final ConfigOption<String> ENGINE = ConfigOptions.key("state.backend.ferry.engine")
            .stringType()
            .defaultValue("rocksdb")
            .withDescription("The engine of Ferry's keyed state backend: rocksdb (default) or lmdb.");

    /** The binding: {@code auto} (FFM on Java 22+, else JNI), {@code jni} or {@code ffm}. */
    public static final ConfigOption<String> BINDING = ConfigOptions.key("state.backend.ferry.binding")
            .stringType()
            .defaultValue("auto")
            .withDescription("Ferry's binding: auto (FFM on Java 22 and newer, else JNI), jni or ffm.");

    /** Where timers live: {@code ROCKSDB} (in the store; the name Flink's own option uses) or {@code HEAP}. */
    public static final ConfigOption<String> TIMER_SERVICE = ConfigOptions
            .key("state.backend.ferry.timer-service.factory")
            .stringType()
            .defaultValue("ROCKSDB")
            .withDescription("Where timers are kept: ROCKSDB (in the store, one priority queue per key group; "
                    + "also for the LMDB engine) or HEAP.")
            .withFallbackKeys("state.backend.rocksdb.timer-service.factory");

    /** Whether the store's memory is bounded by the slot's share of Flink's managed memory. */
    public static final ConfigOption<Boolean> USE_MANAGED_MEMORY = ConfigOptions
            .key("state.backend.ferry.memory.managed")
            .booleanType()
            .defaultValue(true)
            .withDescription("Bound RocksDB's block cache and write buffers by the slot's managed memory.")
            .withFallbackKeys("state.backend.rocksdb.memory.managed");

    /** A fixed memory size per slot instead of the managed memory share. */
    public static final ConfigOption<MemorySize> FIXED_MEMORY_PER_SLOT = ConfigOptions
            .key("state.backend.ferry.memory.fixed-per-slot")
            .memoryType()
            .noDefaultValue()
            .withDescription("A fixed size for RocksDB's block cache and write buffers per slot.")
            .withFallbackKeys("state.backend.rocksdb.memory.fixed-per-slot");

    /** The fraction of the memory given to write buffers (the rest is the block cache). */
    public static final ConfigOption<Double> WRITE_BUFFER_RATIO = ConfigOptions
            .key("state.backend.ferry.memory.write-buffer-ratio")
            .doubleType()
            .defaultValue(0.5)
            .withDescription("The share of the memory given to write buffers.")
            .withFallbackKeys("state.backend.rocksdb.memory.write-buffer-ratio");

    /** LMDB's map size (its largest store size). */
    public static final ConfigOption<MemorySize> LMDB_MAP_SIZE = ConfigOptions
            .key("state.backend.ferry.lmdb.map-size")
            .memoryType()
            .defaultValue(MemorySize.parse("1gb"))
            .withDescription("LMDB's map size per keyed backend (it grows in steps of this size when full).");

    /** Local directories for the stores (comma separated); default: the task manager's temp directories. */
    public static final ConfigOption<String> LOCAL_DIRECTORIES = ConfigOptions
            .key("state.backend.ferry.localdir")
            .stringType()
            .noDefaultValue()
            .withDescription("Local directories for the stores; default: the task manager's temporary directories.")
            .withFallbackKeys("state.backend.rocksdb.localdir");
}
