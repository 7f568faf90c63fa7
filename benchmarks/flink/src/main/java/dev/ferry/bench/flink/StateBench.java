package dev.ferry.bench.flink;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Flink keyed state per access, on Flink's built-in RocksDB backend and Ferry's, same data and settings
 * ({@link KeyedStateWorkload}, {@link Backends}): nanoseconds per key of a batch (one state access; for the map
 * iterations, one walk of a key's whole map). One JMH run covers both backends: {@code backend} is a parameter.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(KeyedStateWorkload.BATCH)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xms2g", "-Xmx2g",
        "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.util=ALL-UNNAMED",
        "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED"})
public class StateBench {
    /** {@code rocksdb} (EmbeddedRocksDBStateBackend), {@code ferry-jni}, {@code ferry-ffm}. */
    @Param({"rocksdb", "ferry-jni", "ferry-ffm"})
    public String backend;
    /** Keys written before the run. */
    @Param({"10000"})
    public int keys;
    /** Entries in each key's map. */
    @Param({"16"})
    public int mapSize;
    /** Timers registered and deleted before the run (tombstones in the timer queue). */
    @Param({"0"})
    public int deletedTimers;

    private KeyedStateWorkload w;

    /** Opens the backend and writes the data. */
    @Setup(Level.Trial)
    public void open() throws Exception {
        w = new KeyedStateWorkload(backend, keys, mapSize, deletedTimers);
    }

    /** Closes the backend and deletes its files. */
    @TearDown(Level.Trial)
    public void close() throws Exception {
        w.close();
    }

    /** See {@link KeyedStateWorkload#valueGet}. */
    @Benchmark
    public long valueGet() throws Exception {
        return w.valueGet();
    }

    /** See {@link KeyedStateWorkload#valueUpdate}. */
    @Benchmark
    public long valueUpdate() throws Exception {
        return w.valueUpdate();
    }

    /** See {@link KeyedStateWorkload#listAdd}. */
    @Benchmark
    public long listAdd() throws Exception {
        return w.listAdd();
    }

    /** See {@link KeyedStateWorkload#listGet}. */
    @Benchmark
    public long listGet() throws Exception {
        return w.listGet();
    }

    /** See {@link KeyedStateWorkload#listUpdate}. */
    @Benchmark
    public long listUpdate() throws Exception {
        return w.listUpdate();
    }

    /** See {@link KeyedStateWorkload#mapGet}. */
    @Benchmark
    public long mapGet() throws Exception {
        return w.mapGet();
    }

    /** See {@link KeyedStateWorkload#mapPut}. */
    @Benchmark
    public long mapPut() throws Exception {
        return w.mapPut();
    }

    /** See {@link KeyedStateWorkload#mapContains}. */
    @Benchmark
    public long mapContains() throws Exception {
        return w.mapContains();
    }

    /** See {@link KeyedStateWorkload#mapIterator}. */
    @Benchmark
    public long mapIterator() throws Exception {
        return w.mapIterator();
    }

    /** See {@link KeyedStateWorkload#mapKeys}. */
    @Benchmark
    public long mapKeys() throws Exception {
        return w.mapKeys();
    }

    /** See {@link KeyedStateWorkload#mapValues}. */
    @Benchmark
    public long mapValues() throws Exception {
        return w.mapValues();
    }

    /** See {@link KeyedStateWorkload#mapEntries}. */
    @Benchmark
    public long mapEntries() throws Exception {
        return w.mapEntries();
    }

    /** See {@link KeyedStateWorkload#mapEntriesDeleted}. */
    @Benchmark
    public long mapEntriesDeleted() throws Exception {
        return w.mapEntriesDeleted();
    }

    /** See {@link KeyedStateWorkload#mapIsEmptyDeleted}. */
    @Benchmark
    public long mapIsEmptyDeleted() throws Exception {
        return w.mapIsEmptyDeleted();
    }

    /** See {@link KeyedStateWorkload#timerRegisterFire}. */
    @Benchmark
    public long timerRegisterFire() throws Exception {
        return w.timerRegisterFire();
    }

    /** See {@link KeyedStateWorkload#timerRegisterFireDeleted}. */
    @Benchmark
    public long timerRegisterFireDeleted() throws Exception {
        return w.timerRegisterFireDeleted();
    }
}
