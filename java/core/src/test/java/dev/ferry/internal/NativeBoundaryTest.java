package dev.ferry.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ferry.internal.binding.Bindings;
import dev.ferry.spi.NativeBinding;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The Java/native boundary against its one source of truth, native/include/ferry.h: every
 * {@code ferry_*} prototype there has exactly one {@link NativeBinding} method (named by the rule
 * {@code ferry_a_b_c -> aBC}, in the header's order) and one JNI native ({@code aBC0}), every
 * method and native has its prototype, and each parameter's Java type is the one its C type maps
 * to ({@link CHeader.Kind}). The C side of JNI (native/src/jni/binding.c, and functions.c for
 * {@code JniFunctions}) is checked against the natives too: JNI does not check that
 * {@code jint}/{@code jlong} parameters match the Java declaration, so a mismatch would pass
 * garbage to the shim instead of failing. The FFM descriptors are checked by java/ffm's
 * {@code NativeBoundaryFfmTest}. The methods, natives and descriptors are generated from ferry.h
 * by native/gen/bindings.py ({@code GeneratedBindingsTest} checks they are up to date); these tests
 * read the header with a parser of their own, so a generator that maps a type wrongly fails here.
 * Only {@link #strerrorThroughJniGivesTheStaticMessage} loads libferry.
 */
class NativeBoundaryTest {
    /** NativeBinding methods that are binding helpers, not C functions. */
    private static final Set<String> HELPERS = Set.of("name", "address", "wrap", "mergeCallback", "filterCallback",
            "compareCallback");
    /** JniBinding natives behind the helpers. */
    private static final Set<String> JNI_HELPERS = Set.of("address0", "wrap0", "mergeCallback0", "filterCallback0",
            "compareCallback0");

    @Test
    void theParserReadsTheHeadersForms() {
        String header = "/** @brief x(int y); */\n"
                + "#define FERRY_EXPORT __attribute__((visibility(\"default\")))\n"
                + "FERRY_EXPORT int ferry_a(void);\n"
                + "FERRY_EXPORT const char *ferry_b_c(int rc); // int ferry_z(void);\n"
                + "FERRY_EXPORT int ferry_d(ferry_store *s, /* the family */ uint32_t cf, const void *key,\n"
                + "                         size_t klen, void *const *cfs, ferry_cursor **out);\n";
        List<CHeader.Function> f = CHeader.functions(header);
        assertEquals(List.of("ferry_a", "ferry_b_c", "ferry_d"), f.stream().map(CHeader.Function::name).toList());
        assertEquals(List.of(), f.get(0).params());
        assertEquals(CHeader.Kind.LONG, f.get(1).returnKind());
        assertEquals("bC", f.get(1).javaName());
        assertEquals(List.of(new CHeader.Param("ferry_store *", "s"), new CHeader.Param("uint32_t", "cf"),
                new CHeader.Param("const void *", "key"), new CHeader.Param("size_t", "klen"),
                new CHeader.Param("void *const *", "cfs"), new CHeader.Param("ferry_cursor **", "out")), f.get(2).params());
        assertEquals(List.of(CHeader.Kind.LONG, CHeader.Kind.INT, CHeader.Kind.LONG, CHeader.Kind.LONG, CHeader.Kind.LONG,
                CHeader.Kind.LONG), f.get(2).params().stream().map(CHeader.Param::kind).toList());
        assertThrows(IllegalArgumentException.class, () -> CHeader.Kind.of("double"));
        assertThrows(IllegalArgumentException.class, () -> CHeader.functions("FERRY_EXPORT int ferry_e(int);"));
    }

    @Test
    void theHeaderHasEveryFunctionOnceAndNoNumberedTwins() throws Exception {
        List<CHeader.Function> fns = CHeader.functions();
        assertTrue(fns.size() >= 50, "parsed only " + fns.size() + " functions from ferry.h");
        List<String> problems = new ArrayList<>();
        Set<String> seen = new TreeSet<>();
        for (CHeader.Function f : fns) {
            if (!seen.add(f.name())) {
                problems.add(f.name() + " is declared twice");
            }
            if (Character.isDigit(f.name().charAt(f.name().length() - 1))) {
                problems.add(f.name() + " is a numbered twin: give the one function of the operation its flags or options");
            }
            try {
                f.returnKind();
                f.params().forEach(CHeader.Param::kind);
            } catch (IllegalArgumentException e) {
                problems.add(f.name() + ": " + e.getMessage());
            }
        }
        assertNoProblems("ferry.h", problems);
    }

    @Test
    void everyFunctionHasOneNativeBindingMethodInTheHeadersOrderAndBackAgain() throws Exception {
        List<String> fromHeader = CHeader.functions().stream().map(CHeader.Function::javaName).toList();
        List<String> problems = new ArrayList<>();
        Map<String, Integer> count = new LinkedHashMap<>();
        for (Method m : NativeBinding.class.getMethods()) {   // its own and NativeFunctions' (generated)
            count.merge(m.getName(), 1, Integer::sum);
        }
        count.forEach((name, n) -> {
            if (n > 1) {
                problems.add("NativeBinding." + name + " is overloaded (" + n + " methods): one method per C function");
            }
            if (!HELPERS.contains(name) && !fromHeader.contains(name)) {
                problems.add("NativeBinding." + name + " has no ferry_* function in ferry.h");
            }
        });
        for (String name : fromHeader) {
            if (!count.containsKey(name)) {
                problems.add(cName(name) + " has no NativeBinding." + name);
            }
        }
        // the generated interfaces' order: the header's (by handle type), in each of the two files
        // (NativeFunctions and RocksDbFunctions, which holds ferry.h's RocksDB-only sections)
        for (String file : List.of("NativeFunctions", "RocksDbFunctions")) {
            List<String> declared = javaMethodsInOrder(Files.readString(
                    CHeader.repoFile("java/core/src/main/java/dev/ferry/spi/" + file + ".java")));
            List<String> abi = declared.stream().filter(n -> !HELPERS.contains(n)).toList();
            List<String> inHeader = fromHeader.stream().filter(abi::contains).toList();
            if (problems.isEmpty() && !abi.equals(inHeader)) {
                problems.add(file + " declares its methods in another order than ferry.h:\n    ferry.h:       " + inHeader
                        + "\n    " + file + ": " + abi);
            }
        }
        assertNoProblems("NativeBinding and ferry.h", problems);
    }

    @Test
    void nativeBindingParameterTypesAreTheCTypes() throws Exception {
        List<String> problems = new ArrayList<>();
        for (CHeader.Function f : CHeader.functions()) {
            Method m = method(NativeBinding.class, f.javaName());
            if (m != null) {
                checkSignature("NativeBinding." + m.getName(), m, f, problems);
            }
        }
        assertNoProblems("NativeBinding and ferry.h", problems);
    }

    /** @return JniBinding's natives and those of its generated superclass, by name, without loading libferry */
    private List<Method> jniNatives() throws ClassNotFoundException {
        Class<?> jni = Class.forName("dev.ferry.jni.JniBinding", false, getClass().getClassLoader());
        assertTrue(NativeBinding.class.isAssignableFrom(jni));
        List<Method> out = new ArrayList<>();
        for (Class<?> c = jni; c != Object.class; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (Modifier.isNative(m.getModifiers())) {
                    out.add(m);
                }
            }
        }
        return out;
    }

    @Test
    void jniNativesAreOnePerFunctionWithTheCTypes() throws Exception {
        Map<String, CHeader.Function> byNative = new LinkedHashMap<>();
        for (CHeader.Function f : CHeader.functions()) {
            byNative.put(f.javaName() + "0", f);
        }
        List<String> problems = new ArrayList<>();
        Set<String> natives = new TreeSet<>();
        for (Method m : jniNatives()) {
            int mod = m.getModifiers();
            if (!natives.add(m.getName())) {
                problems.add("JniBinding." + m.getName() + " is overloaded");
            }
            if (!Modifier.isPrivate(mod) || !Modifier.isStatic(mod)) {
                problems.add("JniBinding." + m.getName() + " is not private static");
            }
            CHeader.Function f = byNative.get(m.getName());
            String owner = f != null ? "JniFunctions" : "JniBinding";
            if (!m.getDeclaringClass().getSimpleName().equals(owner)) {
                problems.add(m.getDeclaringClass().getSimpleName() + "." + m.getName() + " belongs in " + owner);
            }
            if (f != null) {
                checkSignature("JniBinding." + m.getName(), m, f, problems);
            } else if (!JNI_HELPERS.contains(m.getName())) {
                problems.add("JniBinding." + m.getName() + " has no ferry_* function in ferry.h");
            }
        }
        for (String n : byNative.keySet()) {
            if (!natives.contains(n)) {
                problems.add(byNative.get(n).name() + " has no JniBinding." + n);
            }
        }
        assertNoProblems("JniBinding and ferry.h", problems);
    }

    /**
     * A JNI function of binding.c or functions.c: Java_dev_ferry_jni_{cls}_{name}(JNIEnv *env, jclass cls,
     * ...), or JNI_FN(name)(...), which functions.c defines as a jint function of JniFunctions.
     */
    private record JniFunction(String cls, String name, String returnType, List<String> paramTypes, String body) {
    }

    private static final Pattern JNI_DEF = Pattern.compile("(?:JNI_FN\\((\\w+)\\)|JNIEXPORT\\s+(\\w+)\\s+JNICALL\\s+"
            + "Java_dev_ferry_jni_([A-Za-z0-9]+)_(\\w+))\\s*\\(([^)]*)\\)\\s*\\{");

    /** @return the JNI functions of binding.c or functions.c text, with their JNI parameter types after env and cls */
    static List<JniFunction> jniFunctions(String text) {
        String code = CHeader.code(text);
        List<JniFunction> out = new ArrayList<>();
        Matcher m = JNI_DEF.matcher(code);
        while (m.find()) {
            String cls = m.group(1) != null ? "JniFunctions" : m.group(3);
            String name = m.group(1) != null ? m.group(1) : m.group(4);
            String ret = m.group(1) != null ? "jint" : m.group(2);   // JNI_FN(name) declares a jint function
            List<String> types = new ArrayList<>();
            for (String p : m.group(5).split(",")) {
                String t = p.trim().replaceAll("\\s*\\b\\w+$", "").trim();
                types.add(t);
            }
            if (types.size() < 2 || !types.get(0).equals("JNIEnv *") || !types.get(1).equals("jclass")) {
                throw new IllegalArgumentException(name + " does not start with (JNIEnv *env, jclass cls): " + types);
            }
            int depth = 1;
            int i = m.end();
            while (depth > 0) {
                char c = code.charAt(i++);
                depth += c == '{' ? 1 : c == '}' ? -1 : 0;
            }
            out.add(new JniFunction(cls, name, ret, List.copyOf(types.subList(2, types.size())), code.substring(m.end(), i - 1)));
        }
        return out;
    }

    private static String jniType(Class<?> c) {
        if (c == int.class) {
            return "jint";
        }
        if (c == long.class) {
            return "jlong";
        }
        return c.isPrimitive() ? "j" + c.getName() : "jobject";
    }

    @Test
    void bindingCTakesTheTypesTheJavaNativesDeclareAndCallsItsFunction() throws Exception {
        Map<String, Method> natives = new LinkedHashMap<>();
        for (Method m : jniNatives()) {
            natives.put(m.getName(), m);
        }
        Map<String, String> cByJava = new LinkedHashMap<>();
        for (CHeader.Function f : CHeader.functions()) {
            cByJava.put(f.javaName() + "0", f.name());
        }
        List<JniFunction> cs = new ArrayList<>(jniFunctions(Files.readString(CHeader.repoFile("native/src/jni/binding.c"))));
        cs.addAll(jniFunctions(Files.readString(CHeader.repoFile("native/src/jni/functions.c"))));
        List<String> problems = new ArrayList<>();
        Set<String> defined = new TreeSet<>();
        for (JniFunction c : cs) {
            if (!defined.add(c.name())) {
                problems.add("the JNI C files define " + c.name() + " twice");
            }
            Method m = natives.get(c.name());
            if (m == null || !m.getDeclaringClass().getSimpleName().equals(c.cls())) {
                problems.add("the JNI C files define " + c.cls() + "." + c.name() + ", which " + c.cls() + " does not declare");
                continue;
            }
            List<String> want = Arrays.stream(m.getParameterTypes()).map(NativeBoundaryTest::jniType).toList();
            if (!want.equals(c.paramTypes()) || !jniType(m.getReturnType()).equals(c.returnType())) {
                problems.add("binding.c " + c.name() + " is " + c.returnType() + " " + c.paramTypes() + ", JniBinding."
                        + c.name() + " is " + jniType(m.getReturnType()) + " " + want);
            }
            String fn = cByJava.get(c.name());
            if (fn != null && !Pattern.compile("\\b" + fn + "\\s*\\(").matcher(c.body()).find()) {
                problems.add("binding.c " + c.name() + " does not call " + fn);
            }
        }
        for (String n : natives.keySet()) {
            if (!defined.contains(n)) {
                problems.add(natives.get(n).getDeclaringClass().getSimpleName() + "." + n
                        + " is not defined in binding.c or functions.c");
            }
        }
        assertTrue(cs.size() >= 50, "parsed only " + cs.size() + " JNI functions from binding.c and functions.c");
        assertNoProblems("binding.c and JniBinding", problems);
    }

    @Test
    void theBindingCParserReadsBothForms() {
        String c = "/* JniFunctions.get0 */\n"
                + "JNI_FN(get0)(JNIEnv *env, jclass cls, jlong s, jint cf)\n{\n    return ferry_get(P(s), (uint32_t)cf);\n}\n"
                + "JNIEXPORT jlong JNICALL Java_dev_ferry_jni_JniFunctions_strerror0(JNIEnv *env, jclass cls, jint rc)\n"
                + "{\n    if (rc) { return 1; }\n    return (jlong)(intptr_t)ferry_strerror(rc);\n}\n"
                + "JNIEXPORT jlong JNICALL Java_dev_ferry_jni_JniBinding_address0(JNIEnv *env, jclass cls, jobject buf)\n"
                + "{\n    return 0;\n}\n";
        List<JniFunction> f = jniFunctions(c);
        assertEquals(3, f.size());
        assertEquals(new JniFunction("JniFunctions", "get0", "jint", List.of("jlong", "jint"), f.get(0).body()), f.get(0));
        assertEquals(List.of("JniFunctions", "JniFunctions", "JniBinding"), f.stream().map(JniFunction::cls).toList());
        assertEquals(List.of("jobject"), f.get(2).paramTypes());
        assertEquals(List.of("jint"), f.get(1).paramTypes());
        assertEquals("jlong", f.get(1).returnType());
        assertTrue(f.get(1).body().contains("ferry_strerror(rc)"), f.get(1).body());
    }

    private static void checkSignature(String where, Method m, CHeader.Function f, List<String> problems) {
        List<Class<?>> want = f.params().stream().<Class<?>>map(p -> p.kind().javaType).toList();
        List<Class<?>> have = Arrays.asList(m.getParameterTypes());
        if (!want.equals(have)) {
            problems.add(where + "(" + names(have) + ") does not match " + f.prototype() + ": want (" + names(want) + ")");
        }
        if (m.getReturnType() != f.returnKind().javaType) {
            problems.add(where + " returns " + m.getReturnType() + ", " + f.name() + " " + f.returnType() + " ("
                    + f.returnKind().javaType + ")");
        }
    }

    private static String names(List<Class<?>> types) {
        return types.stream().map(Class::getSimpleName).collect(Collectors.joining(", "));
    }

    private static Method method(Class<?> c, String name) {
        return Arrays.stream(c.getMethods()).filter(m -> m.getName().equals(name)).findFirst().orElse(null);
    }

    private static String cName(String javaName) {
        return "ferry_" + javaName.replaceAll("([A-Z])", "_$1").toLowerCase(java.util.Locale.ROOT);
    }

    /** @return the names of the methods an interface's source declares, in order */
    static List<String> javaMethodsInOrder(String source) {
        String code = CHeader.code(source);
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile("\\b[\\w.<>\\[\\]]+\\s+(\\w+)\\s*\\([^)]*\\)\\s*;").matcher(code);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    private static void assertNoProblems(String what, List<String> problems) {
        if (!problems.isEmpty()) {
            fail(what + " disagree (" + problems.size() + "):\n  " + String.join("\n  ", problems));
        }
    }

    @Test
    void strerrorThroughJniGivesTheStaticMessage() {
        NativeBinding b = Bindings.jni();
        assertEquals("invalid argument", cString(b.strerror(Abi.EINVAL)));
        assertEquals("unknown error", cString(b.strerror(12345)));
    }

    private static String cString(long p) {
        assertTrue(p != 0);
        StringBuilder s = new StringBuilder();
        for (byte c; (c = Mem.getByte(p)) != 0; p++) {
            s.append((char) c);
        }
        return s.toString();
    }

    @Test
    void theSourceOrderParserFindsInterfaceMethods() {
        String src = "package x;\nimport java.nio.ByteBuffer;\n/** a(); */\npublic interface I {\n"
                + "    String name();\n    // int ignored();\n    long address(ByteBuffer direct);\n"
                + "    int put(long store, int cf,\n            long err);\n}\n";
        assertEquals(List.of("name", "address", "put"), javaMethodsInOrder(src));
        assertEquals(ByteBuffer.class, method(NativeBinding.class, "wrap").getReturnType());
    }
}
