package dev.ferry.kafka;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A stable sort of byte-array keys in unsigned lexicographic order (the order both engines keep), for
 * restored records ({@link FerryStateStore}): keys that compare equal keep their input order, which is
 * their changelog order.
 *
 * <p>A radix sort: the keys' first 16 bytes (big-endian, zero-padded) are sorted least significant
 * byte first, one stable counting pass per byte, skipping the bytes every key of the range shares
 * (common prefixes cost a counting pass, not a scatter). Keys still equal in those 16 bytes and
 * longer than them are sorted again by their next 16 bytes, and so on; keys equal up to the end of
 * the longest are ordered by length (a key before its extensions by zero bytes). A comparison sort
 * of objects chased pointers to the keys for each of its n log n comparisons (half a restore's CPU
 * with 170,000-record buffers); this reads each key once per 16 bytes that matter, in sequential arrays.
 */
final class KeyOrder {
    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private KeyOrder() {
    }

    /**
     * @param keys the keys (not changed)
     * @return the indexes of the keys in sorted order; equal keys in ascending index order
     */
    static int[] sort(byte[][] keys) {
        int n = keys.length;
        int[] idx = new int[n];
        for (int i = 0; i < n; i++) {
            idx[i] = i;
        }
        if (n > 1) {
            new Sorter(keys, n).sort(idx);
        }
        return idx;
    }

    /** The bytes {@code off..off+7} of a key, big-endian, zero-padded past its end. */
    static long prefix(byte[] k, int off) {
        if (k.length >= off + 8) {
            return (long) LONG_BE.get(k, off);
        }
        long v = 0;
        for (int i = off; i < off + 8; i++) {
            v = v << 8 | (i < k.length ? k[i] & 0xff : 0);
        }
        return v;
    }

    private static final class Sorter {
        private final byte[][] keys;
        private final long[] hi;
        private final long[] lo;
        private final long[] hiTmp;
        private final long[] loTmp;
        private final int[] idxTmp;
        private final int[] count = new int[256];

        Sorter(byte[][] keys, int n) {
            this.keys = keys;
            this.hi = new long[n];
            this.lo = new long[n];
            this.hiTmp = new long[n];
            this.loTmp = new long[n];
            this.idxTmp = new int[n];
        }

        /**
         * Sorts idx, range by range: a range whose keys are equal in the bytes sorted so far and longer
         * goes on a work list (not the call stack: keys of a megabyte sharing most of it would need
         * tens of thousands of levels).
         */
        void sort(int[] idx) {
            java.util.ArrayDeque<int[]> work = new java.util.ArrayDeque<>();
            work.push(new int[] {0, idx.length, 0});
            while (!work.isEmpty()) {
                int[] w = work.pop();
                sortRange(idx, w[0], w[1], w[2], work);
            }
        }

        /**
         * Sorts idx[from, to), whose keys share their first {@code off} bytes (zero-padded), stably by
         * their next 16 bytes; pushes the runs still equal in those onto {@code work}, or orders them by length.
         */
        private void sortRange(int[] idx, int from, int to, int off, java.util.ArrayDeque<int[]> work) {
            for (int p = from; p < to; p++) {
                byte[] k = keys[idx[p]];
                hi[p] = prefix(k, off);
                lo[p] = prefix(k, off + 8);
            }
            for (int digit = 0; digit < 16; digit++) { // least significant byte first
                boolean low = digit < 8;
                int shift = (digit & 7) * 8;
                java.util.Arrays.fill(count, 0);
                long[] src = low ? lo : hi;
                for (int p = from; p < to; p++) {
                    count[(int) (src[p] >>> shift) & 0xff]++;
                }
                if (count[(int) (src[from] >>> shift) & 0xff] == to - from) {
                    continue; // every key of the range has this byte
                }
                int sum = from;
                for (int b = 0; b < 256; b++) {
                    int c = count[b];
                    count[b] = sum;
                    sum += c;
                }
                for (int p = from; p < to; p++) {
                    int q = count[(int) (src[p] >>> shift) & 0xff]++;
                    hiTmp[q] = hi[p];
                    loTmp[q] = lo[p];
                    idxTmp[q] = idx[p];
                }
                System.arraycopy(hiTmp, from, hi, from, to - from);
                System.arraycopy(loTmp, from, lo, from, to - from);
                System.arraycopy(idxTmp, from, idx, from, to - from);
            }
            // runs of keys equal in these 16 bytes: longer keys by their next bytes, then by length
            int start = from;
            while (start < to) {
                int end = start + 1;
                while (end < to && hi[end] == hi[start] && lo[end] == lo[start]) {
                    end++;
                }
                if (end - start > 1) {
                    int longest = 0;
                    boolean sameLength = true;
                    int len0 = keys[idx[start]].length;
                    for (int p = start; p < end; p++) {
                        int len = keys[idx[p]].length;
                        longest = Math.max(longest, len);
                        sameLength &= len == len0;
                    }
                    if (longest > off + 16) {
                        work.push(new int[] {start, end, off + 16}); // disjoint from every range on the list
                    } else if (!sameLength) {
                        byLength(idx, start, end);
                    }
                }
                start = end;
            }
        }

        /** Stable insertion sort of idx[from, to) by key length (keys equal up to the shorter's end, then zero). */
        private void byLength(int[] idx, int from, int to) {
            if (to - from > 64) { // many keys differing only by trailing zero bytes: a stable O(n log n) sort
                Integer[] boxed = new Integer[to - from];
                for (int p = from; p < to; p++) {
                    boxed[p - from] = idx[p];
                }
                java.util.Arrays.sort(boxed, java.util.Comparator.comparingInt(i -> keys[i].length));
                for (int p = from; p < to; p++) {
                    idx[p] = boxed[p - from];
                }
                return;
            }
            for (int p = from + 1; p < to; p++) {
                int v = idx[p];
                int len = keys[v].length;
                int q = p - 1;
                while (q >= from && keys[idx[q]].length > len) {
                    idx[q + 1] = idx[q];
                    q--;
                }
                idx[q + 1] = v;
            }
        }
    }
}
