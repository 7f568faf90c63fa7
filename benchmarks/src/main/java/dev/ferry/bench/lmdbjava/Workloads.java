package dev.ferry.bench.lmdbjava;

import dev.ferry.bench.peer.PeerStore;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.zip.CRC32;
import net.openhft.hashing.LongHashFunction;

/**
 * The LmdbJava suite's six workloads over a {@link PeerStore}. Each returns a result that depends on
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
    public static long run(String name, PeerStore s, SuiteData d) {
        return switch (name) {
            case "write" -> {
                s.write(d.keys(), d.values(), 0, d.size());
                yield d.size();
            }
            case "readKey" -> readKey(s, d);
            case "readSeq" -> s.scan(Workloads::touch) + touched(true);
            case "readRev" -> s.scanReverse(Workloads::touch) + touched(true);
            case "readCrc" -> readCrc(s);
            case "readXxh64" -> readXxh64(s);
            default -> throw new IllegalArgumentException("unknown workload " + name + " " + ALL);
        };
    }

    private static long readKey(PeerStore s, SuiteData d) {
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

    private static long sink;

    private static boolean touch(ByteBuffer k, ByteBuffer v) {
        sink += k.remaining() + v.remaining() + (v.remaining() > 0 ? v.get(0) : 0);
        return true;
    }

    private static long touched(boolean reset) {
        long t = sink;
        if (reset) {
            sink = 0;
        }
        return t;
    }

    private static long readCrc(PeerStore s) {
        CRC32 crc = new CRC32();
        s.scan((k, v) -> {
            crc.update(k);
            crc.update(v);
            return true;
        });
        return crc.getValue();
    }

    private static long readXxh64(PeerStore s) {
        long[] sum = {0};
        s.scan((k, v) -> {
            sum[0] += XX.hashBytes(k) + XX.hashBytes(v);
            return true;
        });
        return sum[0];
    }
}
