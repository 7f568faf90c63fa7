package dev.ferry.fuzz;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The misuse fuzzer's operations with their weights; each thread picks one at random per step.
 *
 * <p>Thread safety: {@link #add} before the run starts; {@link #pick} and counting from any thread.
 */
public final class OpTable {
    /** One kind of operation: chooses targets and arguments, then calls through {@link Ctx#call}. */
    @FunctionalInterface
    public interface Op {
        /**
         * Runs one operation.
         *
         * @param c the thread's context
         * @throws Throwable only on a fuzzer bug (calls judge their own outcome)
         */
        void run(Ctx c) throws Throwable;
    }

    /** Units of {@link #addRare} per unit of {@link #add}. */
    public static final int SCALE = 4;

    private final List<String> names = new ArrayList<>();
    private final List<Op> ops = new ArrayList<>();
    private final List<Op> nestable = new ArrayList<>();
    private final List<Integer> weights = new ArrayList<>();
    private final java.util.Set<Integer> skipped = new java.util.HashSet<>();
    private int[] cumulative = new int[0];
    private int total;
    private AtomicLongArray counts = new AtomicLongArray(0);
    private AtomicLongArray nanos = new AtomicLongArray(0);

    /**
     * Adds an operation.
     *
     * @param name its name in the summary
     * @param weight relative frequency
     * @param op the operation
     * @param nest whether a scan's visitor may run it in the middle of the scan (no scenarios, no nested scans)
     */
    public synchronized void add(String name, int weight, Op op, boolean nest) {
        addRare(name, weight * SCALE, op, nest);
    }

    /**
     * Adds an operation with a weight in finer units: {@link #SCALE} of them make one unit of
     * {@link #add} (for expensive operations that should run only a few times a run).
     *
     * @param name its name in the summary
     * @param fineWeight relative frequency in 1/SCALE units
     * @param op the operation
     * @param nest whether a scan's visitor may run it
     */
    public synchronized void addRare(String name, int fineWeight, Op op, boolean nest) {
        int weight = fineWeight;
        names.add(name);
        weights.add(weight);
        if (nest) {
            nestable.add(op);
        }
        ops.add(op);
        total += weight;
        int[] c = java.util.Arrays.copyOf(cumulative, cumulative.length + 1);
        c[c.length - 1] = total;
        cumulative = c;
        counts = new AtomicLongArray(ops.size());
        nanos = new AtomicLongArray(ops.size());
    }

    /**
     * Leaves operations out of the run (their weight becomes 0), e.g. to look for a second defect
     * while a first one is still open.
     *
     * @param csv comma-separated operation names
     * @throws IllegalArgumentException for a name no operation has
     */
    synchronized void skip(String csv) {
        for (String n : csv.split(",")) {
            if (n.isBlank()) {
                continue;
            }
            int i = names.indexOf(n.trim());
            if (i < 0) {
                throw new IllegalArgumentException("no operation named '" + n.trim() + "'; known: " + names);
            }
            skipped.add(i);
        }
        int[] c = new int[cumulative.length];
        int sum = 0;
        for (int i = 0; i < c.length; i++) {
            sum += skipped.contains(i) ? 0 : weights.get(i);
            c[i] = sum;
        }
        cumulative = c;
        total = sum;
        nestable.removeIf(op -> skipped.contains(ops.indexOf(op)));
    }

    int pick(Random r) {
        int x = r.nextInt(total);
        int lo = 0;
        int hi = cumulative.length - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (cumulative[mid] > x) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        counts.incrementAndGet(lo);
        return lo;
    }

    /**
     * Runs one random nestable operation (inside a scan's visitor).
     *
     * @param c the thread's context
     * @throws Throwable only on a fuzzer bug
     */
    void runNestable(Ctx c) throws Throwable {
        nestable.get(c.rnd.nextInt(nestable.size())).run(c);
    }

    void took(int i, long ns) {
        nanos.addAndGet(i, ns);
    }

    Op op(int i) {
        return ops.get(i);
    }

    String name(int i) {
        return names.get(i);
    }

    String summary() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < names.size(); i++) {
            sb.append(names.get(i)).append('=').append(counts.get(i)).append('/').append(nanos.get(i) / 1_000_000).append("ms")
                    .append(i + 1 < names.size() ? " " : "");
        }
        return sb.toString();
    }
}
