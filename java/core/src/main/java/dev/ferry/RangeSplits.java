package dev.ferry;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
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
 * cursor moves; 64 keys spread evenly between them (as numbers: the 12 bytes after their common
 * prefix, base 256) are looked up with seeks, and the byte values each of those 12 positions takes
 * among the keys found give it a radix of its own (decimal digits: 10, random bytes: 256). The n - 1
 * boundaries are then spread evenly in that mixed-radix number space and moved to the first existing
 * key at or above each (a seek each), so every sub-range starts on a key of the snapshot; duplicates
 * are dropped (fewer than n sub-ranges). That is about 70 + n seeks whatever the range's size, and
 * splits keys that fill their space evenly (sequential numbers, hashes, UUIDs) into sub-ranges of
 * near-equal entry counts. Skewed keys give unequal sub-ranges: a parallel scan therefore cuts the
 * range into several sub-ranges per thread and lets each thread take the next one when it is done.
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

    private RangeSplits() {
    }

    /** Splits {@code range} of {@code cf} into at most {@code n} sub-ranges, reading through {@code c}. */
    static List<KeyRange> split(Cursor c, KeyRange range, int n) {
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
        List<KeyRange> out = new ArrayList<>(bounds.size() + 1);
        byte[] lower = range.lowerRef();
        byte[] upper = range.upperRef();
        byte[] from = lower;
        for (byte[] k : bounds) {
            out.add(from == null ? KeyRange.lessThan(k) : KeyRange.closedOpen(from, k));
            from = k;
        }
        if (from == lower) {
            return one;
        }
        out.add(upper == null ? KeyRange.atLeast(from) : KeyRange.closedOpen(from, upper));
        return List.copyOf(out);
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
        Thread[] ts = new Thread[Math.max(0, workers)];
        for (int t = 0; t < ts.length; t++) {
            ts[t] = new Thread(work, "ferry-parallel-scan-" + t);
            ts[t].setDaemon(true);
            ts[t].start();
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
}
