package dev.ferry.bench;

import dev.ferry.bench.store.LmdbJavaPeer;
import dev.ferry.bench.store.RocksJavaPeer;
import dev.ferry.ColumnFamily;
import dev.ferry.Engine;
import dev.ferry.Snapshot;
import dev.ferry.Store;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.lmdbjava.Dbi;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.lmdbjava.Txn;

/**
 * Point-read ratios measured interleaved, as {@link Interleaved} does for scans: round after
 * round every variant opens the data set, reads the {@link GetBench.RandomKeys} list (100,000
 * random existing keys) three times and closes, so the machine's slow phases hit all alike. The
 * best pass of each gives ns per get and its ratio to the floor of the same JVM.
 *
 * <p>Variants ({@code <b>} is the JVM's binding):
 * <ul>
 *   <li>{@code floor}: the C loop (rocksdb_get_pinned; LMDB: mdb_get, all in one read transaction);
 *   <li>{@code floor-fresh} (LMDB): the C loop with a read transaction renewed and reset around
 *       every get, what reading the latest state costs (RocksDB gets always do);
 *   <li>{@code floor-copy}, {@code floor-fresh-copy}: the same C loops copying every value into one
 *       reused buffer (memcpy of the whole value, no allocation): the floors read only a value's first
 *       and last byte, while {@code Store.get} must deliver every byte;
 *   <li>{@code ferry-<b>}: {@code Store.get(byte[])}, the latest state, a new array per value;
 *   <li>{@code ferry-<b>-into}: {@code Store.get(cf, ByteBuffer, ByteBuffer)} into a reused direct buffer;
 *   <li>{@code ferry-<b>-snapshot}: {@code Snapshot.get(byte[])}, one snapshot per pass (LMDB: one read
 *       transaction, as the floor);
 *   <li>{@code ferry-<b>-multiget}: {@code Store.multiGet} of 100 keys at a time;
 *   <li>peers: {@code rocksjava} ({@code RocksDB.get(byte[])}), {@code lmdbjava} (a read transaction
 *       per 1,000 gets, as its own benchmark does).
 * </ul>
 * Every variant sums value length, first and last byte of each value; the sum is checked against
 * the value generator.
 *
 * <p>With a sixth argument {@code seek<N>} it measures db_bench's seekrandom instead: 20,000 seeks,
 * each on a new cursor (iterator), reading N entries from the key on, then closing it; variants
 * {@code floor} (C), {@code ferry-<b>}, {@code rocksjava}/{@code lmdbjava}; the time is per seek and
 * the checksum that of every entry read (as in the scans).
 *
 * <p>Usage: {@code InterleavedGets <ROCKSDB|LMDB> <jni|ffm> <entries> <rounds> <valueSize> [seek<N>]};
 * prints {@code interleaved-gets engine=.. jvm_binding=.. value_size=.. variant=.. best_ns_per_get=.. ratio_to_floor=.. ratio_err=.. round_ratios=..}
 * (for seeks: {@code workload=seek<N>} and {@code best_ns_per_seek}).
 */
public final class InterleavedGets {
    private static final int KEYS = GetBench.KEYS;
    private static final int MULTI = 100;

    private InterleavedGets() {
    }

    interface Variant {
        AutoCloseable open() throws Exception;

        long pass() throws Exception;
    }

