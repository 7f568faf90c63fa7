package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layering of Ferry's main classes, read from their bytecode (docs/design.md, "Layers in
 * Java"): the JDK's {@code jdeps} for the classes each class names, and the class files' constant
 * pools for package-private members and for class names held as strings. Every module is read:
 * ferry-core, ferry-ffm and ferry-kafka-streams ({@link #MODULES}: this test runs in ferry-core,
 * where only core is built yet, and again in ferry-ffm, which reads core and ffm; a module's
 * {@code target/classes} is read whenever it is built, and {@code -Dferry.layering.classes=
 * core=DIR,ffm=DIR,...} names other builds). {@code dev.ferry} (the API) uses
 * {@code dev.ferry.internal} (the call layer and the mechanisms under it), never the other way
 * round apart from the API's value types that the call layer reports errors and engines with;
 * the FFM module's internals name the SPI, not the API; nothing reaches another package by a
 * class name in a string unless {@link #REFLECTIVE} says why.
 *
 * <p>To see the check work, make a class of {@code dev.ferry.internal} name a class of
 * {@code dev.ferry} that uses the internal package (e.g. {@code Cursor} in {@code CursorHost}):
 * both circle tests fail and print the circle. Before issue 43 core loaded the FFM module's
 * {@code ScopedEntryBuffers} by name and that class named {@code Cursor}: a circle jdeps cannot
 * see, which {@link #noReflectiveReachAcrossLayers} and {@link #bindingModulesNameTheSpiNotTheApi}
 * refuse.
 */
class LayeringTest {
    /** The classes of {@code dev.ferry} that {@code dev.ferry.internal} may name: values with no behaviour of the API. */
    private static final Set<String> VOCABULARY = Set.of("dev.ferry.FerryException", "dev.ferry.ErrorCode", "dev.ferry.Engine");

    /** Each module's main classes (a directory or a jar), core first; modules not built are absent. */
    private static final Map<String, Path> MODULES = new LinkedHashMap<>();

    /** Top-level class to the top-level classes it uses (Ferry's own only). */
    private static final Map<String, Set<String>> USES = new TreeMap<>();

    /** Every main class file read, by internal name ({@code dev/ferry/Store}), and the module it is in. */
    private static final Map<String, ClassFile> CLASSES = new TreeMap<>();
    private static final Map<String, String> MODULE_OF = new HashMap<>();

    /**
     * Class names in strings that reach into another package, with the reason they stay
     * ("holder -> named class"). Any other is a dependency no import shows.
     */
    private static final Map<String, String> REFLECTIVE = Map.of(
            "dev.ferry.internal.binding.Bindings -> dev.ferry.ffm.internal.FfmBindingProvider",
            "the SPI's implementation in ferry-ffm, found by name only on a class path whose jars were merged"
                    + " without their service files; core reaches it as a BindingProvider, nothing else");

    /** The classes of the API that the FFM module may name, and why: its public package takes the API's types. */
    private static final Map<String, String> FFM_API_USES = Map.of(
            "dev.ferry.ffm.Segments -> dev.ferry.Cursor", "Segments is public API: its methods take a cursor",
            "dev.ferry.ffm.Segments -> dev.ferry.InternalAccess", "turns that cursor into the SPI's CurrentEntry");

    /** The packages of ferry-core each other module may use: what core's module descriptor exports to it. */
    private static final Map<String, Set<String>> CORE_PACKAGES_FOR = Map.of(
            "ffm", Set.of("dev.ferry", "dev.ferry.internal", "dev.ferry.internal.binding", "dev.ferry.spi", "dev.ferry.jni"),
            "kafka-streams", Set.of("dev.ferry", "dev.ferry.rocksjava"));

    @BeforeAll
    static void readBytecode() throws Exception {
        findModules();
        for (Map.Entry<String, Path> m : MODULES.entrySet()) {
            for (ClassFile cf : readClasses(m.getValue())) {
                CLASSES.put(cf.name, cf);
                MODULE_OF.put(cf.name, m.getKey());
            }
        }
        List<String> args = new ArrayList<>(List.of("-verbose:class", "-filter:none", "--ignore-missing-deps"));
        MODULES.values().forEach(p -> args.add(p.toString()));
        String out = jdeps(args.toArray(new String[0]));
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
                "jdeps found no dependencies of dev.ferry.Store in " + MODULES + ":\n" + out);
    }

    /**
     * Core from this class path; ffm from the class path when it is on it (its own test run), else
     * from its build directory; kafka-streams from its build directory.
     */
    private static void findModules() throws Exception {
        String given = System.getProperty("ferry.layering.classes", "");
        if (!given.isEmpty()) {
            for (String kv : given.split(",")) {
                String[] p = kv.split("=", 2);
                MODULES.put(p[0], Paths.get(p[1]));
            }
            return;
        }
        Path core = location(Store.class);
        MODULES.put("core", core);
        Path root = core.toAbsolutePath();
        while (root != null && !Files.isRegularFile(root.resolve("java/core/pom.xml"))) {
            root = root.getParent();
        }
        for (String[] m : new String[][] {{"ffm", "dev.ferry.ffm.Segments"}, {"kafka-streams", "dev.ferry.kafka.FerryStores"}}) {
            Path p = null;
            try {
                p = location(Class.forName(m[1], false, LayeringTest.class.getClassLoader()));
            } catch (ClassNotFoundException e) {
                Path built = root == null ? null : root.resolve("java/" + m[0] + "/target/classes");
                Path probe = built == null ? null : built.resolve(m[1].replace('.', '/') + ".class");
                if (probe != null && Files.isRegularFile(probe) && readableHere(probe)
                        && !stale(built, root.resolve("java/" + m[0] + "/src/main/java"))) {
                    p = built;
                }
            }
            if (p != null) {
                MODULES.put(m[0], p);
            }
        }
    }

    /**
     * Whether this JDK reads a class file's version: ferry-ffm's classes (Java 22) are not read by the
     * JNI run on JDK 17, whose jdeps refuses the whole directory ("Unsupported major.minor version").
     */
    private static boolean readableHere(Path classFile) throws IOException {
        try (DataInputStream in = new DataInputStream(Files.newInputStream(classFile))) {
            in.readInt(); // magic
            in.readUnsignedShort(); // minor
            return in.readUnsignedShort() <= 44 + Runtime.version().feature();
        }
    }

    /**
     * Whether a module's build directory is older than its sources (a build of another revision, left by an
     * earlier run: core's tests run before the reactor compiles the other modules); then it is not read.
     */
    private static boolean stale(Path classes, Path sources) throws IOException {
        long newestSource;
        try (Stream<Path> files = Files.walk(sources)) {
            newestSource = files.filter(f -> f.toString().endsWith(".java")).mapToLong(f -> f.toFile().lastModified()).max().orElse(0);
        }
        long oldestClass;
        try (Stream<Path> files = Files.walk(classes)) {
            oldestClass = files.filter(f -> f.toString().endsWith(".class")).mapToLong(f -> f.toFile().lastModified()).min().orElse(0);
        }
        return newestSource > oldestClass;
    }

    private static Path location(Class<?> c) throws Exception {
        return Paths.get(c.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    /** The class files of a directory or jar (not module-info, not other releases' versions). */
    private static List<ClassFile> readClasses(Path location) throws IOException {
        List<ClassFile> out = new ArrayList<>();
        FileSystem jar = Files.isDirectory(location) ? null : FileSystems.newFileSystem(location);
        try {
            Path root = jar == null ? location : jar.getPath("/");
            try (Stream<Path> files = Files.walk(root)) {
                for (Path f : files.filter(f -> f.toString().endsWith(".class") && !f.toString().contains("META-INF")
                        && !f.getFileName().toString().equals("module-info.class")).collect(Collectors.toList())) {
                    try (InputStream in = Files.newInputStream(f)) {
                        out.add(ClassFile.read(in));
                    }
                }
            }
        } finally {
            if (jar != null) {
                jar.close();
            }
        }
        assertFalse(out.isEmpty(), "no class files in " + location);
        return out;
    }

    /** Reports (as skipped) a module this run could not read because it is not built yet. */
    @Test
    void everyModuleIsRead() {
        assertTrue(MODULES.containsKey("core") && CLASSES.containsKey("dev/ferry/Store"), "read: " + MODULES);
        if (MODULES.containsKey("ffm")) {
            assertTrue(CLASSES.containsKey("dev/ferry/ffm/internal/FfmBindingProvider"), "ffm read from " + MODULES.get("ffm"));
        }
        assumeTrue(MODULES.keySet().containsAll(List.of("core", "ffm", "kafka-streams")),
                "modules not built before this run, not read here: only " + MODULES.keySet());
    }

    /**
     * No class of Ferry holds, as a string, the name of a class of another package (a
     * {@code Class.forName}, a {@code ServiceLoader} fallback, a concatenated name), unless
     * {@link #REFLECTIVE} gives the reason: such a reach is a dependency that no import and no
     * jdeps edge shows, and it hid a circle between core and ffm (issue 43). Read from each class
     * file's string constants, including the recipes of string concatenations.
     *
     * <p>To see the check work, put {@code Class.forName("dev.ferry.ffm.internal.FfmBinding")} in a
     * class of core: it fails naming the holder and the string.
     */
    @Test
    void noReflectiveReachAcrossLayers() {
        Pattern className = Pattern.compile("dev[./]ferry([./][A-Za-z0-9_$]+)*[./]([A-Z][A-Za-z0-9_$]*|\u0001)");
        List<String> bad = new ArrayList<>();
        int seen = 0;
        for (ClassFile cf : CLASSES.values()) {
            String holder = topLevel(cf.name.replace('/', '.'));
            for (String s : cf.strings) {
                if (!className.matcher(s).matches()) {
                    continue;
                }
                String named = topLevel(s.replace('/', '.'));
                if (packageOf(named).equals(packageOf(holder))) {
                    continue;
                }
                seen++;
                if (!REFLECTIVE.containsKey(holder + " -> " + named)) {
                    bad.add(holder + " (" + MODULE_OF.get(cf.name) + ") holds \"" + s.replace("\u0001", "<arg>") + "\"");
                }
            }
        }
        assertTrue(bad.isEmpty(), "classes reach another package by a class name in a string (import it, use the SPI,"
                + " or list it with its reason in REFLECTIVE):\n" + String.join("\n", bad));
        assertTrue(seen > 0 || !MODULES.containsKey("ffm"), "the allowed reach into ffm was not found: is the scan blind?");
    }

    /**
     * The FFM module's internals name the SPI ({@code dev.ferry.spi}), not the API: the API's
     * classes reach them only as SPI types ({@code CurrentEntry}, {@code EntryBuffers}); only its
     * public package names API classes, as {@link #FFM_API_USES} lists. And no module uses a
     * package of core that core's descriptor does not export to it ({@link #CORE_PACKAGES_FOR}).
     */
    @Test
    void bindingModulesNameTheSpiNotTheApi() {
        List<String> bad = new ArrayList<>();
        USES.forEach((from, tos) -> {
            String module = MODULE_OF.get(from.replace('.', '/'));
            if (module == null || module.equals("core")) {
                return;
            }
            for (String to : tos) {
                if (!"core".equals(MODULE_OF.get(to.replace('.', '/')))) {
                    continue;
                }
                if (!CORE_PACKAGES_FOR.get(module).contains(packageOf(to))) {
                    bad.add(from + " -> " + to + " (" + packageOf(to) + " is not exported to " + module + ")");
                } else if (module.equals("ffm") && packageOf(to).equals("dev.ferry") && !VOCABULARY.contains(to)
                        && !FFM_API_USES.containsKey(from + " -> " + to)) {
                    bad.add(from + " -> " + to + " (an API class in the binding module: carry it as an SPI type)");
                }
            }
        });
        assertTrue(bad.isEmpty(), "modules use core beyond their layer:\n" + String.join("\n", bad));
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
     * No circle of packages: with the API's {@link #VOCABULARY} and the ABI's constants and codes ({@code Abi}, {@code Codes}) counted as
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
        assertTrue(Set.of(ABI).containsAll(USES.getOrDefault(CODES, Set.of())), "Codes (the bottom layer) uses " + USES.get(CODES));
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
     * A class's package, with the API's vocabulary, the C ABI's constants ({@code Abi}) and their map to
     * the API's values ({@code Codes}, from which the vocabulary's enums take their codes) as the bottom layer.
     */
    private static String layerOf(String cls) {
        return VOCABULARY.contains(cls) || cls.equals(ABI) || cls.equals(CODES)
                ? "vocabulary (FerryException, ErrorCode, Engine, Abi, Codes)" : packageOf(cls);
    }

    private static final String ABI = "dev.ferry.internal.Abi";
    private static final String CODES = "dev.ferry.internal.Codes";

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
     * so a view's template methods ({@code StoreReader.enter}, {@code StoreWriter.send}) pass, as do
     * a subclass's calls of its superclass's constructor. {@link #ALLOWED} lists the rest that may.
     *
     * <p>To see the check work, make a public class call {@code WriteBatch.encoded()}: it fails
     * naming the call.
     */
    @Test
    void noPublicClassUsesAnotherPublicClassPackagePrivateMembers() {
        Map<String, ClassFile> files = new TreeMap<>();
        CLASSES.forEach((name, cf) -> {
            if ("core".equals(MODULE_OF.get(name)) && name.lastIndexOf('/') == "dev/ferry".length()) {
                files.put(name, cf);
            }
        });
        assertTrue(files.containsKey("dev/ferry/Store") && files.containsKey("dev/ferry/WriteBatch"), "no class files of dev.ferry in " + MODULES.get("core"));
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
     * building and moving its {@link View}s, a view asking its cursor for the SPI's current entry
     * (a view is the cursor's window; they are one unit).
     */
    private static final Set<String> ALLOWED = Set.of(
            "ColumnFamily -> ColumnFamilyFlag.of",
            "ColumnFamilyOptions -> Compression.value",
            "ColumnFamilyOptions -> KeyOrder.value",
            "ColumnFamily -> KeyOrder.ofFlags",
            "StoreOptions -> Compression.value",
            "StoreOptions -> LmdbFlag.bit",
            "StoreOptions -> ColumnFamilyOptions.nativeOptionsString",
            "StoreOptions -> ColumnFamilyOptions.toNative",
            "StoreReader -> ReadOptions.flags",
            "Store -> WriteOptions.flags",
            "Cursor -> View.<init>",
            "Cursor -> View.len",
            "Cursor -> View.addr",
            "Cursor -> View.set",
            "Cursor -> View.invalidate",
            "View -> Cursor.currentEntry",
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
        /** String constants (also the recipes of string concatenations, where character 1 marks an argument). */
        final List<String> strings = new ArrayList<>();

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
                if (links[i] != null && links[i][0] == 8) { // String
                    cf.strings.add((String) pool[links[i][1]]);
                }
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
