package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * A point read allocates what it returns and nothing per call beside it: the call layer's native
 * call is a constant, not a lambda capturing the store, view and family (which cost 40 bytes on
 * every {@code get}, {@code get(key, ByteBuffer)} and {@code multiGet}). Counted with the thread's
 * allocated bytes (HotSpot's {@code com.sun.management.ThreadMXBean}) around 10,000 reads; the bound is the
 * value's own array plus less than such a lambda, so it holds whether the JIT has compiled the path
 * or not (escape analysis can only take allocations away). A scan allocates nothing per entry or page.
 */
@Matrix(Target.Slice.ENGINES)
class PointReadAllocationTest {
    private static final int N = 10_000;
    /** Less than the 40 bytes of the captured lambda: what a read may allocate beyond its answer. */
    private static final long SLACK = 24;

    @TempDir
    Path dir;

    Target target;

    @BeforeEach
    void target(Target t) {
        target = t;
    }

    /**
     * The current thread's allocated bytes, from HotSpot's {@code com.sun.management.ThreadMXBean}
     * (through reflection: the tests are compiled into module {@code dev.ferry}, which does not read
     * {@code jdk.management}; what a call allocates is counted the same, once per reading).
     */
    private static LongSupplier allocatedBytes() {
        try {
            Method m = Class.forName("com.sun.management.ThreadMXBean").getMethod("getCurrentThreadAllocatedBytes");
            Object bean = ManagementFactory.getThreadMXBean();
            return () -> {
                try {
                    return (Long) m.invoke(bean);
                } catch (ReflectiveOperationException e) {
                    throw new AssertionError(e);
                }
            };
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("this JVM does not count allocated bytes per thread", e);
        }
    }

    @MatrixTest
    void pointReadsAllocateOnlyTheirAnswer() {
        LongSupplier allocated = allocatedBytes();
        byte[] key = "key-0000000000001".getBytes();
        byte[] value = new byte[100];
        Arrays.fill(value, (byte) 7);
        try (Store s = Store.open(dir.resolve("db"), target.options())) {
            s.put(key, value);
            ByteBuffer into = ByteBuffer.allocateDirect(256);
            ByteBuffer keyBuffer = ByteBuffer.allocateDirect(key.length).put(key).flip();
            List<byte[]> keys = List.of(key, key);
            long sink = 0;
            for (int i = 0; i < 1000; i++) { // first calls: class loading, scratch memory, the thread's read state
                sink += s.get(key).length + s.multiGet(keys).size();
                into.clear();
                sink += s.get(s.defaultColumnFamily(), keyBuffer, into);
            }
            long t0 = allocated.getAsLong();
            for (int i = 0; i < N; i++) {
                sink += Arrays.copyOf(value, value.length).length; // what one answer of get costs
            }
            long t1 = allocated.getAsLong();
            for (int i = 0; i < N; i++) {
                sink += s.get(key).length;
            }
            long t2 = allocated.getAsLong();
            for (int i = 0; i < N; i++) {
                into.clear();
                sink += s.get(s.defaultColumnFamily(), keyBuffer, into);
            }
            long t3 = allocated.getAsLong();
            assertEquals(1000L * (value.length + 2 + value.length) + 3L * N * value.length, sink);
            long answer = (t1 - t0) / N;
            long perGet = (t2 - t1) / N;
            long perGetInto = (t3 - t2) / N;
            assertTrue(perGet < answer + SLACK, "get allocates " + perGet + " bytes, its answer " + answer);
            assertTrue(perGetInto < SLACK, "get(ByteBuffer, ByteBuffer) allocates " + perGetInto + " bytes");
        }
    }

    /**
     * A scan of 10,000 entries allocates nothing per entry or per page: the page fill is one call
     * per page through the call layer, the views are re-pointed, not made. Counted on a cursor that
     * has scanned once (its copy-page offsets array has grown to the page's entry count); the whole
     * life of a fresh cursor (open, scan, close) is printed for comparisons across changes.
     */
    @MatrixTest
    void aScanAllocatesNothingPerEntryOrPage() {
        LongSupplier allocated = allocatedBytes();
        byte[] value = new byte[100];
        try (Store s = Store.open(dir.resolve("db"), target.options())) {
            WriteBatch batch = new WriteBatch();
            for (int i = 0; i < N; i++) {
                batch.put(String.format("key-%012d", i).getBytes(), value);
            }
            s.write(batch);
            long sink = 0;
            for (int i = 0; i < 50; i++) { // first scans: class loading, page pool, JIT
                sink += scan(s);
            }
            long b0 = allocated.getAsLong();
            long b1 = allocated.getAsLong();
            long reading = b1 - b0; // what reading the counter allocates (reflection, a boxed Long)
            long t0 = allocated.getAsLong();
            sink += scan(s);
            long t1 = allocated.getAsLong();
            long scanned;
            long t2;
            long t3;
            try (Cursor c = s.cursor()) {
                sink += walk(c);
                t2 = allocated.getAsLong();
                scanned = walk(c);
                t3 = allocated.getAsLong();
            }
            assertEquals(N, scanned);
            assertEquals(52L * N, sink);
            long fresh = t1 - t0 - reading;
            long rescan = t3 - t2 - reading;
            System.out.println("[" + target + "] a fresh cursor's scan of " + N + " entries (open, scan, close): "
                    + fresh + " bytes; a rescan on an open cursor: " + rescan + " bytes");
            assertTrue(rescan < SLACK, "a rescan of " + N + " entries allocates " + rescan + " bytes");
        }
    }

    private static long scan(Store s) {
        try (Cursor c = s.cursor()) {
            return walk(c);
        }
    }

    private static long walk(Cursor c) {
        long n = 0;
        for (boolean ok = c.first(); ok; ok = c.next()) {
            n += c.value().length() == 100 ? 1 : 0;
        }
        return n;
    }
}
