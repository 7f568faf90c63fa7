package dev.ferry.bench.lmdbjava;

import java.nio.charset.StandardCharsets;
import java.util.AbstractList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;

/**
 * The LmdbJava suite's data: {@code num} int keys, sequential (0..num-1) or distinct non-negative random
 * ints in random order, written and read back by readKey in that order; each key stored as 4 big-endian
 * bytes ({@code intKey}) or as a 16-byte zero-padded decimal string; values of {@code valSize} bytes.
 * Values as published (the suite's default {@code valRandom=false}): the key's int in the first 4 bytes,
 * zeros after; or, with {@code randomValues}, slices of a 1 MiB random buffer at rolling offsets (the
 * suite's {@code valRandom=true}).
 *
 * <p>Keys and values are made on demand ({@link #keys()}, {@link #values()}: fresh arrays on every
 * {@code get}), so a run of 10M entries does not hold them all on the heap.
 *
 * <p>Thread safety: immutable after construction.
 *
 * @see <a href="https://github.com/lmdbjava/benchmarks">the LmdbJava benchmarks</a>
 */
public final class SuiteData {
    /** Bytes of a string key. */
    public static final int STRING_KEY = 16;
    private static final byte[] RANDOM_MB = new byte[1 << 20];

    static {
        new Random(20160710L).nextBytes(RANDOM_MB);
    }

    private final int[] ints;
    private final boolean intKey;
    private final int valSize;
    private final boolean randomValues;

    /**
     * Makes the keys.
     *
     * @param num entries
     * @param intKey 4-byte int keys, else 16-byte strings
     * @param sequential keys 0..num-1 in order, else distinct random non-negative ints in random order
     * @param valSize bytes per value (at least 4)
     * @param randomValues random value bytes, else the key's int then zeros
     * @param seed seeds the random keys
     */
    public SuiteData(int num, boolean intKey, boolean sequential, int valSize, boolean randomValues, long seed) {
        if (valSize < 4) {
            throw new IllegalArgumentException("valSize=" + valSize + " (at least 4)");
        }
        this.intKey = intKey;
        this.valSize = valSize;
        this.randomValues = randomValues;
        ints = new int[num];
        if (sequential) {
            for (int i = 0; i < num; i++) {
                ints[i] = i;
            }
        } else {
            Random r = new Random(seed);
            BitSet seen = new BitSet();
            for (int i = 0; i < num; i++) {
                int k;
                do {
                    k = r.nextInt() & Integer.MAX_VALUE;
                } while (seen.get(k));
                seen.set(k);
                ints[i] = k;
            }
        }
    }

    /** @return entries */
    public int size() {
        return ints.length;
    }

    /** @return bytes per key */
    public int keySize() {
        return intKey ? 4 : STRING_KEY;
    }

    /** @return bytes per value */
    public int valSize() {
        return valSize;
    }

    /**
     * @param i an entry's index in insertion order
     * @return its key, a fresh array
     */
    public byte[] key(int i) {
        int k = ints[i];
        if (intKey) {
            return new byte[] {(byte) (k >>> 24), (byte) (k >>> 16), (byte) (k >>> 8), (byte) k};
        }
        String s = Integer.toString(k);
        return ("0000000000000000".substring(s.length()) + s).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * @param i an entry's index in insertion order
     * @return its value, a fresh array
     */
    public byte[] value(int i) {
        byte[] v = new byte[valSize];
        if (randomValues) {
            int max = RANDOM_MB.length - valSize;
            int off = (int) ((long) i * valSize % Math.max(1, max));
            System.arraycopy(RANDOM_MB, off, v, 0, valSize);
        } else {
            int k = ints[i];
            v[0] = (byte) (k >>> 24);
            v[1] = (byte) (k >>> 16);
            v[2] = (byte) (k >>> 8);
            v[3] = (byte) k;
        }
        return v;
    }

    /** @return the keys in insertion order, made on each get */
    public List<byte[]> keys() {
        return new AbstractList<>() {
            @Override
            public byte[] get(int i) {
                return key(i);
            }

            @Override
            public int size() {
                return ints.length;
            }
        };
    }

    /** @return the values in insertion order, made on each get */
    public List<byte[]> values() {
        return new AbstractList<>() {
            @Override
            public byte[] get(int i) {
                return value(i);
            }

            @Override
            public int size() {
                return ints.length;
            }
        };
    }
}
