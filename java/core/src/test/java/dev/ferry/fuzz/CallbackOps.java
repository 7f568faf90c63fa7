package dev.ferry.fuzz;

import dev.ferry.ColumnFamily;
import dev.ferry.ColumnFamilyOptions;
import dev.ferry.Engine;
import dev.ferry.FerryException;
import dev.ferry.JavaCompactionFilter;
import dev.ferry.JavaComparator;
import dev.ferry.KeyRange;
import dev.ferry.JavaMergeOperator;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Callbacks written in Java (RocksDB; on LMDB the comparator only, {@code lmdbComparator}): a store of its own,
 * opened with a {@link JavaMergeOperator} and a {@link JavaCompactionFilter} (for the store, or for one family),
 * and a family ordered by a {@link JavaComparator},
 * whose every call does one random thing:
 * answers, throws, blocks for a moment, or calls back into its store (a read, or a close). Random merges,
 * puts, reads, flushes and compactions run on it, and its close comes while another thread compacts.
 *
 * <p>What must hold: a call back into the store from a callback throws {@link IllegalStateException}; a read
 * or write failing because a merge threw fails with a {@link FerryException} whose cause is that exception
 * (any other corruption is a contract breach); a comparator that threw makes calls of its family fail with
 * {@link dev.ferry.ErrorCode#ABORTED}; the store's close returns only once no callback runs, and
 * none runs after it; nothing crashes or hangs.
 *
 * <p>Thread safety: stateless; every method runs on the calling fuzz thread (and one helper thread it joins).
 */
final class CallbackOps {
    private CallbackOps() {
    }

    static void register(MisuseFuzz f, OpTable t) {
        if (f.world.engine == Engine.ROCKSDB) {
            t.addRare("callbacks", 2, CallbackOps::callbacks, false);
        } else {
            t.addRare("lmdbComparator", 2, CallbackOps::lmdbOrdered, false);
        }
    }

    /** What the callbacks throw, so that the judge knows them. */
    static final class Boom extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Boom() {
            super("the fuzzer's callback threw", null, false, false);
        }
    }

    /** The callbacks' shared state: what they do, how many run, what they saw. */
    static final class Behaviour {
        final Random rnd;
        final AtomicReference<Store> store = new AtomicReference<>();
        final AtomicInteger running = new AtomicInteger();
        final AtomicBoolean closed = new AtomicBoolean();
        final AtomicReference<String> wrong = new AtomicReference<>();

        Behaviour(long seed) {
            rnd = new Random(seed);
        }

        /** One random thing; the callers answer normally after it. */
        void act() {
            running.incrementAndGet();
            try {
                if (closed.get()) {
                    wrong.compareAndSet(null, "a callback ran after its store's close returned");
                }
                int r;
                synchronized (rnd) {
                    r = rnd.nextInt(20);
                }
                if (r == 0) {
                    throw new Boom();
                }
                if (r == 1) {
                    Thread.sleep(2);
                }
                Store s = store.get();
                if ((r == 2 || r == 3) && s != null) {
                    try {
                        if (r == 2) {
                            s.get(new byte[] {1});
                        } else {
                            s.close();
                        }
                        wrong.compareAndSet(null, "a callback's call of its own store returned (" + (r == 2 ? "get" : "close") + ")");
                    } catch (IllegalStateException expected) {
                        if (!String.valueOf(expected.getMessage()).contains("must not use its own store")
                                && !String.valueOf(expected.getMessage()).contains("closed")) {
                            wrong.compareAndSet(null, "a callback's call of its own store: " + expected);
                        }
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                running.decrementAndGet();
            }
        }
    }

    /** A merge operator over 8-byte little-endian counters (tolerating other lengths) that acts first. */
    static JavaMergeOperator mergeOperator(Behaviour b) {
        return new JavaMergeOperator() {
            @Override public String name() {
                return "fuzz.Counter";
            }

            @Override public byte[] fullMerge(byte[] key, byte[] existing, List<byte[]> operands) {
                b.act();
                byte[] out = existing == null ? new byte[0] : existing;
                for (byte[] o : operands) {
                    out = o.length >= out.length ? o : out;
                }
                return out;
            }

            @Override public byte[] partialMerge(byte[] key, byte[] left, byte[] right) {
                b.act();
                return right.length >= left.length ? right : left;
            }
        };
    }

    /** A compaction filter factory whose filters act, then keep, remove or change at random. */
    static JavaCompactionFilter.Factory filter(Behaviour b) {
        return new JavaCompactionFilter.Factory() {
            @Override public String name() {
                return "fuzz.Filter";
            }

            @Override public JavaCompactionFilter create(JavaCompactionFilter.Context context) {
                b.act();
                return (level, key, value) -> {
                    b.act();
                    int r = key.length == 0 ? 0 : key[0] & 3;
                    return r == 1 ? JavaCompactionFilter.Decision.REMOVE
                            : r == 2 ? JavaCompactionFilter.Decision.change(new byte[] {2}) : JavaCompactionFilter.Decision.KEEP;
                };
            }

            @Override public void failed(Throwable failure) {
                if (!(failure instanceof Boom) && !(failure instanceof IllegalStateException)) {
                    b.wrong.compareAndSet(null, "a filter failed with " + failure);
                }
            }
        };
    }

    /** A comparator in reverse bytewise order that acts first. */
    static JavaComparator comparator(Behaviour b) {
        return JavaComparator.of("fuzz.Reverse", (x, y) -> {
            b.act();
            return java.util.Arrays.compareUnsigned(y, x);
        });
    }

    /** Runs a call on the store; a FerryException is fine when a callback's exception caused it. */
    private static void judged(Ctx c, String desc, Runnable call) {
        c.call(desc, () -> {
            try {
                call.run();
            } catch (FerryException e) {
                if (e.code() == dev.ferry.ErrorCode.CORRUPTION && !(e.getCause() instanceof Boom)) {
                    throw e; // a corruption no callback explains: the judge fails it
                }
                if (e.code() == dev.ferry.ErrorCode.ABORTED && e.getCause() != null && !(e.getCause() instanceof Boom)
                        && !(e.getCause() instanceof IllegalStateException)) {
                    throw e; // a comparator failure with another cause than the comparator's own
                }
                // any other engine error is an allowed outcome (a flush that failed makes RocksDB refuse writes)
            }
        });
    }

    /** One random call on the family ordered by the fuzzer's comparator. */
    private static void ordered(Ctx c, Store s, ColumnFamily g) {
        byte[] k = {(byte) c.rnd.nextInt(8)};
        byte[] e = {(byte) c.rnd.nextInt(8)};
        int op = c.rnd.nextInt(5);
        if (op == 0) {
            judged(c, s + ".put(g, " + k[0] + ")", () -> s.put(g, k, e));
        } else if (op == 1) {
            judged(c, s + ".get(g, " + k[0] + ")", () -> s.get(g, k));
        } else if (op == 2) {
            judged(c, s + ".deleteRange(g, " + k[0] + ", " + e[0] + ")", () -> s.deleteRange(g, k, e));
        } else if (op == 3) {
            judged(c, s + ".flush(g)", () -> s.flush(g));
        } else {
            judged(c, s + ".cursor(g).first()", () -> {
                try (dev.ferry.Cursor cur = s.cursor(g, KeyRange.atLeast(k), null)) {
                    cur.first();
                }
            });
        }
    }

    /**
     * LMDB: a store of its own with a family ordered by the fuzzer's comparator (which answers, throws, blocks
     * or calls back into its store): random calls on it, then the close, after which no comparison may run.
     */
    private static void lmdbOrdered(Ctx c) {
        Behaviour b = new Behaviour(c.rnd.nextLong());
        java.nio.file.Path dir = c.world.root.resolve("lmdb-comparator-" + c.world.nextId());
        StoreOptions o = StoreOptions.of(c.world.engine).binding(c.world.binding).mapSize(64L << 20);
        Store[] st = new Store[1];
        if (!c.call("Store.open(" + dir.getFileName() + ")", () -> st[0] = Store.open(dir, o))) {
            return;
        }
        Store s = st[0];
        b.store.set(s);
        ColumnFamilyOptions go = ColumnFamilyOptions.of().javaComparator(comparator(b));
        ColumnFamily[] g = new ColumnFamily[1];
        c.call(s + ".createColumnFamily(g, javaComparator)", () -> g[0] = s.createColumnFamily("g", go));
        for (int i = 0, n = 20 + c.rnd.nextInt(60); g[0] != null && i < n; i++) {
            ordered(c, s, g[0]);
        }
        c.call(s + ".close()", s::close);
        b.closed.set(true);
        if (b.running.get() != 0) {
            c.wrong(s + ".close()", b.running.get() + " comparisons still ran after close returned");
        }
        String w = b.wrong.get();
        if (w != null) {
            c.wrong(s + " comparator", w);
        }
    }

    private static void callbacks(Ctx c) {
        Behaviour b = new Behaviour(c.rnd.nextLong());
        boolean perFamily = c.oneIn(2);
        StoreOptions o = StoreOptions.of(c.world.engine).binding(c.world.binding).javaMergeOperator(mergeOperator(b));
        ColumnFamilyOptions fo = ColumnFamilyOptions.of().javaMergeOperator(mergeOperator(b));
        if (perFamily) {
            fo = fo.javaCompactionFilter(filter(b));
            if (fo.javaCompactionFilter().isEmpty()) {
                c.wrong("ColumnFamilyOptions.javaCompactionFilter()", "the filter set is not there");
            }
            o.columnFamily("f", fo);
        } else {
            o.javaCompactionFilter(filter(b));
        }
        java.nio.file.Path dir = c.world.root.resolve("callbacks-" + c.world.nextId());
        Store[] st = new Store[1];
        if (!c.call("Store.open(" + dir.getFileName() + ", callbacks" + (perFamily ? " per family" : "") + ")",
                () -> st[0] = Store.open(dir, o))) {
            return;
        }
        Store s = st[0];
        b.store.set(s);
        ColumnFamily[] f = new ColumnFamily[1];
        ColumnFamilyOptions created = fo;
        if (!c.call(s + ".createColumnFamily(f)", () -> f[0] = s.createColumnFamily("f", created))) {
            b.store.set(null);
            c.call(s + ".close()", s::close);
            return;
        }
        ColumnFamily[] g = new ColumnFamily[1];
        ColumnFamilyOptions go = ColumnFamilyOptions.of().javaComparator(comparator(b));
        if (go.javaComparator().isEmpty() || go.keyOrder() != dev.ferry.KeyOrder.JAVA) {
            c.wrong("ColumnFamilyOptions.javaComparator()", "the comparator set is not there");
        }
        c.call(s + ".createColumnFamily(g, javaComparator)", () -> g[0] = s.createColumnFamily("g", go));
        for (int i = 0, n = 20 + c.rnd.nextInt(60); i < n; i++) {
            if (g[0] != null && c.oneIn(3)) {
                ordered(c, s, g[0]);
                continue;
            }
            ColumnFamily cf = c.oneIn(2) ? f[0] : s.defaultColumnFamily();
            byte[] k = {(byte) c.rnd.nextInt(8)};
            byte[] v = new byte[c.rnd.nextInt(9)];
            int op = c.rnd.nextInt(10);
            if (op < 4) {
                judged(c, s + ".merge(" + cf.name() + ", " + k[0] + ")", () -> s.merge(cf, k, v));
            } else if (op < 6) {
                judged(c, s + ".put(" + cf.name() + ", " + k[0] + ")", () -> s.put(cf, k, v));
            } else if (op < 8) {
                judged(c, s + ".get(" + cf.name() + ", " + k[0] + ")", () -> s.get(cf, k));
            } else if (op == 8) {
                judged(c, s + ".flush(" + cf.name() + ")", () -> s.flush(cf));
            } else {
                judged(c, s + ".compactRange(" + cf.name() + ")", () -> s.compactRange(cf, null, null));
            }
        }
        if (g[0] != null && c.oneIn(2)) {
            ColumnFamily ordered = g[0];
            judged(c, s + ".compactRange(g)", () -> s.compactRange(ordered, null, null));
        }
        // close while another thread compacts (its compaction may see the close: any outcome but a crash)
        Thread compactor = new Thread(() -> {
            try {
                s.compactRange(f[0], null, null);
                s.compactRange();
            } catch (RuntimeException expected) {
                // closed under it, or a callback's failure
            }
        }, "fuzz-compactor");
        compactor.start();
        c.call(s + ".close() while compacting", s::close);
        b.closed.set(true);
        if (b.running.get() != 0) {
            c.wrong(s + ".close()", b.running.get() + " callbacks still ran after close returned");
        }
        try {
            compactor.join(60_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (compactor.isAlive()) {
            c.wrong(s + ".compactRange() on another thread", "still running 60 s after the store closed");
        }
        String w = b.wrong.get();
        if (w != null) {
            c.wrong(s + " callbacks", w);
        }
    }
}
