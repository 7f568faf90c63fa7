package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The call layer (docs/design.md, "Layers in Java") is the only code that crosses to native code:
 * {@code NativeCalls}, {@code ReadCalls} and {@code AdminCalls} of {@code dev.ferry.internal} lay
 * memory out, call the binding and turn return codes into exceptions. So the API's sources
 * ({@code dev.ferry} and {@code dev.ferry.rocksjava}) name no binding type and none of the ABI's
 * constants of the crossing itself: return codes, the error struct, cursor moves, page and record
 * layouts. Nor does any class of a public package of any module name {@code Abi} at all: options,
 * flags and the API's enums take their codes from {@code dev.ferry.internal.Codes}
 * ({@link #noPublicPackageNamesAbiOrAnAbiConstant}). Read from the sources: javac folds the constants
 * into the class files, where a bytecode check cannot see them.
 */
class CallLayerTest {
    /** Abi constants of the crossing: return codes, error struct, moves, layouts. */
    private static final Pattern CROSSING = Pattern.compile("\\bAbi\\.(OK|NOTFOUND|E[A-Z]+|ERRMSG_CAP|ERROR_[A-Z_]+"
            + "|PAGE_[A-Z_]+|PTR_[A-Z_]+|ENTRY_MAX|[A-Z_]*HEADER|BACKUP_INFO_SIZE|FIRST|LAST|SEEK_[A-Z_]+|NEXT|PREV"
            + "|CURRENT_[A-Z]+)\\b");
    private static final Pattern STATIC_ABI = Pattern.compile("import static dev\\.ferry\\.internal\\.Abi\\.");
    private static final Pattern BINDING = Pattern.compile("\\b(NativeBinding|NativeFunctions|RocksDbFunctions"
            + "|JniBinding|JniFunctions)\\b");

    private static List<Path> apiSources() throws IOException {
        Path p = Paths.get("").toAbsolutePath();
        while (p != null && !Files.isRegularFile(p.resolve("java/core/pom.xml"))) {
            p = p.getParent();
        }
        assertTrue(p != null, "no repository root");
        Path api = p.resolve("java/core/src/main/java/dev/ferry");
        List<Path> out = new ArrayList<>();
        for (Path d : List.of(api, api.resolve("rocksjava"))) {
            try (Stream<Path> s = Files.list(d)) {
                s.filter(f -> f.toString().endsWith(".java")).forEach(out::add);
            }
        }
        assertTrue(out.size() > 30, "found only " + out);
        return out;
    }

    /** {@code Abi} named as a word: an import (plain or static), a qualified constant, a fully qualified name. */
    private static final Pattern ABI_WORD = Pattern.compile("\\bAbi\\b");

    /**
     * The main sources of every module's public packages: the packages a module descriptor exports to everyone
     * (not those exported {@code to} named modules only), and every package but {@code internal} ones of a
     * module without a descriptor (a class-path library).
     */
    private static List<Path> publicPackageSources() throws IOException {
        Path root = apiSources().get(0);
        while (!Files.isRegularFile(root.resolve("java/core/pom.xml"))) {
            root = root.getParent();
        }
        Pattern export = Pattern.compile("^\\s*exports\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
        List<Path> out = new ArrayList<>();
        List<Path> modules;
        try (Stream<Path> s = Files.list(root.resolve("java"))) {
            modules = s.filter(m -> Files.isDirectory(m.resolve("src/main/java"))).sorted().collect(Collectors.toList());
        }
        for (Path m : modules) {
            Path src = m.resolve("src/main/java");
            Set<String> exported = null;
            for (Path d : List.of(src, m.resolve("src/main/module"))) {
                Path info = d.resolve("module-info.java");
                if (Files.isRegularFile(info)) {
                    exported = new TreeSet<>();
                    Matcher e = export.matcher(Files.readString(info));
                    while (e.find()) {
                        exported.add(e.group(1));
                    }
                }
            }
            Set<String> exports = exported;
            try (Stream<Path> s = Files.walk(src)) {
                s.filter(f -> f.toString().endsWith(".java") && !f.getFileName().toString().equals("module-info.java"))
                        .filter(f -> {
                            String pkg = src.relativize(f.getParent()).toString().replace(File.separatorChar, '.');
                            return exports != null ? exports.contains(pkg) : !pkg.matches("(.*\\.)?internal(\\..*)?");
                        })
                        .forEach(out::add);
            }
        }
        return out;
    }

    /** @return the lines of a Java source with comments blanked (line numbers kept); strings are kept */
    static List<String> code(String source) {
        StringBuilder b = new StringBuilder(source.length());
        int i = 0;
        int n = source.length();
        while (i < n) {
            char c = source.charAt(i);
            if (c == '"' || c == '\'') {
                int j = i + 1;
                while (j < n && source.charAt(j) != c && source.charAt(j) != '\n') {
                    j += source.charAt(j) == '\\' ? 2 : 1;
                }
                j = Math.min(n, j + 1);
                b.append(source, i, j);
                i = j;
            } else if (source.startsWith("//", i)) {
                while (i < n && source.charAt(i) != '\n') {
                    i++;
                }
            } else if (source.startsWith("/*", i)) {
                int end = source.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
                for (int k = i; k < end; k++) {
                    b.append(source.charAt(k) == '\n' ? '\n' : ' ');
                }
                i = end;
            } else {
                b.append(c);
                i++;
            }
        }
        return List.of(b.toString().split("\n", -1));
    }

    /**
     * No class of a public package imports or names {@code dev.ferry.internal.Abi}, nor any of its
     * constants: the API's options, flags and value enums hand their settings to the call layer, whose
     * {@code dev.ferry.internal.Codes} maps them to the ABI's codes (docs/design.md, "Layers in Java").
     * Read from the sources, comments aside.
     *
     * <p>To see the check work, put {@code import dev.ferry.internal.Abi;} in {@code WriteOptions}: it fails
     * naming that line.
     */
    @Test
    void noPublicPackageNamesAbiOrAnAbiConstant() throws IOException {
        List<Path> sources = publicPackageSources();
        assertTrue(sources.stream().anyMatch(f -> f.endsWith("dev/ferry/StoreOptions.java"))
                && sources.stream().anyMatch(f -> f.endsWith("dev/ferry/rocksjava/RocksInterop.java"))
                && sources.stream().noneMatch(f -> f.toString().contains("internal")), "public sources found: " + sources);
        List<String> found = new ArrayList<>();
        for (Path f : sources) {
            List<String> lines = code(Files.readString(f));
            for (int i = 0; i < lines.size(); i++) {
                if (ABI_WORD.matcher(lines.get(i)).find()) {
                    found.add(f.getFileName() + ":" + (i + 1) + ": " + lines.get(i).trim());
                }
            }
        }
        assertTrue(found.isEmpty(), found.size() + " lines of public packages name the C ABI's constants (hand the"
                + " setting to the call layer, dev.ferry.internal.Codes, instead):\n  " + String.join("\n  ", found));
    }

    @Test
    void commentsAreNotCode() {
        List<String> lines = code("int a = 1; // Abi.X\n/* Abi\n Abi */ String s = \"// Abi\";\nAbi.Y");
        assertEquals(4, lines.size(), lines.toString());
        assertFalse(ABI_WORD.matcher(lines.get(0)).find(), lines.get(0));
        assertFalse(ABI_WORD.matcher(lines.get(1)).find(), lines.get(1));
        assertTrue(lines.get(2).contains("\"// Abi\""), lines.get(2));
        assertTrue(ABI_WORD.matcher(lines.get(3)).find(), lines.get(3));
    }

    @Test
    void theApiNamesNoCrossingConstantAndNoBinding() throws IOException {
        List<String> found = new ArrayList<>();
        for (Path f : apiSources()) {
            String name = f.getFileName().toString();
            List<String> lines = Files.readAllLines(f);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (line.trim().startsWith("*") || line.trim().startsWith("//")) {
                    continue; // comments may name them
                }
                Matcher m = CROSSING.matcher(line);
                if (m.find()) {
                    found.add(name + ":" + (i + 1) + ": " + m.group() + " (the call layer's to read or lay out)");
                }
                if (STATIC_ABI.matcher(line).find()) {
                    found.add(name + ":" + (i + 1) + ": a static import of Abi");
                }
                Matcher b = BINDING.matcher(line);
                if (b.find()) {
                    found.add(name + ":" + (i + 1) + ": " + b.group() + " (call the call layer instead)");
                }
            }
        }
        assertTrue(found.isEmpty(), "the API crosses beside the call layer:\n  " + String.join("\n  ", found));
    }
}