    /**
     * @param args engine, binding, entries, rounds, value size
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        Engine engine = Engine.valueOf(args[0]);
        String binding = args[1];
        int entries = Integer.parseInt(args[2]);
        int rounds = Integer.parseInt(args[3]);
        int vs = Integer.parseInt(args[4]);
        BenchData.Dataset d = BenchData.dataset(engine, entries, vs);
        GetBench.RandomKeys rk = new GetBench.RandomKeys(KEYS, entries, vs);
        NativeFloor.attach(engine, binding);
        if (args.length > 5 && args[5].startsWith("seek")) {
            Seeks.run(engine, binding, d, rk, rounds, vs, Integer.parseInt(args[5].substring(4)));
            System.exit(0);
        }
        Map<String, Variant> vars = new LinkedHashMap<>();
        vars.put("floor", floor(engine, d, rk, false, false));
        vars.put("floor-copy", floor(engine, d, rk, false, true));
        if (engine == Engine.LMDB) {
            vars.put("floor-fresh", floor(engine, d, rk, true, false));
            vars.put("floor-fresh-copy", floor(engine, d, rk, true, true));
        }
        Ferry f = new Ferry(engine, binding, d, rk);
        vars.put("ferry-" + binding, f.variant(f::get));
        vars.put("ferry-" + binding + "-into", f.variant(f::into));
        vars.put("ferry-" + binding + "-snapshot", f.variant(f::snapshot));
        vars.put("ferry-" + binding + "-multiget", f.variant(f::multiGet));
        if (engine == Engine.ROCKSDB) {
            vars.put("rocksjava", rocksJava(d, rk));
        } else {
            vars.put("lmdbjava", lmdbJava(d, rk));
        }
        RoundBests rb = measure(vars, rounds, "interleaved-gets ", rk.expected);
        Map<String, Long> best = rb.best();
        double floor = best.get("floor") / (double) KEYS;
        List<String> lines = new ArrayList<>();
        for (Map.Entry<String, Long> e : best.entrySet()) {
            double ns = e.getValue() / (double) KEYS;
            lines.add(String.format(Locale.ROOT, "interleaved-gets engine=%s jvm_binding=%s value_size=%d variant=%s best_ns_per_get=%.1f ratio_to_floor=%.3f ratio_err=%.3f round_ratios=%s",
                    engine.name().toLowerCase(Locale.ROOT), binding, vs, e.getKey(), ns, ns / floor, rb.ratioSpread(e.getKey()),
                    rb.roundRatiosText(e.getKey())));
        }
        lines.forEach(System.out::println);
        System.out.flush();
        System.exit(0);
    }

    /** db_bench's seekrandom: a new cursor per seek, N entries read from the key on. */
    static final class Seeks {
        static final int SEEKS = 20_000;

        static void run(Engine engine, String binding, BenchData.Dataset d, GetBench.RandomKeys rk, int rounds, int vs, int nexts)
                throws Exception {
            Map<String, Variant> vars = new LinkedHashMap<>();
            NativeFloor.Db[] db = new NativeFloor.Db[1];
            vars.put("floor", new Variant() {
                public AutoCloseable open() {
                    db[0] = NativeFloor.open(engine, d.dir, true, 0);
                    return db[0]::close;
                }

                public long pass() {
                    return db[0].seeks(rk.packedAddr, SEEKS, BenchData.KEY_SIZE, nexts);
                }
            });
            Store[] store = new Store[1];
            vars.put("ferry-" + binding, new Variant() {
                public AutoCloseable open() {
                    store[0] = Store.open(d.dir, BenchData.options(engine, binding, true));
                    return store[0]::close;
                }

                public long pass() {
                    long sum = 0;
                    Store s = store[0];
                    for (int i = 0; i < SEEKS; i++) {
                        try (dev.ferry.Cursor c = s.cursor()) {
                            boolean ok = c.seek(rk.keys[i]);
                            for (int j = 0; j < nexts && ok; j++) {
                                dev.ferry.View k = c.key();
                                dev.ferry.View v = c.value();
                                int kl = k.length();
                                int vl = v.length();
                                sum += kl + vl + (k.getByte(0) & 0xFF) + (k.getByte(kl - 1) & 0xFF) + (v.getByte(0) & 0xFF)
                                        + (v.getByte(vl - 1) & 0xFF);
                                ok = c.next();
                            }
                        }
                    }
                    return sum;
                }
            });
            if (engine == Engine.ROCKSDB) {
                RocksJavaPeer[] r = new RocksJavaPeer[1];
                vars.put("rocksjava", new Variant() {
                    public AutoCloseable open() throws Exception {
                        r[0] = RocksJavaPeer.openDataset(d.dir, true);
                        return r[0];
                    }

                    public long pass() {
                        long sum = 0;
                        for (int i = 0; i < SEEKS; i++) {
                            try (org.rocksdb.RocksIterator it = r[0].db().newIterator()) {
                                it.seek(rk.keys[i]);
                                for (int j = 0; j < nexts && it.isValid(); j++) {
                                    byte[] k = it.key();
                                    byte[] v = it.value();
                                    sum += k.length + v.length + (k[0] & 0xFF) + (k[k.length - 1] & 0xFF) + (v[0] & 0xFF)
                                            + (v[v.length - 1] & 0xFF);
                                    it.next();
                                }
                            }
                        }
                        return sum;
                    }
                });
            }
            RoundBests rb = measure(vars, rounds, "interleaved-gets seek ", null);
            Map<String, Long> best = rb.best();
            double floor = best.get("floor") / (double) SEEKS;
            for (Map.Entry<String, Long> e : best.entrySet()) {
                double ns = e.getValue() / (double) SEEKS;
                System.out.println(String.format(Locale.ROOT,
                        "interleaved-gets engine=%s jvm_binding=%s value_size=%d workload=seek%d variant=%s best_ns_per_seek=%.1f ratio_to_floor=%.3f ratio_err=%.3f round_ratios=%s",
                        engine.name().toLowerCase(Locale.ROOT), binding, vs, nexts, e.getKey(), ns, ns / floor, rb.ratioSpread(e.getKey()),
                        rb.roundRatiosText(e.getKey())));
            }
            System.out.flush();
        }
    }

