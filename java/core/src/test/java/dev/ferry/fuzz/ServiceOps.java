package dev.ferry.fuzz;

import dev.ferry.Engine;
import dev.ferry.Store;
import dev.ferry.WalBatch;
import dev.ferry.WalIterator;
import dev.ferry.fuzz.World.StoreRef;
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
