package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** Range splits and parallel scans (issue 35), on every engine x binding. */
@Matrix(Target.Slice.ENGINES)
class ParallelScanContractTest {
    @TempDir
    Path dir;
    Store store;
    ColumnFamily cf;
    Target target;

    /** @return options choosing engine and binding */
    StoreOptions options() {
        return target.options();
    }

    @BeforeEach
    void open(Target t) {
        target = t;
        store = Store.open(dir.resolve("db"), options());
        cf = store.defaultColumnFamily();
    }

    @AfterEach
    void close() {
        store.close();
    }

    static byte[] dec(long i) {
        return String.format("%016d", i).getBytes(StandardCharsets.US_ASCII);
    }

    private void fillDecimal(Store s, int n) {
        WriteBatch b = new WriteBatch();
        for (int i = 0; i < n; i++) {
            b.put(dec(i), ("v" + i).getBytes(StandardCharsets.US_ASCII));
            if (b.count() == 1000) {
                s.write(b);
                b = new WriteBatch();
            }
        }
        if (b.count() > 0) {
            s.write(b);
        }
    }

    private static List<byte[]> keys(Store s, ColumnFamily cf, KeyRange r) {
        List<byte[]> out = new ArrayList<>();
        s.scan(cf, r, (k, v) -> out.add(k.toByteArray()));
        return out;
    }

    /** The sub-ranges are contiguous, in order, and start and end where the range does. */
    private static void assertTiles(KeyRange range, List<KeyRange> splits) {
        assertFalse(splits.isEmpty());
        assertArrayEquals(range.lower(), splits.get(0).lower(), "first lower bound");
        assertArrayEquals(range.upper(), splits.get(splits.size() - 1).upper(), "last upper bound");
        for (int i = 1; i < splits.size(); i++) {
            byte[] up = splits.get(i - 1).upper();
            byte[] lo = splits.get(i).lower();
            assertArrayEquals(up, lo, "split " + i + " starts where split " + (i - 1) + " ends");
            if (i > 1 || range.lower() != null) {
                assertTrue(Arrays.compareUnsigned(splits.get(i - 1).lower(), up) < 0, "split " + (i - 1) + " not empty");
            }
        }
    }

    @MatrixTest
    void splitsCoverTheRangeExactly() {
        fillDecimal(store, 5000);
        List<KeyRange> ranges = List.of(KeyRange.all(), KeyRange.closedOpen(dec(100), dec(4321)), KeyRange.atLeast(dec(2500)),
                KeyRange.lessThan(dec(777)), KeyRange.open(dec(10), dec(4990)), KeyRange.prefix(dec(1234).clone()),
                KeyRange.closed(dec(0), dec(4999)), KeyRange.atLeast(dec(9999)), KeyRange.closedOpen(dec(5), dec(6)));
        for (KeyRange r : ranges) {
            List<byte[]> all = keys(store, cf, r);
            for (int n : new int[] {1, 2, 3, 7, 8, 32, 1000}) {
                List<KeyRange> splits = store.split(cf, r, n);
                assertTrue(splits.size() <= n, r + " n=" + n + ": " + splits.size());
                assertTiles(r, splits);
                List<byte[]> joined = new ArrayList<>();
                for (KeyRange s : splits) {
                    joined.addAll(keys(store, cf, s));
                }
                assertEquals(all.size(), joined.size(), r + " n=" + n);
                for (int i = 0; i < all.size(); i++) {
                    assertArrayEquals(all.get(i), joined.get(i), r + " n=" + n + " entry " + i);
                }
                if (all.size() >= 2 * n && n <= 8) {
                    assertEquals(n, splits.size(), r + " n=" + n + ": a range of many keys gives n sub-ranges");
                }
            }
        }
    }

