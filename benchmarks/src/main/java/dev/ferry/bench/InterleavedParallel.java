package dev.ferry.bench;

import dev.ferry.ColumnFamily;
import dev.ferry.Engine;
import dev.ferry.KeyRange;
import dev.ferry.Store;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Parallel scans (issue 35) measured interleaved, as {@link Interleaved} measures scans: round after
 * round every variant opens the data set, scans it three times and closes, in turn. Variants:
 * {@code floor} (the C floor's one-thread scan), {@code floor-<t>t} (the C floor on t threads over
 * the very sub-ranges Ferry's split gave: floor.h, floor_scan_splits), {@code ferry-1t}
 * ({@code Store.scan}) and {@code ferry-<t>t} ({@code Store.parallelScan}, its split included).
 * Every variant sums the same checksum, which must match the data set's.
 *
 * <p>Also prints the cost of {@code Store.split} alone and the entry count of each sub-range.
 *
 * <p>Usage: {@code InterleavedParallel <ROCKSDB|LMDB> <jni|ffm> <entries> <rounds> <valueSize> <threads>}; prints
 * {@code parallel engine=.. variant=.. best_ns_per_entry=.. ratio_to_floor=.. ratio_to_floor_t=.. round_ratios=..}.
 */
public final class InterleavedParallel {
    private InterleavedParallel() {
    }

    /**
     * @param args engine, binding, entries, rounds, value size, threads
     */
    public static void main(String[] args) {
        Engine engine = Engine.valueOf(args[0]);
        String binding = args[1];
        int entries = Integer.parseInt(args[2]);
        int rounds = Integer.parseInt(args[3]);
        int vs = Integer.parseInt(args[4]);
        int threads = Integer.parseInt(args[5]);
        BenchData.Dataset d = BenchData.dataset(engine, entries, vs);
        NativeFloor.attach(engine, binding);

        // the sub-ranges Ferry's parallel scan uses, for the floor's threads; the split's own cost
        List<byte[]> bounds = new ArrayList<>();
        int nsplits = threads * 4;
        long splitNs = Long.MAX_VALUE;
        try (Store s = Store.open(d.dir, BenchData.options(engine, binding, true))) {
            List<KeyRange> splits = null;
            for (int i = 0; i < 20; i++) {
                long t = System.nanoTime();
                splits = s.split(s.defaultColumnFamily(), KeyRange.all(), nsplits);
                splitNs = Math.min(splitNs, System.nanoTime() - t);
            }
            for (int i = 1; i < splits.size(); i++) {
                bounds.add(splits.get(i).lower());
            }
            long[] counts = new long[splits.size()];
            for (int i = 0; i < splits.size(); i++) {
                counts[i] = s.scan(s.defaultColumnFamily(), splits.get(i), (k, v) -> true);
            }
            long min = Long.MAX_VALUE;
            long max = 0;
            for (long c : counts) {
                min = Math.min(min, c);
                max = Math.max(max, c);
            }
            double mean = entries / (double) counts.length;
            System.out.printf(Locale.ROOT, "parallel engine=%s jvm_binding=%s split_n=%d splits=%d split_best_us=%.1f"
                            + " split_entries_min=%d split_entries_max=%d min_to_mean=%.3f max_to_mean=%.3f counts=%s%n",
                    engine.name().toLowerCase(Locale.ROOT), binding, nsplits, counts.length, splitNs / 1e3, min, max,
                    min / mean, max / mean, java.util.Arrays.toString(counts));
        }

        long expected = d.checksum;
        Store[] store = new Store[1];
        NativeFloor.Db[] floor = new NativeFloor.Db[1];
        Map<String, java.util.function.LongSupplier> scans = new LinkedHashMap<>();
        scans.put("floor", () -> floor[0].scan(false));
        scans.put("floor-" + threads + "t", () -> floor[0].scanSplits(bounds, threads, null));
        scans.put("ferry-1t", () -> {
            long[] sum = new long[1];
            store[0].scan(store[0].defaultColumnFamily(), KeyRange.all(), (k, v) -> {
                sum[0] += BenchData.touch(k, v);
                return true;
            });
            return sum[0];
        });
        scans.put("ferry-" + threads + "t", () -> {
            ColumnFamily cf = store[0].defaultColumnFamily();
            store[0].parallelScan(cf, KeyRange.all(), threads, () -> {
                SumVisitor v = new SumVisitor();
                PENDING.add(v);
                return v;
            });
            return 0; // the visitors' sums are added by drain()
        });
        RoundBests rb = new RoundBests();
        for (int r = 0; r < rounds; r++) {
            for (Map.Entry<String, java.util.function.LongSupplier> v : scans.entrySet()) {
                boolean isFloor = v.getKey().startsWith("floor");
                if (isFloor) {
                    floor[0] = NativeFloor.open(engine, d.dir, true, 0);
                } else {
                    store[0] = Store.open(d.dir, BenchData.options(engine, binding, true));
                }
                try {
                    for (int k = 0; k < 3; k++) {
                        PENDING.clear();
                        long t = System.nanoTime();
                        long sum = v.getValue().getAsLong();
                        long ns = System.nanoTime() - t;
                        sum += drain();
                        BenchData.check("parallel " + v.getKey(), sum, expected);
                        rb.add(v.getKey(), r, ns);
                    }
                } finally {
                    if (isFloor) {
                        floor[0].close();
                    } else {
                        store[0].close();
                    }
                }
            }
        }
        Map<String, Long> best = rb.best();
        double f1 = best.get("floor") / (double) entries;
        double ft = best.get("floor-" + threads + "t") / (double) entries;
        for (Map.Entry<String, Long> e : best.entrySet()) {
            double ns = e.getValue() / (double) entries;
            System.out.printf(Locale.ROOT, "parallel engine=%s jvm_binding=%s value_size=%d threads=%d variant=%s best_ns_per_entry=%.2f"
                            + " ratio_to_floor=%.3f ratio_to_floor_%dt=%.3f speedup_vs_floor=%.2f round_ratios=%s%n",
                    engine.name().toLowerCase(Locale.ROOT), binding, vs, threads, e.getKey(), ns, ns / f1, threads, ns / ft, f1 / ns,
                    rb.roundRatiosText(e.getKey()));
        }
        System.out.flush();
        System.exit(0);
    }

    /** A visitor per sub-range: sums the checksum of its entries. */
    static final class SumVisitor implements dev.ferry.EntryVisitor {
        long sum;

        @Override
        public boolean visit(dev.ferry.View k, dev.ferry.View v) {
            sum += BenchData.touch(k, v);
            return true;
        }
    }

    /** Visitors of the last parallel scan, whose sums {@link #drain} adds. */
    private static final java.util.concurrent.ConcurrentLinkedQueue<SumVisitor> PENDING = new java.util.concurrent.ConcurrentLinkedQueue<>();

    private static long drain() {
        long s = 0;
        for (SumVisitor v : PENDING) {
            s += v.sum;
        }
        PENDING.clear();
        return s;
    }
}
