package dev.ferry.ffm.internal;

import dev.ferry.spi.MergeHandler;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The FFM binding's {@code ferry_merge_fn} (ferry.h): an upcall stub, made once, that copies RocksDB's
 * key, existing value and operands (valid during the call only) into arrays, hands them to the
 * {@link MergeHandler}, and copies the result into a buffer of {@code ferry_merge_value_alloc}. The JVM
 * attaches RocksDB's flush and compaction threads itself on their first upcall. Nothing may leave an
 * upcall by exception (the JVM would end the process): every throwable becomes a failed merge.
 *
 * <p>Thread safety: thread-safe.
 */
@SuppressWarnings("restricted") // an upcall stub is native code calling Java
final class FfmMergeUpcall {
    private static final FunctionDescriptor DESCRIPTOR = FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS,
            ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS);

    private static volatile MergeHandler handler;
    private static long stub;

    private FfmMergeUpcall() {
    }

    /** See {@link dev.ferry.spi.NativeBinding#mergeCallback}. */
    static synchronized long address(MergeHandler h) {
        if (handler != null && handler != h) {
            throw new IllegalStateException("the FFM binding has a merge handler already");
        }
        if (stub == 0) {
            try {
                MemorySegment s = Linker.nativeLinker().upcallStub(MethodHandles.lookup().findStatic(FfmMergeUpcall.class,
                        "merge", DESCRIPTOR.toMethodType()), DESCRIPTOR, Arena.global());
                stub = s.address();
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot make the merge upcall stub", e);
            }
        }
        handler = h;
        return stub;
    }

    private static byte[] bytes(MemorySegment p, long len) {
        return len == 0 ? new byte[0] : p.reinterpret(len).toArray(ValueLayout.JAVA_BYTE);
    }

    /** The upcall: {@code ferry_merge_fn}. */
    @SuppressWarnings("unused") // the upcall stub's target
    private static int merge(long token, int kind, MemorySegment key, long klen, MemorySegment existing, long elen, int n,
                             MemorySegment ops, MemorySegment lens, MemorySegment out) {
        try {
            MergeHandler h = handler;
            if (h == null || n < 0) {
                return 0;
            }
            MemorySegment o = ops.reinterpret((long) n * Long.BYTES);
            MemorySegment l = lens.reinterpret((long) n * Long.BYTES);
            byte[][] operands = new byte[n][];
            for (int i = 0; i < n; i++) {
                operands[i] = bytes(o.getAtIndex(ValueLayout.ADDRESS, i), l.getAtIndex(ValueLayout.JAVA_LONG, i));
            }
            byte[] r = h.merge(token, kind, bytes(key, klen), elen < 0 ? null : bytes(existing, elen), operands);
            if (r == null) {
                return 0;
            }
            long dst = FfmBinding.INSTANCE.mergeValueAlloc(out.address(), r.length);
            if (dst == 0) {
                return 0;
            }
            MemorySegment.copy(r, 0, MemorySegment.ofAddress(dst).reinterpret(r.length), ValueLayout.JAVA_BYTE, 0, r.length);
            return 1;
        } catch (Throwable t) {
            return 0;
        }
    }
}
