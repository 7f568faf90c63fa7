package dev.ferry;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Decides whether a store's contents are the state of a model after <em>some subset</em> of a run
 * of {@link CrashWriter} ops, each op applied whole (a put, or all records of a batch) and in the
 * sequence's order: what a RocksDB store written with {@code syncWrites(false)} may hold after a
 * torn power cut, whose log reader can skip a lost log page and keep the writes after it
 * (docs/usage.md, "Durability"). It still rejects what the documentation rules out there: a value
 * no op wrote, a batch partly applied, a key of the round's starting state (durable before the
 * round) lost or changed by no op of the round.
 *
 * <p>Each op is a boolean (applied or not). A key's final value is the effect of the last applied op
 * that touches it, or its starting value when none does; so for the value found, every op whose effect
 * differs, if applied, needs a later applied op whose effect is the found one, and unless the starting
 * value is the found one some op with the found effect is applied. In {@link CrashWriter}'s sequence a
 * key is touched by at most one put and one delete (its own op and the batch that deletes it), and key
 * {@code L} by batches with distinct values, so these clauses have at most two literals: 2-SAT, solved
 * exactly through the implication graph's strongly connected components. A clause of more literals (a
 * changed sequence) is reported as an error of this check rather than guessed at.
 */
final class OpSubset {
    /** The result: the ops applied (in order), or why no subset fits. */
    record Result(List<Long> applied, String why) {
        boolean found() {
            return applied != null;
        }
    }

    private OpSubset() {
    }

    /**
     * Finds a subset of ops {@code from..to} that, applied in order to {@code start}, gives {@code found}.
     *
     * @param start the state before op {@code from}
     * @param from the first op id
     * @param to the last op id (inclusive)
     * @param found the store's contents
     * @return the applied ops, or the reason none fits
     */
    static Result find(TreeMap<byte[], byte[]> start, long from, long to, TreeMap<byte[], byte[]> found) {
        int n = (int) Math.max(0, to - from + 1);
        // per key: the ops touching it, in order, with their effect (null: delete)
        Map<ByteBuffer, List<long[]>> opsOf = new LinkedHashMap<>();
        Map<ByteBuffer, List<byte[]>> effects = new HashMap<>();
        for (long id = from; id <= to; id++) {
            Map<ByteBuffer, byte[]> net = new LinkedHashMap<>();
            for (byte[][] kv : CrashWriter.records(id)) {
                net.put(ByteBuffer.wrap(kv[0]), kv[1]);
            }
            for (Map.Entry<ByteBuffer, byte[]> e : net.entrySet()) {
                opsOf.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(new long[] {id});
                effects.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(e.getValue());
            }
        }
        Set<ByteBuffer> keys = new HashSet<>(opsOf.keySet());
        for (byte[] k : start.keySet()) {
            keys.add(ByteBuffer.wrap(k));
        }
        for (byte[] k : found.keySet()) {
            keys.add(ByteBuffer.wrap(k));
        }
        TwoSat sat = new TwoSat(n);
        for (ByteBuffer key : keys) {
            byte[] k = key.array();
            byte[] s = start.get(k);
            byte[] f = found.get(k);
            List<long[]> ops = opsOf.getOrDefault(key, List.of());
            List<byte[]> eff = effects.getOrDefault(key, List.of());
            boolean noneOk = Arrays.equals(s, f);
            List<Integer> good = new ArrayList<>(); // indexes into ops whose effect is the found value
            for (int i = 0; i < ops.size(); i++) {
                if (Arrays.equals(eff.get(i), f)) {
                    good.add(i);
                }
            }
            if (good.isEmpty() && !noneOk) {
                String what = f == null ? "missing (it held " + s.length + " bytes before the round, and no op of the round deletes it)"
                        : s != null && ops.isEmpty() ? "changed (" + f.length + " bytes; no op of the round writes it)"
                        : "holds a value (" + f.length + " bytes) that no op of the round wrote" + (s == null ? "" : ", nor the round's start");
                return new Result(null, CrashWriter.describeKey(k) + " " + what);
            }
            for (int i = 0; i < ops.size(); i++) {
                if (good.contains(i)) {
                    continue;
                }
                // applying op i needs a later applied op with the found effect
                List<Integer> lits = new ArrayList<>();
                lits.add(TwoSat.not(var(ops.get(i)[0], from)));
                for (int g : good) {
                    if (g > i) {
                        lits.add(var(ops.get(g)[0], from));
                    }
                }
                if (!sat.clause(lits)) {
                    throw new IllegalStateException("OpSubset: a clause of " + lits.size() + " literals for "
                            + CrashWriter.describeKey(k) + " (the op sequence changed: this check handles two)");
                }
            }
            if (!noneOk) {
                List<Integer> lits = new ArrayList<>();
                for (int g : good) {
                    lits.add(var(ops.get(g)[0], from));
                }
                if (!sat.clause(lits)) {
                    throw new IllegalStateException("OpSubset: a clause of " + lits.size() + " literals for "
                            + CrashWriter.describeKey(k) + " (the op sequence changed: this check handles two)");
                }
            }
        }
        boolean[] x = sat.solve();
        if (x == null) {
            return new Result(null, "no subset of ops " + from + ".." + to + " applied whole and in order gives the store's contents"
                    + " (a batch partly applied, or an order no subset makes)");
        }
        List<Long> applied = new ArrayList<>();
        TreeMap<byte[], byte[]> m = new TreeMap<>(start);
        for (int i = 0; i < n; i++) {
            if (x[i]) {
                applied.add(from + i);
                CrashWriter.applyToModel(m, from + i);
            }
        }
        if (!CrashWriter.sameEntries(m, found)) { // a defect of this check, not of the store
            throw new IllegalStateException("OpSubset: the subset found does not give the store's contents: "
                    + CrashWriter.firstDifference(m, found));
        }
        return new Result(applied, null);
    }

