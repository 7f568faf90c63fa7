package dev.ferry.fuzz;

import dev.ferry.Engine;
import java.io.PrintStream;
import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.MonitorInfo;
import java.lang.management.ThreadInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The misuse fuzzer's child-JVM driver: opens real stores under a work directory and runs
 * random call sequences over Ferry's public API from several threads (closed objects, other
 * threads' cursors, concurrent close, nulls, bad offsets and lengths, views and buffers kept
 * after moves and closes, leaked objects and GCs, direct-memory exhaustion), logging every call
 * to {@code <dir>/misuse.log} before it runs. Run by {@link MisuseFuzzTest} in a child JVM,
 * so a crash kills only the child; the parent reads the exit status, hs_err files and the log.
 *
 * <p>Arguments are {@code key=value}: {@code engine} (ROCKSDB|LMDB), {@code binding} (jni|ffm),
 * {@code seed}, {@code seconds}, {@code dir}, and optionally {@code threads} (default 3),
 * {@code maxOps} (per thread), {@code hang} (seconds one call may take, default 60),
 * {@code contracts} (false: judge only exceptions, not missing ones), {@code skip}
 * (comma-separated operation names to leave out, e.g. {@code S:leakUntilOom}), {@code ext} (a
 * {@link FuzzExtension} class). Exit status: 0 clean, 1 failures (printed), 2 hang, 3 bad usage.
 * A JVM crash shows as a signal exit and an hs_err file.
 *
 * <p>A seed fixes each thread's sequence of operations and arguments; thread interleaving, GC
 * and Cleaner timing are not reproducible, so a replay with {@code threads=1} is deterministic
 * apart from the Cleaner, and with more threads a replay finds a race again with some probability.
 *
 * <p>Thread safety: the driver is one per JVM; its failure registry is thread-safe.
 */
public final class MisuseFuzz {
    static final int EXIT_FAILURES = 1;
    static final int EXIT_HANG = 2;
    static final int EXIT_USAGE = 3;
    private static final int MAX_PRINTED = 25;

    final FuzzLog log;
    final World world;
    final boolean contracts;
    final OpTable table = new OpTable();
    final List<FuzzExtension> extensions = new ArrayList<>();
    final long seed;
    private final long deadline;
    private final long maxOps;
    private final long hangNanos;
    private final int threads;
    final PrintStream out = System.out;
    volatile boolean stop;
    private final List<Ctx> live = new CopyOnWriteArrayList<>();
    private final AtomicInteger helperIds = new AtomicInteger(100);
    private final Map<String, AtomicInteger> failures = new ConcurrentHashMap<>();
    private final AtomicInteger printed = new AtomicInteger();
    private final Map<String, AtomicLong> thrown = new ConcurrentHashMap<>();
    final AtomicLong directOoms = new AtomicLong();

    private MisuseFuzz(Map<String, String> a) throws Exception {
        Engine engine = Engine.valueOf(a.get("engine").toUpperCase(java.util.Locale.ROOT));
        String binding = a.get("binding");
        seed = Long.parseLong(a.get("seed"));
        Path dir = Paths.get(a.get("dir"));
        Files.createDirectories(dir);
        long seconds = Long.parseLong(a.getOrDefault("seconds", "30"));
        deadline = System.nanoTime() + seconds * 1_000_000_000L;
        maxOps = Long.parseLong(a.getOrDefault("maxOps", String.valueOf(Long.MAX_VALUE)));
        hangNanos = Long.parseLong(a.getOrDefault("hang", "60")) * 1_000_000_000L;
        threads = Integer.parseInt(a.getOrDefault("threads", "3"));
        contracts = Boolean.parseBoolean(a.getOrDefault("contracts", "true"));
        log = new FuzzLog(dir.resolve("misuse.log"));
        world = new World(engine, binding, dir.resolve("stores"));
        log.line("misuse fuzz engine=" + engine + " binding=" + binding + " seed=" + seed + " seconds=" + seconds
                + " threads=" + threads + " java=" + Runtime.version() + " maxDirect=" + maxDirectMemory());
        StoreOps.register(this, table);
        BackupOps.register(this, table);
        DupOps.register(this, table);
        MergeSstOps.register(this, table);
        CallbackOps.register(this, table);
        CfOptionOps.register(this, table);
        KeyOrderOps.register(this, table);
        TxnOps.register(this, table);
        SplitOps.register(this, table);
        MoreOps.register(this, table);
        SharedMemoryOps.register(this, table);
        ServiceOps.register(this, table);
        CursorOps.register(this, table);
        Scenarios.register(this, table);
        if (engine == Engine.ROCKSDB) {
            RocksJavaOps.register(this, table);
        }
        String ext = a.get("ext");
        if (ext != null && !ext.isEmpty()) {
            for (String cls : ext.split(",")) {
                FuzzExtension e = (FuzzExtension) Class.forName(cls).getDeclaredConstructor().newInstance();
                e.register(table);
                extensions.add(e);
            }
        }
        table.skip(a.getOrDefault("skip", ""));
    }

