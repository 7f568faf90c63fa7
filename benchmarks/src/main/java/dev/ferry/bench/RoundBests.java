package dev.ferry.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The best time of each variant in each round of an interleaved run, and from them the figures the
 * interleaved benchmarks print: the best over all rounds, and the spread of the ratio to the floor.
 * The spread is half the range of the per-round ratios (each round's best of a variant over the same
 * round's best of {@code floor}): a round in a slow phase of the machine moves floor and variant
 * together, so this spread is what is left of the noise once the ratio is taken.
 *
 * <p>Thread safety: not thread-safe; one per measurement.
 */
final class RoundBests {
    private final Map<String, List<Long>> perRound = new LinkedHashMap<>();

    /**
     * Records one timing of a variant in a round; the round's best is kept.
     *
     * @param variant the variant's name
     * @param round the round, from 0
     * @param ns the time of one pass in nanoseconds
     */
    void add(String variant, int round, long ns) {
        List<Long> l = perRound.computeIfAbsent(variant, k -> new ArrayList<>());
        while (l.size() <= round) {
            l.add(Long.MAX_VALUE);
        }
        l.set(round, Math.min(l.get(round), ns));
    }

    /** @return the best pass of each variant over all rounds, in nanoseconds, in the order first seen */
    Map<String, Long> best() {
        Map<String, Long> m = new LinkedHashMap<>();
        perRound.forEach((k, l) -> m.put(k, l.stream().mapToLong(Long::longValue).min().orElse(Long.MAX_VALUE)));
        return m;
    }

    /**
     * @param variant the variant's name
     * @return half the range of the variant's per-round ratios to {@code floor}; 0 for the floor
     *     itself and NaN when there are fewer than two rounds with both timed
     */
    double ratioSpread(String variant) {
        if (variant.equals("floor")) {
            return 0;
        }
        List<Long> v = perRound.get(variant);
        List<Long> f = perRound.get("floor");
        if (v == null || f == null) {
            return Double.NaN;
        }
        double min = Double.MAX_VALUE;
        double max = -Double.MAX_VALUE;
        int n = 0;
        for (int r = 0; r < Math.min(v.size(), f.size()); r++) {
            if (v.get(r) != Long.MAX_VALUE && f.get(r) != Long.MAX_VALUE) {
                double ratio = v.get(r) / (double) f.get(r);
                min = Math.min(min, ratio);
                max = Math.max(max, ratio);
                n++;
            }
        }
        return n < 2 ? Double.NaN : (max - min) / 2;
    }
}