    private static int var(long id, long from) {
        return (int) (id - from) * 2;
    }

    /** 2-SAT over variables 0..n-1; literal 2v is "v true", 2v+1 "v false". */
    static final class TwoSat {
        private final int n;
        private final List<List<Integer>> out;

        TwoSat(int n) {
            this.n = n;
            out = new ArrayList<>(2 * n);
            for (int i = 0; i < 2 * n; i++) {
                out.add(new ArrayList<>());
            }
        }

        static int not(int lit) {
            return lit ^ 1;
        }

        /** Adds a clause (a disjunction) of one or two literals; @return false when it has more (or none). */
        boolean clause(List<Integer> lits) {
            if (lits.size() == 1) {
                int a = lits.get(0);
                out.get(not(a)).add(a);
                return true;
            }
            if (lits.size() == 2) {
                int a = lits.get(0);
                int b = lits.get(1);
                out.get(not(a)).add(b);
                out.get(not(b)).add(a);
                return true;
            }
            return false;
        }

        /** @return a satisfying assignment, or null */
        boolean[] solve() {
            int[] comp = tarjan();
            boolean[] x = new boolean[n];
            for (int v = 0; v < n; v++) {
                if (comp[2 * v] == comp[2 * v + 1]) {
                    return null;
                }
                // Tarjan numbers components in reverse topological order: take the literal that comes later
                x[v] = comp[2 * v] < comp[2 * v + 1];
            }
            return x;
        }

        /** Iterative Tarjan: the component of each literal, numbered in reverse topological order. */
        private int[] tarjan() {
            int size = 2 * n;
            int[] index = new int[size];
            int[] low = new int[size];
            int[] comp = new int[size];
            boolean[] onStack = new boolean[size];
            Arrays.fill(index, -1);
            int[] stack = new int[size];
            int sp = 0;
            int[] callV = new int[size];
            int[] callE = new int[size];
            int counter = 0;
            int comps = 0;
            for (int root = 0; root < size; root++) {
                if (index[root] >= 0) {
                    continue;
                }
                int depth = 0;
                callV[0] = root;
                callE[0] = 0;
                index[root] = low[root] = counter++;
                stack[sp++] = root;
                onStack[root] = true;
                while (depth >= 0) {
                    int v = callV[depth];
                    List<Integer> edges = out.get(v);
                    if (callE[depth] < edges.size()) {
                        int w = edges.get(callE[depth]++);
                        if (index[w] < 0) {
                            index[w] = low[w] = counter++;
                            stack[sp++] = w;
                            onStack[w] = true;
                            depth++;
                            callV[depth] = w;
                            callE[depth] = 0;
                        } else if (onStack[w]) {
                            low[v] = Math.min(low[v], index[w]);
                        }
                        continue;
                    }
                    if (low[v] == index[v]) {
                        int w;
                        do {
                            w = stack[--sp];
                            onStack[w] = false;
                            comp[w] = comps;
                        } while (w != v);
                        comps++;
                    }
                    depth--;
                    if (depth >= 0) {
                        int parent = callV[depth];
                        low[parent] = Math.min(low[parent], low[v]);
                    }
                }
            }
            return comp;
        }
    }
}
