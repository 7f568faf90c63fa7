package dev.ferry.bench.dbbench;

/**
 * db_bench's key format without prefixes ({@code --prefix_size=0}, {@code --keys_per_prefix=0}):
 * the key number's low {@code min(key_size, 8)} bytes, most significant first, then ASCII
 * {@code '0'} up to {@code key_size}. Key 1 with 16-byte keys is
 * {@code 00 00 00 00 00 00 00 01 30 30 30 30 30 30 30 30}.
 *
 * <p>Thread safety: stateless.
 */
public final class Keys {
    private Keys() {
    }

    /**
     * Writes key number {@code v} into {@code dst[0, keySize)}.
     *
     * @param v the key number (unsigned)
     * @param dst receives the key
     * @param keySize key length in bytes
     */
    public static void fill(long v, byte[] dst, int keySize) {
        int n = Math.min(keySize, 8);
        for (int i = 0; i < n; i++) {
            dst[i] = (byte) (v >>> ((n - i - 1) << 3));
        }
        for (int i = n; i < keySize; i++) {
            dst[i] = '0';
        }
    }

    /**
     * Returns key number {@code v}.
     *
     * @param v the key number
     * @param keySize key length in bytes
     * @return a new key
     */
    public static byte[] of(long v, int keySize) {
        byte[] k = new byte[keySize];
        fill(v, k, keySize);
        return k;
    }
}
