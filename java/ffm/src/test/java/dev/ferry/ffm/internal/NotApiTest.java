package dev.ferry.ffm.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.Cursor;
import dev.ferry.Engine;
import dev.ferry.InternalAccess;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import dev.ferry.spi.CurrentEntry;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The FFM module's package that applications see holds only {@link dev.ferry.ffm.Segments}: the
 * binding (raw addresses in, raw calls out) and the scoped buffers live in this package, which the
 * module exports to {@code dev.ferry} alone. On the class path a public class can still be reached,
 * so the one entry point here that turns an address into readable memory checks that the address
 * is the cursor's current key or value.
 */
class NotApiTest {
    @TempDir
    Path dir;

    @Test
    void theModuleExportsOnlySegmentsToApplications() throws Exception {
        // the descriptor is compiled after the tests (java/ffm/pom.xml): read its source
        Path classes = Paths.get(EntrySegments.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path source = classes.resolve("../../src/main/module/module-info.java").normalize();
        String text = Files.readString(source).replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\n]*", "");
        Set<String> open = new TreeSet<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\bexports\\s+([\\w.]+)\\s*(to\\s+([\\w.,\\s]+))?;").matcher(text);
        int exports = 0;
        while (m.find()) {
            exports++;
            if (m.group(2) == null) {
                open.add(m.group(1));
            } else {
                assertEquals("dev.ferry", m.group(3).trim(), m.group(1) + " is exported to");
            }
        }
        assertEquals(2, exports, "exports in " + source);
        assertEquals(Set.of("dev.ferry.ffm"), open, "packages exported to every module");
        Set<String> publicTypes = new TreeSet<>();
        try (Stream<Path> s = Files.list(classes.resolve("dev/ferry/ffm"))) {
            for (Path f : s.filter(p -> p.toString().endsWith(".class")).toList()) {
                String name = f.getFileName().toString().replace(".class", "");
                Class<?> c = Class.forName("dev.ferry.ffm." + name, false, NotApiTest.class.getClassLoader());
                if (Modifier.isPublic(c.getModifiers()) && c.getEnclosingClass() == null) {
                    publicTypes.add(c.getSimpleName());
                }
            }
        }
        assertEquals(Set.of("Segments"), publicTypes, "public types of the exported package dev.ferry.ffm");
    }

    @ParameterizedTest
    @CsvSource({"ROCKSDB,ffm", "LMDB,ffm", "ROCKSDB,jni", "LMDB,jni"})
    void segmentsAndBuffersAreMadeOnlyOverTheCurrentEntry(Engine engine, String binding) {
        ScopedEntryBuffers buffers = new ScopedEntryBuffers();
        try (Store store = Store.open(dir.resolve("s"), StoreOptions.of(engine).binding(binding))) {
            store.put(new byte[] {1, 2, 3, 4}, new byte[] {5, 6, 7, 8, 9});
            try (Cursor c = store.cursor()) {
                CurrentEntry e = InternalAccess.get().currentEntry(c);
                assertThrows(IllegalStateException.class, () -> EntrySegments.segment(e, 4096, 1), "not on an entry");
                assertTrue(c.first());
                long k = e.keyAddress();
                long v = e.valueAddress();
                assertArrayEquals(new byte[] {2, 3}, EntrySegments.segment(e, k + 1, 2).toArray(ValueLayout.JAVA_BYTE));
                ByteBuffer b = buffers.readOnly(e, v, 5);
                assertEquals(9, b.get(4));
                for (long[] bad : new long[][] {{0, 1}, {4096, 8}, {k, 5}, {k + 1, 4}, {k - 1, 1}, {v, 6}, {v + 5, 1},
                    {k, -1}, {Long.MAX_VALUE, 1}, {Long.MIN_VALUE, 1}}) {
                    assertThrows(IllegalArgumentException.class, () -> EntrySegments.segment(e, bad[0], (int) bad[1]),
                            () -> "segment(" + bad[0] + ", " + bad[1] + ") outside the entry");
                    assertThrows(IllegalArgumentException.class, () -> buffers.readOnly(e, bad[0], (int) bad[1]));
                }
                assertThrows(NullPointerException.class, () -> buffers.readOnly(null, k, 1));
                assertThrows(NullPointerException.class, () -> EntrySegments.segment(null, k, 1));
            }
        }
    }
}
