package dev.ferry.bench.cannyls;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What {@code ./ferry reproduce cannyls} runs: per value size, how many entries are written and how
 * many are sampled for the update, GET and DELETE phases, on which backends.
 *
 * <p>The CannyLS benchmark wrote 16-byte keys with values of 100 KB, 1 MB and 10 MB to a 1 TB store,
 * then updated, read and deleted a random 1% sample, and timed the store's start-up (LOAD). Here the
 * data is scaled to this machine's disk: {@code --full} writes about 10 GB per value size (30 GB per
 * backend, deleted before the next backend starts); {@code --quick} about 1.6 GB per backend. The sample
 * is 1% of the entries, but at least {@link #MIN_SAMPLE} (or all of them), so that a quick run's
 * percentiles rest on more than a handful of tasks.
 *
 * <p>Thread safety: immutable.
 *
 * @param mode "quick" or "full"
 * @param sizes the value sizes, in order
 * @param backends the backends, in order
 */
public record CannyPlan(String mode, List<Size> sizes, List<String> backends) {
    /** Smallest sample of the update, GET and DELETE phases. */
    public static final int MIN_SAMPLE = 50;
    /** Bytes per key, as in the CannyLS benchmark (its lump ids are 128 bits). */
    public static final int KEY_SIZE = 16;
    /** ekvsb's backends, by the names the report uses. */
    public static final List<String> EKVSB_BACKENDS = List.of("cannyls", "cannyls-sync", "fs", "rocksdb");
    /** Every backend, in report order. */
    public static final List<String> ALL_BACKENDS = List.of("cannyls", "cannyls-sync", "fs", "rocksdb",
            "ferry-rocksdb", "ferry-rocksdb-blob", "ferry-lmdb");
    /** The phases of one value size on one backend, in the order they run. */
    public static final List<String> PHASES = List.of("put-new", "put-update", "get", "delete", "load");

    /**
     * One value size.
     *
     * @param label as ekvsb spells it ({@code 100KB}: decimal units)
     * @param bytes bytes per value
     * @param count entries written by the first PUT phase
     */
    public record Size(String label, int bytes, int count) {
        /** @return tasks of the update, GET and DELETE phases: 1% of the entries, at least {@link #MIN_SAMPLE} */
        public int sample() {
            return Math.min(count, Math.max(count / 100, MIN_SAMPLE));
        }

        /** @return bytes the first PUT phase writes */
        public long dataBytes() {
            return (long) bytes * count;
        }
    }

    /**
     * The plan of a mode.
     *
     * @param mode "quick" or "full"
     * @return the plan with every backend
     */
    public static CannyPlan of(String mode) {
        List<Size> sizes = switch (mode) {
            case "quick" -> List.of(new Size("100KB", 100_000, 4_000), new Size("1MB", 1_000_000, 600), new Size("10MB", 10_000_000, 60));
            case "full" -> List.of(new Size("100KB", 100_000, 100_000), new Size("1MB", 1_000_000, 10_000),
                    new Size("10MB", 10_000_000, 1_000));
            default -> throw new IllegalArgumentException("unknown mode '" + mode + "' (quick or full)");
        };
        return new CannyPlan(mode, sizes, ALL_BACKENDS);
    }

    /**
     * Parses a {@code --sizes} override such as {@code 100KB:2000,1MB:300}.
     *
     * @param spec the list
     * @return the sizes
     */
    public static List<Size> parseSizes(String spec) {
        List<Size> out = new ArrayList<>();
        for (String part : spec.split(",")) {
            String[] lc = part.trim().split(":");
            if (lc.length != 2) {
                throw new IllegalArgumentException("--sizes wants SIZE:COUNT,... (e.g. 100KB:2000,1MB:300), got '" + part + "'");
            }
            out.add(new Size(lc[0].toUpperCase(Locale.ROOT), bytes(lc[0]), Integer.parseInt(lc[1])));
        }
        return out;
    }

    /**
     * Bytes of a size written as ekvsb reads it with decimal units: {@code 100KB}, {@code 1MB},
     * {@code 10MB}, {@code 512B}.
     *
     * @param label the size
     * @return its bytes
     */
    public static int bytes(String label) {
        String s = label.trim().toUpperCase(Locale.ROOT);
        long mult = 1;
        if (s.endsWith("KB")) {
            mult = 1_000;
            s = s.substring(0, s.length() - 2);
        } else if (s.endsWith("MB")) {
            mult = 1_000_000;
            s = s.substring(0, s.length() - 2);
        } else if (s.endsWith("B")) {
            s = s.substring(0, s.length() - 1);
        }
        long v = Long.parseLong(s) * mult;
        if (v <= 0 || v > 64_000_000) {
            throw new IllegalArgumentException("value size " + label + " (1B to 64MB)");
        }
        return (int) v;
    }

    /** @return bytes each backend writes in its first PUT phases, all sizes together */
    public long bytesPerBackend() {
        long b = 0;
        for (Size s : sizes) {
            b += s.dataBytes();
        }
        return b;
    }

    /** @return the largest value size's data: disk room one backend needs at once, before overheads */
    public long largestSizeBytes() {
        long b = 0;
        for (Size s : sizes) {
            b = Math.max(b, s.dataBytes());
        }
        return b;
    }
}
