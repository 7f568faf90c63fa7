package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.Engine;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The import of Kafka's built-in RocksDB key-value store into a Ferry store that opens without one of its
 * own (BuiltInImport), outside a topology: both value formats, both Ferry engines, the offsets carried, and
 * a crash in the middle.
 */
class BuiltInImportTest {
    private static final TopicPartition CHANGELOG = new TopicPartition("app-kv-changelog", 0);

    @TempDir
    Path tmp;

    @AfterEach
    void noHook() {
        BuiltInImport.beforeRename = null;
    }

    /** Fills a built-in store of the given format in {@code taskDir}, commits an offset, closes it; returns its content. */
    @SuppressWarnings("unchecked")
    static TreeMap<Bytes, byte[]> builtIn(Path taskDir, boolean timestamped, int n, long offset) {
        KeyValueStore<Bytes, byte[]> s = (KeyValueStore<Bytes, byte[]>) (timestamped
                ? Stores.persistentTimestampedKeyValueStore("kv") : Stores.persistentKeyValueStore("kv")).get();
        TestContext ctx = new TestContext(taskDir.toFile());
        s.init(ctx, s);
        Random r = new Random(7);
        TreeMap<Bytes, byte[]> expected = new TreeMap<>();
        try {
            for (int i = 0; i < n; i++) {
                byte[] k = new byte[1 + r.nextInt(24)];
                r.nextBytes(k);
                byte[] v = new byte[r.nextInt(120)];
                r.nextBytes(v);
                s.put(Bytes.wrap(k), v);
                expected.put(Bytes.wrap(k), v);
                if (i % 10 == 3) {
                    Bytes gone = expected.firstKey();
                    s.delete(gone);
                    expected.remove(gone);
                }
            }
            s.commit(Map.of(CHANGELOG, offset));
            try (KeyValueIterator<Bytes, byte[]> it = s.all()) { // what the built-in store itself holds
                TreeMap<Bytes, byte[]> held = new TreeMap<>();
                it.forEachRemaining(kv -> held.put(kv.key, kv.value));
                assertEquals(expected.keySet(), held.keySet());
            }
        } finally {
            s.close();
        }
        return expected;
    }

    static FerryKeyValueStore ferry(Engine engine, boolean timestamped, TestContext ctx) {
        StateStore s = (engine == Engine.ROCKSDB
                ? (timestamped ? FerryStores.persistentTimestampedKeyValueStore("kv") : FerryStores.persistentKeyValueStore("kv"))
                : (timestamped ? FerryStores.lmdbTimestampedKeyValueStore("kv") : FerryStores.lmdbKeyValueStore("kv"))).get();
        s.init(ctx, s);
        return (FerryKeyValueStore) s;
    }

    private static TreeMap<Bytes, byte[]> content(FerryKeyValueStore s) {
        TreeMap<Bytes, byte[]> m = new TreeMap<>();
        try (KeyValueIterator<Bytes, byte[]> it = s.all()) {
            while (it.hasNext()) {
                KeyValue<Bytes, byte[]> kv = it.next();
                m.put(kv.key, kv.value);
            }
        }
        return m;
    }

    private static void assertContent(TreeMap<Bytes, byte[]> expected, TreeMap<Bytes, byte[]> actual) {
        assertEquals(expected.keySet(), actual.keySet());
        expected.forEach((k, v) -> assertArrayEquals(v, actual.get(k), k.toString()));
    }

    @ParameterizedTest(name = "{0} timestamped={1}")
    @CsvSource({"ROCKSDB,false", "ROCKSDB,true", "LMDB,false", "LMDB,true"})
    void importsTheBuiltInStoresEntriesOffsetsAndPositionAndKeepsItsDirectory(Engine engine, boolean timestamped) {
        TreeMap<Bytes, byte[]> expected = builtIn(tmp, timestamped, 20_000, 4242L);
        TestContext ctx = new TestContext(tmp.toFile());
        FerryKeyValueStore s = ferry(engine, timestamped, ctx);
        try {
            assertEquals(4242L, s.committedOffset(CHANGELOG), "the built-in store's committed offset");
            assertContent(expected, content(s));
            assertEquals(Position.emptyPosition(), s.getPosition());
            s.put(Bytes.wrap(new byte[] {1, 2, 3}), new byte[] {9});
            s.commit(Map.of(CHANGELOG, 5000L));
        } finally {
            s.close();
        }
        assertTrue(Files.isRegularFile(tmp.resolve("rocksdb").resolve("kv").resolve("CURRENT")), "the built-in store stays");
        assertFalse(Files.exists(tmp.resolve("ferry").resolve("kv" + BuiltInImport.TEMP_SUFFIX)));

        // the Ferry store now exists: a reopen keeps it as it is (no second import over it)
        FerryKeyValueStore again = ferry(engine, timestamped, new TestContext(tmp.toFile()));
        try {
            assertEquals(5000L, again.committedOffset(CHANGELOG));
            expected.put(Bytes.wrap(new byte[] {1, 2, 3}), new byte[] {9});
            assertContent(expected, content(again));
        } finally {
            again.close();
        }
    }

    @Test
    void importedRocksDbEntriesAreTableFilesInTheDataFamily() {
        builtIn(tmp, true, 5_000, 10L);
        FerryKeyValueStore s = ferry(Engine.ROCKSDB, true, new TestContext(tmp.toFile()));
        try {
            long tables = s.checkOpen().propertyLong(s.data(), "rocksdb.total-sst-files-size").orElse(-1);
            assertTrue(tables > 5_000 * 16, "the entries are in table files: " + tables + " bytes");
            assertEquals("0", s.checkOpen().property(s.data(), "rocksdb.num-entries-active-mem-table").orElse("?"),
                    "nothing went through the memtable");
        } finally {
            s.close();
        }
    }

