package dev.ferry.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ferry.ErrorCode;
import dev.ferry.internal.binding.Bindings;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The C ABI has one source of truth, native/include/ferry.h: every numeric {@code FERRY_X} there
 * must be {@code Abi.X} with the same value, and Abi may hold nothing else but the few layout
 * constants derived from them.
 */
class AbiTest {
    /** Abi constants that are not #defines of ferry.h (offsets of struct ferry_error, checked in C by ferry.c). */
    private static final Set<String> DERIVED = Set.of("ERROR_ENGINE_CODE", "ERROR_MESSAGE", "ERROR_SIZE");
    /** #defines that are not constants of the ABI. */
    private static final Set<String> NOT_CONSTANTS = Set.of("FERRY_H", "FERRY_EXPORT", "FERRY_TXN_VIEW");

    static Path header() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            Path h = p.resolve("native/include/ferry.h");
            if (Files.isRegularFile(h)) {
                return h;
            }
        }
        throw new IllegalStateException("native/include/ferry.h not found above " + Path.of("").toAbsolutePath());
    }

    /** @return every FERRY_* #define of the header with its value */
    static Map<String, Long> defines(Path header) throws IOException {
        Pattern def = Pattern.compile("^\\s*#\\s*define\\s+(FERRY_\\w+)\\s+(.*)$");
        Map<String, Long> out = new TreeMap<>();
        for (String line : Files.readAllLines(header)) {
            Matcher m = def.matcher(line);
            if (!m.matches() || NOT_CONSTANTS.contains(m.group(1))) {
                continue;
            }
            String expr = m.group(2).replaceAll("/\\*.*?(\\*/|$)", "").replaceAll("//.*", "").trim();
            out.put(m.group(1), new Expr(expr).parse());
        }
        return out;
    }

    static Map<String, Long> abiFields() throws IllegalAccessException {
        Map<String, Long> out = new TreeMap<>();
        for (Field f : Abi.class.getDeclaredFields()) {
            int mod = f.getModifiers();
            if (Modifier.isPublic(mod) && Modifier.isStatic(mod) && Modifier.isFinal(mod) && f.getType() == int.class) {
                out.put(f.getName(), (long) f.getInt(null));
            }
        }
        return out;
    }

    @Test
    void everyHeaderConstantIsInAbiWithTheSameValueAndNothingElse() throws Exception {
        Map<String, Long> h = defines(header());
        Map<String, Long> j = abiFields();
        assertTrue(h.size() > 60, "parsed only " + h.size() + " constants from ferry.h");
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Long> e : h.entrySet()) {
            String name = e.getKey().substring("FERRY_".length());
            Long v = j.get(name);
            if (v == null) {
                problems.add(e.getKey() + " = " + e.getValue() + " has no Abi." + name);
            } else if (!v.equals(e.getValue())) {
                problems.add(e.getKey() + " = " + e.getValue() + " but Abi." + name + " = " + v);
            }
        }
        for (String name : j.keySet()) {
            if (!h.containsKey("FERRY_" + name) && !DERIVED.contains(name)) {
                problems.add("Abi." + name + " is not in ferry.h");
            }
        }
        if (!problems.isEmpty()) {
            fail("Abi.java and ferry.h disagree:\n  " + String.join("\n  ", problems));
        }
    }

    @Test
    void errorStructLayoutFollowsTheHeader() {
        assertEquals(1024, Abi.ERROR_SIZE, "ferry.h documents ferry_error as 1024 bytes");
        assertEquals(8, Abi.ERROR_MESSAGE);
        assertEquals(4, Abi.ERROR_ENGINE_CODE);
    }

    @Test
    void everyErrorCodeOfTheHeaderHasItsOwnErrorCode() throws Exception {
        for (Map.Entry<String, Long> e : abiFields().entrySet()) {
            if (e.getKey().matches("E[A-Z]+") && !DERIVED.contains(e.getKey())) {
                int rc = e.getValue().intValue();
                assertEquals(rc, ErrorCode.of(rc).rc(), "ErrorCode for FERRY_" + e.getKey());
            }
        }
    }

    @Test
    void theLoadedLibraryHasThisAbiVersionAndAnotherVersionIsRefused() {
        // the binding ran Abi.check when it loaded; a mismatch names both sides
        assertEquals(Abi.ABI_VERSION, Bindings.jni().abiVersion());
        LinkageError e = assertThrows(LinkageError.class, () -> Abi.check(Abi.ABI_VERSION + 1, "/some/libferry.so"));
        assertTrue(e.getMessage().contains("/some/libferry.so"), e.getMessage());
        assertTrue(e.getMessage().contains("version " + (Abi.ABI_VERSION + 1)), e.getMessage());
        assertTrue(e.getMessage().contains("version " + Abi.ABI_VERSION), e.getMessage());
    }

    /**
     * C types whose size differs between the 64-bit ABIs Ferry ships (LP64 on Linux and macOS, LLP64 on
     * Windows, where {@code long} is 32 bits) or that Windows lacks. In a prototype or struct of ferry.h one
     * would silently break the FFM descriptors (java/ffm), which give every parameter one Java layout.
     */
    private static final Pattern UNPORTABLE_TYPE = Pattern.compile("\\b(long|wchar_t|ssize_t|off_t|time_t)\\b");

    /** @return "line N: text" for every declaration line of header text (comments and preprocessor lines aside) using an unportable type */
    static List<String> unportableTypes(String header) {
        String code = Pattern.compile("(?s)/\\*.*?\\*/").matcher(header)
                .replaceAll(m -> m.group().replaceAll("[^\\n]", " "))   // keeps the line numbers
                .replaceAll("//[^\\n]*", "");
        List<String> found = new ArrayList<>();
        String[] lines = code.split("\\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (!line.startsWith("#") && UNPORTABLE_TYPE.matcher(line).find()) {
                found.add("line " + (i + 1) + ": " + line);
            }
        }
        return found;
    }

    @Test
    void theCAbiUsesFixedWidthTypesOnly() throws Exception {
        List<String> found = unportableTypes(Files.readString(header()));
        assertTrue(found.isEmpty(), "ferry.h declares with a type whose size differs between Linux/macOS and Windows "
                + "(use int64_t, uint64_t, int32_t, size_t...): " + found);
    }

    @Test
    void theFixedWidthCheckFindsLongOutsideComments() {
        String header = "/* as long as it takes */\n"
                + "FERRY_EXPORT int ferry_a(int64_t n); // long\n"
                + "#define FERRY_LONG_THING 1\n"
                + "FERRY_EXPORT int ferry_b(unsigned long n,\n"
                + "                         long long *out);\n"
                + "typedef struct x { time_t t; } x;\n";
        assertEquals(List.of("line 4: FERRY_EXPORT int ferry_b(unsigned long n,", "line 5: long long *out);",
                "line 6: typedef struct x { time_t t; } x;"), unportableTypes(header));
    }

    @Test
    void theExpressionParserReadsTheHeadersForms() {
        assertEquals(-1001, new Expr("(-1001)").parse());
        assertEquals(0x7fffffffL, new Expr("0x7fffffff").parse());
        assertEquals(131072, new Expr("(128 * 1024)").parse());
        assertEquals(24, new Expr("8 + 16").parse());
    }

    /** A tiny evaluator for the header's constant expressions: integers (decimal, hex), + - *, parentheses. */
    static final class Expr {
        private final String s;
        private int i;

        Expr(String s) {
            this.s = s;
        }

        long parse() {
            long v = sum();
            skip();
            if (i != s.length()) {
                throw new IllegalArgumentException("cannot evaluate '" + s + "'");
            }
            return v;
        }

        private long sum() {
            long v = product();
            for (skip(); i < s.length() && (s.charAt(i) == '+' || s.charAt(i) == '-'); skip()) {
                char op = s.charAt(i++);
                long r = product();
                v = op == '+' ? v + r : v - r;
            }
            return v;
        }

        private long product() {
            long v = unary();
            for (skip(); i < s.length() && s.charAt(i) == '*'; skip()) {
                i++;
                v *= unary();
            }
            return v;
        }

        private long unary() {
            skip();
            if (s.charAt(i) == '-') {
                i++;
                return -unary();
            }
            if (s.charAt(i) == '(') {
                i++;
                long v = sum();
                skip();
                if (s.charAt(i++) != ')') {
                    throw new IllegalArgumentException("cannot evaluate '" + s + "'");
                }
                return v;
            }
            int start = i;
            while (i < s.length() && Character.isLetterOrDigit(s.charAt(i))) {
                i++;
            }
            String t = s.substring(start, i).replaceAll("[uUlL]+$", "");
            return t.startsWith("0x") || t.startsWith("0X") ? Long.parseLong(t.substring(2), 16) : Long.parseLong(t);
        }

        private void skip() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
        }
    }
}
