package dev.ferry.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * Raw reads of native memory by address, for the cursor's page walk and its views: one load
 * per read, no buffer object, no second bounds check. Callers check bounds themselves (a
 * {@link dev.ferry.View} checks every index against its entry) and keep the memory alive.
 *
 * <p>Two sources, chosen once when the class loads, both reached through {@code static final}
 * method handles that the JIT inlines to a plain load:
 * <ul>
 *   <li>{@code ffm}: a {@code java.lang.foreign.MemorySegment} spanning the address space (Java
 *       22+). Used on Java 24+, and on 22-23 when native access is enabled for Ferry's module.
 *   <li>{@code unsafe}: {@code sun.misc.Unsafe} (module jdk.unsupported). Used on Java 17-21,
 *       and on 22-23 without native access, where the FFM route would print a warning and
 *       Unsafe does not (Java 24+ warns on Unsafe's memory methods, hence FFM there).
 * </ul>
 * {@code -Dferry.memory=ffm|unsafe} overrides the choice (for tests and benchmarks).
 *
 * <p>Thread safety: stateless.
 */
public final class Mem {
    private static final String SOURCE;
    private static final MethodHandle GET_BYTE;
    private static final MethodHandle GET_SHORT;
    private static final MethodHandle GET_INT;
    private static final MethodHandle GET_LONG;
    /** (long src, byte[] dst, int dstOffset, int length) void. */
    private static final MethodHandle TO_ARRAY;
    /** (long src, long dst, long length) void. */
    private static final MethodHandle COPY;

    static {
        String want = System.getProperty("ferry.memory", "");
        int feature = Runtime.version().feature();
        MethodHandle[] h = null;
        String source = null;
        Throwable ffmFailure = null;
        boolean tryFfm = want.equals("ffm") || (!want.equals("unsafe") && feature >= 22 && (feature >= 24 || nativeAccessEnabled()));
        if (tryFfm) {
            try {
                h = ffm();
                source = "ffm";
            } catch (Throwable t) {
                ffmFailure = t;
                if (want.equals("ffm")) {
                    throw new ExceptionInInitializerError(new IllegalStateException("-Dferry.memory=ffm: " + t, t));
                }
            }
        }
        if (h == null) {
            try {
                h = unsafe();
                source = "unsafe";
            } catch (Throwable t) {
                IllegalStateException e = new IllegalStateException("Ferry reads native memory through sun.misc.Unsafe on Java < 22"
                        + " (module jdk.unsupported) or through java.lang.foreign on Java 22+; neither is usable here: " + t, t);
                if (ffmFailure != null) {
                    e.addSuppressed(ffmFailure);
                }
                throw new ExceptionInInitializerError(e);
            }
        }
        SOURCE = source;
        GET_BYTE = h[0];
        GET_SHORT = h[1];
        GET_INT = h[2];
        GET_LONG = h[3];
        TO_ARRAY = h[4];
        COPY = h[5];
    }

    private Mem() {
    }

    /** @return {@code "ffm"} or {@code "unsafe"}: where reads go */
    public static String source() {
        return SOURCE;
    }

    /** @param a address @return the byte there */
    public static byte getByte(long a) {
        try {
            return (byte) GET_BYTE.invokeExact(a);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** @param a address @return the short there (native order, unaligned allowed) */
    public static short getShort(long a) {
        try {
            return (short) GET_SHORT.invokeExact(a);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** @param a address @return the int there (native order, unaligned allowed) */
    public static int getInt(long a) {
        try {
            return (int) GET_INT.invokeExact(a);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** @param a address @return the long there (native order, unaligned allowed) */
    public static long getLong(long a) {
        try {
            return (long) GET_LONG.invokeExact(a);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Copies native bytes into an array (the caller has checked both ranges).
     *
     * @param src source address
     * @param dst destination
     * @param dstOffset first byte of the destination
     * @param length count
     */
    public static void copy(long src, byte[] dst, int dstOffset, int length) {
        try {
            TO_ARRAY.invokeExact(src, dst, dstOffset, length);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Copies native bytes to native memory (the caller has checked both ranges).
     *
     * @param src source address
     * @param dst destination address
     * @param length count
     */
    public static void copy(long src, long dst, long length) {
        try {
            COPY.invokeExact(src, dst, length);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException) {
            throw (RuntimeException) t;
        }
        if (t instanceof Error) {
            throw (Error) t;
        }
        throw new IllegalStateException(t);
    }

    /** Java 22+: {@code Module.isNativeAccessEnabled()} on this class's module (reflection: compiled for 17). */
    private static boolean nativeAccessEnabled() {
        try {
            Method m = Module.class.getMethod("isNativeAccessEnabled");
            return (Boolean) m.invoke(Mem.class.getModule());
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }

    /** Handles over a MemorySegment of the whole address space (looked up by name: compiled for 17). */
    private static MethodHandle[] ffm() throws Throwable {
        MethodHandles.Lookup l = MethodHandles.publicLookup();
        Class<?> seg = Class.forName("java.lang.foreign.MemorySegment");
        Class<?> vl = Class.forName("java.lang.foreign.ValueLayout");
        // reinterpret is restricted and caller-sensitive: looked up as Mem, so native access is checked for Ferry's module
        Object all = MethodHandles.lookup().findVirtual(seg, "reinterpret", MethodType.methodType(seg, long.class))
                .invoke(seg.getField("NULL").get(null), Long.MAX_VALUE);
        MethodHandle[] h = new MethodHandle[6];
        String[] layouts = {"JAVA_BYTE", "JAVA_SHORT_UNALIGNED", "JAVA_INT_UNALIGNED", "JAVA_LONG_UNALIGNED"};
        Class<?>[] types = {byte.class, short.class, int.class, long.class};
        for (int i = 0; i < 4; i++) {
            Object layout = vl.getField(layouts[i]).get(null);
            Class<?> lt = Class.forName("java.lang.foreign.ValueLayout$Of" + Character.toUpperCase(types[i].getName().charAt(0)) + types[i].getName().substring(1));
            MethodHandle get = l.findVirtual(seg, "get", MethodType.methodType(types[i], lt, long.class));
            h[i] = MethodHandles.insertArguments(get, 0, all, layout);
        }
        // static void copy(MemorySegment src, ValueLayout srcLayout, long srcOffset, Object dst, int dstIndex, int count)
        MethodHandle toArray = l.findStatic(seg, "copy", MethodType.methodType(void.class, seg, vl, long.class, Object.class, int.class, int.class));
        toArray = MethodHandles.insertArguments(toArray, 0, all, vl.getField("JAVA_BYTE").get(null));
        h[4] = toArray.asType(MethodType.methodType(void.class, long.class, byte[].class, int.class, int.class));
        // static void copy(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long bytes)
        MethodHandle copy = l.findStatic(seg, "copy", MethodType.methodType(void.class, seg, long.class, seg, long.class, long.class));
        copy = MethodHandles.insertArguments(copy, 0, all);                      // (long, seg, long, long)
        copy = MethodHandles.insertArguments(copy, 1, all);                      // (long, long, long)
        h[5] = copy;
        return h;
    }

    /** Handles over sun.misc.Unsafe (looked up reflectively: no compile-time reference to an internal API). */
    private static MethodHandle[] unsafe() throws Throwable {
        Class<?> uc = Class.forName("sun.misc.Unsafe");
        Field f = uc.getDeclaredField("theUnsafe");
        f.setAccessible(true);
        Object u = f.get(null);
        MethodHandles.Lookup l = MethodHandles.publicLookup();
        MethodHandle[] h = new MethodHandle[6];
        Class<?>[] types = {byte.class, short.class, int.class, long.class};
        String[] names = {"getByte", "getShort", "getInt", "getLong"};
        for (int i = 0; i < 4; i++) {
            h[i] = l.findVirtual(uc, names[i], MethodType.methodType(types[i], long.class)).bindTo(u);
        }
        long base = (Integer) uc.getMethod("arrayBaseOffset", Class.class).invoke(u, byte[].class);
        // copyMemory(Object srcBase, long srcOffset, Object destBase, long destOffset, long bytes)
        MethodHandle cm = l.findVirtual(uc, "copyMemory", MethodType.methodType(void.class, Object.class, long.class, Object.class, long.class, long.class)).bindTo(u);
        // (long src, byte[] dst, int off, int len) -> cm(null, src, dst, base + off, len)
        MethodHandle a = MethodHandles.insertArguments(cm, 0, (Object) null);     // (long, Object, long, long)
        MethodHandle toLong = MethodHandles.lookup().findStatic(Mem.class, "arrayOffset", MethodType.methodType(long.class, long.class, int.class));
        toLong = MethodHandles.insertArguments(toLong, 0, base);                 // (int) long
        a = MethodHandles.filterArguments(a, 2, toLong);                         // (long, Object, int, long)
        a = MethodHandles.filterArguments(a, 3, MethodHandles.identity(long.class).asType(MethodType.methodType(long.class, int.class))); // (long, Object, int, int)
        h[4] = a.asType(MethodType.methodType(void.class, long.class, byte[].class, int.class, int.class));
        // copyMemory(long srcAddress, long destAddress, long bytes)
        h[5] = l.findVirtual(uc, "copyMemory", MethodType.methodType(void.class, long.class, long.class, long.class)).bindTo(u);
        return h;
    }

    private static long arrayOffset(long base, int off) {
        return base + off;
    }
}