    @MatrixTest
    void splitsOfAnEmptyOrOneKeyRangeAreTheRange() {
        assertEquals(List.of(KeyRange.all()), store.split(cf, KeyRange.all(), 4));
        store.put(dec(1), dec(1));
        KeyRange r = KeyRange.atLeast(dec(0));
        assertEquals(List.of(r), store.split(cf, r, 4));
    }

    private void assertBalanced(List<KeyRange> splits, int n, long total) {
        assertEquals(n, splits.size());
        for (KeyRange s : splits) {
            long c = store.scan(cf, s, (k, v) -> true);
            double ratio = c * (double) n / total;
            assertTrue(ratio > 0.8 && ratio < 1.2, s + " holds " + c + " of " + total + " entries (x" + ratio + " the mean)");
        }
    }

    @MatrixTest
    void splitsOfEvenKeysHoldSimilarEntryCounts() {
        fillDecimal(store, 100_000);
        for (int n : new int[] {2, 4, 8}) {
            assertBalanced(store.split(cf, KeyRange.all(), n), n, 100_000);
        }
        store.deleteRange(cf, dec(0), dec(100_000));
        Random rnd = new Random(7);
        WriteBatch b = new WriteBatch();
        for (int i = 0; i < 50_000; i++) {
            byte[] k = new byte[16];
            rnd.nextBytes(k);
            k[0] = (byte) (k[0] | 1); // no empty key, no family-name clash
            b.put(k, k);
        }
        store.write(b);
        long total = store.scan(cf, KeyRange.all(), (k, v) -> true);
        for (int n : new int[] {2, 8}) {
            assertBalanced(store.split(cf, KeyRange.all(), n), n, total);
        }
    }

    @MatrixTest
    void parallelScanVisitsEveryEntryOnce() {
        fillDecimal(store, 20_000);
        for (int threads : new int[] {1, 2, 3, 4}) {
            ConcurrentLinkedQueue<String> seen = new ConcurrentLinkedQueue<>();
            long n = store.parallelScan(cf, KeyRange.closedOpen(dec(17), dec(19_990)), threads,
                    () -> (k, v) -> seen.add(new String(k.toByteArray(), StandardCharsets.US_ASCII)));
            assertEquals(19_990 - 17, n);
            List<String> sorted = new ArrayList<>(seen);
            Collections.sort(sorted);
            assertEquals(19_990 - 17, sorted.size());
            for (int i = 0; i < sorted.size(); i++) {
                assertEquals(new String(dec(17 + i), StandardCharsets.US_ASCII), sorted.get(i));
            }
        }
    }

