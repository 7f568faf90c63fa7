package dev.ferry.fuzz;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.Store;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * Every public method of every public class of {@code dev.ferry} is called by the misuse fuzzer, or
 * is on {@link #NOT_FUZZED} with the reason. "Called" is read from the fuzzer's compiled classes
 * (their constant pools' method references, lambdas and method references included), per receiver
 * type: {@code Transaction.get(ColumnFamily, byte[], ReadOptions)} is covered only by a call made
 * on a {@code Transaction}, not by the same method called on a {@code Store}. So a public method
 * added to the API, or inherited by another class (as StoreReader's reads were by Transaction), fails
 * this test until the fuzzer calls it or the list says why it need not. A listed method that the
 * fuzzer calls after all, or that no longer exists, fails it too, so the list stays true.
 */
class FuzzCoverageTest {
    /**
     * Methods the fuzzer need not call, as {@code Class.name(descriptor)} (nested classes with
     * {@code $}) or {@code Class.name} for every overload, each with its reason.
     */
    static final Map<String, String> NOT_FUZZED = new TreeMap<>();

    static {
        String value = "a getter of an immutable value object: no native state, no lifetime, no thread rule (contract tests cover it)";
        for (String m : new String[] {"ColumnFamilyOptions.blockSize", "ColumnFamilyOptions.bloomBitsPerKey", "ColumnFamilyOptions.compression",
            "ColumnFamilyOptions.fixedPrefixLength", "ReadOptions.fillCache()Z", "ReadOptions.verifyChecksums()Z",
            "StoreOptions.columnFamilyOptions", "StoreOptions.compression()Ldev/ferry/Compression;",
            "StoreOptions.bloomBitsPerKey()I", "StoreOptions.rocksdbOptions()Ljava/lang/String;", "StoreOptions.engine()Ldev/ferry/Engine;", "StoreOptions.lmdb", "StoreOptions.rocksdb",
            "WriteOptions.append()Z", "WriteOptions.disableWal()Z", "WriteOptions.noDupData()Z",
            "WriteOptions.noOverwrite()Z", "WriteOptions.sync()Z", "MergeOperator.engineName", "Statistics$HistogramType.engineName",
            "Statistics$Ticker.engineName"}) {
            NOT_FUZZED.put(m, value);
        }
    }

    /**
     * Object's methods where a class overrides them: the fuzzer's log lines call toString on every
     * target through string concatenation (invokedynamic, which leaves no method reference to read),
     * and equals and hashCode of value classes are pure.
     */
    static final Set<String> OBJECT_METHODS = Set.of("equals", "hashCode", "toString");

    /** Public classes of the package whose methods are not fuzz targets at all, with the reason. */
    static final Map<String, String> CLASSES_NOT_FUZZED = new TreeMap<>();

    static {
        CLASSES_NOT_FUZZED.put("ErrorCode", "an enum of error codes: a value, read by the judge of every call");
        CLASSES_NOT_FUZZED.put("Engine", "an enum: a value");
        CLASSES_NOT_FUZZED.put("Compression", "an enum: a value");
        CLASSES_NOT_FUZZED.put("LmdbFlag", "an enum: a value");
        CLASSES_NOT_FUZZED.put("ColumnFamilyFlag", "an enum: a value");
        CLASSES_NOT_FUZZED.put("TransactionMode", "an enum: a value");
        CLASSES_NOT_FUZZED.put("EntryVisitor", "a callback interface the fuzzer implements");
        CLASSES_NOT_FUZZED.put("JavaCompactionFilter", "a callback interface the application implements (Ferry calls it;"
                + " the fuzzer's CallbackOps implements it, JavaCompactionFilterContractTest covers it)");
        CLASSES_NOT_FUZZED.put("JavaCompactionFilter$*", "the filter's factory (implemented by the application), its"
                + " immutable Decision and Context values: no native state, no lifetime");
        CLASSES_NOT_FUZZED.put("JavaComparator", "a callback interface the application implements (Ferry calls it; the"
                + " fuzzer's CallbackOps makes one with JavaComparator.of, JavaComparatorContractTest covers it)");
        CLASSES_NOT_FUZZED.put("JavaMergeOperator", "a callback interface the application implements (Ferry calls it;"
                + " JavaMergeOperatorContractTest covers throwing, re-entering and closing operators)");
        CLASSES_NOT_FUZZED.put("StoreReader", "an abstract sealed supertype: its methods are checked on each subclass"
                + " (Store, Snapshot, Transaction), through which they are called");
        CLASSES_NOT_FUZZED.put("StoreWriter", "an abstract sealed supertype: its methods are checked on Store and Transaction");
        CLASSES_NOT_FUZZED.put("ReadView", "StoreReader's former name, a deprecated interface of its methods for one"
                + " release: checked on each class that implements it");
        CLASSES_NOT_FUZZED.put("WriteView", "StoreWriter's former name, a deprecated interface of its methods for one"
                + " release: checked on Store and Transaction");
        CLASSES_NOT_FUZZED.put("InternalAccess", "not API: the bridge the binding modules (ffm, kafka-streams) use, refused"
                + " to other callers; documented as internal");
        CLASSES_NOT_FUZZED.put("FerryException$*", "the exception's subclasses, the same");
        CLASSES_NOT_FUZZED.put("FerryException", "exceptions: what calls throw, read by the fuzzer's judge (code(), engineCode())");
        CLASSES_NOT_FUZZED.put("LmdbStats", "an immutable value (a record of numbers); storeMore checks Store.lmdbStats' answer");
        CLASSES_NOT_FUZZED.put("BackupInfo", "an immutable value (a record)");
        CLASSES_NOT_FUZZED.put("Statistics$Histogram", "an immutable value read by storeMore");
    }

    @Test
    void everyPublicMethodIsFuzzedOrExcludedWithAReason() throws Exception {
        Set<String> called = calledMethods();
        Set<String> missing = new TreeSet<>();
        Set<String> seen = new TreeSet<>();
        Set<String> calledAnyway = new TreeSet<>();
        for (Class<?> cls : publicApiClasses()) {
            String name = cls.getName().substring("dev.ferry.".length());
            if (CLASSES_NOT_FUZZED.containsKey(name) || CLASSES_NOT_FUZZED.containsKey(name.split("\\$")[0] + "$*")) {
                continue;
            }
            String owner = cls.getName().replace('.', '/');
            for (Method m : cls.getMethods()) {
                Class<?> decl = m.getDeclaringClass();
                if (!decl.getName().startsWith("dev.ferry.") || m.isSynthetic() || m.isBridge()) {
                    continue; // Object's, Enum's and Record's methods
                }
                if (cls.isEnum() && (m.getName().equals("values") || m.getName().equals("valueOf"))) {
                    continue;
                }
                if (OBJECT_METHODS.contains(m.getName())) {
                    continue;
                }
                String byName = name + "." + m.getName();
                String full = byName + descriptor(m);
                seen.add(full);
                seen.add(byName);
                // a static method is referenced through its declaring class
                String via = Modifier.isStatic(m.getModifiers()) ? decl.getName().replace('.', '/') : owner;
                boolean isCalled = called.contains(via + "." + m.getName() + descriptor(m));
                if (NOT_FUZZED.containsKey(full) || NOT_FUZZED.containsKey(byName)) {
                    if (isCalled && NOT_FUZZED.containsKey(full)) {
                        calledAnyway.add(full);
                    }
                    continue;
                }
                if (!isCalled) {
                    missing.add(full);
                }
            }
        }
        List<String> stale = new ArrayList<>();
        for (String e : NOT_FUZZED.keySet()) {
            if (!seen.contains(e)) {
                stale.add(e + " (no such public method)");
            }
        }
        for (String e : calledAnyway) {
            stale.add(e + " (the fuzzer calls it: take it off the list)");
        }
        assertTrue(missing.isEmpty(), missing.size() + " public methods the misuse fuzzer never calls and NOT_FUZZED does not list:\n  "
                + String.join("\n  ", missing));
        assertTrue(stale.isEmpty(), "NOT_FUZZED is out of date: " + stale);
    }

    /** @return the public classes (and public nested classes) of package dev.ferry */
    static List<Class<?>> publicApiClasses() throws Exception {
        List<Class<?>> out = new ArrayList<>();
        for (String entry : entries(Store.class, "dev/ferry/")) {
            String rel = entry.substring("dev/ferry/".length());
            if (rel.contains("/") || !rel.endsWith(".class") || rel.equals("module-info.class") || rel.equals("package-info.class")) {
                continue;
            }
            Class<?> c = Class.forName("dev.ferry." + rel.substring(0, rel.length() - ".class".length()), false,
                    FuzzCoverageTest.class.getClassLoader());
            boolean visible = Modifier.isPublic(c.getModifiers());
            for (Class<?> o = c.getEnclosingClass(); o != null && visible; o = o.getEnclosingClass()) {
                visible = Modifier.isPublic(o.getModifiers());
            }
            if (visible && !c.isAnonymousClass() && !c.isSynthetic()) {
                out.add(c);
            }
        }
        return out;
    }

    /** @return every method reference ("owner.name(descriptor)") in the fuzzer's classes */
    static Set<String> calledMethods() throws Exception {
        Set<String> out = new TreeSet<>();
        for (String entry : entries(MisuseFuzz.class, "dev/ferry/fuzz/")) {
            if (!entry.endsWith(".class") || entry.contains("FuzzCoverageTest")) {
                continue;
            }
            try (InputStream in = MisuseFuzz.class.getClassLoader().getResourceAsStream(entry)) {
                methodRefs(in, out);
            }
        }
        return out;
    }

    /** @return the entries under {@code prefix} of the directory or jar holding {@code anchor} */
    private static List<String> entries(Class<?> anchor, String prefix) throws IOException, URISyntaxException {
        URL url = anchor.getProtectionDomain().getCodeSource().getLocation();
        Path p = Paths.get(url.toURI());
        List<String> out = new ArrayList<>();
        if (Files.isDirectory(p)) {
            Path dir = p.resolve(prefix);
            try (var s = Files.walk(dir)) {
                s.filter(Files::isRegularFile).forEach(f -> out.add(prefix + dir.relativize(f).toString().replace('\\', '/')));
            }
        } else {
            try (JarFile j = new JarFile(p.toFile())) {
                for (JarEntry e : java.util.Collections.list(j.entries())) {
                    if (e.getName().startsWith(prefix) && !e.isDirectory()) {
                        out.add(e.getName());
                    }
                }
            }
        }
        return out;
    }

    /** Adds the Methodref and InterfaceMethodref constants of a class file as "owner.name(descriptor)". */
    static void methodRefs(InputStream raw, Set<String> out) throws IOException {
        DataInputStream in = new DataInputStream(raw);
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort();
        in.readUnsignedShort();
        int n = in.readUnsignedShort();
        String[] utf = new String[n];
        int[] a = new int[n];
        int[] b = new int[n];
        int[] tag = new int[n];
        for (int i = 1; i < n; i++) {
            int t = in.readUnsignedByte();
            tag[i] = t;
            switch (t) {
                case 1 -> utf[i] = in.readUTF();
                case 3, 4 -> in.readInt();
                case 5, 6 -> {
                    in.readLong();
                    i++;
                }
                case 7, 8, 16, 19, 20 -> a[i] = in.readUnsignedShort();
                case 9, 10, 11, 12, 17, 18 -> {
                    a[i] = in.readUnsignedShort();
                    b[i] = in.readUnsignedShort();
                }
                case 15 -> {
                    in.readUnsignedByte();
                    a[i] = in.readUnsignedShort();
                }
                default -> throw new IOException("constant pool tag " + t);
            }
        }
        for (int i = 1; i < n; i++) {
            if (tag[i] == 10 || tag[i] == 11) {
                String owner = utf[a[a[i]]];
                int nat = b[i];
                out.add(owner + "." + utf[a[nat]] + utf[b[nat]]);
            }
        }
    }

    /** @return the method's JVM descriptor */
    static String descriptor(Method m) {
        StringBuilder sb = new StringBuilder("(");
        for (Class<?> p : m.getParameterTypes()) {
            sb.append(desc(p));
        }
        return sb.append(')').append(desc(m.getReturnType())).toString();
    }

    private static String desc(Class<?> c) {
        if (c.isArray()) {
            return c.getName().replace('.', '/');
        }
        if (c.isPrimitive()) {
            return switch (c.getName()) {
                case "void" -> "V";
                case "boolean" -> "Z";
                case "byte" -> "B";
                case "char" -> "C";
                case "short" -> "S";
                case "int" -> "I";
                case "long" -> "J";
                case "float" -> "F";
                case "double" -> "D";
                default -> throw new IllegalArgumentException(c.getName());
            };
        }
        return "L" + c.getName().replace('.', '/') + ";";
    }
}
