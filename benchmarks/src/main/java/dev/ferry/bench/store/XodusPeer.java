package dev.ferry.bench.store;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import jetbrains.exodus.ArrayByteIterable;
import jetbrains.exodus.ByteIterable;
import jetbrains.exodus.env.Cursor;
import jetbrains.exodus.env.Environment;
import jetbrains.exodus.env.EnvironmentConfig;
import jetbrains.exodus.env.Environments;
import jetbrains.exodus.env.Store;
import jetbrains.exodus.env.StoreConfig;
import jetbrains.exodus.env.Transaction;

/**
 * JetBrains Xodus (xodus-environment) as the LmdbJava suite used it: a store {@code
 * WITHOUT_DUPLICATES_WITH_PREFIXING} (a Patricia tree: faster random access, per the suite), log files of 32
 * MiB, a log cache page of 128 KiB; a batch is written in transactions of {@code max(1,000,000 / value
 * size, 1,000)} entries (the suite's size, so as not to hold too much on the heap); gets and scans in a
 * read-only transaction (the one {@link #readsBegin()} holds, if any).
 *
 * <p>Thread safety: one thread at a time.
 */
final class XodusPeer implements KvStore {
    private final Path dir;
    private Environment env;
    private Store store;
    private Transaction reads;

    XodusPeer(Path dir) {
        this.dir = dir;
        EnvironmentConfig cfg = new EnvironmentConfig();
        cfg.setLogFileSize(32 * 1024);
        cfg.setLogCachePageSize(0x2_0000);
        env = Environments.newInstance(dir.toFile(), cfg);
        store = env.computeInTransaction(txn -> env.openStore("kv", StoreConfig.WITHOUT_DUPLICATES_WITH_PREFIXING, txn));
    }

    @Override
    public String name() {
        return "xodus";
    }

    @Override
    public boolean ordered() {
        return true;
    }

    @Override
    public void write(List<byte[]> keys, List<byte[]> values, int from, int to) {
        int batch = Math.max(1_000_000 / Math.max(1, values.get(from).length), 1_000);
        for (int start = from; start < to; start += batch) {
            int s = start;
            int e = Math.min(to, start + batch);
            env.executeInTransaction(txn -> {
                for (int i = s; i < e; i++) {
                    store.put(txn, new ArrayByteIterable(keys.get(i)), new ArrayByteIterable(values.get(i)));
                }
            });
        }
    }

    @Override
    public byte[] get(byte[] key) {
        Transaction txn = reads != null ? reads : env.beginReadonlyTransaction();
        try {
            ByteIterable v = store.get(txn, new ArrayByteIterable(key));
            return v == null ? null : copy(v);
        } finally {
            if (txn != reads) {
                txn.abort();
            }
        }
    }

    private static byte[] copy(ByteIterable b) {
        byte[] out = new byte[b.getLength()];
        System.arraycopy(b.getBytesUnsafe(), 0, out, 0, out.length);
        return out;
    }

    @Override
    public void readsBegin() {
        readsEnd();
        reads = env.beginReadonlyTransaction();
    }

    @Override
    public void readsEnd() {
        if (reads != null) {
            reads.abort();
            reads = null;
        }
    }

    @Override
    public long scan(Visitor visitor) {
        return walk(visitor, false);
    }

    @Override
    public long scanReverse(Visitor visitor) {
        return walk(visitor, true);
    }

    private long walk(Visitor visitor, boolean reverse) {
        long n = 0;
        Transaction txn = env.beginReadonlyTransaction();
        try (Cursor c = store.openCursor(txn)) {
            for (boolean ok = reverse ? c.getLast() : c.getNext(); ok; ok = reverse ? c.getPrev() : c.getNext()) {
                ByteIterable k = c.getKey();
                ByteIterable v = c.getValue();
                n++;
                if (!visitor.visit(ByteBuffer.wrap(k.getBytesUnsafe(), 0, k.getLength()).slice().asReadOnlyBuffer(),
                        ByteBuffer.wrap(v.getBytesUnsafe(), 0, v.getLength()).slice().asReadOnlyBuffer())) {
                    break;
                }
            }
        } finally {
            txn.abort();
        }
        return n;
    }

    @Override
    public long storageBytes() {
        return KvStore.allocatedBytes(dir);
    }

    @Override
    public void close() {
        if (env != null) {
            readsEnd();
            env.close();
            env = null;
        }
    }
}
