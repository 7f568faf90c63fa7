package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Compiles the README's tutorial as written and runs it against a real store. */
class ReadmeTutorialTest {
    @TempDir
    Path tmp;

    @Test
    void readmeTutorialCompilesAndRuns() throws Exception {
        Path readme = Paths.get("../../README.md");
        String text = Files.readString(readme);
        int begin = text.indexOf("<!-- tutorial:begin -->");
        int end = text.indexOf("<!-- tutorial:end -->");
        assertTrue(begin >= 0 && end > begin, "README has the tutorial markers");
        String block = text.substring(begin, end);
        String code = block.substring(block.indexOf("```java") + 7, block.lastIndexOf("```"));
        Path src = tmp.resolve("src/Tutorial.java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, code);
        Path out = tmp.resolve("classes");
        Files.createDirectories(out);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "tests run on a JDK");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = javac.run(null, null, err, "-d", out.toString(), "-cp", System.getProperty("java.class.path"), src.toString());
        assertEquals(0, rc, err.toString());

        PrintStream saved = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try (URLClassLoader cl = new URLClassLoader(new URL[] {out.toUri().toURL()}, getClass().getClassLoader())) {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            cl.loadClass("Tutorial").getMethod("main", String[].class).invoke(null, (Object) new String[] {tmp.toString()});
        } finally {
            System.setOut(saved);
        }
        List<String> lines = captured.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(List.of(
                "apple is red",
                "cherry = dark red",
                "snapshot still says red",
                "1 user(s) starting with 'al'; binding: " + dev.ferry.internal.binding.Bindings.defaultBinding().name()), lines);
    }
}
