package dev.ferry.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.Cursor;
import dev.ferry.Engine;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Long test: 1M cursor open/first/close cycles through FFM must not grow native memory. Runs in a
 * child JVM whose heap is fixed and pre-touched, so resident memory only moves with native memory;
 * RSS is read from /proc after a warm-up and after the cycles. A leak of even 64 bytes per cycle
 * would add 64 MB. A memory bound, not a timing one.
 */
@Tag("long")
class CursorCyclesTest {
    private static final int CYCLES = 1_000_000;
    private static final long LIMIT_KIB = 32L << 10;

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Engine.class)
    void millionCursorCyclesDoNotGrowResidentMemory(Engine engine) throws Exception {
        Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "-Xms96m", "-Xmx96m", "-XX:+AlwaysPreTouch",
                "-XX:MaxDirectMemorySize=64m", "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), Child.class.getName(), engine.name(), dir.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        List<String> lines = out.lines().filter(l -> l.startsWith("rss ")).toList();
        assertEquals(1, lines.size(), out);
        String[] f = lines.get(0).split(" ");
        long before = Long.parseLong(f[1]);
        long after = Long.parseLong(f[2]);
        assertEquals(String.valueOf(CYCLES), f[3], "every cycle found the entry");
        System.out.printf("%s: RSS %d KiB -> %d KiB (%+d KiB) over %d FFM cursor cycles%n", engine, before, after, after - before, CYCLES);
        assertTrue(after - before < LIMIT_KIB, "resident memory grew by " + (after - before) + " KiB");
    }

    /** The child process: warm up, read RSS, run the cycles, read RSS. */
    public static final class Child {
        public static void main(String[] args) throws Exception {
            Engine engine = Engine.valueOf(args[0]);
            try (Store store = Store.open(Paths.get(args[1], "c"), StoreOptions.of(engine).binding("ffm"))) {
                store.put(new byte[] {1}, new byte[] {2});
                cycles(store, 200_000);
                System.gc();
                long before = rss();
                long found = cycles(store, CYCLES);
                System.gc();
                long after = rss();
                System.out.println("rss " + before + " " + after + " " + found);
            }
        }

        private static long cycles(Store store, int n) {
            long found = 0;
            for (int i = 0; i < n; i++) {
                try (Cursor c = store.cursor()) {
                    if (c.first()) {
                        found++;
                    }
                }
            }
            return found;
        }

        private static long rss() throws Exception {
            for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
            throw new IllegalStateException("no VmRSS");
        }
    }
}
