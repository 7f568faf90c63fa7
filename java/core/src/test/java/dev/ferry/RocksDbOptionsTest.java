package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** RocksDB open options reach the engine and take effect. */
class RocksDbOptionsTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Compression.class)
    void everyCompressionWritesReadableFiles(Compression c) throws Exception {
        try (Store s = Store.open(dir.resolve(c.name()), StoreOptions.rocksdb().binding("jni").compression(c)
                .bloomBitsPerKey(10).blockCacheSize(8 << 20).maxOpenFiles(64))) {
            for (int i = 0; i < 2000; i++) {
                s.put(("key" + i).getBytes(), ("value value value " + i).getBytes());
            }
            s.flush();
            assertArrayEquals("value value value 1999".getBytes(), s.get("key1999".getBytes()));
            String opts = optionsFile(dir.resolve(c.name()));
            String expect = c == Compression.NONE ? "kNoCompression" : c == Compression.SNAPPY ? "kSnappyCompression"
                    : c == Compression.LZ4 ? "kLZ4Compression" : "kZSTD";
            assertTrue(opts.contains("compression=" + expect), "OPTIONS file names " + expect);
            assertTrue(opts.contains("max_open_files=64"));
            assertTrue(opts.contains("bloomfilter"), "bloom filter configured");
        }
    }

    @Test
    void walOffAndSyncWritesOpen() {
        try (Store s = Store.open(dir.resolve("nowal"), StoreOptions.rocksdb().binding("jni").wal(false))) {
            s.put(new byte[] {1}, new byte[] {2});
            s.flush();
        }
        try (Store s = Store.open(dir.resolve("nowal"), StoreOptions.rocksdb().binding("jni").syncWrites(true))) {
            assertArrayEquals(new byte[] {2}, s.get(new byte[] {1}), "flushed before close");
            s.put(new byte[] {3}, new byte[] {4});
        }
    }

    @Test
    void optionsStringIsAppliedAndBadOnesAreRejected() throws Exception {
        try (Store s = Store.open(dir.resolve("str"), StoreOptions.rocksdb().binding("jni")
                .rocksdbOptions("write_buffer_size=1048576;max_write_buffer_number=5"))) {
            s.put(new byte[] {1}, new byte[] {2});
            s.flush();
            String opts = optionsFile(dir.resolve("str"));
            assertTrue(opts.contains("write_buffer_size=1048576"));
            assertTrue(opts.contains("max_write_buffer_number=5"));
        }
        FerryException e = assertThrows(FerryException.InvalidArgument.class,
                () -> Store.open(dir.resolve("bad"), StoreOptions.rocksdb().binding("jni").rocksdbOptions("no_such_option=1")));
        assertEquals(ErrorCode.ENGINE_INVALID_ARGUMENT, e.code());
        assertEquals(4, e.engineCode(), "RocksDB Status::kInvalidArgument");
    }

    /**
     * A prefix extractor (common in RocksJava applications, settable through the options string)
     * must not change what a range holds: Ferry's cursors seek in total order.
     */
    @Test
    void rangesAreExactWithAPrefixExtractorAndPrefixBlooms() {
        StoreOptions o = StoreOptions.rocksdb().binding("jni").bloomBitsPerKey(10)
                .rocksdbOptions("prefix_extractor=rocksdb.FixedPrefix.2;memtable_prefix_bloom_size_ratio=0.2");
        try (Store s = Store.open(dir.resolve("prefix"), o)) {
            for (String k : new String[] {"aa1", "aa2", "cc1", "cc2", "ee1"}) {
                s.put(k.getBytes(), k.getBytes());
            }
            s.flush();
            s.put("dd1".getBytes(), "dd1".getBytes()); // one in the memtable too
            for (String lower : new String[] {"ab", "bb", "cc0", "d"}) {
                java.util.List<String> got = new java.util.ArrayList<>();
                s.scan(KeyRange.atLeast(lower.getBytes()), (k, v) -> got.add(k.toUtf8String()));
                java.util.List<String> want = java.util.stream.Stream.of("aa1", "aa2", "cc1", "cc2", "dd1", "ee1")
                        .filter(k -> k.compareTo(lower) >= 0).toList();
                assertEquals(want, got, "scan from " + lower);
                try (Cursor c = s.cursor()) {
                    assertTrue(c.seek(lower.getBytes()), "seek " + lower);
                    assertEquals(want.get(0), c.key().toUtf8String(), "seek " + lower);
                }
            }
        }
    }

    /** Another comparator would break Ferry's unsigned byte order: refused before the engine sees it. */
    @Test
    void aComparatorOtherThanBytewiseIsRefused() {
        FerryException e = assertThrows(FerryException.InvalidArgument.class, () -> Store.open(dir.resolve("cmp"),
                StoreOptions.rocksdb().binding("jni").rocksdbOptions("write_buffer_size=1048576; comparator = rocksdb.ReverseBytewiseComparator")));
        assertTrue(e.getMessage().contains("comparator=rocksdb.ReverseBytewiseComparator"), e.getMessage());
        assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
        try (Store s = Store.open(dir.resolve("cmp2"), StoreOptions.rocksdb().binding("jni").rocksdbOptions("comparator=leveldb.BytewiseComparator"))) {
            s.put(new byte[] {1}, new byte[] {2});
        }
    }

    /**
     * A table format without range deletes (PlainTable, CuckooTable): RocksDB would fail a range
     * delete only after writing its WAL and then refuse every later write. Refused at open, also
     * when a later repetition of a key overrides an accepted one (RocksDB applies the last).
     */
    @Test
    void aTableFormatWithoutRangeDeletesIsRefused() {
        for (String bad : new String[] {"table_factory=PlainTable", "table_factory={id=CuckooTable}",
                "comparator=leveldb.BytewiseComparator;comparator=rocksdb.ReverseBytewiseComparator"}) {
            FerryException e = assertThrows(FerryException.InvalidArgument.class,
                    () -> Store.open(dir.resolve("refused"), StoreOptions.rocksdb().binding("jni").rocksdbOptions(bad)));
            assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
            assertTrue(e.getMessage().contains(bad.substring(bad.lastIndexOf(';') + 1)), e.getMessage());
        }
    }

    /** Found by the misuse fuzzer: this pair opened, then every write failed. Now the open refuses it. */
    @Test
    void syncWritesWithoutTheWriteAheadLogIsRefusedAtOpen() {
        FerryException e = assertThrows(FerryException.InvalidArgument.class,
                () -> Store.open(dir.resolve("sync"), StoreOptions.rocksdb().binding("jni").wal(false).syncWrites(true)));
        assertTrue(e.getMessage().contains("syncWrites needs the write-ahead log"), e.getMessage());
        assertTrue(java.nio.file.Files.notExists(dir.resolve("sync").resolve("CURRENT")), "nothing was created");
    }

    private static String optionsFile(Path db) throws Exception {
        try (Stream<Path> files = Files.list(db)) {
            Path latest = files.filter(p -> p.getFileName().toString().startsWith("OPTIONS-")).sorted().reduce((a, b) -> b).orElseThrow();
            return Files.readString(latest);
        }
    }
}
