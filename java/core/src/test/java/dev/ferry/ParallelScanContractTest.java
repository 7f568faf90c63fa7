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
        assertBalanced(splits, n, total, 0.2);
    }

    private void assertBalanced(List<KeyRange> splits, int n, long total, double bound) {
        assertEquals(n, splits.size());
        for (KeyRange s : splits) {
            long c = store.scan(cf, s, (k, v) -> true);
            double ratio = c * (double) n / total;
            assertTrue(ratio > 1 - bound && ratio < 1 + bound, s + " holds " + c + " of " + total + " entries (x" + ratio + " the mean)");
        }
    }

    @MatrixTest
    void splitsOfEvenKeysHoldSimilarEntryCounts() {
        fillDecimal(store, 100_000);
        // RocksDB: the entries are in the memtable, whose size estimates (from the skip list's random
        // node heights) are documented within +-50%, not 20% (CI saw x1.2); in table files +-20%
        double memtable = options().engine() == Engine.ROCKSDB ? 0.5 : 0.2;
        for (int n : new int[] {2, 4, 8}) {
            assertBalanced(store.split(cf, KeyRange.all(), n), n, 100_000, memtable);
        }
        if (options().engine() == Engine.ROCKSDB) {
            store.flush();
            for (int n : new int[] {2, 4, 8}) {
                assertBalanced(store.split(cf, KeyRange.all(), n), n, 100_000);
            }
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

    /** The skew shapes of {@link #splitsOfSkewedKeysHoldSimilarEntryCounts}: each writes about 100,000 keys. */
    enum Skew {
        /** 90% of the keys under one prefix, 10% spread over the whole byte range. */
        ONE_HOT_PREFIX,
        /** Five dense runs of consecutive numbers far apart, and a few sparse keys between them. */
        DENSE_RUNS,
        /** Squares written as fixed-width numbers: dense at the low end, ever sparser above. */
        SQUARES,
        /** One huge run of keys that share a 24-byte prefix (their numbers after it), beside a few short keys. */
        LONG_SHARED_PREFIX
    }

    private static void fillSkewed(Store s, Skew shape) {
        Random rnd = new Random(shape.ordinal() + 11);
        WriteBatch b = new WriteBatch();
        byte[] v = new byte[24];
        for (int i = 0; i < 100_000; i++) {
            byte[] k;
            switch (shape) {
                case ONE_HOT_PREFIX:
                    if (i % 10 != 0) {
                        k = ("hot/" + String.format("%012d", rnd.nextInt(1_000_000_000))).getBytes(StandardCharsets.US_ASCII);
                    } else {
                        k = new byte[12];
                        rnd.nextBytes(k);
                        k[0] = (byte) (k[0] | 1);
                    }
                    break;
                case DENSE_RUNS:
                    if (i % 50 == 0) {
                        k = dec(Math.floorMod(rnd.nextLong(), 10_000_000_000_000_000L));
                    } else {
                        k = dec((i % 5) * 1_000_000_000_000L + 3_000_000_000L * (i % 5) + i);
                    }
                    break;
                case SQUARES:
                    k = dec((long) i * i);
                    break;
                default:
                    if (i % 100 == 0) {
                        k = ("k" + i).getBytes(StandardCharsets.US_ASCII);
                    } else {
                        k = ("user-profile/region-eu/" + String.format("%010d", i)).getBytes(StandardCharsets.US_ASCII);
                    }
            }
            rnd.nextBytes(v);
            b.put(k, v);
            if (b.count() == 1000) {
                s.write(b);
                b = new WriteBatch();
            }
        }
        if (b.count() > 0) {
            s.write(b);
        }
    }

    /** Entries per sub-range, as multiples of the mean. */
    private double[] shares(List<KeyRange> splits, int n, long total) {
        double[] out = new double[splits.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = store.scan(cf, splits.get(i), (k, v) -> true) * (double) n / total;
        }
        return out;
    }

    /**
     * Skewed keys split as evenly as even ones: the splits follow the engine's own structure (LMDB's
     * B+tree pages, RocksDB's approximate sizes of its table files), so every sub-range holds within
     * ±20% of the mean entry count, for several skew shapes. On RocksDB the data is flushed to table
     * files first; {@link #splitsOfSkewedKeysInARocksDbMemtable} covers data still in the memtable.
     */
    @MatrixTest
    void splitsOfSkewedKeysHoldSimilarEntryCounts() {
        for (Skew shape : Skew.values()) {
            try (Store s = Store.open(dir.resolve("skew-" + shape), options())) {
                Store saved = store;
                store = s;
                cf = s.defaultColumnFamily();
                try {
                    fillSkewed(s, shape);
                    s.flush();
                    long total = s.scan(cf, KeyRange.all(), (k, v) -> true);
                    for (int n : new int[] {2, 4, 8}) {
                        List<KeyRange> splits = s.split(cf, KeyRange.all(), n);
                        assertTiles(KeyRange.all(), splits);
                        assertEquals(n, splits.size(), shape + " n=" + n);
                        double[] sh = shares(splits, n, total);
                        for (int i = 0; i < sh.length; i++) {
                            assertTrue(sh[i] > 0.8 && sh[i] < 1.2, shape + " n=" + n + ": sub-range " + i + " holds x" + sh[i]
                                    + " the mean (" + Arrays.toString(sh) + ")");
                        }
                    }
                    // a part of the range: the splits of the hot middle of the data
                    byte[] lo = s.split(cf, KeyRange.all(), 8).get(2).lower();
                    byte[] hi = s.split(cf, KeyRange.all(), 8).get(6).lower();
                    KeyRange part = KeyRange.closedOpen(lo, hi);
                    long inPart = s.scan(cf, part, (k, v) -> true);
                    List<KeyRange> splits = s.split(cf, part, 4);
                    assertTiles(part, splits);
                    double[] sh = shares(splits, 4, inPart);
                    for (double x : sh) {
                        assertTrue(x > 0.8 && x < 1.2, shape + " part: " + Arrays.toString(sh));
                    }
                } finally {
                    store = saved;
                    cf = saved.defaultColumnFamily();
                }
            }
        }
    }

    /**
     * Data still in a RocksDB memtable: RocksDB weighs it with its memtable's own estimates (where the
     * library has {@code rocksdb_approximate_sizes_cf_with_flags}, rocksdbjni 10.1.3 and 11.8.1), which are
     * coarser than a table file's index: the bound checked here is the weaker one docs/usage.md states,
     * every sub-range within ±50% of the mean. LMDB has no memtable: the same bound as above holds.
     */
    @MatrixTest
    void splitsOfSkewedKeysInARocksDbMemtable() {
        for (Skew shape : Skew.values()) {
            try (Store s = Store.open(dir.resolve("mem-" + shape), options())) {
                fillSkewed(s, shape);
                ColumnFamily d = s.defaultColumnFamily();
                long total = s.scan(d, KeyRange.all(), (k, v) -> true);
                double bound = options().engine() == Engine.LMDB ? 0.2 : 0.5;
                for (int n : new int[] {2, 4, 8}) {
                    List<KeyRange> splits = s.split(d, KeyRange.all(), n);
                    assertTiles(KeyRange.all(), splits);
                    assertEquals(n, splits.size(), shape + " n=" + n);
                    double[] sh = new double[n];
                    for (int i = 0; i < n; i++) {
                        sh[i] = s.scan(d, splits.get(i), (k, v) -> true) * (double) n / total;
                    }
                    for (int i = 0; i < n; i++) {
                        assertTrue(sh[i] > 1 - bound && sh[i] < 1 + bound, shape + " n=" + n + ": " + Arrays.toString(sh));
                    }
                }
            }
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

    /** Executors of every kind a caller may hand to {@code parallelScan}: pools, a direct one, one that rejects. */
    private static List<java.util.concurrent.Executor> executors(List<java.util.concurrent.ExecutorService> owned) {
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(3);
        owned.add(pool);
        return List.of(pool, java.util.concurrent.ForkJoinPool.commonPool(), Runnable::run,
                r -> new Thread(r, "caller-thread").start(), r -> {
                    throw new java.util.concurrent.RejectedExecutionException("full");
                });
    }

    @MatrixTest
    void parallelScanOnAnExecutorVisitsEveryEntryOnce() throws Exception {
        fillDecimal(store, 20_000);
        List<java.util.concurrent.ExecutorService> owned = new ArrayList<>();
        try {
            for (java.util.concurrent.Executor ex : executors(owned)) {
                for (int threads : new int[] {1, 2, 3, 4}) {
                    ConcurrentLinkedQueue<String> seen = new ConcurrentLinkedQueue<>();
                    long n;
                    try (Snapshot snap = store.snapshot()) {
                        n = snap.parallelScan(cf, KeyRange.closedOpen(dec(17), dec(19_990)), threads, ex,
                                () -> (k, v) -> seen.add(new String(k.toByteArray(), StandardCharsets.US_ASCII)));
                    }
                    assertEquals(19_990 - 17, n);
                    List<String> sorted = new ArrayList<>(seen);
                    Collections.sort(sorted);
                    assertEquals(19_990 - 17, sorted.size(), ex + " threads=" + threads);
                    for (int i = 0; i < sorted.size(); i++) {
                        assertEquals(new String(dec(17 + i), StandardCharsets.US_ASCII), sorted.get(i));
                    }
                    assertEquals(20_000, store.parallelScan(cf, KeyRange.all(), threads, ex, () -> (k, v) -> true));
                }
            }
        } finally {
            owned.forEach(java.util.concurrent.ExecutorService::shutdownNow);
        }
    }

    /**
     * An executor whose only thread is busy: the caller reads every sub-range itself and returns without
     * waiting for the queued task, which later starts, finds the scan over and touches nothing (the
     * snapshot is closed by then).
     */
    @MatrixTest
    void aBusyExecutorCostsParallelismNotAWait() throws Exception {
        fillDecimal(store, 5_000);
        java.util.concurrent.ExecutorService one = java.util.concurrent.Executors.newSingleThreadExecutor();
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        try {
            one.execute(() -> {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            AtomicInteger visitors = new AtomicInteger();
            assertEquals(5_000, store.parallelScan(cf, KeyRange.all(), 2, one, () -> {
                visitors.incrementAndGet();
                return (k, v) -> true;
            }));
            int made = visitors.get();
            release.countDown();
            one.shutdown();
            assertTrue(one.awaitTermination(30, java.util.concurrent.TimeUnit.SECONDS));
            assertEquals(made, visitors.get(), "the late task asked for no visitor");
        } finally {
            one.shutdownNow();
        }
    }

    @MatrixTest
    void aVisitorsExceptionOnAnExecutorIsRethrown() {
        fillDecimal(store, 10_000);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            IllegalStateException boom = new IllegalStateException("boom");
            AtomicInteger seen = new AtomicInteger();
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> store.parallelScan(cf, KeyRange.all(), 3, pool, () -> (k, v) -> {
                        if (seen.incrementAndGet() == 500) {
                            throw boom;
                        }
                        return true;
                    }));
            assertSame(boom, e);
            AtomicInteger stopped = new AtomicInteger();
            long n = store.parallelScan(cf, KeyRange.all(), 3, pool, () -> (k, v) -> stopped.incrementAndGet() < 10);
            assertTrue(n < 10_000, "stopped early: " + n);
            assertEquals(10_000, store.parallelScan(cf, KeyRange.all(), 3, pool, () -> (k, v) -> true));
        } finally {
            pool.shutdownNow();
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
                    java.util.function.Supplier<EntryVisitor> add = () -> (k, v) -> parallel.add(new String(k.toByteArray(), StandardCharsets.US_ASCII) + "=" + new String(v.toByteArray(), StandardCharsets.US_ASCII));
                    long c = round % 2 == 0 ? snap.parallelScan(cf, KeyRange.all(), 2 + round % 3, add)
                            : snap.parallelScan(cf, KeyRange.all(), 2 + round % 3, java.util.concurrent.ForkJoinPool.commonPool(), add);
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
                java.util.function.Supplier<EntryVisitor> collect = () -> (k, v) -> {
                    count.incrementAndGet();
                    values.add(new String(v.toByteArray(), StandardCharsets.US_ASCII));
                    return true;
                };
                long c = round % 2 == 0 ? store.parallelScan(cf, KeyRange.all(), 3, collect)
                        : store.parallelScan(cf, KeyRange.all(), 3, java.util.concurrent.ForkJoinPool.commonPool(), collect);
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

    /**
     * Issue 43: a helper thread that cannot be started (the system has no thread left) fails the scan,
     * but only after the helpers already started have stopped: no visitor runs once the call has thrown.
     * The started helper stays inside its first visit until the caller waits for it (the fix) or the
     * call has thrown (before it), so the count is the same on every run.
     */
    @MatrixTest
    void aHelperThatCannotStartFailsTheScanOnlyOnceTheStartedOnesStopped() throws Exception {
        fillDecimal(store, 2000);
        List<KeyRange> splits = store.split(cf, KeyRange.all(), 6);
        assertTrue(splits.size() >= 3, "sub-ranges: " + splits.size());
        Thread caller = Thread.currentThread();
        java.util.concurrent.CountDownLatch firstVisit = new java.util.concurrent.CountDownLatch(1);
        AtomicBoolean startFailed = new AtomicBoolean();
        AtomicBoolean thrown = new AtomicBoolean();
        AtomicInteger visits = new AtomicInteger();
        List<Thread> started = new java.util.concurrent.CopyOnWriteArrayList<>();
        AtomicInteger made = new AtomicInteger();
        java.util.concurrent.ThreadFactory factory = r -> {
            if (made.getAndIncrement() == 0) {
                Thread t = new Thread(r, "scan-helper-0");
                started.add(t);
                return t;
            }
            return new Thread(r, "scan-helper-that-cannot-start") {
                @Override
                public synchronized void start() {
                    try {
                        firstVisit.await(); // the started helper is inside its first visit
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    startFailed.set(true);
                    throw new OutOfMemoryError("unable to create native thread (test)");
                }
            };
        };
        java.util.function.Supplier<EntryVisitor> visitors = () -> (k, v) -> {
            if (visits.incrementAndGet() == 1) {
                firstVisit.countDown();
                // hold this visit until the caller waits for the helpers, or until the call has thrown
                while (!thrown.get() && !(startFailed.get() && caller.getState() == Thread.State.WAITING)) {
                    Thread.yield();
                }
            }
            return true;
        };
        try (Snapshot snap = store.snapshot()) {
            OutOfMemoryError e = assertThrows(OutOfMemoryError.class,
                    () -> RangeSplits.parallelScan(snap, cf, splits, 3, null, factory, visitors));
            int atThrow = visits.get();
            thrown.set(true);
            for (Thread t : started) {
                t.join();
            }
            assertTrue(e.getMessage().contains("(test)"), e.getMessage());
            assertEquals(1, atThrow, "visits when the scan threw");
            assertEquals(atThrow, visits.get(), "visits after the scan threw");
        }
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
        java.util.concurrent.Executor direct = Runnable::run;
        assertThrows(NullPointerException.class, () -> store.parallelScan(cf, KeyRange.all(), 2, null, () -> (k, v) -> true));
        assertThrows(NullPointerException.class, () -> store.parallelScan(cf, KeyRange.all(), 2, direct, null));
        assertThrows(IllegalArgumentException.class, () -> store.parallelScan(cf, KeyRange.all(), 0, direct, () -> (k, v) -> true));
        assertThrows(NullPointerException.class, () -> store.parallelScan(cf, KeyRange.all(), 2, direct, () -> null));

        // a family of another store
        try (Store other = Store.open(dir.resolve("other"), options())) {
            assertThrows(IllegalArgumentException.class, () -> store.split(other.defaultColumnFamily(), KeyRange.all(), 2));
            assertThrows(IllegalArgumentException.class,
                    () -> store.parallelScan(other.defaultColumnFamily(), KeyRange.all(), 2, () -> (k, v) -> true));
            assertThrows(IllegalArgumentException.class,
                    () -> store.parallelScan(other.defaultColumnFamily(), KeyRange.all(), 2, direct, () -> (k, v) -> true));
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
        assertThrows(IllegalStateException.class, () -> snap.parallelScan(cf, KeyRange.all(), 2, direct, () -> (k, v) -> true));

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
        assertThrows(IllegalStateException.class, () -> store.parallelScan(cf, KeyRange.all(), 2, direct, () -> (k, v) -> true));
    }
}
