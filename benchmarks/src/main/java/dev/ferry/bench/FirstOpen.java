package dev.ferry.bench;

import dev.ferry.Engine;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Time to the first {@link Store#open} of a process, per binding and engine: the cost a
 * short-lived program (a CLI, a test, a serverless function) pays once.
 *
 * <p>Child mode ({@code FirstOpen <engine>}, binding from {@code -Dferry.binding}) opens a store in
 * a fresh temporary directory as the first Ferry call of the JVM, then puts and gets one entry and
 * closes, and prints one line of milliseconds: {@code main} (JVM launch to {@code main}, when the
 * launcher passed its clock in {@code -Dferry.firstopen.launched}), {@code open}, {@code putget},
 * {@code close}, {@code opencpu}, the CPU time of the opening thread during {@code open}, and
 * {@code openproccpu}, that of the whole process (Linux; both steadier than wall time on a busy
 * machine; the second also counts the JIT, the GC and FfmBinding's warm-up thread). With {@code -Dferry.firstopen.split=true} it first resolves the binding
 * ({@code resolve}: class loading and initialisation of the binding, library load) so that
 * {@code open} is only the engine's part.
 *
 * <p>{@code FirstOpen ffm-floor} times the JDK's own first FFM downcall, without Ferry (see
 * {@link #ffmFloor}); the driver runs it as an engine named {@code ffm-floor}.
 *
 * <p>Driver mode ({@code FirstOpen --driver <runs> [engines] [bindings] [extra JVM options...]})
 * starts {@code runs} fresh JVMs per engine x binding with this JVM's {@code java} and class path,
 * alternating the bindings (jni, ffm, jni, ...) inside each round so drift hits both alike, and
 * prints each run and then the medians, plus the whole process time and the FFM/JNI ratios.
 */
public final class FirstOpen {
    private static final String LAUNCHED = "ferry.firstopen.launched";
    private static final String FLOOR = "ffm-floor";
    private static final Path SCHEDSTAT = Path.of("/proc/thread-self/schedstat");

    private FirstOpen() {
    }

    /**
     * @param args {@code <engine>} (child) or {@code --driver <runs> [rocksdb,lmdb] [jni,ffm] [JVM options...]}
     * @throws Throwable on I/O failure, when a child fails, or from a downcall
     */
    public static void main(String[] args) throws Throwable {
        long entered = System.currentTimeMillis();
        if (args.length >= 2 && args[0].equals("--driver")) {
            drive(args);
        } else if (args.length == 1 && args[0].equals(FLOOR)) {
            ffmFloor(entered);
        } else if (args.length == 1) {
            child(Engine.valueOf(args[0].toUpperCase(Locale.ROOT)), entered);
        } else {
            System.err.println("usage: FirstOpen <rocksdb|lmdb>   |   FirstOpen --driver <runs> [rocksdb,lmdb] [jni,ffm] [JVM options...]");
            System.exit(2);
        }
    }

    private static void child(Engine engine, long entered) throws IOException {
        String launched = System.getProperty(LAUNCHED);
        double mainMs = launched == null ? Double.NaN : entered - Long.parseLong(launched);
        Path dir = Files.createTempDirectory("ferry-firstopen-");
        try {
            double bindingMs = Double.NaN;
            if (Boolean.getBoolean("ferry.firstopen.split")) {
                long t = System.nanoTime();
                dev.ferry.internal.binding.Bindings.defaultBinding();
                bindingMs = ms(System.nanoTime() - t);
            }
            byte[] key = "key".getBytes(StandardCharsets.UTF_8);
            byte[] value = "value".getBytes(StandardCharsets.UTF_8);
            long p0 = processCpuMillis();
            long c0 = cpuNanos();
            long t0 = System.nanoTime();
            Store store = Store.open(dir.resolve("db"), StoreOptions.of(engine));
            long t1 = System.nanoTime();
            long c1 = cpuNanos();
            long p1 = processCpuMillis();
            store.put(key, value);
            if (!Arrays.equals(value, store.get(key))) {
                throw new IllegalStateException("get returned something else than was put");
            }
            long t2 = System.nanoTime();
            store.close();
            long t3 = System.nanoTime();
            System.out.printf(Locale.ROOT, "first-open engine=%s binding=%s main=%.1f resolve=%.1f open=%.1f opencpu=%.1f openproccpu=%.1f putget=%.1f close=%.1f%n",
                    engine.name().toLowerCase(Locale.ROOT), System.getProperty("ferry.binding", "default"), mainMs, bindingMs,
                    ms(t1 - t0), c0 < 0 || c1 < 0 ? Double.NaN : ms(c1 - c0), p0 < 0 || p1 < 0 ? Double.NaN : (double) (p1 - p0),
                    ms(t2 - t1), ms(t3 - t2));
        } finally {
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /**
     * The JDK's own cost of a first FFM call, without Ferry: the native linker, a downcall handle
     * for libc's {@code getpid} and one call ({@code handle}), then a handle of a second, new shape
     * ({@code shape}, libc's {@code strlen}): what any FFM library pays at first use, and what each
     * further signature adds.
     */
    @SuppressWarnings("restricted")
    private static void ffmFloor(long entered) throws Throwable {
        String launched = System.getProperty(LAUNCHED);
        double mainMs = launched == null ? Double.NaN : entered - Long.parseLong(launched);
        long c0 = cpuNanos();
        long t0 = System.nanoTime();
        java.lang.foreign.Linker linker = java.lang.foreign.Linker.nativeLinker();
        java.lang.invoke.MethodHandle getpid = linker.downcallHandle(linker.defaultLookup().find("getpid").orElseThrow(),
                java.lang.foreign.FunctionDescriptor.of(java.lang.foreign.ValueLayout.JAVA_INT));
        int pid = (int) getpid.invokeExact();
        long t1 = System.nanoTime();
        long c1 = cpuNanos();
        java.lang.invoke.MethodHandle strlen = linker.downcallHandle(linker.defaultLookup().find("strlen").orElseThrow(),
                java.lang.foreign.FunctionDescriptor.of(java.lang.foreign.ValueLayout.JAVA_LONG, java.lang.foreign.ValueLayout.JAVA_LONG));
        long t2 = System.nanoTime();
        long c2 = cpuNanos();
        if (pid != ProcessHandle.current().pid() || strlen == null) {
            throw new IllegalStateException("getpid returned " + pid);
        }
        System.out.printf(Locale.ROOT, "first-open engine=%s binding=- main=%.1f handle=%.1f handlecpu=%.1f shape=%.1f shapecpu=%.1f%n",
                FLOOR, mainMs, ms(t1 - t0), c0 < 0 ? Double.NaN : ms(c1 - c0), ms(t2 - t1), c0 < 0 ? Double.NaN : ms(c2 - c1));
    }

    private static void drive(String[] args) throws Exception {
        int runs = Integer.parseInt(args[1]);
        String[] engines = (args.length > 2 ? args[2] : "rocksdb,lmdb").split(",");
        String[] bindings = (args.length > 3 ? args[3] : "jni,ffm").split(",");
        List<String> jvmOptions = args.length > 4 ? List.of(args).subList(4, args.length) : List.of();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = System.getProperty("java.class.path");
        System.out.printf(Locale.ROOT, "first-open: %d runs per engine x binding, JDK %s, %s, %d cores, JVM options %s%n",
                runs, Runtime.version(), System.getProperty("os.arch"), Runtime.getRuntime().availableProcessors(), jvmOptions);
        // engine -> binding -> field -> values
        Map<String, Map<String, Map<String, List<Double>>>> all = new LinkedHashMap<>();
        for (int r = 0; r < runs; r++) {
            for (String engine : engines) {
                int variants = engine.equals(FLOOR) ? 1 : bindings.length;
                for (int i = 0; i < variants; i++) {
                    // rotate which binding goes first each round
                    String binding = engine.equals(FLOOR) ? "-" : bindings[(i + r) % bindings.length];
                    List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED",
                            "--sun-misc-unsafe-memory-access=allow", "-Dferry.binding=" + binding));
                    cmd.addAll(jvmOptions);
                    long launched = System.currentTimeMillis();
                    cmd.addAll(List.of("-D" + LAUNCHED + "=" + launched, "-cp", cp, FirstOpen.class.getName(), engine));
                    long t0 = System.nanoTime();
                    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
                    String line = null;
                    StringBuilder out = new StringBuilder();
                    try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                        for (String l; (l = in.readLine()) != null; ) {
                            out.append(l).append('\n');
                            if (l.startsWith("first-open ")) {
                                line = l;
                            }
                        }
                    }
                    int rc = p.waitFor();
                    double process = ms(System.nanoTime() - t0);
                    if (rc != 0 || line == null) {
                        throw new IllegalStateException("child failed (exit " + rc + "): " + cmd + "\n" + out);
                    }
                    System.out.printf(Locale.ROOT, "run %d %s process=%.1f%n", r, line, process);
                    Map<String, List<Double>> fields = all.computeIfAbsent(engine, k -> new LinkedHashMap<>())
                            .computeIfAbsent(binding, k -> new LinkedHashMap<>());
                    for (String kv : line.split(" ")) {
                        int eq = kv.indexOf('=');
                        if (eq > 0 && !kv.startsWith("engine=") && !kv.startsWith("binding=")) {
                            fields.computeIfAbsent(kv.substring(0, eq), k -> new ArrayList<>()).add(Double.parseDouble(kv.substring(eq + 1)));
                        }
                    }
                    fields.computeIfAbsent("process", k -> new ArrayList<>()).add(process);
                }
            }
        }
        System.out.println();
        System.out.println("medians of " + runs + " runs, ms:");
        for (var e : all.entrySet()) {
            for (var b : e.getValue().entrySet()) {
                StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-9s %-4s", e.getKey(), b.getKey()));
                for (var f : b.getValue().entrySet()) {
                    sb.append(String.format(Locale.ROOT, " %s=%.1f", f.getKey(), median(f.getValue())));
                }
                System.out.println(sb);
            }
            Map<String, List<Double>> jni = e.getValue().get("jni");
            Map<String, List<Double>> ffm = e.getValue().get("ffm");
            if (jni != null && ffm != null) {
                System.out.printf(Locale.ROOT, "%-8s ffm/jni: open %.2fx (opening thread's CPU %.2fx), open+putget+close %.2fx, process %.2fx%n",
                        e.getKey(), median(ffm.get("open")) / median(jni.get("open")),
                        median(ffm.get("opencpu")) / median(jni.get("opencpu")),
                        (median(ffm.get("open")) + median(ffm.get("putget")) + median(ffm.get("close")))
                                / (median(jni.get("open")) + median(jni.get("putget")) + median(jni.get("close"))),
                        median(ffm.get("process")) / median(jni.get("process")));
            }
        }
    }

    /**
     * CPU time of the calling thread from Linux's schedstat (nanoseconds on a CPU, unlike wall
     * time not inflated by other processes on a busy machine), or -1 elsewhere. Read from a file,
     * so that measuring it loads no management classes into the process being measured.
     */
    private static long cpuNanos() {
        try {
            String s = Files.readString(SCHEDSTAT);
            return Long.parseLong(s.substring(0, s.indexOf(' ')));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * CPU time of the whole process (every thread, including ended ones, the JIT and the GC) from
     * Linux's /proc/self/stat, in milliseconds at the kernel's 10 ms tick, or -1 elsewhere.
     */
    private static long processCpuMillis() {
        try {
            String s = Files.readString(Path.of("/proc/self/stat"));
            String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
            // after the command: state is field 3, utime field 14, stime field 15 (1-based in proc(5))
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static double median(List<Double> xs) {
        if (xs == null || xs.isEmpty()) {
            return Double.NaN;
        }
        double[] a = xs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }
}