    @ParameterizedTest(name = "built-in timestamped={0}")
    @CsvSource({"false", "true"})
    void aBuiltInStoreOfTheOtherFormatIsNotImported(boolean builtInTimestamped) {
        builtIn(tmp, builtInTimestamped, 100, 77L);
        FerryKeyValueStore s = ferry(Engine.ROCKSDB, !builtInTimestamped, new TestContext(tmp.toFile()));
        try {
            assertNull(s.committedOffset(CHANGELOG), "no offsets: Kafka Streams restores the store whole");
            assertTrue(content(s).isEmpty());
        } finally {
            s.close();
        }
    }

    @Test
    void importOffOpensEmpty() {
        builtIn(tmp, true, 100, 77L);
        TestContext ctx = new TestContext(tmp.toFile());
        ctx.configs.put(FerryStoreConfig.IMPORT_BUILT_IN, "false");
        FerryKeyValueStore s = ferry(Engine.ROCKSDB, true, ctx);
        try {
            assertNull(s.committedOffset(CHANGELOG));
            assertTrue(content(s).isEmpty());
        } finally {
            s.close();
        }
    }

    @Test
    void deleteAfterImportRemovesTheBuiltInDirectory() {
        TreeMap<Bytes, byte[]> expected = builtIn(tmp, true, 1_000, 99L);
        TestContext ctx = new TestContext(tmp.toFile());
        ctx.configs.put(FerryStoreConfig.IMPORT_BUILT_IN_DELETE, true);
        FerryKeyValueStore s = ferry(Engine.LMDB, true, ctx);
        try {
            assertEquals(99L, s.committedOffset(CHANGELOG));
            assertContent(expected, content(s));
        } finally {
            s.close();
        }
        assertFalse(Files.exists(tmp.resolve("rocksdb").resolve("kv")));
    }

    /** A crash, simulated: an Error thrown where the process could die, which the import does not catch. */
    private static final class Crash extends Error {
        Crash() {
            super("simulated crash");
        }
    }

    @ParameterizedTest
    @CsvSource({"ROCKSDB", "LMDB"})
    void aCrashBeforeTheRenameLeavesNoFerryStoreAndTheNextOpenImportsAgain(Engine engine) throws Exception {
        TreeMap<Bytes, byte[]> expected = builtIn(tmp, true, 3_000, 31L);
        Path ferryDir = tmp.resolve("ferry").resolve("kv");
        Path temp = tmp.resolve("ferry").resolve("kv" + BuiltInImport.TEMP_SUFFIX);
        BuiltInImport.beforeRename = () -> {
            throw new Crash();
        };
        assertThrows(Crash.class, () -> ferry(engine, true, new TestContext(tmp.toFile())));
        assertFalse(Files.exists(ferryDir), "no Ferry store: neither entries nor offsets are visible");
        assertTrue(Files.isDirectory(temp), "the complete but unrenamed import is left as a crash leaves it");
        Files.writeString(temp.resolve("junk"), "a partial import"); // whatever a crash left there

        BuiltInImport.beforeRename = null;
        FerryKeyValueStore s = ferry(engine, true, new TestContext(tmp.toFile()));
        try {
            assertEquals(31L, s.committedOffset(CHANGELOG));
            assertContent(expected, content(s));
        } finally {
            s.close();
        }
        assertFalse(Files.exists(temp), "the partial import was deleted");
    }

    @Test
    void aFailedImportFallsBackToAnEmptyStoreAndLeavesNothingBehind() {
        builtIn(tmp, false, 500, 12L);
        BuiltInImport.beforeRename = () -> {
            throw new IllegalStateException("disk trouble");
        };
        FerryKeyValueStore s = ferry(Engine.ROCKSDB, false, new TestContext(tmp.toFile()));
        try {
            assertNull(s.committedOffset(CHANGELOG), "restores from the changelog instead");
            assertTrue(content(s).isEmpty());
        } finally {
            s.close();
        }
        assertFalse(Files.exists(tmp.resolve("ferry").resolve("kv" + BuiltInImport.TEMP_SUFFIX)));
    }

    @Test
    void positionIsCarriedOver() throws Exception {
        // the built-in store writes its position under "position" of its offsets family, as Ferry does
        builtIn(tmp, false, 10, 5L);
        Position p = Position.emptyPosition().withComponent("in", 0, 17L);
        try (dev.ferry.Store raw = dev.ferry.Store.open(tmp.resolve("rocksdb").resolve("kv"), dev.ferry.StoreOptions.rocksdb())) {
            ByteBuffer b = org.apache.kafka.streams.state.internals.PositionSerde.serialize(p);
            byte[] bytes = new byte[b.remaining()];
            b.get(bytes);
            raw.put(raw.columnFamily("offsets").orElseThrow(), "position".getBytes(StandardCharsets.UTF_8), bytes);
        }
        FerryKeyValueStore s = ferry(Engine.ROCKSDB, false, new TestContext(tmp.toFile()));
        try {
            assertEquals(p, s.getPosition());
            assertEquals(5L, s.committedOffset(CHANGELOG));
        } finally {
            s.close();
        }
    }
}
