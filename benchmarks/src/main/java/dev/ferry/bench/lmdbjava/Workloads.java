package dev.ferry.bench.lmdbjava;

import dev.ferry.View;
import dev.ferry.bench.store.KvStore;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.zip.CRC32;
import net.openhft.hashing.LongHashFunction;

/**
 * The LmdbJava suite's six workloads over a {@link KvStore}. Each returns a result that depends on
 * every byte (or at least every entry) it touched, so the JIT cannot drop the work and runs over the same
 * data can be compared across stores: write (all entries, one batch: one transaction or write batch where
 * the store has them), readKey (a get of every key in insertion order; sum of value lengths plus first
 * bytes), readSeq and readRev (forward and reverse scans; count plus value lengths plus first bytes),
 * readCrc (CRC32 over every key then value in a forward scan), readXxh64 (sum of XXH64 of every key and
 * every value in a forward scan, zero-allocation-hashing's {@code LongHashFunction.xx()}).
 *
 * <p>Thread safety: stateless.
 */
public final class Workloads {
    /** The workloads, in the reports' order. */
    public static final List<String> ALL = List.of("write", "readKey", "readSeq", "readRev", "readCrc", "readXxh64");
    /** The workloads an unordered store (a hash map) runs, as published. */
    public static final List<String> UNORDERED = List.of("write", "readKey");

    private static final LongHashFunction XX = LongHashFunction.xx();

    private Workloads() {
    }

    /**
     * Runs one workload.
     *
     * @param name one of {@link #ALL}
     * @param s the store (filled already for the reads)
     * @param d the data
     * @return the workload's result (see the class comment)
     * @throws IllegalStateException when a get finds no value
     */
    public static long run(String name, KvStore s, SuiteData d) {
        return switch (name) {
            case "write" -> {
                s.write(d.keys(), d.values(), 0, d.size());
                yield d.size();
            }
            case "readKey" -> readKey(s, d);
            case "readSeq" -> readSeq(s, false);
            case "readRev" -> readSeq(s, true);
            case "readCrc" -> readCrc(s);
            case "readXxh64" -> readXxh64(s);
            default -> throw new IllegalArgumentException("unknown workload " + name + " " + ALL);
        };
    }

    private static long readKey(KvStore s, SuiteData d) {
        long sum = 0;
        int n = d.size();
        for (int i = 0; i < n; i++) {
            byte[] v = s.get(d.key(i));
            if (v == null) {
                throw new IllegalStateException(s.name() + ": readKey found no value for entry " + i);
            }
            sum += v.length + v[0];
        }
        return sum;
    }

    private static long readSeq(KvStore s, boolean reverse) {
        Touch t = new Touch();
        long n = reverse ? s.scanReverse(t) : s.scan(t);
        return n + t.sum;
    }

    /** readSeq/readRev's per-entry work: key and value lengths plus the value's first byte. */
    private static final class Touch implements KvStore.Visitor {
        long sum;

        @Override
        public boolean visit(ByteBuffer k, ByteBuffer v) {
            sum += k.remaining() + v.remaining() + (v.remaining() > 0 ? v.get(0) : 0);
            return true;
        }

        @Override
        public boolean visit(View k, View v) {
            int vl = v.length();
            sum += k.length() + vl + (vl > 0 ? v.getByte(0) : 0);
            return true;
        }
    }

    private static long readCrc(KvStore s) {
        CRC32 crc = new CRC32();
        s.scan(new Bytes() {
            @Override
            public boolean visit(ByteBuffer k, ByteBuffer v) {
                crc.update(k);
                crc.update(v);
                return true;
            }

            @Override
            void accept(byte[] b, int len) {
                crc.update(b, 0, len);
            }
        });
        return crc.getValue();
    }

    private static long readXxh64(KvStore s) {
        long[] sum = {0};
        s.scan(new Bytes() {
            @Override
            public boolean visit(ByteBuffer k, ByteBuffer v) {
                sum[0] += XX.hashBytes(k) + XX.hashBytes(v);
                return true;
            }

            @Override
            void accept(byte[] b, int len) {
                sum[0] += XX.hashBytes(b, 0, len);
            }
        });
        return sum[0];
    }

    /**
     * A visitor of every key and value byte. Over Ferry's views it copies each key, then each value,
     * into one reused array ({@link View#getBytes}, one bulk copy) and hands that on: Ferry's public
     * API gives no raw direct buffer over engine memory, and a scoped one per entry costs more than the copy.
     */
    private abstract static class Bytes implements KvStore.Visitor {
        private byte[] buf = new byte[256];

        abstract void accept(byte[] b, int len);

        @Override
        public boolean visit(View k, View v) {
            copy(k);
            copy(v);
            return true;
        }

        private void copy(View x) {
            int len = x.length();
            if (len > buf.length) {
                buf = new byte[Math.max(len, buf.length * 2)];
            }
            x.getBytes(0, buf, 0, len);
            accept(buf, len);
        }
    }
}
