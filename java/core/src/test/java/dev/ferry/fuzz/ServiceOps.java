package dev.ferry.fuzz;

import dev.ferry.BlobOptions;
import dev.ferry.ColumnFamily;
import dev.ferry.ColumnFamilyOptions;
import dev.ferry.Compression;
import dev.ferry.Cursor;
import dev.ferry.Engine;
import dev.ferry.KeyRange;
import dev.ferry.PerfContext;
import dev.ferry.RateLimiter;
import dev.ferry.SstFileManager;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import dev.ferry.WalBatch;
import dev.ferry.WalIterator;
import dev.ferry.fuzz.World.StoreRef;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * RocksDB services (issue 44): the write-ahead log read back ({@link Store#updatesSince(long)}), on the
 * run's shared stores, which other fuzz threads write, flush and close meanwhile: a sequence number gone
 * from the WAL, a store closed under the iterator, the iterator used after close and from another thread.
 * LMDB answers NotSupported.
 *
 * <p>Thread safety: each op's iterator stays on its thread, but for the foreign-thread call it makes on
 * purpose.
 */
final class ServiceOps {
    private ServiceOps() {
    }

    static void register(MisuseFuzz f, OpTable t) {
        t.add("walRead", 2, ServiceOps::walRead, false);
        t.add("sharedServicesLife", 1, ServiceOps::sharedServicesLife, false);
        t.add("blobFamily", 1, ServiceOps::blobFamily, false);
        t.add("perfContext", 2, ServiceOps::perfContext, false);
    }

    /**
     * PerfContext on the fuzz thread, around reads of a shared store: a random level, a reset, counters
     * that are never negative, zero right after a reset, an unknown name NotSupported. Left disabled.
     */
    private static void perfContext(Ctx c) {
        PerfContext.Level level = PerfContext.Level.values()[c.rnd.nextInt(PerfContext.Level.values().length)];
        if (!c.call("PerfContext.setLevel(" + level + ")", () -> PerfContext.setLevel(level))) {
            return;
        }
        try {
            c.call("PerfContext.reset() and counters()", () -> {
                PerfContext.reset();
                if (PerfContext.counter("user_key_comparison_count") != 0) {
                    c.wrong("PerfContext.counter", "user_key_comparison_count not 0 right after reset()");
                }
            });
            StoreRef s = StoreOps.anyStore(c);
            if (s != null) {
                byte[] k = c.key("key");
                StoreOps.closedStore(c, s);
                c.call(s + ".get under PerfContext", () -> s.store.get(k));
            }
            c.call("PerfContext.counters()", () -> PerfContext.counters().forEach((k, v) -> {
                if (v < 0) {
                    c.wrong("PerfContext.counters()", k + " = " + v);
                }
            }));
            c.mustThrow("an unknown PerfContext counter");
            c.call("PerfContext.counter(no_such_counter)", () -> PerfContext.counter("no_such_counter"));
        } finally {
            c.call("PerfContext.setLevel(DISABLE)", () -> PerfContext.setLevel(PerfContext.Level.DISABLE));
        }
    }

    /**
     * A family with blob files on a store of its own: random settings (some out of range), values on
     * both sides of the minimum size, a flush, then gets and a cursor must give back what was written.
     * LMDB refuses the family.
     */
    private static void blobFamily(Ctx c) {
        BlobOptions[] bo = {BlobOptions.of()};
        long min = c.oneIn(8) ? -1 : c.rnd.nextInt(300);
        if (min < 0) {
            c.badIndex("a negative minimum blob size");
        }
        if (!c.call("BlobOptions.minBlobSize(" + min + ")", () -> bo[0] = bo[0].minBlobSize(min))) {
            return;
        }
        double cutoff = c.oneIn(8) ? 2.0 : c.rnd.nextDouble();
        if (cutoff > 1) {
            c.badIndex("a cutoff above 1");
        }
        c.call("BlobOptions.garbageCollectionAgeCutoff(" + cutoff + ")", () -> bo[0] = bo[0].garbageCollectionAgeCutoff(cutoff));
        c.call("BlobOptions settings", () -> bo[0] = bo[0].blobFileSize(1 << 20).compression(Compression.values()[c.rnd.nextInt(4)])
                .garbageCollection(c.rnd.nextBoolean()));
        c.nullArg("compression");
        c.call("BlobOptions.compression(null)", () -> bo[0].compression(null));
        BlobOptions b = bo[0];
        ColumnFamilyOptions o = ColumnFamilyOptions.of().blobFiles(b);
        if (o.blobFiles().orElseThrow().minBlobSize() != b.minBlobSize() || o.blobFiles().orElseThrow().blobFileSize() != (1 << 20)
                || o.blobFiles().orElseThrow().compression() != b.compression()
                || o.blobFiles().orElseThrow().garbageCollection() != b.garbageCollection()
                || o.blobFiles().orElseThrow().garbageCollectionAgeCutoff() != b.garbageCollectionAgeCutoff()) {
            c.wrong("ColumnFamilyOptions.blobFiles()", o + " gives other settings than " + b);
        }
        Path dir = c.world.root.resolve("blob-" + c.world.nextId());
        StoreOptions so = StoreOptions.of(c.world.engine).binding(c.world.binding);
        boolean lmdb = c.world.engine == Engine.LMDB;
        if (lmdb) {
            so.mapSize(64L << 20);
        }
        Store[] st = new Store[1];
        if (!c.call("Store.open(" + dir.getFileName() + ")", () -> st[0] = Store.open(dir, so))) {
            return;
        }
        try {
            if (lmdb) {
                c.mustThrow("a blob family on LMDB");
            }
            ColumnFamily[] cf = new ColumnFamily[1];
            if (!c.call("createColumnFamily(blobs, " + o + ")", () -> cf[0] = st[0].createColumnFamily("blobs", o))) {
                return;
            }
            TreeMap<String, byte[]> want = new TreeMap<>();
            int n = 1 + c.rnd.nextInt(60);
            for (int i = 0; i < n; i++) {
                byte[] k = String.format("k%04d", c.rnd.nextInt(200)).getBytes();
                byte[] v = new byte[c.rnd.nextInt(600)];
                c.rnd.nextBytes(v);
                if (c.call("blob put", () -> st[0].put(cf[0], k, v))) {
                    want.put(new String(k), v);
                }
            }
            c.call("flush(blobs)", () -> st[0].flush(cf[0]));
            c.call("blob reads", () -> {
                TreeMap<String, byte[]> got = new TreeMap<>();
                try (Cursor cur = st[0].cursor(cf[0], KeyRange.all(), null)) {
                    for (boolean ok = cur.first(); ok; ok = cur.next()) {
                        got.put(new String(cur.keyBytes()), cur.valueBytes());
                    }
                }
                for (String k : want.keySet()) {
                    if (!Arrays.equals(want.get(k), got.get(k)) || !Arrays.equals(want.get(k), st[0].get(cf[0], k.getBytes()))) {
                        c.wrong("blob family reads", "key " + k + " reads back another value");
                    }
                }
                if (!got.keySet().equals(want.keySet())) {
                    c.wrong("blob family scan", "keys " + got.keySet() + ", wrote " + want.keySet());
                }
            });
        } finally {
            c.call(dir.getFileName() + ".close()", () -> st[0].close());
        }
    }

    /**
     * A rate limiter and an SST file manager: their getters answer what was asked, a store holding them
     * counts, closing one in use is refused and leaves it usable, a closed one is refused by an open and
     * throws on every call; LMDB options refuse both.
     */
    private static void sharedServicesLife(Ctx c) {
        long rate = 1L + c.rnd.nextInt(64 << 20);
        int fairness = c.oneIn(8) ? 101 : 1 + c.rnd.nextInt(100);
        if (fairness > 100) {
            c.badIndex("a fairness above 100");
        }
        RateLimiter[] l = new RateLimiter[1];
        if (!c.call("RateLimiter.create(" + rate + ", 100000, " + fairness + ")",
                () -> l[0] = RateLimiter.create(rate, 100_000, fairness, c.world.binding))) {
            return;
        }
        RateLimiter limiter = l[0];
        SstFileManager[] m = new SstFileManager[1];
        boolean haveSfm = c.call("SstFileManager.create(0, 0)", () -> m[0] = SstFileManager.create(0, 0, c.world.binding));
        SstFileManager sfm = m[0];
        c.call("RateLimiter getters", () -> {
            if (limiter.bytesPerSecond() != rate || limiter.fairness() != fairness || limiter.refillPeriodMicros() != 100_000
                    || limiter.openStores() != 0 || limiter.isClosed()) {
                c.wrong("RateLimiter getters", limiter + " (asked " + rate + ", " + fairness + ")");
            }
        });
        if (haveSfm) {
            c.call("SstFileManager getters", () -> {
                if (sfm.maxAllowedSpace() != 0 || sfm.deleteRateBytesPerSecond() != 0 || sfm.openStores() != 0
                        || sfm.totalSize() != 0 || sfm.isMaxAllowedSpaceReached() || sfm.isClosed()) {
                    c.wrong("SstFileManager getters", sfm + ": size " + sfm.totalSize());
                }
            });
        }
        Path dir = c.world.root.resolve("services-" + c.world.nextId());
        boolean lmdb = c.world.engine == Engine.LMDB;
        StoreOptions so = StoreOptions.of(c.world.engine).binding(c.world.binding);
        if (lmdb) {
            so.mapSize(64L << 20);
            c.mustThrow("a rate limiter in LMDB options");
            c.call("StoreOptions.lmdb().rateLimiter(..)", () -> so.rateLimiter(limiter));
            c.mustThrow("an SST file manager in LMDB options");
            c.call("StoreOptions.lmdb().sstFileManager(..)", () -> so.sstFileManager(sfm));
        } else {
            c.call("StoreOptions.rateLimiter(..).sstFileManager(..)", () -> so.rateLimiter(limiter).sstFileManager(sfm));
        }
        Store[] st = new Store[1];
        if (c.call("Store.open(" + dir.getFileName() + ") with the limiter", () -> st[0] = Store.open(dir, so)) && !lmdb) {
            c.mustThrow("closing a rate limiter a store holds");
            c.call("RateLimiter.close while held", limiter::close);
            if (haveSfm) {
                c.mustThrow("closing an SST file manager a store holds");
                c.call("SstFileManager.close while held", sfm::close);
            }
            c.call("limiter.openStores() while held", () -> {
                if (limiter.openStores() != 1) {
                    c.wrong("RateLimiter.openStores()", limiter.openStores() + " with one store open");
                }
            });
            c.call("put and flush under the limiter", () -> {
                st[0].put(new byte[] {1}, new byte[100]);
                st[0].flush();
            });
        }
        if (st[0] != null) {
            c.call(dir.getFileName() + ".close()", () -> st[0].close());
        }
        c.call("RateLimiter.close", limiter::close);
        c.closed("rate limiter");
        c.call("limiter.openStores() after close", limiter::openStores);
        if (!lmdb) {
            c.mustThrow("a store open with a closed rate limiter");
            c.call("Store.open with a closed limiter", () -> Store.open(dir, StoreOptions.of(c.world.engine).binding(c.world.binding)
                    .rateLimiter(limiter)).close());
        }
        if (haveSfm) {
            c.call("SstFileManager.close", sfm::close);
            c.closed("SST file manager");
            c.call("sfm.totalSize() after close", sfm::totalSize);
        }
        c.call("RateLimiter.create(bytesPerSecond) with defaults", () -> RateLimiter.create(rate).close());
    }

    private static void walRead(Ctx c) {
        StoreRef s = StoreOps.anyStore(c);
        if (s == null) {
            return;
        }
        Store st = s.store;
        boolean lmdb = c.world.engine == Engine.LMDB;
        StoreOps.closedStore(c, s);
        if (lmdb) {
            c.mustThrow("latestSequenceNumber on LMDB");
        }
        long[] latest = {0};
        if (!c.call(s + ".latestSequenceNumber()", () -> latest[0] = st.latestSequenceNumber())) {
            return;
        }
        if (latest[0] < 0) {
            c.wrong(s + ".latestSequenceNumber()", "negative: " + latest[0]);
        }
        if (c.oneIn(8)) {
            c.badIndex("a negative sequence number");
            c.call(s + ".updatesSince(-1)", () -> st.updatesSince(-1));
        }
        long since = c.oneIn(4) ? latest[0] + c.rnd.nextInt(3) : (long) (c.rnd.nextDouble() * (latest[0] + 1));
        WalIterator[] it = new WalIterator[1];
        StoreOps.closedStore(c, s);
        // a sequence number gone from the WAL (flushed) is NotFound; a store opened without a WAL or as a TTL
        // store is NotSupported: allowed outcomes
        if (!c.call(s + ".updatesSince(" + since + ")", () -> it[0] = st.updatesSince(since))) {
            return;
        }
        WalIterator w = it[0];
        try {
            long[] next = {-1};
            int n = c.rnd.nextInt(20);
            for (int i = 0; i < n; i++) {
                if (st.isClosed()) {
                    c.closed("WAL iterator of closed store " + s);
                }
                boolean[] more = {false};
                if (!c.call("wal.hasNext()", () -> more[0] = w.hasNext()) || !more[0]) {
                    break;
                }
                WalBatch[] b = new WalBatch[1];
                if (!c.call("wal.next()", () -> b[0] = w.next())) {
                    break;
                }
                check(c, b[0], next[0], since);
                next[0] = b[0].sequence() + b[0].entries().size();
            }
            if (c.oneIn(4)) {
                c.foreign("a WAL iterator used from another thread");
                c.call("wal.hasNext() on another thread", () -> {
                    try {
                        CompletableFuture.supplyAsync(w::hasNext).get();
                    } catch (ExecutionException e) {
                        throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    }
                });
            }
        } finally {
            c.call("wal.close()", w::close);
            c.call("wal.close() again", w::close);
        }
        if (!w.isClosed()) {
            c.wrong("wal.isClosed()", "false after close");
        }
        c.closed("WAL iterator");
        c.call("wal.next() after close", w::next);
    }

    /** A batch follows its predecessor with no gap, and its entries number themselves from its sequence. */
    private static void check(Ctx c, WalBatch b, long expected, long since) {
        if (expected >= 0 && b.sequence() != expected) {
            c.wrong("wal.next()", "batch at " + b.sequence() + " after one that ended before " + expected);
        }
        if (expected < 0 && b.sequence() > Math.max(since, 1)) {
            c.wrong("wal.next()", "first batch at " + b.sequence() + ", asked from " + since);
        }
        long seq = b.sequence();
        for (WalBatch.Entry e : b.entries()) {
            if (e.sequence() != seq++ || e.key() == null || e.engineFamilyId() < 0 || e.kind() == null) {
                c.wrong("wal.next()", "entry " + e + " of batch " + b.sequence());
            }
            if ((e.kind() == WalBatch.Kind.DELETE || e.kind() == WalBatch.Kind.SINGLE_DELETE) != (e.value() == null)) {
                c.wrong("wal.next()", "entry " + e + ": a value where none belongs, or none where one does");
            }
            e.columnFamily();
        }
        b.data();
    }
}