    /**
     * Runs the fuzzer; see the class comment for the arguments.
     *
     * @param args {@code key=value} arguments
     * @throws Exception never on purpose (a fuzzer bug)
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> a = new LinkedHashMap<>();
        for (String s : args) {
            int eq = s.indexOf('=');
            if (eq <= 0) {
                System.err.println("usage: MisuseFuzz engine=LMDB|ROCKSDB binding=jni|ffm seed=N seconds=N dir=PATH "
                        + "[threads=3] [maxOps=N] [hang=60] [contracts=true] [skip=op,...] [ext=class]");
                System.exit(EXIT_USAGE);
            }
            a.put(s.substring(0, eq), s.substring(eq + 1));
        }
        for (String k : new String[] {"engine", "binding", "seed", "dir"}) {
            if (!a.containsKey(k)) {
                System.err.println("MisuseFuzz: missing " + k + "=");
                System.exit(EXIT_USAGE);
            }
        }
        MisuseFuzz f = new MisuseFuzz(a);
        int status = f.run();
        System.out.flush();
        // halt: a finalizer, Cleaner or shutdown hook stuck on a leaked object must not hang the exit
        Runtime.getRuntime().halt(status);
    }

    private int run() throws InterruptedException {
        out.println("misuse fuzz: " + world.engine + "/" + world.binding + " seed=" + seed + " threads=" + threads
                + " maxDirect=" + maxDirectMemory());
        Thread watchdog = new Thread(this::watch, "fuzz-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        List<Thread> workers = new ArrayList<>();
        long start = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            Ctx c = new Ctx(this, world, t, seed * 1_000_003L + t);
            live.add(c);
            Thread th = new Thread(() -> work(c), "fuzz-T" + t); // the log's T<n>
            workers.add(th);
        }
        workers.forEach(Thread::start);
        for (Thread th : workers) {
            th.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000 + hangNanos / 1_000_000));
            if (th.isAlive()) {
                hang("worker " + th.getName() + " did not finish");
            }
        }
        stop = true;
        long ops = 0;
        for (Ctx c : live) {
            ops += c.seq;
        }
        double secs = (System.nanoTime() - start) / 1e9;
        Ctx closer = newHelperContext();
        log.line("run over: closing everything");
        Scenarios.closeEverything(closer);
        out.printf("misuse fuzz: %d calls in %.1f s (%.0f/s), direct-memory OOMs %d%n", ops, secs, ops / secs, directOoms.get());
        out.println("ops (count/time): " + table.summary());
        out.println("thrown (allowed): " + topThrown());
        int distinct = failures.size();
        int total = failures.values().stream().mapToInt(AtomicInteger::get).sum();
        log.line("end: " + total + " failure(s), " + distinct + " distinct");
        log.close();
        if (distinct > 0) {
            out.println("misuse fuzz: FAILED, " + distinct + " distinct failure(s), " + total + " in all:");
            failures.entrySet().stream().sorted(Map.Entry.comparingByKey())
                    .forEach(e -> out.println("  " + e.getValue().get() + "x " + e.getKey()));
            return EXIT_FAILURES;
        }
        out.println("misuse fuzz: OK");
        return 0;
    }

    private void work(Ctx c) {
        long n = 0;
        while (!stop && System.nanoTime() < deadline && n++ < maxOps) {
            int i = table.pick(c.rnd);
            long t0 = System.nanoTime();
            c.resetPending();
            try {
                table.op(i).run(c);
            } catch (Throwable t) {
                fail("FUZZER", c, c.seq, "op " + table.name(i), "escaped an operation (a fuzzer bug or an unjudged call)", t);
            }
            table.took(i, System.nanoTime() - t0);
        }
    }

    /** @return a context for a helper thread (race readers, closers), registered with the watchdog */
    Ctx newHelperContext() {
        int id = helperIds.incrementAndGet();
        Ctx c = new Ctx(this, world, id, seed * 1_000_003L + id);
        live.add(c);
        if (live.size() > 64) {
            live.removeIf(x -> x.tid >= 100 && x.opStart == 0 && x != c);
        }
        return c;
    }

    void retire(Ctx c) {
        live.remove(c);
    }

    /** @return true once the run is over (helpers stop) */
    boolean over() {
        return stop || System.nanoTime() >= deadline;
    }

    private void watch() {
        while (true) {
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            for (Ctx c : live) {
                long s = c.opStart;
                if (s != 0 && now - s > hangNanos) {
                    hang("thread T" + c.tid + " has been inside one call for " + (now - s) / 1_000_000_000 + " s: " + c.opDesc);
                }
            }
        }
    }

