package dev.ferry;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * A reproducible random write workload over several column families, with the expected final
 * contents kept in {@link TreeMap} models (unsigned byte order). The differential and
 * cross-binding tests generate operations here, apply them through one library, and read the
 * result back through another.
 *
 * <p>Keys are random binary, biased towards 0x00 and 0xFF bytes, and often reused so that
 * overwrites, deletes of present keys and deletes of absent keys all happen. Values are mostly
 * small, sometimes up to {@value #MAX_VALUE} bytes. Range deletes usually cover a few live keys.
 * Keys equal to a family name are never written to the default family, and no range delete there
 * covers one: in LMDB those names are the keys of the named databases' records.
 *
 * <p>Not thread-safe.
 */
public final class Workload {
    /** The largest value written: 64 KiB. */
    public static final int MAX_VALUE = 64 * 1024;

    /** What an operation does. */
    public enum Kind { PUT, DELETE, DELETE_RANGE, BATCH, FLUSH }

    /** One operation; {@code cf} indexes {@link #families()}. */
    public static final class Op {
        public final Kind kind;
        public final int cf;
        public final byte[] key;
        public final byte[] value;
        public final byte[] end;
        public final List<Op> batch;

        Op(Kind kind, int cf, byte[] key, byte[] value, byte[] end, List<Op> batch) {
            this.kind = kind;
            this.cf = cf;
            this.key = key;
            this.value = value;
            this.end = end;
            this.batch = batch;
        }
    }

    /** Receives operations; one implementation per library under test. */
    public interface Target {
        void put(int cf, byte[] key, byte[] value) throws Exception;

        void delete(int cf, byte[] key) throws Exception;

        /** Deletes keys in {@code [begin, end)}. */
        void deleteRange(int cf, byte[] begin, byte[] end) throws Exception;

        /** Applies PUT, DELETE and DELETE_RANGE operations atomically, in order. */
        void batch(List<Op> ops) throws Exception;

        /** Flushes every family (RocksDB: memtables to SST files). */
        void flush() throws Exception;
    }

    private final long seed;
    private final Random r;
    private final List<String> families;
    private final int minKey;
    private final int maxKey;
    private final List<TreeMap<byte[], byte[]>> model = new ArrayList<>();
    private final List<List<byte[]>> pool = new ArrayList<>();
    private final byte[][] reserved;

    /**
     * @param seed the random seed (print it in failure messages: {@link #toString()})
     * @param families family names, "default" first
     * @param minKey shortest key (0 for RocksDB, 1 for LMDB)
     * @param maxKey longest key
     */
    public Workload(long seed, List<String> families, int minKey, int maxKey) {
        if (!families.get(0).equals("default")) {
            throw new IllegalArgumentException("the first family must be 'default'");
        }
        this.seed = seed;
        this.r = new Random(seed);
        this.families = List.copyOf(families);
        this.minKey = minKey;
        this.maxKey = maxKey;
        this.reserved = families.stream().map(n -> n.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
        for (int i = 0; i < families.size(); i++) {
            model.add(new TreeMap<>(Arrays::compareUnsigned));
            pool.add(new ArrayList<>());
        }
    }

    /** @return the family names, "default" first */
    public List<String> families() {
        return families;
    }

    /**
     * The expected contents of a family after every operation generated so far.
     *
     * @param cf the family index
     * @return the model (do not modify)
     */
    public TreeMap<byte[], byte[]> model(int cf) {
        return model.get(cf);
    }

    /** @return the shared random source, for tests that need more random choices */
    public Random random() {
        return r;
    }

    /**
     * Generates operations and applies them to the model.
     *
     * @param n how many top-level operations
     * @param flushEvery a FLUSH after about this many operations (0: none)
     * @return the operations
     */
    public List<Op> next(int n, int flushEvery) {
        List<Op> ops = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            if (flushEvery > 0 && i > 0 && i % flushEvery == 0) {
                ops.add(new Op(Kind.FLUSH, 0, null, null, null, null));
            }
            int c = r.nextInt(100);
            if (c < 8) {
                int size = 1 + r.nextInt(20);
                List<Op> b = new ArrayList<>(size);
                for (int j = 0; j < size; j++) {
                    b.add(single());
                }
                ops.add(new Op(Kind.BATCH, 0, null, null, null, Collections.unmodifiableList(b)));
            } else {
                ops.add(single());
            }
        }
        return ops;
    }

    /**
     * Keys to probe with point reads in a family: every key ever written or deleted there and
     * some fresh random keys (mostly absent).
     *
     * @param cf the family index
     * @param fresh how many fresh keys
     * @return the keys
     */
    public List<byte[]> probeKeys(int cf, int fresh) {
        List<byte[]> keys = new ArrayList<>(pool.get(cf));
        for (int i = 0; i < fresh; i++) {
            keys.add(randomKey(cf));
        }
        Collections.shuffle(keys, r);
        return keys;
    }

    /**
     * Applies operations to a target.
     *
     * @param ops the operations
     * @param t the target
     * @throws Exception from the target
     */
    public static void apply(List<Op> ops, Target t) throws Exception {
        for (Op op : ops) {
            switch (op.kind) {
                case PUT: t.put(op.cf, op.key, op.value); break;
                case DELETE: t.delete(op.cf, op.key); break;
                case DELETE_RANGE: t.deleteRange(op.cf, op.key, op.end); break;
                case BATCH: t.batch(op.batch); break;
                default: t.flush();
            }
        }
    }

    @Override
    public String toString() {
        return "Workload[seed=" + seed + ", families=" + families + ", keys " + minKey + ".." + maxKey + "]";
    }

    /** @return hex of bytes, for messages */
    public static String hex(byte[] b) {
        if (b == null) {
            return "null";
        }
        StringBuilder sb = new StringBuilder(b.length * 2 + 8);
        int n = Math.min(b.length, 80);
        for (int i = 0; i < n; i++) {
            sb.append(String.format("%02x", b[i] & 0xFF));
        }
        if (n < b.length) {
            sb.append("...(").append(b.length).append(" bytes)");
        }
        return sb.toString();
    }

    private Op single() {
        int cf = r.nextInt(families.size());
        TreeMap<byte[], byte[]> m = model.get(cf);
        int c = r.nextInt(100);
        if (c < 80) {
            byte[] k = pickKey(cf, 30);
            byte[] v = randomValue();
            m.put(k, v);
            return new Op(Kind.PUT, cf, k, v, null, null);
        }
        if (c < 95) {
            byte[] k = pickKey(cf, 80);
            m.remove(k);
            return new Op(Kind.DELETE, cf, k, null, null, null);
        }
        // a range from a (usually live) key over the next few live keys
        byte[] lo = pickKey(cf, 70);
        byte[] hi = null;
        int skip = 1 + r.nextInt(6);
        Iterator<byte[]> it = m.tailMap(lo, false).keySet().iterator();
        while (it.hasNext() && skip-- > 0) {
            hi = it.next();
        }
        if (hi == null) {
            if (lo.length >= maxKey) {
                m.remove(lo);
                return new Op(Kind.DELETE, cf, lo, null, null, null);
            }
            hi = Arrays.copyOf(lo, lo.length + 1); // [lo, lo 00) holds lo alone
        }
        if (cf == 0 && coversReserved(lo, hi)) {
            // LMDB keeps the named databases' records in the unnamed one: never delete them
            m.remove(lo);
            return new Op(Kind.DELETE, cf, lo, null, null, null);
        }
        m.subMap(lo, true, hi, false).clear();
        return new Op(Kind.DELETE_RANGE, cf, lo, null, hi, null);
    }

    /** A key used before in the family (percent of the time), else a fresh one. */
    private byte[] pickKey(int cf, int reusePercent) {
        List<byte[]> p = pool.get(cf);
        if (!p.isEmpty() && r.nextInt(100) < reusePercent) {
            return p.get(r.nextInt(p.size()));
        }
        byte[] k = randomKey(cf);
        p.add(k);
        return k;
    }

    private byte[] randomKey(int cf) {
        for (;;) {
            int len = r.nextInt(3) == 0 ? minKey + r.nextInt(maxKey - minKey + 1) : minKey + r.nextInt(Math.min(8, maxKey - minKey) + 1);
            byte[] k = new byte[len];
            for (int i = 0; i < len; i++) {
                int c = r.nextInt(8);
                k[i] = c == 0 ? 0 : c == 1 ? (byte) 0xFF : c == 2 ? 1 : c == 3 ? (byte) 0xFE : (byte) r.nextInt(256);
            }
            if (cf == 0 && isReserved(k)) {
                continue;
            }
            return k;
        }
    }

    private boolean coversReserved(byte[] lo, byte[] hi) {
        for (byte[] n : reserved) {
            if (Arrays.compareUnsigned(lo, n) <= 0 && Arrays.compareUnsigned(n, hi) < 0) {
                return true;
            }
        }
        return false;
    }

    private boolean isReserved(byte[] k) {
        for (byte[] n : reserved) {
            if (Arrays.equals(n, k)) {
                return true;
            }
        }
        return false;
    }

    private byte[] randomValue() {
        int c = r.nextInt(100);
        int len = c < 70 ? r.nextInt(101) : c < 92 ? r.nextInt(4097) : r.nextInt(MAX_VALUE + 1);
        byte[] v = new byte[len];
        r.nextBytes(v);
        return v;
    }

    /**
     * Returns the entries of a model as a list, in key order.
     *
     * @param m the model
     * @return the entries
     */
    public static List<Map.Entry<byte[], byte[]>> entries(TreeMap<byte[], byte[]> m) {
        return new ArrayList<>(m.entrySet());
    }
}
