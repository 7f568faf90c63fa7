package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link KeyOrder} against a stable comparison sort in unsigned byte order, on keys built to reach
 * every path of the radix sort: empty keys, keys of 1 to 80 bytes, long shared prefixes (so that
 * groups equal in 16 bytes are sorted again, twice and more), keys that differ only by trailing zero
 * bytes (ordered by length), many records of one key (which must keep their input order), and bytes
 * above 0x7f (unsigned order).
 */
class KeyOrderTest {
    private static int[] reference(byte[][] keys) {
        Integer[] boxed = new Integer[keys.length];
        for (int i = 0; i < keys.length; i++) {
            boxed[i] = i;
        }
        Arrays.sort(boxed, (a, b) -> Arrays.compareUnsigned(keys[a], keys[b])); // stable
        return Arrays.stream(boxed).mapToInt(Integer::intValue).toArray();
    }

    @Test
    void sortsAsAStableUnsignedComparisonSort() {
        Random r = new Random(42);
        for (int round = 0; round < 300; round++) {
            int n = r.nextInt(round < 20 ? 5 : 3000);
            byte[][] pool = new byte[1 + r.nextInt(200)][];
            byte[] shared = new byte[r.nextInt(50)];
            r.nextBytes(shared);
            for (int i = 0; i < pool.length; i++) {
                int shape = r.nextInt(6);
                byte[] k;
                switch (shape) {
                    case 0 -> k = new byte[0];
                    case 1 -> { // the shared prefix, then a few random bytes
                        k = Arrays.copyOf(shared, shared.length + r.nextInt(6));
                        for (int j = shared.length; j < k.length; j++) {
                            k[j] = (byte) r.nextInt(4);
                        }
                    }
                    case 2 -> { // a key of another, extended by zero bytes
                        byte[] base = pool[r.nextInt(Math.max(1, i))];
                        k = Arrays.copyOf(base == null ? new byte[0] : base, (base == null ? 0 : base.length) + r.nextInt(20));
                    }
                    case 3 -> { // few distinct bytes, to make equal 16-byte prefixes likely
                        k = new byte[r.nextInt(40)];
                        for (int j = 0; j < k.length; j++) {
                            k[j] = (byte) (r.nextBoolean() ? 0x80 : 0x7f);
                        }
                    }
                    default -> {
                        k = new byte[1 + r.nextInt(80)];
                        r.nextBytes(k);
                    }
                }
                pool[i] = k;
            }
            byte[][] keys = new byte[n][];
            for (int i = 0; i < n; i++) {
                keys[i] = pool[r.nextInt(pool.length)]; // repeats: a key's records keep their order
            }
            byte[][] copy = keys.clone();
            assertArrayEquals(reference(keys), KeyOrder.sort(keys), "round " + round + ", " + n + " keys");
            assertArrayEquals(copy, keys, "the keys are not changed");
        }
    }

    @Test
    void manyKeysEqualUpToTrailingZerosAreOrderedByLengthStably() {
        byte[][] keys = new byte[500][];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = new byte[(i * 7) % 40]; // all zero bytes: only the lengths differ
        }
        assertArrayEquals(reference(keys), KeyOrder.sort(keys));
    }

    /** Keys of 256 KiB that differ only in their last bytes: 16,384 levels of 16 bytes, on a work list, not the stack. */
    @Test
    void longKeysSharingAlmostAllTheirBytesSortWithoutDeepRecursion() {
        Random r = new Random(7);
        byte[] shared = new byte[256 << 10];
        r.nextBytes(shared);
        byte[][] keys = new byte[40][];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = shared.clone();
            keys[i][keys[i].length - 1] = (byte) r.nextInt(8); // repeats keep their order
            keys[i][keys[i].length - 2] = (byte) (r.nextBoolean() ? 0x80 : 1);
        }
        assertArrayEquals(reference(keys), KeyOrder.sort(keys));
    }

    @Test
    void prefixReadsBigEndianZeroPadded() {
        byte[] k = {1, 2, 3, (byte) 0xff, 5, 6, 7, 8, 9};
        assertEquals(0x010203ff_05060708L, KeyOrder.prefix(k, 0));
        assertEquals(0x09000000_00000000L, KeyOrder.prefix(k, 8));
        assertEquals(0L, KeyOrder.prefix(k, 16));
    }
}
