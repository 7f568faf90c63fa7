package dev.ferry.fuzz;

import dev.ferry.ColumnFamily;
import dev.ferry.EntryVisitor;
import dev.ferry.KeyRange;
import dev.ferry.Snapshot;
import dev.ferry.Store;
import dev.ferry.fuzz.World.CurRef;
import dev.ferry.fuzz.World.SnapRef;
import dev.ferry.fuzz.World.StoreRef;
import dev.ferry.fuzz.World.ViewRef;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * {@link Store#split}, {@link Snapshot#split}, {@link Store#parallelScan} and
 * {@link Snapshot#parallelScan} (with Ferry's threads, and on executors: a pool, the common pool, a
 * direct one, a new thread per task, one that rejects every task, and null): any family (null, dropped, of another store, created after the
 * snapshot, DUPSORT), null, empty and pooled ranges, sub-range counts and thread counts from the
 * extremes ({@code 0}, negative, {@code Integer.MAX_VALUE}) to ordinary, null suppliers and
 * suppliers that return null, and visitors (run on Ferry's worker threads) that stop, throw, keep
 * their views, close the snapshot or the store mid-scan, or read and check every entry. Called on
 * closed stores and snapshots, and on LMDB snapshots bound to another thread.
 *
 * <p>Answers checked: a split's sub-ranges are contiguous, in key order, non-empty unless the range
 * is, at most {@code n}, and their union is exactly the range (each key of the range lies in exactly
 * one sub-range); a parallel scan's visits lie in its range, in key order within each sub-range,
 * each entry once, and their number is what the call returned. Worker threads never call the
 * fuzzer's {@link Ctx}: they collect what they saw, judged on the fuzz thread after the call.
 *
 * <p>Thread safety: stateless; every method runs on the calling fuzz thread.
 */
final class SplitOps {
    private SplitOps() {
    }

    static void register(MisuseFuzz f, OpTable t) {
        t.add("split", 10, SplitOps::split, true);
        t.add("parallelScan", 8, SplitOps::parallelScan, false);
    }

    /** A target: a store, or a snapshot of it (with its ref). */
    private record On(StoreRef store, SnapRef snap, String name) {
    }

    private static On target(Ctx c) {
        if (c.oneIn(2)) {
            SnapRef p = c.world.snapshots.pick(c.rnd);
            if (p != null) {
                if (p.snap.isClosed()) {
                    c.closed("snapshot " + p);
                }
                if (p.foreignAndBound()) {
                    c.foreign("another thread used an LMDB snapshot bound to its thread");
                }
                return new On(p.store, p, p.toString());
            }
        }
        StoreRef s = StoreOps.anyStore(c);
        if (s == null) {
            return null;
        }
        StoreOps.closedStore(c, s);
        return new On(s, null, s.toString());
    }

    /** A family for the call; a snapshot must refuse one created after it (as its other reads do). */
    private static Object[] family(Ctx c, On on) {
        Object[] f = StoreOps.family(c, on.store);
        if (on.snap != null && f[0] != null) {
            for (World.CfRef r : c.world.families.all()) {
                if (r.cf == f[0] && r.store == on.store && r.createdAfter > on.snap.takenBefore) {
                    c.mustThrow("a snapshot split or scanned a column family created after it was taken");
                }
            }
        }
        return f;
    }

    private static KeyRange range(Ctx c, StringBuilder d) {
        if (c.oneIn(40)) {
            c.nullArg("range");
            d.append("null");
            return null;
        }
        return StoreOps.range(c, d);
    }

    /** A count argument: mostly small, sometimes 0, negative or huge. */
    private static int count(Ctx c, String what) {
        int r = c.rnd.nextInt(20);
        int n = r < 14 ? 1 + c.rnd.nextInt(8) : r < 17 ? 1 + c.rnd.nextInt(200) : r == 17 ? Integer.MAX_VALUE - c.rnd.nextInt(2)
                : c.extreme();
        if (n < 1) {
            c.mustThrow(what + "=" + n + " accepted (at least 1)");
        }
        return n;
    }

    private static void split(Ctx c) {
        On on = target(c);
        if (on == null) {
            return;
        }
        Object[] f = family(c, on);
        StringBuilder d = new StringBuilder();
        KeyRange r = range(c, d);
        int n = count(c, "n");
        List<List<KeyRange>> out = new ArrayList<>(1);
        boolean ok = c.call(on.name + ".split(" + f[1] + ", " + d + ", " + n + ")", () -> out.add(on.snap != null
                ? on.snap.snap.split((ColumnFamily) f[0], r, n) : on.store.store.split((ColumnFamily) f[0], r, n)));
        if (ok) {
            checkSplits(c, on.name + ".split", r, n, out.get(0), keysFor(c));
        }
    }

    /** A few keys to check the union with: random ones and the range's own bounds. */
    private static List<byte[]> keysFor(Ctx c) {
        List<byte[]> ks = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            ks.add(c.anyKey());
        }
        return ks;
    }

    /** Checks a split's answer: contiguous sub-ranges in order, at most n, union exactly the range. */
    static void checkSplits(Ctx c, String desc, KeyRange r, int n, List<KeyRange> parts, List<byte[]> probes) {
        if (parts == null || parts.isEmpty() || parts.size() > n) {
            c.wrong(desc, (parts == null ? "null" : parts.size()) + " sub-ranges for n=" + n);
            return;
        }
        byte[] lower = parts.get(0).lower();
        byte[] upper = parts.get(parts.size() - 1).upper();
        if (!Arrays.equals(lower, r.lower()) || !Arrays.equals(upper, r.upper())) {
            c.wrong(desc, "the sub-ranges span " + Ctx.hex(lower) + ".." + Ctx.hex(upper) + ", the range " + r);
            return;
        }
        for (int i = 1; i < parts.size(); i++) {
            byte[] end = parts.get(i - 1).upper();
            byte[] start = parts.get(i).lower();
            if (end == null || start == null || !Arrays.equals(end, start)) {
                c.wrong(desc, "sub-ranges " + (i - 1) + " and " + i + " are not contiguous: " + parts.get(i - 1) + ", " + parts.get(i));
                return;
            }
            if (parts.get(i).isEmpty() || parts.get(i - 1).isEmpty()) {
                c.wrong(desc, "an empty sub-range among " + parts.size() + ": " + parts);
                return;
            }
        }
        List<byte[]> ks = new ArrayList<>(probes);
        for (KeyRange p : parts) {
            if (p.lower() != null) {
                ks.add(p.lower());
            }
        }
        for (byte[] k : ks) {
            int in = 0;
            for (KeyRange p : parts) {
                in += p.contains(k) ? 1 : 0;
            }
            if (in != (r.contains(k) ? 1 : 0)) {
                c.wrong(desc, "key " + Ctx.hex(k) + " lies in " + in + " sub-ranges, in the range: " + r.contains(k));
                return;
            }
        }
    }

    private static void parallelScan(Ctx c) {
        On on = target(c);
        if (on == null) {
            return;
        }
        Object[] f = family(c, on);
        boolean dups = StoreOps.dups(f[0]);
        StringBuilder d = new StringBuilder();
        KeyRange r = range(c, d);
        int threads = c.rnd.nextInt(6) == 0 ? count(c, "threads") : 1 + c.rnd.nextInt(4);
        if (threads < 1) {
            c.mustThrow("threads=" + threads + " accepted (at least 1)");
        }
        Watch w = new Watch(r, dups);
        Ctx.FuzzStop stop = new Ctx.FuzzStop();
        Supplier<EntryVisitor> visitors = visitors(c, on, w, stop);
        int exKind = c.rnd.nextInt(12);
        Executor ex = exKind < 6 ? null : executor(c, exKind);
        String exName = exKind < 6 ? "" : EXECUTOR_NAMES[exKind - 6] + ", ";
        String desc = on.name + ".parallelScan(" + f[1] + ", " + d + ", " + threads + ", " + exName + w.mode + ")";
        long[] total = {-1};
        boolean ok = c.call(desc, () -> total[0] = exKind < 6
                ? (on.snap != null ? on.snap.snap.parallelScan((ColumnFamily) f[0], r, threads, visitors)
                        : on.store.store.parallelScan((ColumnFamily) f[0], r, threads, visitors))
                : (on.snap != null ? on.snap.snap.parallelScan((ColumnFamily) f[0], r, threads, ex, visitors)
                        : on.store.store.parallelScan((ColumnFamily) f[0], r, threads, ex, visitors)));
        for (String p : w.problems) {
            c.wrong(desc, p);
        }
        for (Object[] kept : w.kept) {
            CurRef pseudo = new CurRef(c.world.nextId(), null, (Thread) kept[1], r, on.store, null);
            c.world.views.add(c.rnd, new ViewRef(c.world.nextId(), (dev.ferry.View) kept[0], pseudo));
        }
        if (ok && w.counted && total[0] != w.visits.get()) {
            c.wrong(desc, "returned " + total[0] + " but the visitors saw " + w.visits.get() + " entries");
        }
        if (ok && w.mode.equals("check") && on.snap != null && !on.snap.snap.isClosed()) {
            // the same snapshot read by one plain scan: the same number of entries
            long[] plain = {0};
            boolean read = c.call(on.name + ".scan(" + f[1] + ", " + d + ") to compare", () -> on.snap.snap.scan((ColumnFamily) f[0], r, (k, v) -> {
                plain[0]++;
                return true;
            }));
            if (read && plain[0] != total[0]) {
                c.wrong(desc, "visited " + total[0] + " entries, a scan of the same snapshot " + plain[0]);
            }
        }
    }

    /** Threads of the pool the executor overload runs on (daemons: nothing waits for them at exit). */
    private static final ExecutorService POOL = Executors.newFixedThreadPool(3, r -> {
        Thread t = new Thread(r, "fuzz-executor");
        t.setDaemon(true);
        return t;
    });

    private static final String[] EXECUTOR_NAMES = {"null executor", "pool", "commonPool", "direct", "new thread",
        "rejecting"};

    /** An executor for {@code parallelScan}: null (must throw), a shared pool, the common pool, a direct
     * one (tasks run inside {@code execute}, on the fuzz thread), a new thread per task, one that rejects. */
    private static Executor executor(Ctx c, int kind) {
        switch (kind - 6) {
            case 0:
                c.nullArg("executor");
                return null;
            case 1:
                return POOL;
            case 2:
                return ForkJoinPool.commonPool();
            case 3:
                return Runnable::run;
            case 4:
                return r -> {
                    Thread t = new Thread(r, "fuzz-task");
                    t.setDaemon(true);
                    t.start();
                };
            default:
                return r -> {
                    throw new RejectedExecutionException("the fuzzer's executor takes nothing");
                };
        }
    }

    /** What the worker threads saw, judged afterwards on the fuzz thread. */
    private static final class Watch {
        final KeyRange range;
        final boolean dups;
        final AtomicLong visits = new AtomicLong();
        final Set<ByteBuffer> seen = ConcurrentHashMap.newKeySet();
        final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<Object[]> kept = new ConcurrentLinkedQueue<>();
        String mode = "count";
        boolean counted = true;

        Watch(KeyRange range, boolean dups) {
            this.range = range;
            this.dups = dups;
        }

        /** Counts and checks one visit (range, order within the sub-range, each entry once). */
        void visit(byte[][] prev, dev.ferry.View k, dev.ferry.View v) {
            visits.incrementAndGet();
            byte[] kb = k.toByteArray();
            byte[] vb = v.toByteArray();
            if (range != null && !range.contains(kb)) {
                problems.add("visited key " + Ctx.hex(kb) + " outside the range " + range);
            }
            if (prev[0] != null) {
                int cmp = Arrays.compareUnsigned(prev[0], kb);
                if (cmp == 0 && dups) {
                    cmp = Arrays.compareUnsigned(prev[1], vb);
                }
                if (cmp >= 0) {
                    problems.add("a visitor saw " + Ctx.hex(prev[0]) + " then " + Ctx.hex(kb) + " (out of order within a sub-range)");
                }
            }
            prev[0] = kb;
            prev[1] = vb;
            byte[] entry = dups ? ByteBuffer.allocate(8 + kb.length + vb.length).putInt(kb.length).put(kb).putInt(vb.length).put(vb).array() : kb;
            if (!seen.add(ByteBuffer.wrap(entry))) {
                problems.add("entry " + Ctx.hex(kb) + (dups ? "=" + Ctx.hex(vb) : "") + " visited twice");
            }
        }
    }

    /** A supplier of visitors of one kind; notes on {@code c} what the call may throw. */
    private static Supplier<EntryVisitor> visitors(Ctx c, On on, Watch w, Ctx.FuzzStop stop) {
        int mode = c.rnd.nextInt(12);
        int n = c.rnd.nextInt(c.oneIn(2) ? 4 : 200);
        AtomicInteger left = new AtomicInteger(n);
        switch (mode) {
            case 0:
                w.mode = "null supplier";
                c.nullArg("visitors");
                return null;
            case 1:
                w.mode = "supplier of null";
                c.nullArg(null); // Ferry's worker refuses it with an NPE of its own
                w.counted = false;
                return () -> null;
            case 2:
                w.mode = "stop after " + n;
                w.counted = false; // a stop ends the other threads at their next entry
                return () -> (k, v) -> left.decrementAndGet() > 0;
            case 3:
                w.mode = "throw after " + n;
                w.counted = false;
                c.thrownByUs(stop);
                return () -> (k, v) -> {
                    if (left.decrementAndGet() <= 0) {
                        throw stop;
                    }
                    return true;
                };
            case 4:
                w.mode = "supplier throws after " + n;
                w.counted = false;
                c.thrownByUs(stop);
                return () -> {
                    if (left.decrementAndGet() <= 0) {
                        throw stop;
                    }
                    return (k, v) -> true;
                };
            case 5: {
                boolean closeSnap = on.snap != null && c.oneIn(2);
                w.mode = "close " + (closeSnap ? "snapshot" : "store") + " after " + n;
                w.counted = false;
                return () -> (k, v) -> {
                    if (left.decrementAndGet() == 0) {
                        try {
                            if (closeSnap) {
                                on.snap.snap.close();
                            } else {
                                on.store.store.close();
                            }
                        } catch (RuntimeException e) {
                            if (!(e instanceof IllegalStateException) && !(e instanceof dev.ferry.FerryException)
                                    && !e.getClass().getName().equals("java.lang.WrongThreadException")) {
                                w.problems.add("close from a parallel scan's visitor threw " + e);
                            }
                        }
                    }
                    return true;
                };
            }
            case 6:
                w.mode = "keep views after " + n;
                return () -> {
                    byte[][] prev = new byte[2][];
                    return (k, v) -> {
                        w.visit(prev, k, v);
                        if (left.decrementAndGet() == 0) {
                            w.kept.add(new Object[] {k, Thread.currentThread()});
                            w.kept.add(new Object[] {v, Thread.currentThread()});
                        }
                        return true;
                    };
                };
            case 7:
                w.mode = "read the store";
                w.counted = false;
                return () -> (k, v) -> {
                    // a store read from Ferry's worker thread, mid-scan
                    try {
                        on.store.store.get(k.toByteArray());
                    } catch (IllegalStateException | dev.ferry.FerryException e) {
                        return false; // closed meanwhile by another fuzz thread
                    } catch (RuntimeException e) {
                        w.problems.add("a store read from a parallel scan's visitor threw " + e);
                    }
                    return true;
                };
            default:
                w.mode = "check";
                return () -> {
                    byte[][] prev = new byte[2][];
                    return (k, v) -> {
                        w.visit(prev, k, v);
                        return true;
                    };
                };
        }
    }
}
