package dev.ferry.ffm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ferry.internal.Abi;
import dev.ferry.internal.CHeader;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * FfmBinding's downcall descriptors against native/include/ferry.h: every {@code ferry_*}
 * prototype has a {@code Fn} constant, every constant names a function of the header, and each
 * descriptor's result and parameter layouts are exactly those of the prototype (a pointer,
 * {@code size_t} and 64-bit integers {@code JAVA_LONG}; {@code int} and 32-bit integers
 * {@code JAVA_INT}). A wrong layout would be linked without complaint and pass a truncated or
 * misplaced argument to the shim. The JNI side is checked by java/core's {@code NativeBoundaryTest}.
 */
@SuppressWarnings("restricted") // reads ferry_strerror's static string through a segment
class NativeBoundaryFfmTest {

    private static MemoryLayout layout(CHeader.Kind kind) {
        return kind == CHeader.Kind.INT ? ValueLayout.JAVA_INT : ValueLayout.JAVA_LONG;
    }

    /** @return the descriptor a C prototype calls for */
    static FunctionDescriptor expected(CHeader.Function f) {
        MemoryLayout[] args = f.params().stream().map(p -> layout(p.kind())).toArray(MemoryLayout[]::new);
        return FunctionDescriptor.of(layout(f.returnKind()), args);
    }

    @Test
    void everyDescriptorIsItsPrototypesAndEveryFunctionHasOne() throws IOException {
        Map<String, CHeader.Function> header = new LinkedHashMap<>();
        for (CHeader.Function f : CHeader.functions()) {
            header.put(f.name(), f);
        }
        List<String> problems = new ArrayList<>();
        Set<String> bound = new TreeSet<>();
        List<String> order = new ArrayList<>();
        for (FfmBinding.Fn fn : FfmBinding.Fn.values()) {
            CHeader.Function f = header.get(fn.symbol);
            if (f == null) {
                problems.add("Fn." + fn + " binds " + fn.symbol + ", which ferry.h does not declare");
                continue;
            }
            if (bound.add(fn.symbol)) {
                order.add(fn.symbol);
            }
            FunctionDescriptor want = expected(f);
            if (!want.equals(fn.descriptor)) {
                problems.add("Fn." + fn + " has the descriptor " + fn.descriptor + " but " + f.prototype() + " needs " + want);
            }
        }
        for (String name : header.keySet()) {
            if (!bound.contains(name)) {
                problems.add(name + " has no FfmBinding.Fn constant");
            }
        }
        if (problems.isEmpty() && !order.equals(List.copyOf(header.keySet()))) {
            problems.add("Fn lists the functions in another order than ferry.h: " + order);
        }
        if (!problems.isEmpty()) {
            fail("FfmBinding and ferry.h disagree (" + problems.size() + "):\n  " + String.join("\n  ", problems));
        }
    }

    @Test
    void theExpectedDescriptorFollowsTheTypeMapping() {
        CHeader.Function f = CHeader.functions(
                "FERRY_EXPORT int ferry_x(ferry_store *s, uint32_t cf, size_t n, int64_t t, int op, const char **out);\n"
                + "FERRY_EXPORT const char *ferry_y(void);\n").get(0);
        assertEquals(FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT,
                ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG), expected(f));
        assertEquals(FunctionDescriptor.of(ValueLayout.JAVA_LONG), expected(CHeader.functions(
                "FERRY_EXPORT const char *ferry_y(void);").get(0)));
    }

    @Test
    void theFfmBindingDoesNotUseJni() throws IOException {
        // no reference to the JNI binding's package in the class or its nested classes (Fn, the holders)
        List<String> found = new ArrayList<>();
        List<Class<?>> classes = new ArrayList<>(List.of(FfmBinding.class.getDeclaredClasses()));
        classes.add(FfmBinding.class);
        for (Class<?> c : classes) {
            String file = c.getName().substring(c.getPackageName().length() + 1) + ".class";
            try (InputStream in = c.getResourceAsStream(file)) {
                String bytes = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
                if (bytes.contains("dev/ferry/jni") || bytes.contains("loadForJni")) {
                    found.add(c.getName());
                }
            }
        }
        assertEquals(List.of(), found, "classes of the FFM binding that reference JNI");
    }

    @Test
    void wrapGivesANativeOrderBufferOverTheMemory() {
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment m = arena.allocate(16);
            m.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, 0x0102030405060708L);
            ByteBuffer b = FfmBinding.INSTANCE.wrap(m.address(), 16);
            assertTrue(b.isDirect());
            assertEquals(16, b.capacity());
            assertEquals(java.nio.ByteOrder.nativeOrder(), b.order());
            assertEquals(0x0102030405060708L, b.getLong(8));
            b.put(0, (byte) 7);
            assertEquals(7, m.get(ValueLayout.JAVA_BYTE, 0));
            assertEquals(m.address(), FfmBinding.INSTANCE.address(b));
        }
    }

    @Test
    void strerrorGivesTheStaticMessage() {
        long p = FfmBinding.INSTANCE.strerror(Abi.EINVAL);
        assertFalse(p == 0);
        assertEquals("invalid argument", MemorySegment.ofAddress(p).reinterpret(64).getString(0));
        assertEquals("unknown error", MemorySegment.ofAddress(FfmBinding.INSTANCE.strerror(12345)).reinterpret(64).getString(0));
    }
}
