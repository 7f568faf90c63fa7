package dev.ferry;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * The workload that {@code benchmarks/callgrind-callbacks} counts under callgrind (not a test): n keys of 16
 * bytes, each written and read back through one store, in one of four setups, so that the instructions of
 * {@code ferry_get}, {@code ferry_put} and {@code ferry_cursor_fill} (inclusive: RocksDB, the trampoline, the
 * JVM and the Java callback) can be compared between a callback written in Java and its native counterpart.
 *
 * <ul>
 *   <li>{@code merge-java} / {@code merge-builtin}: put an 8-byte little-endian counter, merge 1 into it, get
 *       it (one full merge per get) with a {@link JavaMergeOperator} adding counters, or RocksDB's
 *       {@code uint64add};</li>
 *   <li>{@code cmp-java} / {@code cmp-bytewise}: put n keys into a family ordered by a {@link JavaComparator}
 *       in bytewise order, or the bytewise family, get each, then scan them all.</li>
 * </ul>
 *
 * <p>Usage: {@code CallbackCostProgram <setup> <n> <dir>}; the binding is {@code -Dferry.binding}'s.
 */
public final class CallbackCostProgram {
    private CallbackCostProgram() {
    }

    /** RocksDB's uint64add in Java: 8-byte little-endian unsigned sums. */
    static final JavaMergeOperator ADD = new JavaMergeOperator() {
        @Override public String name() {
            return "bench.Add";
        }

        @Override public byte[] fullMerge(byte[] key, byte[] existing, List<byte[]> operands) {
            long sum = existing == null ? 0 : ByteBuffer.wrap(existing).order(ByteOrder.LITTLE_ENDIAN).getLong();
            for (byte[] o : operands) {
                sum += ByteBuffer.wrap(o).order(ByteOrder.LITTLE_ENDIAN).getLong();
            }
            return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(sum).array();
        }
    };

    /**
     * Runs one setup.
     *
     * @param args setup, n, directory
     */
    public static void main(String[] args) {
        String setup = args[0];
        int n = Integer.parseInt(args[1]);
        Path dir = Path.of(args[2]);
        byte[] one = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(1).array();
        StoreOptions o = StoreOptions.rocksdb();
        if (setup.equals("merge-java")) {
            o.javaMergeOperator(ADD);
        } else if (setup.equals("merge-builtin")) {
            o.mergeOperator(MergeOperator.UINT64_ADD);
        }
        long check = 0;
        try (Store store = Store.open(dir, o)) {
            ColumnFamily cf = store.defaultColumnFamily();
            if (setup.equals("cmp-java")) {
                cf = store.createColumnFamily("ordered", ColumnFamilyOptions.of().javaComparator(
                        JavaComparator.of("bench.Bytewise", Arrays::compareUnsigned)));
            }
            byte[][] keys = new byte[n][];
            for (int i = 0; i < n; i++) {
                keys[i] = ByteBuffer.allocate(16).putLong(0x5DEECE66DL * i).putLong(i).array();
            }
            if (setup.startsWith("merge")) {
                for (byte[] k : keys) {
                    store.put(cf, k, one);
                    store.merge(cf, k, one);
                    check += store.get(cf, k)[0];
                }
            } else {
                for (byte[] k : keys) {
                    store.put(cf, k, one);
                }
                for (byte[] k : keys) {
                    check += store.get(cf, k)[0];
                }
                try (Cursor c = store.cursor(cf, KeyRange.all(), null)) {
                    for (boolean ok = c.first(); ok; ok = c.next()) {
                        check++;
                    }
                }
            }
        }
        System.out.println(setup + " " + n + " " + check);
    }
}
