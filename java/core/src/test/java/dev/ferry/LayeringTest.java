package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layering of ferry-core's main classes, read from their bytecode by the JDK's {@code jdeps}
 * (docs/design.md, "Layers in Java"): {@code dev.ferry} (the API) uses {@code dev.ferry.internal}
 * (the call layer and the mechanisms under it), never the other way round apart from the API's
 * value types that the call layer reports errors and engines with.
 *
 * <p>To see the check work, make a class of {@code dev.ferry.internal} name a class of
 * {@code dev.ferry} that uses the internal package (e.g. {@code Cursor} in {@code CursorHost}):
 * both tests fail and print the circle.
 */
class LayeringTest {
    /** The classes of {@code dev.ferry} that {@code dev.ferry.internal} may name: values with no behaviour of the API. */
    private static final Set<String> VOCABULARY = Set.of("dev.ferry.FerryException", "dev.ferry.ErrorCode", "dev.ferry.Engine");

    /** Top-level class to the top-level classes it uses (Ferry's own only). */
    private static final Map<String, Set<String>> USES = new TreeMap<>();

    @BeforeAll
    static void readBytecode() throws Exception {
        Path classes = Paths.get(Store.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        String out = jdeps("-verbose:class", "-filter:none", "--ignore-missing-deps", classes.toString());
        for (String line : out.split("\\R")) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 3 || !f[1].equals("->") || !f[0].startsWith("dev.ferry.") || !f[2].startsWith("dev.ferry.")) {
                continue;
            }
            String from = topLevel(f[0]);
            String to = topLevel(f[2]);
            if (!from.equals(to)) {
                USES.computeIfAbsent(from, k -> new TreeSet<>()).add(to);
            }
            USES.computeIfAbsent(to, k -> new TreeSet<>());
        }
        assertTrue(USES.containsKey("dev.ferry.Store") && !USES.get("dev.ferry.Store").isEmpty(),
                "jdeps found no dependencies of dev.ferry.Store in " + classes + ":\n" + out);
    }

    @Test
    void noCircleOfClassesSpansTwoPackages() {
        List<String> circles = new ArrayList<>();
        for (Set<String> scc : stronglyConnected()) {
            Set<String> packages = scc.stream().map(LayeringTest::packageOf).collect(Collectors.toCollection(TreeSet::new));
            if (packages.size() > 1) {
                circles.add(packages + ": " + scc);
            }
        }
        assertTrue(circles.isEmpty(), "classes of different packages use each other in a circle:\n" + String.join("\n", circles));
    }

    @Test
    void internalNamesOnlyTheApiVocabulary() {
        List<String> bad = new ArrayList<>();
        USES.forEach((from, tos) -> {
            if (packageOf(from).startsWith("dev.ferry.internal")) {
                for (String to : tos) {
                    if (packageOf(to).equals("dev.ferry") && !VOCABULARY.contains(to)) {
                        bad.add(from + " -> " + to);
                    }
                }
            }
        });
        for (String v : VOCABULARY) {
            for (String to : USES.getOrDefault(v, Set.of())) {
                if (packageOf(to).equals("dev.ferry") && !VOCABULARY.contains(to)) {
                    bad.add(v + " (vocabulary) -> " + to);
                }
            }
        }
        assertTrue(bad.isEmpty(), "dev.ferry.internal must not use dev.ferry's classes beyond " + VOCABULARY + ":\n"
                + String.join("\n", bad));
        assertFalse(USES.getOrDefault("dev.ferry.internal.NativeCalls", Set.of()).isEmpty(), "no edges read for NativeCalls");
    }

    /** Tarjan's strongly connected components of {@link #USES}. */
    private static List<Set<String>> stronglyConnected() {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new TreeSet<>();
        List<Set<String>> out = new ArrayList<>();
        int[] next = {0};
        for (String v : USES.keySet()) {
            if (!index.containsKey(v)) {
                connect(v, index, low, stack, onStack, out, next);
            }
        }
        return out;
    }

    private static void connect(String v, Map<String, Integer> index, Map<String, Integer> low, Deque<String> stack,
                                Set<String> onStack, List<Set<String>> out, int[] next) {
        index.put(v, next[0]);
        low.put(v, next[0]);
        next[0]++;
        stack.push(v);
        onStack.add(v);
        for (String w : USES.getOrDefault(v, Set.of())) {
            if (!index.containsKey(w)) {
                connect(w, index, low, stack, onStack, out, next);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            Set<String> scc = new TreeSet<>();
            String w;
            do {
                w = stack.pop();
                onStack.remove(w);
                scc.add(w);
            } while (!w.equals(v));
            out.add(scc);
        }
    }

    private static String topLevel(String cls) {
        int d = cls.indexOf('$');
        return d < 0 ? cls : cls.substring(0, d);
    }

    private static String packageOf(String cls) {
        return cls.substring(0, cls.lastIndexOf('.'));
    }

    /** Runs jdeps in this JVM when the tool is in the runtime image, else the JDK's jdeps executable. */
    private static String jdeps(String... args) throws Exception {
        Optional<ToolProvider> tool = ToolProvider.findFirst("jdeps");
        if (tool.isPresent()) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (PrintStream ps = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
                int rc = tool.get().run(ps, ps, args);
                assertTrue(rc == 0, "jdeps failed: " + bytes.toString(StandardCharsets.UTF_8));
            }
            return bytes.toString(StandardCharsets.UTF_8);
        }
        Path exe = Paths.get(System.getProperty("java.home"), "bin", "jdeps");
        assertTrue(Files.isExecutable(exe), "no jdeps in this JDK (" + exe + ")");
        List<String> cmd = new ArrayList<>();
        cmd.add(exe.toString());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor() == 0, "jdeps failed: " + out);
        return out;
    }
}