    /**
     * Runs the variants in turn, round after round (open, three passes, close), round r starting at
     * the r-th variant, each pass checked against {@code expected} (null: the first pass's sum, the
     * floor's, which runs first in round 0). With
     * {@code -Dferry.bench.only=<regex>} only the floor and the matching variants run.
     *
     * @return the best pass of each variant in each round, in nanoseconds
     */
    private static RoundBests measure(Map<String, Variant> vars, int rounds, String what, Long expected) throws Exception {
        String only = System.getProperty("ferry.bench.only");
        if (only != null) {
            vars.keySet().removeIf(n -> !n.equals("floor") && !n.matches(only));
        }
        RoundBests rb = new RoundBests();
        for (String name : vars.keySet()) {
            rb.add(name, 0, Long.MAX_VALUE); // the report's order stays the variants' order
        }
        Long want = expected;
        List<Map.Entry<String, Variant>> order = new ArrayList<>(vars.entrySet());
        for (int r = 0; r < rounds; r++) {
            // round r starts at variant r: no variant always runs first, or right after the same one
            for (int i = 0; i < order.size(); i++) {
                Map.Entry<String, Variant> v = order.get((i + r) % order.size());
                try (AutoCloseable c = v.getValue().open()) {
                    for (int k = 0; k < 3; k++) {
                        long t = System.nanoTime();
                        long sum = v.getValue().pass();
                        long ns = System.nanoTime() - t;
                        if (want == null) {
                            want = sum;
                        }
                        BenchData.check(what + v.getKey(), sum, want);
                        rb.add(v.getKey(), r, ns);
                    }
                }
            }
        }
        return rb;
    }

    private static Variant floor(Engine engine, BenchData.Dataset d, GetBench.RandomKeys rk, boolean fresh, boolean copy) {
        NativeFloor.Db[] db = new NativeFloor.Db[1];
        ByteBuffer dst = copy ? ByteBuffer.allocateDirect(1 << 20) : null; // larger than any value here
        return new Variant() {
            public AutoCloseable open() {
                db[0] = NativeFloor.open(engine, d.dir, true, 0);
                return db[0]::close;
            }

            public long pass() {
                if (copy) {
                    return db[0].getsCopy(rk.packedAddr, KEYS, BenchData.KEY_SIZE, fresh, dst);
                }
                return fresh ? db[0].getsFresh(rk.packedAddr, KEYS, BenchData.KEY_SIZE) : db[0].gets(rk.packedAddr, KEYS, BenchData.KEY_SIZE);
            }
        };
    }

    /** The Ferry variants over one store per open. */
    static final class Ferry {
        private final Engine engine;
        private final String binding;
        private final BenchData.Dataset d;
        private final GetBench.RandomKeys rk;
        private final ByteBuffer[] keyBufs = new ByteBuffer[KEYS];
        private final List<List<byte[]>> batches = new ArrayList<>();
        private final ByteBuffer into;
        private Store store;

