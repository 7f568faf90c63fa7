package dev.ferry.bench.dbbench;

/**
 * db_bench's value generator for fixed-size values: a buffer of at least 1 MiB (and at least one
 * value) built from 100-byte pieces, each {@code (int) (100 * compression_ratio)} (at least 1)
 * bytes drawn from {@link Lehmer} seeded 301 ({@code next() % 127} each) and repeated to 100
 * bytes; values are consecutive slices of it, starting over at 0 when the next slice would run
 * past its end. So the same value size and compression ratio give byte-identical values in the
 * same order as C++ db_bench, and a value compresses to about {@code compression_ratio} of its size.
 *
 * <p>Thread safety: the buffer is shared and read-only; each thread uses its own {@link Cursor}.
 */
public final class Values {
    private static final int PIECE = 100;
    private final byte[] data;
    private final int valueSize;

    /**
     * Builds the buffer.
     *
     * @param valueSize value length in bytes
     * @param compressionRatio db_bench's {@code --compression_ratio}
     */
    public Values(int valueSize, double compressionRatio) {
        if (valueSize < 0) {
            throw new IllegalArgumentException("value_size=" + valueSize);
        }
        this.valueSize = valueSize;
        int target = Math.max(1048576, valueSize);
        int pieces = (target + PIECE - 1) / PIECE;
        data = new byte[pieces * PIECE];
        Lehmer rnd = new Lehmer(301);
        int raw = Math.max(1, (int) (PIECE * compressionRatio));
        byte[] r = new byte[raw];
        for (int p = 0; p < pieces; p++) {
            for (int i = 0; i < raw; i++) {
                r[i] = (byte) rnd.uniform(127);
            }
            int base = p * PIECE;
            for (int i = 0; i < PIECE; i++) {
                data[base + i] = r[i % raw];
            }
        }
    }

    /** @return the shared buffer values are sliced from (do not modify) */
    public byte[] data() {
        return data;
    }

    /** @return the value size */
    public int valueSize() {
        return valueSize;
    }

    /** @return a new cursor at the start, as each db_bench benchmark thread starts */
    public Cursor cursor() {
        return new Cursor();
    }

    /**
     * Returns the value that the {@code i}-th put of a fresh generator gets (0-based).
     *
     * @param i the put's index
     * @return a copy of the value
     */
    public byte[] nth(long i) {
        long perRound = data.length / Math.max(1, valueSize);
        long off = valueSize == 0 ? 0 : (i % perRound) * valueSize;
        return java.util.Arrays.copyOfRange(data, (int) off, (int) off + valueSize);
    }

    /** One thread's position in the buffer. */
    public final class Cursor {
        private int pos;

        private Cursor() {
        }

        /** @return the offset in {@link #data()} of the next value ({@link #valueSize()} bytes) */
        public int next() {
            if (pos + valueSize > data.length) {
                pos = 0;
            }
            pos += valueSize;
            return pos - valueSize;
        }
    }
}
