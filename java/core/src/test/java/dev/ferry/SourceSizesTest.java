package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The project's limits on a file's length (issue 43): no file of main code (native/src, and
 * java/&lt;module&gt;/src/main of every module) over 1,000 lines, no test file (native/test and
 * java/&lt;module&gt;/src/test) over 1,500. Generated files count like any other (the generator refuses
 * to write one over the limit). A file over its limit is split along a seam of its own, as the
 * engines, the call layer and the fuzzers were.
 */
class SourceSizesTest {
    private static final int MAIN_LIMIT = 1000;
    private static final int TEST_LIMIT = 1500;

    private static Path root() {
        Path p = Paths.get("").toAbsolutePath();
        while (p != null && !Files.isRegularFile(p.resolve("java/core/pom.xml"))) {
            p = p.getParent();
        }
        assertTrue(p != null, "no repository root above " + Paths.get("").toAbsolutePath());
        return p;
    }

    /** The source files (C, headers, Java) under each directory that exists. */
    private static List<Path> sources(List<Path> dirs) throws IOException {
        List<Path> out = new ArrayList<>();
        for (Path d : dirs) {
            if (!Files.isDirectory(d)) {
                continue;
            }
            try (Stream<Path> s = Files.walk(d)) {
                s.filter(Files::isRegularFile).filter(f -> f.toString().matches(".*\\.(c|h|java)$")).forEach(out::add);
            }
        }
        return out;
    }

    private static List<String> over(List<Path> files, int limit) {
        List<String> out = new ArrayList<>();
        for (Path f : files) {
            long n;
            try (Stream<String> lines = Files.lines(f)) {
                n = lines.count();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (n > limit) {
                out.add(root().relativize(f) + ": " + n + " lines");
            }
        }
        return out;
    }

    private static List<Path> modules(String part) throws IOException {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(root().resolve("java"))) {
            s.filter(Files::isDirectory).forEach(m -> out.add(m.resolve("src").resolve(part)));
        }
        return out;
    }

    @Test
    void noMainFileIsOverAThousandLines() throws IOException {
        List<Path> dirs = new ArrayList<>(modules("main"));
        dirs.add(root().resolve("native/src"));
        List<Path> files = sources(dirs);
        assertTrue(files.size() > 100, "found only " + files.size() + " main files");
        List<String> big = over(files, MAIN_LIMIT);
        assertTrue(big.isEmpty(), "main files over " + MAIN_LIMIT + " lines:\n  " + String.join("\n  ", big));
    }

    @Test
    void noTestFileIsOverFifteenHundredLines() throws IOException {
        List<Path> dirs = new ArrayList<>(modules("test"));
        dirs.add(root().resolve("native/test"));
        List<Path> files = sources(dirs);
        assertTrue(files.size() > 50, "found only " + files.size() + " test files");
        List<String> big = over(files, TEST_LIMIT);
        assertTrue(big.isEmpty(), "test files over " + TEST_LIMIT + " lines:\n  " + String.join("\n  ", big));
    }
}
