package dev.ferry.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The best time of each variant in each round of an interleaved run, and from them the figures the
 * interleaved benchmarks print: the best over all rounds, the per-round ratios to the floor (each
 * round's best of a variant over the same round's best of {@code floor}) and their spread: half the
 * range of the per-round ratios, leaving out the first round when there are three or more (it runs
 * Java code the JIT has not compiled yet, beside C code that needs no warm-up). A round in a slow
 * phase of the machine moves floor and variant together, so this spread is what is left of the
 * noise once the ratio is taken.
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
     * @return half the range of the variant's per-round ratios to {@code floor} (without the first
     *     round when there are three or more); 0 for the floor itself and NaN when fewer than two
     *     rounds are left
     */
    double ratioSpread(String variant) {
        if (variant.equals("floor")) {
            return 0;
        }
        List<Double> ratios = roundRatios(variant);
        List<Double> used = ratios.size() >= 3 ? ratios.subList(1, ratios.size()) : ratios;
        if (used.size() < 2) {
            return Double.NaN;
        }
        double min = Double.MAX_VALUE;
        double max = -Double.MAX_VALUE;
        for (double r : used) {
            min = Math.min(min, r);
            max = Math.max(max, r);
        }
        return (max - min) / 2;
    }

    /**
     * @param variant the variant's name
     * @return the variant's ratio to {@code floor} in each round where both were timed, in round order
     */
    List<Double> roundRatios(String variant) {
        List<Long> v = perRound.getOrDefault(variant, List.of());
        List<Long> f = perRound.getOrDefault("floor", List.of());
        List<Double> out = new ArrayList<>();
        for (int r = 0; r < Math.min(v.size(), f.size()); r++) {
            if (v.get(r) != Long.MAX_VALUE && f.get(r) != Long.MAX_VALUE) {
                out.add(v.get(r) / (double) f.get(r));
            }
        }
        return out;
    }

    /**
     * @param variant the variant's name
     * @return the per-round ratios as printed: {@code 1.02,0.98,...}
     */
    String roundRatiosText(String variant) {
        StringBuilder sb = new StringBuilder();
        for (double r : roundRatios(variant)) {
            sb.append(sb.length() == 0 ? "" : ",").append(String.format(java.util.Locale.ROOT, "%.3f", r));
        }
        return sb.toString();
    }
}