    /** Prints every thread's stack and ends the JVM with {@link #EXIT_HANG}. */
    void hang(String what) {
        synchronized (out) {
            out.println("misuse fuzz: HANG: " + what);
            log.line("HANG: " + what);
            for (ThreadInfo ti : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
                out.print(format(ti));
            }
            out.flush();
        }
        Runtime.getRuntime().halt(EXIT_HANG);
    }

    private static String format(ThreadInfo ti) {
        StringBuilder sb = new StringBuilder("\"" + ti.getThreadName() + "\" " + ti.getThreadState());
        if (ti.getLockName() != null) {
            sb.append(" on ").append(ti.getLockName());
        }
        if (ti.getLockOwnerName() != null) {
            sb.append(" owned by \"").append(ti.getLockOwnerName()).append('"');
        }
        sb.append('\n');
        StackTraceElement[] st = ti.getStackTrace();
        for (int i = 0; i < st.length; i++) {
            sb.append("    at ").append(st[i]).append('\n');
            for (MonitorInfo mi : ti.getLockedMonitors()) {
                if (mi.getLockedStackDepth() == i) {
                    sb.append("    - locked ").append(mi).append('\n');
                }
            }
        }
        for (LockInfo li : ti.getLockedSynchronizers()) {
            sb.append("    - holds ").append(li).append('\n');
        }
        return sb.append('\n').toString();
    }

    /**
     * Records a failure; prints the first of each kind with its call and stack.
     *
     * @param kind UNEXPECTED, CONTRACT, WRONG or FUZZER
     * @param c the thread
     * @param seq the call's number
     * @param desc the call
     * @param why what is wrong
     * @param t what it threw, or null
     */
    void fail(String kind, Ctx c, long seq, String desc, String why, Throwable t) {
        // object and thread numbers differ between occurrences of one failure: leave them out of its signature
        String sig = kind + " " + opName(desc) + ": " + why.replaceAll("[0-9]+", "#")
                + (t == null ? "" : " [" + t.getClass().getSimpleName() + " at " + firstFerryFrame(t) + "]");
        AtomicInteger n = failures.computeIfAbsent(sig, k -> new AtomicInteger());
        int k = n.incrementAndGet();
        log.line("FAIL " + kind + " T" + c.tid + " #" + seq + " " + desc + " :: " + why + (t == null ? "" : " :: " + brief(t)));
        if (k == 1 && printed.incrementAndGet() <= MAX_PRINTED) {
            synchronized (out) {
                out.println("FAIL " + kind + " T" + c.tid + " #" + seq + " " + desc);
                out.println("     " + why);
                if (t != null) {
                    t.printStackTrace(out);
                }
                out.flush();
            }
        }
    }

    void countThrown(Throwable t) {
        if (t instanceof OutOfMemoryError) {
            directOoms.incrementAndGet();
        }
        thrown.computeIfAbsent(t.getClass().getSimpleName(), k -> new AtomicLong()).incrementAndGet();
    }

    private String topThrown() {
        List<Map.Entry<String, AtomicLong>> l = new ArrayList<>(thrown.entrySet());
        l.sort(Comparator.comparingLong((Map.Entry<String, AtomicLong> e) -> e.getValue().get()).reversed());
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, AtomicLong> e : l) {
            sb.append(e.getKey()).append('=').append(e.getValue().get()).append(' ');
        }
        return sb.toString().trim();
    }

    /** @return the method part of a logged call ({@code "s3.get(f4, [01])"} gives {@code "get"}) */
    static String opName(String desc) {
        if (desc == null) {
            return "?";
        }
        int p = desc.indexOf('(');
        String head = p < 0 ? desc : desc.substring(0, p);
        int dot = head.lastIndexOf('.');
        head = dot < 0 ? head : head.substring(dot + 1);
        int sp = head.lastIndexOf(' ');
        return sp < 0 ? head : head.substring(sp + 1);
    }

    private static String firstFerryFrame(Throwable t) {
        for (StackTraceElement e : t.getStackTrace()) {
            if (e.getClassName().startsWith("dev.ferry.") && !e.getClassName().startsWith("dev.ferry.fuzz.")) {
                return e.getClassName().substring("dev.ferry.".length()) + "." + e.getMethodName();
            }
        }
        StackTraceElement[] st = t.getStackTrace();
        return st.length == 0 ? "?" : st[0].getClassName() + "." + st[0].getMethodName();
    }

    /** @return {@code Class: message}, the message cut to one short line */
    static String brief(Throwable t) {
        String m = String.valueOf(t.getMessage()).replace('\n', ' ');
        return t.getClass().getSimpleName() + ": " + (m.length() > 160 ? m.substring(0, 160) + "..." : m);
    }

    private static String maxDirectMemory() {
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("-XX:MaxDirectMemorySize=")) {
                return arg.substring(arg.indexOf('=') + 1);
            }
        }
        return "default";
    }
}
