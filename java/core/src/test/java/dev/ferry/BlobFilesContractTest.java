package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * BlobDB settings per column family ({@link ColumnFamilyOptions#blobFiles(BlobOptions)}) on every engine x
 * binding: large values of a blob family go to {@code .blob} files at flush and read back the same through
 * gets, cursors (both directions, seeks, pointer pages asked for), snapshots, compactions and a reopen, next to the small values that
 * stay in the table files; the settings reach RocksDB's OPTIONS file; LMDB refuses them.
 */
@Matrix(Target.Slice.ENGINES)
class BlobFilesContractTest {
    @TempDir
    Path dir;
    Target target;

    @BeforeEach
    void setUp(Target t) {
        target = t;
    }

    private static final BlobOptions BLOBS = BlobOptions.of().minBlobSize(100).blobFileSize(1 << 20)
            .compression(Compression.LZ4).garbageCollection(true).garbageCollectionAgeCutoff(0.5);

    private static byte[] key(int i) {
        return String.format("k%05d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static long blobFiles(Path d) throws IOException {
        try (Stream<Path> s = Files.list(d)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".blob")).count();
        }
    }

    /** Every entry through a cursor; pointer pages asked for (a blob family answers with copies, as it must). */
    private static TreeMap<String, byte[]> scan(StoreReader v, ColumnFamily cf, boolean reverse) {
        TreeMap<String, byte[]> m = new TreeMap<>();
        try (Cursor c = v.cursor(cf, KeyRange.all(), reverse ? null : CursorOptions.defaults().pointers(true))) {
            for (boolean ok = reverse ? c.last() : c.first(); ok; ok = reverse ? c.prev() : c.next()) {
                m.put(new String(c.keyBytes(), StandardCharsets.UTF_8), c.valueBytes());
            }
        }
        return m;
    }

    private static void same(TreeMap<String, byte[]> want, TreeMap<String, byte[]> got) {
        assertEquals(want.keySet(), got.keySet());
        for (String k : want.keySet()) {
            assertArrayEquals(want.get(k), got.get(k), k);
        }
    }

    @MatrixTest
    void lmdbRefusesBlobFiles() {
        if (target.engine != Engine.LMDB) {
            return;
        }
        try (Store s = Store.open(dir.resolve("db"), target.options())) {
            assertThrows(FerryException.NotSupported.class, () -> s.createColumnFamily("b", ColumnFamilyOptions.of().blobFiles(BLOBS)));
        }
    }

    @MatrixTest
    void largeValuesGoToBlobFilesAndReadBackTheSameEverywhere() throws IOException {
        if (target.engine != Engine.ROCKSDB) {
            return;
        }
        assertThrows(IllegalArgumentException.class, () -> BlobOptions.of().minBlobSize(-1));
        assertThrows(IllegalArgumentException.class, () -> BlobOptions.of().garbageCollectionAgeCutoff(1.5));
        ColumnFamilyOptions o = ColumnFamilyOptions.of().blobFiles(BLOBS);
        assertEquals(BLOBS, o.blobFiles().orElseThrow());
        assertFalse(o.isEmpty());
        Path path = dir.resolve("db");
        TreeMap<String, byte[]> want = new TreeMap<>();
        Random r = new Random(44);
        try (Store s = Store.open(path, target.options())) {
            ColumnFamily cf = s.createColumnFamily("blobs", o);
            for (int i = 0; i < 300; i++) {
                byte[] v = new byte[i % 3 == 0 ? 10 : 200 + r.nextInt(2000)]; // every third stays in the table files
                r.nextBytes(v);
                s.put(cf, key(i), v);
                want.put(new String(key(i), StandardCharsets.UTF_8), v);
            }
            assertEquals(0, blobFiles(path));
            s.flush(cf);
            assertTrue(blobFiles(path) > 0, "a flush of large values writes a .blob file");
            try (Snapshot snap = s.snapshot()) {
                s.put(cf, key(1), new byte[500]); // a newer value the snapshot must not see
                same(want, scan(snap, cf, false));
                want.put(new String(key(1), StandardCharsets.UTF_8), new byte[500]);
            }
            same(want, scan(s, cf, false));
            same(want, scan(s, cf, true));
            for (int i = 0; i < 300; i += 7) {
                assertArrayEquals(want.get(new String(key(i), StandardCharsets.UTF_8)), s.get(cf, key(i)));
            }
            try (Cursor c = s.cursor(cf, KeyRange.all(), null)) {
                assertTrue(c.seek(key(150)));
                assertArrayEquals(want.get(new String(key(150), StandardCharsets.UTF_8)), c.valueBytes());
            }
            s.compactRange(cf, null, null);
            same(want, scan(s, cf, false));
        }
        try (Store s = Store.open(path, target.options().columnFamily("blobs", o))) {
            same(want, scan(s, s.columnFamily("blobs").orElseThrow(), false));
        }
        String options;
        try (Stream<Path> files = Files.list(path)) {
            Path newest = files.filter(p -> p.getFileName().toString().startsWith("OPTIONS-")).sorted().reduce((a, b) -> b).orElseThrow();
            options = Files.readString(newest);
        }
        assertTrue(options.contains("enable_blob_files=true"), "the OPTIONS file records the family's blob settings");
        assertTrue(options.contains("min_blob_size=100"));
        assertTrue(options.contains("blob_garbage_collection_age_cutoff=0.5"));
    }
}
