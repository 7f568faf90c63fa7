package dev.ferry.bench.dbbench;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A latency histogram in microseconds with RocksDB's bucket limits (1, 2, then each limit 1.5
 * times the last, cut to two significant digits: 3, 4, 6, 10, 15, 22, 34, ...) and db_bench's
 * printed shape: count, average, standard deviation, min, median, max, the percentile line
 * (P50, P75, P99, P99.9, P99.99, interpolated within a bucket as RocksDB does) and one line per
 * non-empty bucket.
 *
 * <p>Thread safety: not thread-safe; one per benchmark thread, merged at the end.
 */
public final class Histogram {
    /** Upper bucket limits, unsigned. */
    private static final long[] LIMITS = limits();

    private final long[] buckets = new long[LIMITS.length];
    private long min = Long.MAX_VALUE;
    private long max;
    private long num;
    private long sum;
    private double sumSquares;

    private static long[] limits() {
        List<BigInteger> v = new ArrayList<>();
        v.add(BigInteger.ONE);
        v.add(BigInteger.TWO);
        BigDecimal maxU64 = new BigDecimal(new BigInteger("18446744073709551615"));
        double bucket = 2;
        while (new BigDecimal(bucket = 1.5 * bucket).compareTo(maxU64) <= 0) {
            BigInteger b = new BigDecimal(bucket).toBigInteger();
            BigInteger pow = BigInteger.ONE;
            while (b.divide(BigInteger.TEN).compareTo(BigInteger.TEN) > 0) {
                b = b.divide(BigInteger.TEN);
                pow = pow.multiply(BigInteger.TEN);
            }
            v.add(b.multiply(pow));
        }
        long[] r = new long[v.size()];
        for (int i = 0; i < r.length; i++) {
            r[i] = v.get(i).longValue();
        }
        return r;
    }

    /** @return the bucket limits (unsigned; for tests) */
    static long[] bucketLimits() {
        return LIMITS.clone();
    }

    private static int index(long value) {
        if (Long.compareUnsigned(value, LIMITS[LIMITS.length - 1]) >= 0) {
            return LIMITS.length - 1;
        }
        int lo = 0;
        int hi = LIMITS.length - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(LIMITS[mid], value) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * Records one value.
     *
     * @param micros the value, at least 0
     */
    public void add(long micros) {
        buckets[index(micros)]++;
        if (micros < min) {
            min = micros;
        }
        if (micros > max) {
            max = micros;
        }
        num++;
        sum += micros;
        sumSquares += (double) micros * micros;
    }

    /**
     * Adds another histogram's values to this one.
     *
     * @param o the other
     */
    public void merge(Histogram o) {
        min = Math.min(min, o.min);
        max = Math.max(max, o.max);
        num += o.num;
        sum += o.sum;
        sumSquares += o.sumSquares;
        for (int i = 0; i < buckets.length; i++) {
            buckets[i] += o.buckets[i];
        }
    }

    /** @return the number of values */
    public long count() {
        return num;
    }

    /** @return the smallest value, 0 when empty */
    public long min() {
        return num == 0 ? 0 : min;
    }

    /** @return the largest value */
    public long max() {
        return max;
    }

    /** @return the mean */
    public double average() {
        return num == 0 ? 0 : (double) sum / num;
    }

    /** @return the standard deviation */
    public double standardDeviation() {
        if (num == 0) {
            return 0;
        }
        double n = num;
        double s = sum;
        double variance = (sumSquares * n - s * s) / (n * n);
        return Math.sqrt(Math.max(variance, 0.0));
    }

    /**
     * Returns a percentile, interpolated linearly within its bucket and clamped to [min, max].
     *
     * @param p the percentile, 0 to 100
     * @return the value in microseconds
     */
    public double percentile(double p) {
        double threshold = num * (p / 100.0);
        long cumulative = 0;
        for (int b = 0; b < buckets.length; b++) {
            long bucket = buckets[b];
            cumulative += bucket;
            if (cumulative >= threshold) {
                double left = b == 0 ? 0 : unsigned(LIMITS[b - 1]);
                double right = unsigned(LIMITS[b]);
                long leftSum = cumulative - bucket;
                double pos = 0;
                if (cumulative - leftSum != 0) {
                    pos = (threshold - leftSum) / (cumulative - leftSum);
                }
                double r = left + (right - left) * pos;
                if (r < min()) {
                    r = min();
                }
                if (r > max) {
                    r = max;
                }
                return r;
            }
        }
        return max;
    }

    private static double unsigned(long v) {
        return v >= 0 ? v : (double) (v >>> 1) * 2.0 + (v & 1);
    }

    /** @return db_bench's text for this histogram */
    @Override
    public String toString() {
        StringBuilder r = new StringBuilder();
        r.append(String.format(Locale.ROOT, "Count: %d Average: %.4f  StdDev: %.2f%n", num, average(), standardDeviation()));
        r.append(String.format(Locale.ROOT, "Min: %d  Median: %.4f  Max: %d%n", min(), percentile(50), max));
        r.append(String.format(Locale.ROOT, "Percentiles: P50: %.2f P75: %.2f P99: %.2f P99.9: %.2f P99.99: %.2f%n",
                percentile(50), percentile(75), percentile(99), percentile(99.9), percentile(99.99)));
        r.append("------------------------------------------------------\n");
        if (num == 0) {
            return r.toString();
        }
        double mult = 100.0 / num;
        long cumulative = 0;
        for (int b = 0; b < buckets.length; b++) {
            long v = buckets[b];
            if (v <= 0) {
                continue;
            }
            cumulative += v;
            r.append(String.format(Locale.ROOT, "%c %7s, %7s ] %8d %7.3f%% %7.3f%% ", b == 0 ? '[' : '(',
                    b == 0 ? "0" : Long.toUnsignedString(LIMITS[b - 1]), Long.toUnsignedString(LIMITS[b]), v,
                    mult * v, mult * cumulative));
            r.append("#".repeat((int) (mult * v / 5 + 0.5)));
            r.append('\n');
        }
        return r.toString();
    }
}
