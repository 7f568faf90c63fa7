package dev.ferry.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ferry.Engine;
import dev.ferry.FerryWorkloads;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import dev.ferry.Workload;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Data written through one binding reads back identically through the other, on both engines:
 * write a random workload through JNI (or FFM), close, reopen through FFM (or JNI) and compare
 * every entry (forward and reverse cursors) and point reads ({@code get}, {@code multiGet},
 * snapshot {@code get}) with the workload's model.
 */
class CrossBindingTest {
    private static final List<String> FAMILIES = List.of("default", "users", "events");

    @TempDir
    Path dir;

    private static StoreOptions options(Engine engine, String binding) {
        return engine == Engine.ROCKSDB
                ? StoreOptions.rocksdb().binding(binding)
                : StoreOptions.lmdb().binding(binding).mapSize(256L << 20).maxColumnFamilies(16);
    }

    private static Workload workload(Engine engine, long seed) {
        return engine == Engine.ROCKSDB ? new Workload(seed, FAMILIES, 0, 64) : new Workload(seed, FAMILIES, 1, 511);
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void jniWritesReadIdenticallyThroughFfm(Engine engine) throws Exception {
        handOver(engine, 0xC0_0001L + engine.ordinal(), "jni", "ffm");
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void ffmWritesReadIdenticallyThroughJni(Engine engine) throws Exception {
        handOver(engine, 0xC0_0011L + engine.ordinal(), "ffm", "jni");
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void alternatingBindingsKeepOneConsistentStore(Engine engine) throws Exception {
        Workload w = workload(engine, 0xC0_0021L + engine.ordinal());
        Path db = dir.resolve("db");
        String[] order = {"jni", "ffm", "jni", "ffm"};
        for (int round = 0; round < order.length; round++) {
            try (Store store = Store.open(db, options(engine, order[round]))) {
                assertEquals(order[round], store.binding());
                if (round > 0) {
                    FerryWorkloads.verify(store, w, "round " + round + ": " + order[round - 1] + " wrote, " + order[round] + " read");
                }
                Workload.apply(w.next(400, 150), FerryWorkloads.target(store, FerryWorkloads.families(store, w, true)));
            }
        }
        try (Store store = Store.open(db, options(engine, "jni"))) {
            FerryWorkloads.verify(store, w, "final: ffm wrote, jni read");
        }
    }

    private void handOver(Engine engine, long seed, String writer, String reader) throws Exception {
        Workload w = workload(engine, seed);
        Path db = dir.resolve("db");
        try (Store store = Store.open(db, options(engine, writer))) {
            assertEquals(writer, store.binding());
            Workload.apply(w.next(2500, 600), FerryWorkloads.target(store, FerryWorkloads.families(store, w, true)));
            FerryWorkloads.assertSubstantial(w, 150);
            FerryWorkloads.verify(store, w, writer + " wrote, " + writer + " read");
        }
        try (Store store = Store.open(db, options(engine, reader))) {
            assertEquals(reader, store.binding());
            FerryWorkloads.verify(store, w, writer + " wrote, " + reader + " read");
        }
    }
}
