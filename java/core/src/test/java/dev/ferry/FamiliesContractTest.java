package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.internal.Abi;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Column families: separate key spaces, create, drop and reopen, names the engine cannot store, a family dropped
 * under a writer, and per-family options (prefix extractors, compression, merge operators, LMDB flags).
 */
class FamiliesContractTest extends StoreContract {
    @MatrixTest
    void columnFamiliesAreSeparateKeySpaces() {
        ColumnFamily users = store.createColumnFamily("users");
        store.put(users, b("k"), b("user"));
        store.put(b("k"), b("default"));
        assertEquals("user", s(store.get(users, b("k"))));
        assertEquals("default", s(store.get(b("k"))));
        try (WriteBatch wb = new WriteBatch()) {
            wb.put(users, b("k2"), b("u2")).delete(users, b("k"));
            store.write(wb);
        }
        assertNull(store.get(users, b("k")));
        try (Cursor c = store.cursor(users, KeyRange.all(), null)) {
            assertEquals(List.of("k2"), keys(c, true));
        }
        assertEquals(List.of("default", "users"), store.columnFamilies().stream().map(ColumnFamily::name).toList());
        assertThrows(FerryException.AlreadyExists.class, () -> store.createColumnFamily("users"));
    }

    @MatrixTest
    void columnFamiliesSurviveReopenAndDropIsFinal() {
        ColumnFamily a = store.createColumnFamily("a");
        ColumnFamily gone = store.createColumnFamily("gone");
        store.put(a, b("x"), b("1"));
        store.put(gone, b("x"), b("1"));
        store.dropColumnFamily(gone);
        assertTrue(gone.isDropped());
        assertThrows(IllegalStateException.class, () -> store.get(gone, b("x")));
        assertThrows(IllegalArgumentException.class, () -> store.dropColumnFamily(store.defaultColumnFamily()));
        store.close();
        store = Store.open(dir.resolve("db"), options());
        assertEquals(List.of("default", "a"), store.columnFamilies().stream().map(ColumnFamily::name).toList());
        ColumnFamily a2 = store.columnFamily("a").orElseThrow();
        assertEquals("1", s(store.get(a2, b("x"))));
        assertThrows(IllegalArgumentException.class, () -> store.get(a, b("x")), "family of the closed store");
    }

