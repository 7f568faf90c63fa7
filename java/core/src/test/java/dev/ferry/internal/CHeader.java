package dev.ferry.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The functions of native/include/ferry.h, read from the header itself: a small parser for the
 * header's regular style ({@code FERRY_EXPORT <type> ferry_<name>(<type> <name>, ...);}, comments
 * anywhere), with the one mapping of C types to Java types the bindings use. Shared by the JNI
 * boundary test (java/core) and the FFM one (java/ffm, through the test jar).
 */
public final class CHeader {
    private CHeader() {
    }

    /** How a C type crosses the boundary: a Java {@code int} (FFM {@code JAVA_INT}) or a {@code long} ({@code JAVA_LONG}). */
    public enum Kind {
        /** {@code int}, {@code int32_t}, {@code uint32_t}: 32 bits on every ABI Ferry ships. */
        INT(int.class),
        /** Any pointer, {@code size_t}, {@code int64_t}, {@code uint64_t}: 64 bits (Ferry ships 64-bit ABIs only). */
        LONG(long.class);

        /** The Java type a binding passes it as. */
        public final Class<?> javaType;

        Kind(Class<?> javaType) {
            this.javaType = javaType;
        }

        /**
         * Classifies a C type as written in the header.
         *
         * @param cType e.g. {@code const void *}, {@code uint32_t}
         * @return its kind
         * @throws IllegalArgumentException for a type without a mapping (add one here and to both bindings)
         */
        public static Kind of(String cType) {
            String t = cType.replace("const", " ").replaceAll("\\s+", " ").trim();
            if (t.contains("*")) {
                return LONG;
            }
            switch (t) {
                case "int":
                case "int32_t":
                case "uint32_t":
                    return INT;
                case "size_t":
                case "int64_t":
                case "uint64_t":
                    return LONG;
                default:
                    throw new IllegalArgumentException("no Java mapping for the C type '" + cType + "'");
            }
        }
    }

    /** One parameter: its C type and name. */
    public record Param(String type, String name) {
        /** @return how it crosses the boundary */
        public Kind kind() {
            return Kind.of(type);
        }
    }

    /** One prototype of ferry.h. */
    public record Function(String returnType, String name, List<Param> params, String prototype) {
        /** @return how the result crosses the boundary */
        public Kind returnKind() {
            return Kind.of(returnType);
        }

        /**
         * The binding method's name: {@code ferry_a_b_c} is {@code aBC} (NativeBinding's naming rule).
         *
         * @return the Java name
         */
        public String javaName() {
            String[] parts = name.substring("ferry_".length()).split("_");
            StringBuilder b = new StringBuilder(parts[0]);
            for (int i = 1; i < parts.length; i++) {
                b.append(parts[i].substring(0, 1).toUpperCase(Locale.ROOT)).append(parts[i].substring(1));
            }
            return b.toString();
        }
    }

    /** @return native/include/ferry.h, found above the working directory */
    public static Path header() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            Path h = p.resolve("native/include/ferry.h");
            if (Files.isRegularFile(h)) {
                return h;
            }
        }
        throw new IllegalStateException("native/include/ferry.h not found above " + Path.of("").toAbsolutePath());
    }

    /**
     * Finds a file of the repository by its path from the root (the root being where ferry.h's
     * native/ directory is).
     *
     * @param relative e.g. {@code native/src/jni/binding.c}
     * @return the file
     */
    public static Path repoFile(String relative) {
        Path f = header().getParent().getParent().getParent().resolve(relative);
        if (!Files.isRegularFile(f)) {
            throw new IllegalStateException(relative + " not found at " + f);
        }
        return f;
    }

    /** @return C text with comments blanked and preprocessor lines dropped */
    static String code(String text) {
        String noComments = Pattern.compile("(?s)/\\*.*?\\*/").matcher(text).replaceAll(" ").replaceAll("//[^\\n]*", "");
        StringBuilder b = new StringBuilder();
        for (String line : noComments.split("\n", -1)) {
            if (!line.strip().startsWith("#")) {
                b.append(line).append('\n');
            }
        }
        return b.toString();
    }

    private static final Pattern EXPORT = Pattern.compile("FERRY_EXPORT\\s+([^;]*?)\\s*;", Pattern.DOTALL);
    private static final Pattern PROTOTYPE = Pattern.compile("(.*?)\\b(ferry_\\w+)\\s*\\((.*)\\)");
    private static final Pattern PARAM = Pattern.compile("(.*?)(\\w+)");

    /**
     * Parses every exported prototype of header text, in the header's order.
     *
     * @param text the header
     * @return the functions
     * @throws IllegalArgumentException on a declaration the parser does not understand
     */
    public static List<Function> functions(String text) {
        List<Function> out = new ArrayList<>();
        Matcher m = EXPORT.matcher(code(text));
        while (m.find()) {
            String decl = m.group(1).replaceAll("\\s+", " ").trim();
            Matcher p = PROTOTYPE.matcher(decl);
            if (!p.matches()) {
                throw new IllegalArgumentException("cannot read the declaration '" + decl + "'");
            }
            List<Param> params = new ArrayList<>();
            String list = p.group(3).trim();
            if (!list.equals("void")) {
                for (String one : list.split(",")) {
                    Matcher q = PARAM.matcher(one.trim());
                    if (!q.matches() || q.group(1).isBlank()) {
                        throw new IllegalArgumentException("parameter '" + one.trim() + "' of " + p.group(2)
                                + " has no type and name");
                    }
                    params.add(new Param(q.group(1).trim(), q.group(2)));
                }
            }
            out.add(new Function(p.group(1).trim(), p.group(2), List.copyOf(params), "FERRY_EXPORT " + decl + ";"));
        }
        return out;
    }

    /**
     * Parses ferry.h.
     *
     * @return its functions, in its order
     * @throws IOException when it cannot be read
     */
    public static List<Function> functions() throws IOException {
        return functions(Files.readString(header()));
    }
}