    /**
     * A writer moves entries around in atomic batches (one delete and one put each, so a consistent
     * state always holds N entries whose values sum to a constant) while parallel scans run: every
     * scan must see exactly one state, and a snapshot's parallel scan must see what its sequential
     * scan sees.
     */
    @MatrixTest
    void parallelScanReadsOneStateBesideAWriter() throws Exception {
        int n = 20_000;
        fillDecimal(store, n);
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<Throwable> writerFailure = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            Random rnd = new Random(1);
            long next = n;
            List<Long> live = new ArrayList<>();
            for (long i = 0; i < n; i++) {
                live.add(i);
            }
            try {
                while (!done.get()) {
                    int at = rnd.nextInt(live.size());
                    long victim = live.get(at);
                    long fresh = rnd.nextBoolean() ? next++ : victim; // a move or a rewrite of the same key
                    byte[] value = store.get(cf, dec(victim));
                    WriteBatch b = new WriteBatch();
                    b.delete(dec(victim));
                    b.put(dec(fresh), value);
                    store.write(b);
                    live.set(at, fresh);
                }
            } catch (Throwable t) {
                writerFailure.set(t);
            }
        }, "writer");
        writer.start();
        try {
            for (int round = 0; round < 6; round++) {
                try (Snapshot snap = store.snapshot()) {
                    List<String> sequential = new ArrayList<>();
                    snap.scan(cf, KeyRange.all(), (k, v) -> sequential.add(new String(k.toByteArray(), StandardCharsets.US_ASCII) + "=" + new String(v.toByteArray(), StandardCharsets.US_ASCII)));
                    ConcurrentLinkedQueue<String> parallel = new ConcurrentLinkedQueue<>();
                    long c = snap.parallelScan(cf, KeyRange.all(), 2 + round % 3,
                            () -> (k, v) -> parallel.add(new String(k.toByteArray(), StandardCharsets.US_ASCII) + "=" + new String(v.toByteArray(), StandardCharsets.US_ASCII)));
                    assertEquals(sequential.size(), c);
                    List<String> p = new ArrayList<>(parallel);
                    Collections.sort(p);
                    List<String> s = new ArrayList<>(sequential);
                    Collections.sort(s);
                    assertEquals(s, p, "round " + round);
                    assertEquals(n, s.size(), "a snapshot holds one state");
                }
                AtomicInteger count = new AtomicInteger();
                ConcurrentLinkedQueue<String> values = new ConcurrentLinkedQueue<>();
                long c = store.parallelScan(cf, KeyRange.all(), 3, () -> (k, v) -> {
                    count.incrementAndGet();
                    values.add(new String(v.toByteArray(), StandardCharsets.US_ASCII));
                    return true;
                });
                assertEquals(n, c, "store scan round " + round);
                assertEquals(n, count.get());
                assertEquals(n, values.stream().distinct().count(), "every value once: none missed, none repeated");
            }
        } finally {
            done.set(true);
            writer.join();
        }
        assertSame(null, writerFailure.get());
    }

    @MatrixTest
    void aVisitorReturningFalseStopsTheScan() {
        fillDecimal(store, 10_000);
        AtomicInteger seen = new AtomicInteger();
        long n = store.parallelScan(cf, KeyRange.all(), 2, () -> (k, v) -> seen.incrementAndGet() < 10);
        assertTrue(n < 10_000, "stopped early: " + n);
    }

    @MatrixTest
    void aVisitorsExceptionIsRethrownAndTheStoreStaysUsable() {
        fillDecimal(store, 10_000);
        IllegalStateException boom = new IllegalStateException("boom");
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> store.parallelScan(cf, KeyRange.all(), 3, () -> (k, v) -> {
                    throw boom;
                }));
        assertSame(boom, e);
        assertEquals(10_000, store.parallelScan(cf, KeyRange.all(), 2, () -> (k, v) -> true));
    }

    @MatrixTest
    void closingTheSnapshotDuringAParallelScanThrowsAndDoesNotCrash() {
        fillDecimal(store, 20_000);
        Snapshot snap = store.snapshot();
        AtomicInteger seen = new AtomicInteger();
        assertThrows(RuntimeException.class, () -> snap.parallelScan(cf, KeyRange.all(), 2, () -> (k, v) -> {
            if (seen.incrementAndGet() == 100) {
                snap.close();
            }
            k.toByteArray();
            v.toByteArray();
            return true;
        }));
        assertTrue(snap.isClosed());
        assertEquals(20_000, store.parallelScan(cf, KeyRange.all(), 2, () -> (k, v) -> true));
    }

    /**
     * A huge sub-range or thread count is an answer of at most one sub-range per key, not billions of
     * seeks (before the fix, {@code split(cf, all, Integer.MAX_VALUE)} seeked once per requested
     * sub-range: hours), and {@code threads x 4} does not overflow into a refused negative count.
     */
    @MatrixTest
    @org.junit.jupiter.api.Timeout(value = 120, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
    void hugeCountsAreAnsweredNotSeekedThrough() {
        fillDecimal(store, 300);
        for (int n : new int[] {Integer.MAX_VALUE, Integer.MAX_VALUE - 1, 1 << 30, 1_000_000}) {
            List<KeyRange> splits = store.split(cf, KeyRange.all(), n);
            assertTiles(KeyRange.all(), splits);
            assertTrue(splits.size() <= 300, n + ": " + splits.size() + " sub-ranges for 300 keys");
            long c = 0;
            for (KeyRange r : splits) {
                c += store.scan(cf, r, (k, v) -> true);
            }
            assertEquals(300, c);
        }
        // keys equal in their first twelve bytes after the common prefix: no progress by interpolation
        try (Store s = Store.open(dir.resolve("flat"), options())) {
            for (int i = 0; i < 5; i++) {
                byte[] k = new byte[20];
                k[0] = 'a';
                k[19] = (byte) i;
                s.put(k, new byte[] {1});
            }
            s.put(new byte[] {'a'}, new byte[] {1});
            List<KeyRange> splits = s.split(s.defaultColumnFamily(), KeyRange.all(), Integer.MAX_VALUE);
            assertTiles(KeyRange.all(), splits);
            assertEquals(6, s.parallelScan(s.defaultColumnFamily(), KeyRange.all(), Integer.MAX_VALUE, () -> (k, v) -> true));
        }
        assertEquals(300, store.parallelScan(cf, KeyRange.all(), Integer.MAX_VALUE, () -> (k, v) -> true));
        assertEquals(300, store.parallelScan(cf, KeyRange.all(), 1 << 29, () -> (k, v) -> true));
    }

    @MatrixTest
    void misuseThrows() throws Exception {
        fillDecimal(store, 100);
        assertThrows(IllegalArgumentException.class, () -> store.split(cf, KeyRange.all(), 0));
        assertThrows(IllegalArgumentException.class, () -> store.parallelScan(cf, KeyRange.all(), 0, () -> (k, v) -> true));
        assertThrows(NullPointerException.class, () -> store.split(cf, null, 2));
        assertThrows(NullPointerException.class, () -> store.parallelScan(cf, KeyRange.all(), 2, null));
        assertThrows(NullPointerException.class, () -> store.parallelScan(cf, KeyRange.all(), 2, () -> null));

        // a family of another store
        try (Store other = Store.open(dir.resolve("other"), options())) {
            assertThrows(IllegalArgumentException.class, () -> store.split(other.defaultColumnFamily(), KeyRange.all(), 2));
            assertThrows(IllegalArgumentException.class,
                    () -> store.parallelScan(other.defaultColumnFamily(), KeyRange.all(), 2, () -> (k, v) -> true));
            // splits are plain ranges: those of one store tile the same range of another
            fillDecimal(other, 50);
            List<KeyRange> splits = store.split(cf, KeyRange.all(), 4);
            long c = 0;
            for (KeyRange s : splits) {
                c += other.scan(other.defaultColumnFamily(), s, (k, v) -> true);
            }
            assertEquals(50, c);
        }

        // a closed snapshot
        Snapshot snap = store.snapshot();
        snap.close();
        assertThrows(IllegalStateException.class, () -> snap.split(cf, KeyRange.all(), 2));
        assertThrows(IllegalStateException.class, () -> snap.parallelScan(cf, KeyRange.all(), 2, () -> (k, v) -> true));

        // a thread-bound (LMDB) snapshot used from another thread
        if (options().engine() == Engine.LMDB) {
            try (Snapshot bound = store.snapshot()) {
                AtomicReference<Throwable> t = new AtomicReference<>();
                Thread other = new Thread(() -> {
                    try {
                        bound.split(cf, KeyRange.all(), 2);
                    } catch (Throwable e) {
                        t.set(e);
                    }
                });
                other.start();
                other.join();
                assertTrue(t.get() instanceof IllegalStateException, String.valueOf(t.get()));
            }
        }

        // a closed store
        store.close();
        assertThrows(IllegalStateException.class, () -> store.split(cf, KeyRange.all(), 2));
        assertThrows(IllegalStateException.class, () -> store.parallelScan(cf, KeyRange.all(), 2, () -> (k, v) -> true));
    }
}
