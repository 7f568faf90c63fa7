package dev.ferry.bench;

import java.nio.ByteBuffer;

/**
 * Keys and the value of the write benchmarks: {@link #KEYS} keys in sequential order (the index)
 * or random order (a hash of the index in [0, 10^15)), as byte[]s and packed in native memory
 * for the floor; one value of {@code valueSize} bytes. Writers take {@link #OPS} keys per
 * invocation and wrap around (overwriting) after {@link #KEYS}.
 */
final class WriteKeys {
    /** Writes per invocation (and batch size). */
    static final int OPS = 1000;
    /** Keys before wrapping around; a multiple of OPS. */
    static final int KEYS = 1_024_000;

    final byte[][] keys = new byte[KEYS][];
    final ByteBuffer packed = ByteBuffer.allocateDirect(KEYS * BenchData.KEY_SIZE);
    final long packedAddr = NativeFloor.address(packed);
    final byte[] value;
    final ByteBuffer valueDirect;
    final long valueAddr;
    private int pos;

    WriteKeys(String order, int valueSize) {
        boolean random = order.equals("random");
        for (int i = 0; i < KEYS; i++) {
            long idx = random ? Long.remainderUnsigned(BenchData.mix(i ^ 0x5bd1e995L), 1_000_000_000_000_000L) : i;
            keys[i] = BenchData.key(idx);
            packed.put(i * BenchData.KEY_SIZE, keys[i]);
        }
        value = new byte[valueSize];
        BenchData.value(42, value);
        valueDirect = ByteBuffer.allocateDirect(valueSize).put(0, value);
        valueAddr = NativeFloor.address(valueDirect);
    }

    /** @return the first key index of the next invocation's OPS keys */
    int take() {
        int p = pos;
        pos = p + OPS == KEYS ? 0 : p + OPS;
        return p;
    }
}