    /**
     * LMDB lists the families of a store whose default family is large only when asked (reading
     * every key of the default family at each open would make opening cost the store's size):
     * they are found by name, listed on request, and read only by views begun after. RocksDB lists
     * them at open; the same calls give the same families.
     */
    @MatrixTest
    void familiesOfAStoreWithALargeDefaultFamilyAreFoundByNameAndListedWhenAsked() {
        ColumnFamily a = store.createColumnFamily("a");
        store.createColumnFamily("b");
        store.put(a, b("k"), b("in-a"));
        try (WriteBatch batch = new WriteBatch()) {
            for (int i = 0; i <= Abi.LMDB_FAMILY_SCAN_MAX; i++) {
                batch.put(b(String.format("key%06d", i)), b("v"));
            }
            store.write(batch);
        }
        store.close();
        store = Store.open(dir.resolve("db"), options());
        boolean lmdb = options().engine() == Engine.LMDB;
        if (lmdb) {
            assertEquals(0, store.propertyLong(store.defaultColumnFamily(), "lmdb.families-listed").orElse(-1));
        }
        Snapshot early = store.snapshot();
        try {
            ColumnFamily a2 = store.columnFamily("a").orElseThrow();
            assertEquals("in-a", s(store.get(a2, b("k"))));
            assertSame(a2, store.columnFamily("a").orElseThrow());
            if (lmdb) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> early.get(a2, b("k")));
                assertTrue(e.getMessage().contains("first looked up after it"), e.getMessage());
            } else {
                assertEquals("in-a", s(early.get(a2, b("k"))));
            }
        } finally {
            early.close();
        }
        assertTrue(store.columnFamily("nope").isEmpty());
        assertTrue(store.columnFamily("key000007").isEmpty(), "a key of the default family is no family");
        assertEquals("v", s(store.get(b("key000007"))));
        assertThrows(FerryException.AlreadyExists.class, () -> store.createColumnFamily("b"));
        assertEquals(List.of("default", "a", "b"), store.columnFamilies().stream().map(ColumnFamily::name).toList());
        if (lmdb) {
            assertEquals(1, store.propertyLong(store.defaultColumnFamily(), "lmdb.families-listed").orElse(-1));
        }
        ColumnFamily c = store.createColumnFamily("c");
        store.put(c, b("k"), b("in-c"));
        store.dropColumnFamily(store.columnFamily("a").orElseThrow());
        assertTrue(store.columnFamily("a").isEmpty());
        store.close();
        store = Store.open(dir.resolve("db"), options());
        assertEquals("in-c", s(store.get(store.columnFamily("c").orElseThrow(), b("k"))));
        assertTrue(store.columnFamily("a").isEmpty());
        assertEquals(List.of("b", "c"), store.columnFamilies().stream().map(ColumnFamily::name).filter(n -> !n.equals("default"))
                .sorted().toList());
    }

    @MatrixTest
    void familyDroppedWhileAnotherThreadWritesStopsTheWriterAndNothingElse() throws Exception {
        ColumnFamily fresh = store.createColumnFamily("fresh0");
        for (int round = 1; round <= 10; round++) {
            ColumnFamily cf = fresh;
            java.util.concurrent.CountDownLatch wrote = new java.util.concurrent.CountDownLatch(1 + round % 3);
            AtomicReference<Throwable> stop = new AtomicReference<>();
            Thread w = new Thread(() -> {
                try {
                    for (int i = 0;; i++) {
                        byte[] k = b("k" + (i % 16));
                        if (i % 2 == 0) {
                            store.put(cf, k, b("v"));
                        } else {
                            try (WriteBatch wb = new WriteBatch()) {
                                store.write(wb.put(cf, k, b("w")));
                            }
                        }
                        wrote.countDown();
                    }
                } catch (Throwable e) {
                    stop.set(e);
                }
            });
            w.start();
            wrote.await();
            store.dropColumnFamily(cf);
            fresh = store.createColumnFamily("fresh" + round);
            w.join();
            Throwable e = stop.get();
            assertTrue(e instanceof IllegalStateException || e instanceof FerryException.ColumnFamilyDropped,
                    "round " + round + ": the writer stopped with " + e);
            try (Cursor c = store.cursor(fresh, KeyRange.all(), null)) {
                assertFalse(c.first(), "round " + round + ": a write to the dropped family landed in the new one");
            }
            store.put(b("after"), b("v"));
            store.put(fresh, b("after"), b("v"));
        }
    }

    @MatrixTest
    void droppedFamiliesDoNotCountTowardMaxColumnFamilies() {
        store.close();
        boolean lmdb = options().engine() == Engine.LMDB;
        StoreOptions limited = lmdb ? options().maxColumnFamilies(2) : options(); // an LMDB option only
        store = Store.open(dir.resolve("limited"), limited);
        ColumnFamily a = store.createColumnFamily("a");
        store.put(a, b("k"), b("in-a"));
        store.dropColumnFamily(a);
        store.dropColumnFamily(store.createColumnFamily("b"));
        ColumnFamily c = store.createColumnFamily("c");
        ColumnFamily d = store.createColumnFamily("d");
        if (options().engine() == Engine.LMDB) {
            FerryException e = assertThrows(FerryException.class, () -> store.createColumnFamily("e"));
            assertEquals(ErrorCode.TOO_MANY_COLUMN_FAMILIES, e.code());
            assertTrue(e.getMessage().contains("too many column families: 2 live, maxColumnFamilies is 2 (dropped families do not count"),
                    e.getMessage());
        } else {
            store.createColumnFamily("e"); // RocksDB has no limit
        }
        // ids are never reused: the dropped family stays dropped, the new ones are empty
        assertThrows(IllegalStateException.class, () -> store.get(a, b("k")));
        assertNull(store.get(c, b("k")));
        assertNull(store.get(d, b("k")));
        store.dropColumnFamily(d);
        // past the shim's first chunk of 64 slots; family churn is slow on RocksDB (MANIFEST writes,
        // dropped families kept until close), so it does fewer here (test_rocksdb_families.c churns 100
        // families, FERRY_TEST_CF_CHURN=n more)
        int cycles = options().engine() == Engine.LMDB ? 70 : 10;
        for (int i = 0; i < cycles; i++) {
            ColumnFamily x = store.createColumnFamily("churn" + (i % 2));
            assertNull(store.get(x, b("k")), "cycle " + i);
            store.put(x, b("k"), b("v" + i));
            assertEquals("v" + i, s(store.get(x, b("k"))));
            store.dropColumnFamily(x);
        }
        store.put(c, b("k"), b("in-c"));
        store.close();
        store = Store.open(dir.resolve("limited"), limited);
        List<String> names = store.columnFamilies().stream().map(ColumnFamily::name).toList();
        assertEquals(options().engine() == Engine.LMDB ? List.of("default", "c") : List.of("default", "c", "e"), names);
        assertEquals("in-c", s(store.get(store.columnFamily("c").orElseThrow(), b("k"))));
    }

    @MatrixTest
    void deleteRangeOverTheDefaultFamilyKeepsOtherFamilies() {
        ColumnFamily cf = store.createColumnFamily("cf-a");
        store.put(cf, b("k"), b("v"));
        putAll("a", "1", "cf-0", "2", "cf-b", "3", "z", "4");
        store.deleteRange(b("a"), b("zz"));
        try (WriteBatch wb = new WriteBatch()) {
            store.put(b("m"), b("5"));
            wb.deleteRange(b("a"), b("zz"));
            store.write(wb);
        }
        for (String k : List.of("a", "cf-0", "cf-b", "m", "z")) {
            assertNull(store.get(b(k)), k);
        }
        assertEquals("v", s(store.get(cf, b("k"))));
        store.close();
        store = Store.open(dir.resolve("db"), options());
        assertEquals("v", s(store.get(store.columnFamily("cf-a").orElseThrow(), b("k"))));
    }

    @MatrixTest
    void familyNamesTheEngineCannotStoreAreRejectedBeforeAnyChange() {
        for (String bad : List.of("", "a\0b")) {
            assertThrows(IllegalArgumentException.class, () -> store.createColumnFamily(bad));
        }
        String longest = "n".repeat(options().engine() == Engine.LMDB ? 511 : 5000);
        ColumnFamily cf = store.createColumnFamily(longest);
        store.put(cf, b("k"), b("v"));
        if (options().engine() == Engine.LMDB) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> store.createColumnFamily("n".repeat(600)));
            assertTrue(e.getMessage().contains("600 bytes") && e.getMessage().contains("511"), e.getMessage());
            // the limit is in bytes: 256 two-byte characters are 512 bytes
            assertThrows(IllegalArgumentException.class, () -> store.createColumnFamily("\u00e9".repeat(256)));
        }
        assertEquals(2, store.columnFamilies().size());
        store.close();
        store = Store.open(dir.resolve("db"), options());
        ColumnFamily again = store.columnFamily(longest)
                .orElseThrow(() -> new AssertionError("no family of " + longest.length() + " characters after reopen"));
        assertEquals("v", s(store.get(again, b("k"))));
    }

    // ---- per-column-family options (RocksDB) ----

    /**
     * The newest OPTIONS-* file's sections for a family ({@code [CFOptions "name"]} up to the next
     * family's), where RocksDB writes the options a family is open with.
     */
    static String optionsFileSection(Path db, String family) {
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(db)) {
            Path newest = files.filter(f -> f.getFileName().toString().matches("OPTIONS-\\d+"))
                    .max(java.util.Comparator.comparingLong(f -> Long.parseLong(f.getFileName().toString().substring(8))))
                    .orElseThrow(() -> new AssertionError("no OPTIONS file in " + db));
            String text = java.nio.file.Files.readString(newest);
            int from = text.indexOf("[CFOptions \"" + family + "\"]");
            assertTrue(from >= 0, "no section for " + family + " in " + newest);
            int to = text.indexOf("[CFOptions \"", from + 1);
            return text.substring(from, to < 0 ? text.length() : to);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private StoreOptions withFamilies(Map<String, ColumnFamilyOptions> families) {
        StoreOptions o = options();
        families.forEach(o::columnFamily);
        return o;
    }

    private static List<String> keysOf(Cursor c, boolean forward) {
        List<String> got = new ArrayList<>();
        try (c) {
            for (boolean ok = forward ? c.first() : c.last(); ok; ok = forward ? c.next() : c.prev()) {
                got.add(s(c.keyBytes()));
            }
        }
        return got;
    }

    @MatrixTest
    void autoPrefixModeCursorsGiveTotalOrderAnswersAndUseThePrefixFilter() {
        CursorOptions auto = CursorOptions.defaults().autoPrefixMode(true);
        TreeMap<String, String> model = new TreeMap<>();
        ColumnFamily cf;
        if (options().engine() == Engine.LMDB) { // no prefix extractor: the option has no effect
            cf = store.defaultColumnFamily();
        } else {
            store.close();
            store = Store.open(dir.resolve("db"), options().statistics(true));
            cf = store.createColumnFamily("events", ColumnFamilyOptions.of().fixedPrefixLength(4).bloomBitsPerKey(10));
        }
        for (int file = 0; file < 4; file++) { // four table files, each with its own prefixes
            for (int i = 0; i < 300; i++) {
                String k = String.format("u%03d/%05d", file * 10 + i % 10, i);
                model.put(k, "v" + i);
                store.put(cf, b(k), b("v" + i));
            }
            store.flush(cf);
        }
        store.put(cf, b("u"), b("short")); // shorter than the prefix
        model.put("u", "short");
        long checked = options().engine() == Engine.ROCKSDB ? seekFilterChecks() : 0;
        for (int p = 0; p < 45; p++) {
            String prefix = String.format("u%03d", p);
            List<String> want = new ArrayList<>(model.subMap(prefix, prefix + "\uffff").keySet());
            Cursor c;
            try {
                c = store.cursor(cf, KeyRange.prefix(b(prefix)), auto);
            } catch (FerryException.NotSupported e) { // a RocksDB whose C API lacks auto_prefix_mode
                assertTrue(e.getMessage().contains("autoPrefixMode"), e.getMessage());
                return;
            }
            assertEquals(want, keysOf(c, true), prefix);
            List<String> reversed = new ArrayList<>(want);
            java.util.Collections.reverse(reversed);
            assertEquals(reversed, keysOf(store.cursor(cf, KeyRange.prefix(b(prefix)), auto), false), prefix);
        }
        // ranges across prefixes, and a seek inside a prefix: the total-order answers
        assertEquals(new ArrayList<>(model.subMap("u005/00299", true, "u027", true).keySet()),
                keysOf(store.cursor(cf, KeyRange.closed(b("u005/00299"), b("u027")), auto), true));
        assertEquals(new ArrayList<>(model.keySet()), keysOf(store.cursor(cf, KeyRange.all(), auto), true));
        try (Cursor c = store.cursor(cf, KeyRange.prefix(b("u013")), auto)) {
            assertTrue(c.seek(b("u013/00150")));
            assertEquals(model.ceilingKey("u013/00150"), s(c.keyBytes()));
        }
        if (options().engine() == Engine.ROCKSDB) {
            long after = seekFilterChecks();
            assertTrue(after > checked, "prefix seeks in automatic prefix mode checked no prefix filter");
            for (int p = 0; p < 45; p++) { // total order (the default) leaves the prefix filters alone
                keysOf(store.cursor(cf, KeyRange.prefix(b(String.format("u%03d", p))), null), true);
            }
            assertEquals(after, seekFilterChecks());
        }
    }

    /** RocksDB's count of table files whose prefix filter a seek consulted (ruled out or matched). */
    private long seekFilterChecks() {
        Statistics st = store.statistics();
        long n = 0;
        for (String t : List.of("rocksdb.last.level.seek.filtered", "rocksdb.last.level.seek.filter.match",
                "rocksdb.non.last.level.seek.filtered", "rocksdb.non.last.level.seek.filter.match")) {
            n += st.ticker(t);
        }
        return n;
    }

    @MatrixTest
    void familyWithPrefixExtractorAndBloomAnswersPrefixRangesAndGets() {
        ColumnFamilyOptions o = ColumnFamilyOptions.of().fixedPrefixLength(4).bloomBitsPerKey(10).blockSize(1024)
                .compression(Compression.LZ4);
        if (options().engine() == Engine.LMDB) {
            FerryException.NotSupported e = assertThrows(FerryException.NotSupported.class,
                    () -> store.createColumnFamily("events", o));
            assertTrue(e.getMessage().contains("RocksDB"), e.getMessage());
            assertTrue(store.columnFamily("events").isEmpty());
            return;
        }
        ColumnFamily cf = store.createColumnFamily("events", o);
        TreeMap<String, String> model = new TreeMap<>();
        for (int i = 0; i < 600; i++) {
            String k = String.format("u%03d/%05d", i % 37, i);
            model.put(k, "v" + i);
            store.put(cf, b(k), b("v" + i));
        }
        store.put(cf, b("u"), b("short")); // shorter than the prefix: no prefix, still a key
        model.put("u", "short");
        store.flush(cf);
        for (int p = 0; p < 40; p++) {
            String prefix = String.format("u%03d", p);
            List<String> want = new ArrayList<>(model.subMap(prefix, prefix + "\uffff").keySet());
            List<String> got = new ArrayList<>();
            try (Cursor c = store.cursor(cf, KeyRange.prefix(b(prefix)), null)) {
                while (c.next()) {
                    got.add(s(c.keyBytes()));
                }
            }
            assertEquals(want, got, prefix);
        }
        // a range across prefixes is exact too (cursors seek in total order)
        try (Cursor c = store.cursor(cf, KeyRange.closed(b("u005/00999"), b("u007")), null)) {
            List<String> got = new ArrayList<>();
            while (c.next()) {
                got.add(s(c.keyBytes()));
            }
            assertEquals(new ArrayList<>(model.subMap("u005/00999", true, "u007", true).keySet()), got);
        }
        for (Map.Entry<String, String> e : model.entrySet()) {
            assertEquals(e.getValue(), s(store.get(cf, b(e.getKey()))), e.getKey());
        }
        assertNull(store.get(cf, b("u099/00001"))); // a prefix with no keys
        assertNull(store.get(cf, b("u001/99999")));
        String section = optionsFileSection(store.path(), "events");
        assertTrue(section.contains("prefix_extractor=rocksdb.FixedPrefix.4"), section);
        assertTrue(section.contains("compression=kLZ4Compression"), section);
        assertTrue(section.contains("block_size=1024"), section);
        assertTrue(section.toLowerCase(java.util.Locale.ROOT).contains("bloom"), section);
        // the default family keeps the store's options
        String dflt = optionsFileSection(store.path(), "default");
        assertTrue(dflt.contains("prefix_extractor=nullptr"), dflt);
        assertFalse(dflt.contains("block_size=1024"), dflt);
    }

    @MatrixTest
    void familiesWithNoCompressionAndLz4BothRoundTripAndKeepTheirSettingsAtReopen() {
        ColumnFamilyOptions none = ColumnFamilyOptions.of().compression(Compression.NONE);
        ColumnFamilyOptions lz4 = ColumnFamilyOptions.of().compression(Compression.LZ4).blockSize(16384);
        if (options().engine() == Engine.LMDB) {
            assertThrows(FerryException.NotSupported.class, () -> store.createColumnFamily("plain", none));
            store.close();
            FerryException.NotSupported e = assertThrows(FerryException.NotSupported.class,
                    () -> Store.open(dir.resolve("db"), options().columnFamily("plain", lz4)));
            assertTrue(e.getMessage().contains("plain"), e.getMessage());
            // nothing set: accepted, a plain family
            store = Store.open(dir.resolve("db"), options().columnFamily("plain", ColumnFamilyOptions.of()));
            ColumnFamily cf = store.createColumnFamily("plain", ColumnFamilyOptions.of());
            store.put(cf, b("k"), b("v"));
            assertEquals("v", s(store.get(cf, b("k"))));
            return;
        }
        ColumnFamily a = store.createColumnFamily("plain", none);
        ColumnFamily z = store.createColumnFamily("packed", lz4);
        byte[] value = b("abcdefgh".repeat(64));
        for (int i = 0; i < 300; i++) {
            store.put(a, b("k" + i), value);
            store.put(z, b("k" + i), value);
        }
        store.flush(a);
        store.flush(z);
        for (int i = 0; i < 300; i += 7) {
            assertArrayEquals(value, store.get(a, b("k" + i)));
            assertArrayEquals(value, store.get(z, b("k" + i)));
        }
        long plainBytes = store.propertyLong(a, "rocksdb.total-sst-files-size").orElseThrow();
        long packedBytes = store.propertyLong(z, "rocksdb.total-sst-files-size").orElseThrow();
        assertTrue(packedBytes < plainBytes, "lz4 " + packedBytes + " bytes, none " + plainBytes);
        store.close();
        store = Store.open(dir.resolve("db"), withFamilies(Map.of("plain", none, "packed", lz4)));
        ColumnFamily a2 = store.columnFamily("plain").orElseThrow();
        ColumnFamily z2 = store.columnFamily("packed").orElseThrow();
        assertTrue(optionsFileSection(store.path(), "plain").contains("compression=kNoCompression"));
        String packed = optionsFileSection(store.path(), "packed");
        assertTrue(packed.contains("compression=kLZ4Compression") && packed.contains("block_size=16384"), packed);
        assertArrayEquals(value, store.get(a2, b("k299")));
        assertArrayEquals(value, store.get(z2, b("k0")));
        // opened without them, the families have the store's options and their files stay readable
        store.close();
        store = Store.open(dir.resolve("db"), options().compression(Compression.SNAPPY));
        assertTrue(optionsFileSection(store.path(), "packed").contains("compression=kSnappyCompression"));
        assertArrayEquals(value, store.get(store.columnFamily("packed").orElseThrow(), b("k5")));
    }

    @MatrixTest
    void familyWithMergeOperatorMergesWhileDefaultRefusesAndNeedsItAgainAtReopen() {
        ColumnFamilyOptions counts = ColumnFamilyOptions.of().mergeOperator(MergeOperator.UINT64_ADD);
        if (options().engine() == Engine.LMDB) {
            assertThrows(FerryException.NotSupported.class, () -> store.createColumnFamily("counts", counts));
            return;
        }
        ColumnFamily c = store.createColumnFamily("counts", counts);
        ColumnFamily plain = store.createColumnFamily("plain");
        for (int i = 1; i <= 10; i++) {
            store.merge(c, b("hits"), le64(i));
        }
        try (WriteBatch w = new WriteBatch()) {
            w.merge(c, b("hits"), le64(45));
            store.write(w);
        }
        assertEquals(100, le64(store.get(c, b("hits"))));
        FerryException.NotSupported e = assertThrows(FerryException.NotSupported.class, () -> store.merge(b("hits"), le64(1)));
        assertTrue(e.getMessage().contains("merge operator"), e.getMessage());
        assertThrows(FerryException.NotSupported.class, () -> store.merge(plain, b("hits"), le64(1)));
        try (WriteBatch w = new WriteBatch()) {
            w.put(c, b("before"), b("1")).merge(plain, b("k"), le64(1));
            assertThrows(FerryException.NotSupported.class, () -> store.write(w));
        }
        assertNull(store.get(c, b("before")));
        assertTrue(optionsFileSection(store.path(), "counts").contains("merge_operator="));
        store.flush(c);
        store.close();
        // without the family's operator the open fails, naming the family; with it, the counts go on
        FerryException.InvalidArgument bad = assertThrows(FerryException.InvalidArgument.class,
                () -> Store.open(dir.resolve("db"), options()));
        assertTrue(bad.getMessage().contains("'counts'"), bad.getMessage());
        store = Store.open(dir.resolve("db"), options().columnFamily("counts", counts));
        ColumnFamily c2 = store.columnFamily("counts").orElseThrow();
        store.merge(c2, b("hits"), le64(-1));
        assertEquals(99, le64(store.get(c2, b("hits"))));
        assertThrows(FerryException.NotSupported.class, () -> store.merge(b("hits"), le64(1)));
        // a store-wide operator serves the family as well
        store.close();
        store = Store.open(dir.resolve("db"), options().mergeOperator(MergeOperator.UINT64_ADD));
        store.merge(store.columnFamily("counts").orElseThrow(), b("hits"), le64(1));
        assertEquals(100, le64(store.get(store.columnFamily("counts").orElseThrow(), b("hits"))));
    }

    @MatrixTest
    void columnFamilyOptionsRefuseValuesOutOfRange() {
        ColumnFamilyOptions o = ColumnFamilyOptions.of();
        assertTrue(o.isEmpty());
        assertThrows(IllegalArgumentException.class, () -> o.bloomBitsPerKey(-1));
        assertThrows(IllegalArgumentException.class, () -> o.bloomBitsPerKey(dev.ferry.internal.Abi.CFOPT_MAX_BLOOM_BITS + 1));
        o.bloomBitsPerKey(dev.ferry.internal.Abi.CFOPT_MAX_BLOOM_BITS);
        assertThrows(IllegalArgumentException.class, () -> o.blockSize(0));
        assertThrows(IllegalArgumentException.class, () -> o.blockSize(dev.ferry.internal.Abi.CFOPT_MAX_BLOCK_SIZE + 1));
        o.blockSize(dev.ferry.internal.Abi.CFOPT_MAX_BLOCK_SIZE);
        assertThrows(IllegalArgumentException.class, () -> o.fixedPrefixLength(-1));
        assertThrows(IllegalArgumentException.class, () -> o.fixedPrefixLength(dev.ferry.internal.Abi.CFOPT_MAX_PREFIX_LEN + 1));
        o.fixedPrefixLength(dev.ferry.internal.Abi.CFOPT_MAX_PREFIX_LEN);
        assertThrows(NullPointerException.class, () -> o.compression(null));
        assertThrows(NullPointerException.class, () -> o.mergeOperator(null));
        assertThrows(IllegalArgumentException.class, () -> options().columnFamily("", o));
        assertThrows(IllegalArgumentException.class, () -> options().columnFamily("a\0b", o));
        assertThrows(NullPointerException.class, () -> options().columnFamily("a", null));
        ColumnFamilyOptions set = o.blockSize(4096).fixedPrefixLength(0).bloomBitsPerKey(0);
        assertFalse(set.isEmpty());
        assertEquals(set, ColumnFamilyOptions.of().bloomBitsPerKey(0).fixedPrefixLength(0).blockSize(4096));
        assertEquals(4096, set.blockSize().getAsInt());
        assertTrue(o.isEmpty(), "setters return copies");
        // bloom 0 and prefix 0 turn them off even when set store-wide; valid on RocksDB
        if (options().engine() == Engine.ROCKSDB) {
            ColumnFamily cf = store.createColumnFamily("off", set);
            store.put(cf, b("k"), b("v"));
            assertEquals("v", s(store.get(cf, b("k"))));
            assertThrows(FerryException.AlreadyExists.class, () -> store.createColumnFamily("off", set));
        } else {
            assertThrows(FerryException.NotSupported.class, () -> store.createColumnFamily("off", set));
        }
        store.close();
        assertThrows(IllegalStateException.class, () -> store.createColumnFamily("late", set));
        store = Store.open(dir.resolve("db"), options());
    }

    @MatrixTest
    void familyFlagsAreKeptAcrossReopen() {
        if (!lmdb()) {
            return;
        }
        store.createColumnFamily("d", java.util.EnumSet.of(ColumnFamilyFlag.DUPSORT));
        store.createColumnFamily("f", java.util.EnumSet.of(ColumnFamilyFlag.DUPSORT, ColumnFamilyFlag.DUPFIXED));
        store.createColumnFamily("p");
        assertThrows(FerryException.AlreadyExists.class,
                () -> store.createColumnFamily("p", java.util.EnumSet.of(ColumnFamilyFlag.DUPSORT)));
        store.close();
        store = Store.open(dir.resolve("db"), options());
        assertEquals(java.util.Set.of(ColumnFamilyFlag.DUPSORT), store.columnFamily("d").orElseThrow().flags());
        assertEquals(java.util.Set.of(ColumnFamilyFlag.DUPSORT, ColumnFamilyFlag.DUPFIXED),
                store.columnFamily("f").orElseThrow().flags());
        assertEquals(java.util.Set.of(), store.columnFamily("p").orElseThrow().flags());
        assertEquals(java.util.Set.of(), store.defaultColumnFamily().flags());
        ColumnFamily d = store.columnFamily("d").orElseThrow();
        store.put(d, b("k"), b("1"));
        store.put(d, b("k"), b("2"));
        assertEquals(2, store.valueCount(d, b("k")));
    }
}
