package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
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

    /**
     * No circle of packages: with the API's {@link #VOCABULARY} and the ABI's constants counted as
     * a layer of their own (the values every layer may name), the packages of ferry-core form a hierarchy. For example
     * the binding chooser sits in {@code dev.ferry.internal.binding}, above both {@code dev.ferry.jni}
     * and {@code dev.ferry.internal}, so the JNI binding's use of {@code internal} makes no circle.
     *
     * <p>To see the check work, make a class of {@code dev.ferry.internal} name
     * {@code dev.ferry.jni.JniBinding}: it fails printing {@code [dev.ferry.internal, dev.ferry.jni]}.
     */
    @Test
    void noCircleOfPackages() {
        Map<String, Set<String>> packages = new TreeMap<>();
        USES.forEach((from, tos) -> {
            Set<String> edges = packages.computeIfAbsent(layerOf(from), k -> new TreeSet<>());
            for (String to : tos) {
                String target = layerOf(to);
                packages.computeIfAbsent(target, k -> new TreeSet<>());
                if (!target.equals(layerOf(from))) {
                    edges.add(target);
                }
            }
        });
        assertTrue(packages.containsKey("dev.ferry.internal") && packages.containsKey("dev.ferry.jni"),
                "packages read: " + packages.keySet());
        assertTrue(USES.getOrDefault(ABI, Set.of()).isEmpty(), "Abi (the bottom layer) uses " + USES.get(ABI));
        List<String> circles = new ArrayList<>();
        for (Set<String> scc : stronglyConnected(packages)) {
            if (scc.size() > 1) {
                StringBuilder why = new StringBuilder(scc.toString());
                USES.forEach((from, tos) -> tos.forEach(to -> {
                    if (scc.contains(layerOf(from)) && scc.contains(layerOf(to)) && !layerOf(from).equals(layerOf(to))) {
                        why.append("\n  ").append(from).append(" -> ").append(to);
                    }
                }));
                circles.add(why.toString());
            }
        }
        assertTrue(circles.isEmpty(), "packages use each other in a circle:\n" + String.join("\n", circles));
    }

    /**
     * A class's package, with the API's vocabulary and the C ABI's constants ({@code Abi}, whose
     * codes the vocabulary's enums carry) as the bottom layer.
     */
    private static String layerOf(String cls) {
        return VOCABULARY.contains(cls) || cls.equals(ABI) ? "vocabulary (FerryException, ErrorCode, Engine, Abi)" : packageOf(cls);
    }

    private static final String ABI = "dev.ferry.internal.Abi";

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

    /**
     * No public class of {@code dev.ferry} uses a package-private field, method or constructor of
     * another public class of {@code dev.ferry} (issue 32): what one API class needs of another is
     * either its public API or goes through a non-public helper of the package ({@code StoreCore},
     * {@code Families}, ...). {@link InternalAccess}, the one door for Ferry's other packages, is
     * exempt. Read from the class files' constant pools (every field and method a class uses is
     * named there, lambdas and method references included) and the owners' member access flags.
     * A call on {@code this} of an inherited package-private method names the caller's own class,
     * so a view's template methods ({@code ReadView.enter}, {@code WriteView.send}) pass, as do
     * a subclass's calls of its superclass's constructor. {@link #ALLOWED} lists the rest that may.
     *
     * <p>To see the check work, make a public class call {@code WriteBatch.encoded()}: it fails
     * naming the call.
     */
    @Test
    void noPublicClassUsesAnotherPublicClassPackagePrivateMembers() throws Exception {
        Path root = Paths.get(Store.class.getProtectionDomain().getCodeSource().getLocation().toURI()).resolve("dev/ferry");
        Map<String, ClassFile> files = new TreeMap<>();
        try (var list = Files.list(root)) {
            for (Path p : list.filter(f -> f.toString().endsWith(".class")).collect(Collectors.toList())) {
                try (InputStream in = Files.newInputStream(p)) {
                    ClassFile cf = ClassFile.read(in);
                    files.put(cf.name, cf);
                }
            }
        }
        assertTrue(files.containsKey("dev/ferry/Store") && files.containsKey("dev/ferry/WriteBatch"), "no class files in " + root);
        List<String> bad = new ArrayList<>();
        int checked = 0;
        for (ClassFile caller : files.values()) {
            String callerTop = topLevel(caller.name);
            ClassFile callerTopFile = files.get(callerTop);
            if (callerTopFile == null || !callerTopFile.isPublic() || callerTop.equals("dev/ferry/InternalAccess")) {
                continue;
            }
            for (String[] ref : caller.refs) { // owner, name, descriptor
                String ownerTop = topLevel(ref[0]);
                ClassFile ownerTopFile = files.get(ownerTop);
                if (ownerTop.equals(callerTop) || ownerTopFile == null || !ownerTopFile.isPublic()) {
                    continue;
                }
                checked++;
                Integer access = access(files, ref[0], ref[1], ref[2]);
                String use = simple(callerTop) + " -> " + simple(ownerTop) + "." + ref[1];
                if (access != null && (access & 0x0007) == 0 && !extendsClass(files, callerTop, ref[0]) && !ALLOWED.contains(use)) {
                    bad.add(caller.name.replace('/', '.') + " uses " + ref[0].replace('/', '.') + "." + ref[1] + " " + ref[2]);
                }
            }
        }
        assertTrue(checked > 0, "no uses between public classes found");
        assertTrue(bad.isEmpty(), "public classes use package-private members of other public classes"
                + " (go through a non-public helper or InternalAccess):\n" + String.join("\n", bad));
    }

    /**
     * Uses of package-private members between public classes that stay: the native encodings of
     * option and flag values (read where the value is sent to the engine), and {@link Cursor}
     * building and moving its {@link View}s (a view is the cursor's window; they are one unit).
     */
    private static final Set<String> ALLOWED = Set.of(
            "ColumnFamily -> ColumnFamilyFlag.of",
            "ColumnFamilyOptions -> Compression.value",
            "StoreOptions -> Compression.value",
            "StoreOptions -> LmdbFlag.bit",
            "StoreOptions -> ColumnFamilyOptions.nativeOptionsString",
            "StoreOptions -> ColumnFamilyOptions.toNative",
            "ReadView -> ReadOptions.flags",
            "Store -> WriteOptions.flags",
            "Cursor -> View.<init>",
            "Cursor -> View.len",
            "Cursor -> View.addr",
            "Cursor -> View.set",
            "Cursor -> View.invalidate",
            "KeyRange -> View.hex");

    private static String simple(String internalName) {
        return internalName.substring(internalName.lastIndexOf('/') + 1);
    }

    /** @return true when {@code cls} is {@code ancestor} or a subclass of it (within this package) */
    private static boolean extendsClass(Map<String, ClassFile> files, String cls, String ancestor) {
        for (ClassFile c = files.get(cls); c != null; c = files.get(c.superName)) {
            if (c.name.equals(ancestor)) {
                return true;
            }
        }
        return false;
    }

    /** The access flags of a member as declared in {@code owner} or the nearest superclass declaring it; null when not found in this package. */
    private static Integer access(Map<String, ClassFile> files, String owner, String name, String descriptor) {
        for (ClassFile c = files.get(owner); c != null; c = files.get(c.superName)) {
            Integer a = c.members.get(name + (descriptor.startsWith("(") ? descriptor : ""));
            if (a != null) {
                return a;
            }
        }
        return null;
    }

    /** The parts of a class file this test reads. */
    private static final class ClassFile {
        String name;
        String superName;
        int access;
        /** Field and method references: owner, name, descriptor. */
        final List<String[]> refs = new ArrayList<>();
        /** Declared members: field name, or method name + descriptor, to access flags. */
        final Map<String, Integer> members = new HashMap<>();

        boolean isPublic() {
            return (access & 0x0001) != 0;
        }

        static ClassFile read(InputStream stream) throws IOException {
            DataInputStream in = new DataInputStream(stream);
            if (in.readInt() != 0xCAFEBABE) {
                throw new IOException("not a class file");
            }
            in.readUnsignedShort();
            in.readUnsignedShort();
            int n = in.readUnsignedShort();
            Object[] pool = new Object[n];
            int[][] links = new int[n][];
            for (int i = 1; i < n; i++) {
                int tag = in.readUnsignedByte();
                switch (tag) {
                    case 1: pool[i] = in.readUTF(); break;
                    case 3: case 4: in.readInt(); break;
                    case 5: case 6: in.readLong(); i++; break;
                    case 7: case 8: case 16: case 19: case 20: links[i] = new int[] {tag, in.readUnsignedShort()}; break;
                    case 9: case 10: case 11: case 12: case 17: case 18:
                        links[i] = new int[] {tag, in.readUnsignedShort(), in.readUnsignedShort()};
                        break;
                    case 15: links[i] = new int[] {tag, in.readUnsignedByte(), in.readUnsignedShort()}; break;
                    default: throw new IOException("constant pool tag " + tag);
                }
            }
            ClassFile cf = new ClassFile();
            for (int i = 1; i < n; i++) {
                if (links[i] != null && links[i][0] >= 9 && links[i][0] <= 11) { // Fieldref, Methodref, InterfaceMethodref
                    int[] nat = links[links[i][2]];
                    cf.refs.add(new String[] {(String) pool[links[links[i][1]][1]], (String) pool[nat[1]], (String) pool[nat[2]]});
                }
            }
            cf.access = in.readUnsignedShort();
            cf.name = (String) pool[links[in.readUnsignedShort()][1]];
            int sup = in.readUnsignedShort();
            cf.superName = sup == 0 ? null : (String) pool[links[sup][1]];
            int interfaces = in.readUnsignedShort();
            for (int i = 0; i < interfaces; i++) {
                in.readUnsignedShort();
            }
            for (int kind = 0; kind < 2; kind++) { // fields, then methods
                int count = in.readUnsignedShort();
                for (int i = 0; i < count; i++) {
                    int flags = in.readUnsignedShort();
                    String member = (String) pool[in.readUnsignedShort()];
                    String desc = (String) pool[in.readUnsignedShort()];
                    cf.members.put(kind == 0 ? member : member + desc, flags);
                    int attributes = in.readUnsignedShort();
                    for (int a = 0; a < attributes; a++) {
                        in.readUnsignedShort();
                        in.readFully(new byte[in.readInt()]);
                    }
                }
            }
            return cf;
        }
    }

    /** Tarjan's strongly connected components of {@link #USES}. */
    private static List<Set<String>> stronglyConnected() {
        return stronglyConnected(USES);
    }

    private static List<Set<String>> stronglyConnected(Map<String, Set<String>> graph) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new TreeSet<>();
        List<Set<String>> out = new ArrayList<>();
        int[] next = {0};
        for (String v : graph.keySet()) {
            if (!index.containsKey(v)) {
                connect(graph, v, index, low, stack, onStack, out, next);
            }
        }
        return out;
    }

    private static void connect(Map<String, Set<String>> graph, String v, Map<String, Integer> index, Map<String, Integer> low, Deque<String> stack,
                                Set<String> onStack, List<Set<String>> out, int[] next) {
        index.put(v, next[0]);
        low.put(v, next[0]);
        next[0]++;
        stack.push(v);
        onStack.add(v);
        for (String w : graph.getOrDefault(v, Set.of())) {
            if (!index.containsKey(w)) {
                connect(graph, w, index, low, stack, onStack, out, next);
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