        Ferry(Engine engine, String binding, BenchData.Dataset d, GetBench.RandomKeys rk) {
            this.engine = engine;
            this.binding = binding;
            this.d = d;
            this.rk = rk;
            for (int i = 0; i < KEYS; i++) {
                keyBufs[i] = ByteBuffer.wrap(rk.keys[i]);
            }
            for (int i = 0; i < KEYS; i += MULTI) {
                batches.add(List.of(java.util.Arrays.copyOfRange(rk.keys, i, Math.min(KEYS, i + MULTI))));
            }
            into = ByteBuffer.allocateDirect(1 << 16);
        }

        interface Pass {
            long run() throws Exception;
        }

        Variant variant(Pass p) {
            return new Variant() {
                public AutoCloseable open() {
                    store = Store.open(d.dir, BenchData.options(engine, binding, true));
                    return store::close;
                }

                public long pass() throws Exception {
                    return p.run();
                }
            };
        }

        long get() {
            long sum = 0;
            Store s = store;
            for (byte[] k : rk.keys) {
                byte[] v = s.get(k);
                sum += v.length + (v[0] & 0xFF) + (v[v.length - 1] & 0xFF);
            }
            return sum;
        }

        long into() {
            long sum = 0;
            Store s = store;
            ColumnFamily cf = s.defaultColumnFamily();
            ByteBuffer v = into;
            for (ByteBuffer k : keyBufs) {
                v.clear();
                int vl = s.get(cf, k, v);
                sum += vl + (v.get(0) & 0xFF) + (v.get(vl - 1) & 0xFF);
            }
            return sum;
        }

        long snapshot() {
            long sum = 0;
            try (Snapshot snap = store.snapshot()) {
                for (byte[] k : rk.keys) {
                    byte[] v = snap.get(k);
                    sum += v.length + (v[0] & 0xFF) + (v[v.length - 1] & 0xFF);
                }
            }
            return sum;
        }

        long multiGet() {
            long sum = 0;
            Store s = store;
            for (List<byte[]> b : batches) {
                for (byte[] v : s.multiGet(b)) {
                    sum += v.length + (v[0] & 0xFF) + (v[v.length - 1] & 0xFF);
                }
            }
            return sum;
        }
    }

    private static Variant rocksJava(BenchData.Dataset d, GetBench.RandomKeys rk) {
        RocksJavaPeer[] r = new RocksJavaPeer[1];
        return new Variant() {
            public AutoCloseable open() throws Exception {
                r[0] = RocksJavaPeer.openDataset(d.dir, true);
                return r[0];
            }

            public long pass() throws Exception {
                long sum = 0;
                org.rocksdb.RocksDB db = r[0].db();
                for (byte[] k : rk.keys) {
                    byte[] v = db.get(k);
                    sum += v.length + (v[0] & 0xFF) + (v[v.length - 1] & 0xFF);
                }
                return sum;
            }
        };
    }

    private static Variant lmdbJava(BenchData.Dataset d, GetBench.RandomKeys rk) {
        ByteBuffer[] keys = new ByteBuffer[KEYS];
        for (int i = 0; i < KEYS; i++) {
            keys[i] = ByteBuffer.allocateDirect(BenchData.KEY_SIZE).put(0, rk.keys[i]);
        }
        @SuppressWarnings("unchecked")
        Env<ByteBuffer>[] env = new Env[1];
        @SuppressWarnings("unchecked")
        Dbi<ByteBuffer>[] dbi = new Dbi[1];
        return new Variant() {
            public AutoCloseable open() {
                LmdbJavaPeer lmdb = LmdbJavaPeer.openDataset(d.dir, EnvFlags.MDB_RDONLY_ENV, EnvFlags.MDB_NOTLS);
                env[0] = lmdb.env(); // the pass calls lmdbjava's own handles, not KvStore
                dbi[0] = lmdb.dbi();
                return lmdb;
            }

            public long pass() {
                long sum = 0;
                for (int i = 0; i < KEYS; i += GetBench.BATCH) {
                    try (Txn<ByteBuffer> txn = env[0].txnRead()) {
                        for (int j = i; j < i + GetBench.BATCH; j++) {
                            ByteBuffer v = dbi[0].get(txn, keys[j]);
                            int vl = v.remaining();
                            sum += vl + (v.get(0) & 0xFF) + (v.get(vl - 1) & 0xFF);
                        }
                    }
                }
                return sum;
            }
        };
    }
}
