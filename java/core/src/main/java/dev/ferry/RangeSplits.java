package dev.ferry;

import dev.ferry.internal.NativeCalls;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Range splitting and parallel scans behind {@link Snapshot#split}, {@link Store#split},
 * {@link Snapshot#parallelScan} and {@link Store#parallelScan}.
 *
 * <p>How a range is split: the first and last keys of the range in the snapshot are found with two
 * cursor moves. Then the engine is asked where the range's data lies ({@code ferry_split_points}: LMDB
 * reads the separator keys of its B+tree pages and the node counts of their pages, RocksDB weighs pieces
 * of the range with its approximate sizes from the table files' indexes and the memtables): a list of
 * keys, each with the share of the data that follows it. The {@code n - 1} boundaries are placed where
 * the running total of those weights crosses {@code i / n} of the whole, interpolated within the piece
 * that holds that point (its first and last keys read as numbers after their common prefix), and moved
 * to the first existing key at or above (a seek each), so every sub-range starts on a key of the
 * snapshot. Skewed keys split as evenly as even ones, since the engine's structure follows the data.
 *
 * <p>Where the engine has nothing to say (an LMDB tree of one page or a DUPSORT family, a RocksDB
 * library that cannot weigh its memtables while they hold entries, or weights that place fewer than
 * {@code n} sub-ranges), the split samples instead: 64 keys spread evenly between the first and last
 * (as numbers: the 12 bytes after their common prefix, base 256) are looked up with seeks, and the
 * byte values each of those 12 positions takes among the keys found give it a radix of its own
 * (decimal digits: 10, random bytes: 256). The n - 1 boundaries are then spread evenly in that
 * mixed-radix number space and moved to the first existing key at or above each. That splits keys
 * that fill their space evenly (sequential numbers, hashes, UUIDs) into sub-ranges of near-equal entry
 * counts, skewed ones unevenly: a parallel scan therefore cuts the range into several sub-ranges per
 * thread and lets each thread take the next one when it is done. Duplicates are dropped (fewer than n
 * sub-ranges).
 *
 * <p>The sub-ranges are plain {@link KeyRange}s: contiguous, non-overlapping, in key order, and
 * their union is exactly the range given, in every state of every store; only their balance depends
 * on the state they were computed from.
 */
final class RangeSplits {
    /** Bytes after the common prefix that the interpolation looks at. */
    private static final int DIGITS = 12;
    /** Seeks used to learn the byte range of each position. */
    private static final int PROBES = 64;
    /** Sub-ranges per thread in a parallel scan. */
    static final int SPLITS_PER_THREAD = 4;
    /** Probes in a row that find no new boundary before a split stops looking. */
    private static final int MAX_MISSES = 1024;

    /** Most sub-ranges placed by the engine's weights; more are placed by sampling, which skips ahead. */
    static final int MAX_WEIGHTED = 4096;

    /**
     * Whether splits ask the engine where the data lies ({@code -Dferry.split.engine=false}: sampling
     * only, for comparisons in benchmarks; read at each split).
     *
     * @return false when the property says so
     */
    static boolean enginePoints() {
        return !"false".equals(System.getProperty("ferry.split.engine"));
    }

    private RangeSplits() {
    }

    /**
     * The number of split points to ask the engine for, for {@code n} sub-ranges: LMDB reads the same
     * pages whatever the number, so as many as it offers (finer weights); RocksDB spends about two size
     * estimates and two seeks per point, so 24 per sub-range (at least 96): 1M entries split in 8 in
     * about 1-3 ms with every sub-range within 8% of the mean (docs/benchmarks.md, "Parallel scans").
     */
    static int pointsFor(Engine engine, int n) {
        return engine == Engine.LMDB ? 4096 : (int) Math.max(96, Math.min(4096, 24L * n));
    }

    /** The engine's split points of {@code range} of family {@code id} through {@code view} (ferry_split_points). */
    static NativeCalls.SplitPoints points(StoreCore core, long view, int id, KeyRange range, int n) {
        return core.calls.splitPoints(core.handle, view, id, range.lowerRef(), range.upperRef(), pointsFor(core.engine, n));
    }

    /** Splits {@code range} into at most {@code n} sub-ranges, reading through {@code c}, by sampling only. */
    static List<KeyRange> split(Cursor c, KeyRange range, int n) {
        return split(c, range, n, null);
    }

    /**
     * Splits {@code range} into at most {@code n} sub-ranges, reading through {@code c}, placing the
     * boundaries by the engine's split points where it gave some ({@code points} non-null).
     */
    static List<KeyRange> split(Cursor c, KeyRange range, int n, NativeCalls.SplitPoints points) {
        Objects.requireNonNull(range, "range");
        if (n < 1) {
            throw new IllegalArgumentException("n=" + n + " (at least 1 sub-range)");
        }
        List<KeyRange> one = List.of(range);
        if (n == 1 || range.isEmpty() || !c.first()) {
            return one;
        }
        byte[] first = c.keyBytes();
        if (!c.last()) {
            return one;
        }
        byte[] last = c.keyBytes();
        if (Arrays.compareUnsigned(first, last) >= 0) {
            return one;
        }
        List<KeyRange> weighted = null;
        if (points != null && points.keys().length >= 2 && n <= MAX_WEIGHTED) {
            weighted = weighted(c, range, n, first, last, points);
            if (weighted != null && weighted.size() == n) {
                return weighted;
            }
        }
        List<KeyRange> sampled = sampled(c, range, n, first, last);
        return weighted != null && weighted.size() >= sampled.size() ? weighted : sampled;
    }

    /**
     * Boundaries where the running total of the engine's weights crosses {@code i / n} of the whole,
     * interpolated within the piece holding that point; null when the weights are all zero.
     */
    private static List<KeyRange> weighted(Cursor c, KeyRange range, int n, byte[] first, byte[] last,
                                           NativeCalls.SplitPoints points) {
        byte[][] keys = points.keys();
        long[] w = points.weights();
        double total = 0;
        for (long x : w) {
            total += Math.max(0, x);
        }
        if (total <= 0) {
            return null;
        }
        byte[] end = Arrays.copyOf(last, last.length + 1); // just past the last key
        List<byte[]> bounds = new ArrayList<>();
        byte[] prev = first;
        double cum = 0;
        int i = 0;
        for (int j = 1; j < n; j++) {
            double target = total * j / n;
            while (i < w.length - 1 && cum + Math.max(0, w[i]) <= target) {
                cum += Math.max(0, w[i]);
                i++;
            }
            double f = w[i] <= 0 ? 0 : Math.min(1, Math.max(0, (target - cum) / w[i]));
            byte[] lo = i == 0 || Arrays.compareUnsigned(keys[i], first) < 0 ? first : keys[i];
            byte[] hi = i + 1 < keys.length && Arrays.compareUnsigned(keys[i + 1], end) < 0 ? keys[i + 1] : end;
            byte[] probe = Arrays.compareUnsigned(lo, hi) < 0 ? between(lo, hi, f) : lo;
            if (Arrays.compareUnsigned(probe, prev) <= 0) {
                continue; // lands on the boundary before: no new one
            }
            if (!c.seek(probe)) {
                break; // past the last key: every later target is too
            }
            byte[] k = c.keyBytes();
            if (Arrays.compareUnsigned(k, prev) > 0) {
                bounds.add(k);
                prev = k;
            }
        }
        return tiles(range, bounds);
    }

    /**
     * A key at fraction {@code f} of the way from {@code lo} to {@code hi} ({@code lo < hi}), reading
     * the 8 bytes after their common prefix as numbers; at least {@code lo}, below {@code hi}.
     */
    static byte[] between(byte[] lo, byte[] hi, double f) {
        int p = Arrays.mismatch(lo, hi);
        if (p < 0) {
            return lo;
        }
        BigInteger a = BigInteger.ZERO;
        BigInteger b = BigInteger.ZERO;
        for (int j = 0; j < 8; j++) {
            a = a.shiftLeft(8).add(BigInteger.valueOf(p + j < lo.length ? lo[p + j] & 0xFF : 0));
            b = b.shiftLeft(8).add(BigInteger.valueOf(p + j < hi.length ? hi[p + j] & 0xFF : 0));
        }
        BigInteger span = b.subtract(a);
        if (span.signum() <= 0) {
            return lo;
        }
        BigInteger v = a.add(span.multiply(BigInteger.valueOf((long) (f * (1L << 40)))).shiftRight(40));
        if (v.compareTo(b) >= 0) {
            v = b.subtract(BigInteger.ONE);
        }
        byte[] k = Arrays.copyOf(lo, p + 8);
        for (int j = 7; j >= 0; j--) {
            k[p + j] = (byte) v.intValue();
            v = v.shiftRight(8);
        }
        int len = k.length;
        while (len > p + 1 && k[len - 1] == 0) {
            len--;
        }
        byte[] out = len == k.length ? k : Arrays.copyOf(k, len);
        return Arrays.compareUnsigned(out, lo) < 0 ? lo : out;
    }

    /** The sub-ranges of {@code range} that start at {@code bounds} (in key order, each inside the range). */
    private static List<KeyRange> tiles(KeyRange range, List<byte[]> bounds) {
        List<KeyRange> out = new ArrayList<>(bounds.size() + 1);
        byte[] lower = range.lowerRef();
        byte[] upper = range.upperRef();
        byte[] from = lower;
        for (byte[] k : bounds) {
            out.add(from == null ? KeyRange.lessThan(k) : KeyRange.closedOpen(from, k));
            from = k;
        }
        if (from == lower) {
            return List.of(range);
        }
        out.add(upper == null ? KeyRange.atLeast(from) : KeyRange.closedOpen(from, upper));
        return List.copyOf(out);
    }

    /** The sampling split (see the class comment). */
    private static List<KeyRange> sampled(Cursor c, KeyRange range, int n, byte[] first, byte[] last) {
        int p = Arrays.mismatch(first, last);
        // learn each position's byte range from keys found by plain base-256 interpolation
        int[] lo = new int[DIGITS];
        int[] hi = new int[DIGITS];
        Arrays.fill(lo, 255);
        note(first, p, lo, hi);
        note(last, p, lo, hi);
        int[] base256 = new int[DIGITS];
        Arrays.fill(base256, 256);
        int[] zero = new int[DIGITS];
        BigInteger a = value(first, p, zero, base256);
        BigInteger b = value(last, p, zero, base256);
        for (int i = 1; i < PROBES; i++) {
            byte[] probe = key(first, p, interpolate(a, b, i, PROBES), zero, base256);
            if (c.seek(probe)) {
                note(c.keyBytes(), p, lo, hi);
            }
        }
        int[] radix = new int[DIGITS];
        for (int j = 0; j < DIGITS; j++) {
            if (hi[j] < lo[j]) { // no key reaches this position
                lo[j] = 0;
                hi[j] = 0;
            }
            radix[j] = hi[j] - lo[j] + 1;
        }
        a = value(first, p, lo, radix);
        b = value(last, p, lo, radix);
        List<byte[]> bounds = new ArrayList<>();
        byte[] prev = first;
        BigInteger span = b.subtract(a);
        BigInteger bigN = BigInteger.valueOf(n);
        int misses = 0;
        for (int i = 1; i < n; ) {
            byte[] probe = key(first, p, interpolate(a, b, i, n), lo, radix);
            if (!c.seek(probe)) {
                break;
            }
            byte[] k = c.keyBytes();
            if (Arrays.compareUnsigned(k, prev) > 0) {
                bounds.add(k);
                prev = k;
                misses = 0;
            } else if (++misses > MAX_MISSES) {
                break; // keys outside the learned digit ranges: fewer, coarser sub-ranges, never a long loop
            }
            // Skip the indexes whose probes are no greater than k, which land on k again: the next
            // one is the first i with a + span * i / n > value(k). Without this, a huge n (more
            // sub-ranges than keys) cost one seek per requested sub-range.
            if (span.signum() <= 0) {
                break;
            }
            BigInteger next = value(k, p, lo, radix).subtract(a).add(BigInteger.ONE).multiply(bigN).add(span)
                    .subtract(BigInteger.ONE).divide(span);
            i = next.compareTo(BigInteger.valueOf(i)) <= 0 ? i + 1 : next.compareTo(bigN) >= 0 ? n : next.intValue();
        }
        return tiles(range, bounds);
    }

    private static void note(byte[] k, int p, int[] lo, int[] hi) {
        for (int j = 0; j < DIGITS; j++) {
            int v = p + j < k.length ? k[p + j] & 0xFF : 0;
            lo[j] = Math.min(lo[j], v);
            hi[j] = Math.max(hi[j], v);
        }
    }

    /** The key's bytes after the prefix as a mixed-radix number (digits clamped to their range). */
    private static BigInteger value(byte[] k, int p, int[] lo, int[] radix) {
        BigInteger v = BigInteger.ZERO;
        for (int j = 0; j < DIGITS; j++) {
            int d = (p + j < k.length ? k[p + j] & 0xFF : 0) - lo[j];
            d = Math.max(0, Math.min(radix[j] - 1, d));
            v = v.multiply(BigInteger.valueOf(radix[j])).add(BigInteger.valueOf(d));
        }
        return v;
    }

    private static BigInteger interpolate(BigInteger a, BigInteger b, int i, int n) {
        return a.add(b.subtract(a).multiply(BigInteger.valueOf(i)).divide(BigInteger.valueOf(n)));
    }

    /** The prefix of {@code first} (p bytes) followed by v's digits as bytes. */
    private static byte[] key(byte[] first, int p, BigInteger v, int[] lo, int[] radix) {
        byte[] k = Arrays.copyOf(first, p + DIGITS);
        for (int j = DIGITS - 1; j >= 0; j--) {
            BigInteger[] qr = v.divideAndRemainder(BigInteger.valueOf(radix[j]));
            k[p + j] = (byte) (qr[1].intValue() + lo[j]);
            v = qr[0];
        }
        int end = k.length;
        while (end > p + 1 && k[end - 1] == 0) {
            end--;
        }
        return end == k.length ? k : Arrays.copyOf(k, end);
    }

    /**
     * Scans the sub-ranges on {@code threads} threads (the caller's among them), each sub-range with
     * a cursor of its own through {@code snap}, visited by a visitor from {@code visitors}.
     */
    static long parallelScan(Snapshot snap, ColumnFamily cf, List<KeyRange> splits, int threads,
                             Supplier<? extends EntryVisitor> visitors) {
        return parallelScan(snap, cf, splits, threads, null, visitors);
    }

    /**
     * As {@link #parallelScan(Snapshot, ColumnFamily, List, int, Supplier)}, the {@code threads - 1}
     * helpers run as tasks of {@code executor} (null: threads of Ferry's own). A task that starts after
     * the caller has found no sub-range left does nothing, so the call never waits for tasks the
     * executor has not started; a task the executor rejects leaves its share to the others.
     */
    static long parallelScan(Snapshot snap, ColumnFamily cf, List<KeyRange> splits, int threads, Executor executor,
                             Supplier<? extends EntryVisitor> visitors) {
        return parallelScan(snap, cf, splits, threads, executor, null, visitors);
    }

    /**
     * As {@link #parallelScan(Snapshot, ColumnFamily, List, int, Executor, Supplier)}; without an executor
     * the helper threads come from {@code threadFactory} (null: daemon threads named
     * {@code ferry-parallel-scan-<i>}). A thread that cannot be made or started fails the scan: the helpers
     * already started are stopped and joined before the failure is thrown, so no visitor runs after it.
     */
    static long parallelScan(Snapshot snap, ColumnFamily cf, List<KeyRange> splits, int threads, Executor executor,
                             ThreadFactory threadFactory, Supplier<? extends EntryVisitor> visitors) {
        AtomicInteger next = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong total = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Runnable work = () -> {
            try {
                for (int i; !stop.get() && (i = next.getAndIncrement()) < splits.size(); ) {
                    EntryVisitor v = Objects.requireNonNull(visitors.get(), "visitor");
                    long n = 0;
                    try (Cursor c = snap.workerCursor(cf, splits.get(i))) {
                        for (boolean ok = c.first(); ok && !stop.get(); ok = c.next()) {
                            n++;
                            if (!v.visit(c.key(), c.value())) {
                                stop.set(true);
                            }
                        }
                    }
                    total.addAndGet(n);
                }
            } catch (Throwable t) {
                stop.set(true);
                failure.compareAndSet(null, t);
            }
        };
        int workers = Math.min(threads, splits.size()) - 1;
        if (executor != null) {
            Gate gate = new Gate();
            for (int t = 0; t < workers && !stop.get(); t++) {
                try {
                    executor.execute(() -> {
                        if (gate.enter()) {
                            try {
                                work.run();
                            } finally {
                                gate.exit();
                            }
                        }
                    });
                } catch (RejectedExecutionException e) {
                    break; // fewer helpers: the threads that run read the rest
                } catch (RuntimeException | Error e) {
                    stop.set(true);
                    failure.compareAndSet(null, e);
                }
            }
            work.run();
            if (gate.close(stop)) {
                Thread.currentThread().interrupt();
            }
            return result(failure, total);
        }
        List<Thread> ts = new ArrayList<>(Math.max(0, workers));
        try {
            for (int t = 0; t < workers; t++) {
                Thread th = threadFactory == null ? new Thread(work, "ferry-parallel-scan-" + t) : threadFactory.newThread(work);
                if (th == null) {
                    throw new IllegalStateException("the thread factory made no thread for parallel scan helper " + t);
                }
                th.setDaemon(true);
                ts.add(th); // joined below even if start fails (a thread never started joins at once)
                th.start(); // OutOfMemoryError ("unable to create native thread") when the system has none left
            }
        } catch (RuntimeException | Error e) {
            // fail the scan, but only once the helpers that run have stopped: none may call a visitor after it
            stop.set(true);
            failure.compareAndSet(null, e);
        }
        work.run();
        boolean interrupted = false;
        for (Thread t : ts) {
            while (true) {
                try {
                    t.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                    stop.set(true);
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return result(failure, total);
    }

    /** The scan's count, or its first failure thrown. */
    private static long result(AtomicReference<Throwable> failure, AtomicLong total) {
        Throwable f = failure.get();
        if (f instanceof RuntimeException) {
            throw (RuntimeException) f;
        }
        if (f instanceof Error) {
            throw (Error) f;
        }
        if (f != null) {
            throw new IllegalStateException(f);
        }
        return total.get();
    }

    /**
     * The executor's tasks of one parallel scan: a task runs the scan's loop only when it starts before
     * the caller closes the gate, and the caller waits for the tasks that did.
     */
    private static final class Gate {
        private int active;
        private boolean closed;

        synchronized boolean enter() {
            if (closed) {
                return false;
            }
            active++;
            return true;
        }

        synchronized void exit() {
            if (--active == 0) {
                notifyAll();
            }
        }

        /** Closes the gate and waits for the tasks inside; an interrupt stops the scan. @return interrupted */
        synchronized boolean close(AtomicBoolean stop) {
            closed = true;
            boolean interrupted = false;
            while (active > 0) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                    stop.set(true);
                }
            }
            return interrupted;
        }
    }
}
