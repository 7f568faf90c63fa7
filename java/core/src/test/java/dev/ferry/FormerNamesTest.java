package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ReadView} and {@code WriteView} were renamed {@link StoreReader} and {@link StoreWriter}
 * ("view" is {@link View}, the bytes of a cursor's entry). The old names stay one release as
 * deprecated interfaces, so that code written against them still compiles and runs: a store,
 * snapshot or transaction is still a {@code ReadView}, and every method they declared is still there.
 */
@SuppressWarnings({"deprecation", "removal"}) // the former names are what this test uses
class FormerNamesTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Code written against the former names: it must compile and work unchanged. */
    private static byte[] readThrough(ReadView r, byte[] key) {
        return r.get(key);
    }

    private static void writeThrough(WriteView w, byte[] key, byte[] value) {
        w.put(key, value);
    }

    @Test
    void storesSnapshotsAndTransactionsAreStillReadViewsAndWriteViews() {
        try (Store store = Store.open(dir, StoreOptions.lmdb())) {
            writeThrough(store, b("k"), b("v1"));
            assertArrayEquals(b("v1"), readThrough(store, b("k")));
            try (Snapshot snap = store.snapshot()) {
                writeThrough(store, b("k"), b("v2"));
                assertArrayEquals(b("v1"), readThrough(snap, b("k")));
            }
            try (Transaction t = store.beginTransaction()) {
                writeThrough(t, b("t"), b("w"));
                assertArrayEquals(b("w"), readThrough(t, b("t")));
                t.commit();
            }
            assertArrayEquals(b("w"), readThrough(store, b("t")));
            assertNull(readThrough(store, b("absent")));
        }
    }

    @Test
    void theFormerNamesDeclareTheMethodsTheyHadAndAreDeprecated() {
        assertTrue(ReadView.class.isAnnotationPresent(Deprecated.class));
        assertTrue(WriteView.class.isAnnotationPresent(Deprecated.class));
        assertTrue(ReadView.class.isAssignableFrom(StoreReader.class) && WriteView.class.isAssignableFrom(StoreWriter.class));
        // each public method the old classes had (as the new ones have them) is declared by the old name too
        assertEquals(signatures(StoreReader.class), signatures(ReadView.class));
        assertEquals(signatures(StoreWriter.class), signatures(WriteView.class));
    }

    /** The public methods a type declares itself (not inherited), as name(parameter types). */
    private static Set<String> signatures(Class<?> c) {
        Set<String> out = new TreeSet<>();
        for (Method m : c.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers()) && !m.isSynthetic()) {
                out.add(m.getName() + Arrays.toString(m.getParameterTypes()));
            }
        }
        return out;
    }
}
