package dev.ferry.bench.store;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.lmdbjava.Cursor;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.lmdbjava.PutFlags;
import org.lmdbjava.Txn;

/**
 * lmdbjava with its default ByteBuffer proxy and LMDB's defaults (synced commits), a 4 GiB map, changed by
 * the {@link Settings} {@code nosync} (MDB_NOSYNC), {@code writemap} (MDB_WRITEMAP), {@code map=BYTES} and
 * {@code append} (MDB_APPEND puts, for batches in ascending key order):
 * a batch is one write transaction, a get one read transaction ({@code Dbi.get}, value copied out),
 * a scan one read transaction with a cursor. Needs {@code --add-opens java.base/java.nio=ALL-UNNAMED
 * --add-opens java.base/sun.nio.ch=ALL-UNNAMED}. JMH's lmdbjava benchmarks open their data sets with
 * {@link #openDataset} and call {@link #env()} and {@link #dbi()} in their loops.
 *
 * <p>Thread safety: one thread at a time.
 */
public final class LmdbJavaPeer implements KvStore {
    private final Path dir;
    private final ByteBuffer keyBuf = ByteBuffer.allocateDirect(511);
    private final boolean append;
    private Env<ByteBuffer> env;
    private Txn<ByteBuffer> reads;
    private Dbi<ByteBuffer> dbi;

    private LmdbJavaPeer(Path dir, Env<ByteBuffer> env, Dbi<ByteBuffer> dbi, boolean append) {
        this.dir = dir;
        this.env = env;
        this.dbi = dbi;
        this.append = append;
    }

    /**
     * Opens the comparisons' {@code lmdbjava} with its settings (the class comment's).
     *
     * @param dir the store's directory
     * @param set the settings
     * @return the open store
     */
    static LmdbJavaPeer open(Path dir, Settings set) {
        List<EnvFlags> flags = new ArrayList<>();
        if (set.flag("nosync")) {
            flags.add(EnvFlags.MDB_NOSYNC);
        }
        if (set.flag("writemap")) {
            flags.add(EnvFlags.MDB_WRITEMAP);
        }
        Env<ByteBuffer> env = Env.create().setMapSize(set.number("map", 4L << 30)).setMaxDbs(1).open(dir.toFile(), flags.toArray(new EnvFlags[0]));
        return new LmdbJavaPeer(dir, env, env.openDbi((byte[]) null, DbiFlags.MDB_CREATE), set.flag("append"));
    }

    /**
     * Opens a JMH data set (or a new environment for a JMH write benchmark) as every JMH benchmark over
     * lmdbjava does: a 4 GiB map, one database (the unnamed one, created unless the environment is
     * read-only).
     *
     * @param dir the directory (it must exist)
     * @param flags the environment's flags, e.g. {@code MDB_RDONLY_ENV, MDB_NOTLS} for readers,
     *     {@code MDB_NOSYNC, MDB_NOTLS} for writers
     * @return the open store; JMH uses {@link #env()} and {@link #dbi()}
     */
    public static LmdbJavaPeer openDataset(Path dir, EnvFlags... flags) {
        Env<ByteBuffer> env = Env.create().setMapSize(4L << 30).setMaxDbs(1).open(dir.toFile(), flags);
        boolean readOnly = Arrays.asList(flags).contains(EnvFlags.MDB_RDONLY_ENV);
        Dbi<ByteBuffer> dbi = readOnly ? env.openDbi((byte[]) null) : env.openDbi((byte[]) null, DbiFlags.MDB_CREATE);
        return new LmdbJavaPeer(dir, env, dbi, false);
    }

    /** @return the open environment, for JMH's loops over lmdbjava's own calls */
    public Env<ByteBuffer> env() {
        return env;
    }

    /** @return the open database, for JMH's loops over lmdbjava's own calls */
    public Dbi<ByteBuffer> dbi() {
        return dbi;
    }

    @Override
    public String name() {
        return "lmdbjava";
    }

    @Override
    public boolean ordered() {
        return true;
    }

    @Override
    public void write(List<byte[]> keys, List<byte[]> values, int from, int to) {
        int max = 0;
        for (int i = from; i < to; i++) {
            max = Math.max(max, values.get(i).length);
        }
        ByteBuffer v = ByteBuffer.allocateDirect(Math.max(1, max));
        try (Txn<ByteBuffer> txn = env.txnWrite()) {
            for (int i = from; i < to; i++) {
                keyBuf.clear().put(keys.get(i)).flip();
                v.clear().put(values.get(i)).flip();
                if (append) {
                    dbi.put(txn, keyBuf, v, PutFlags.MDB_APPEND);
                } else {
                    dbi.put(txn, keyBuf, v);
                }
            }
            txn.commit();
        }
    }

    @Override
    public byte[] get(byte[] key) {
        keyBuf.clear().put(key).flip();
        if (reads != null) {
            return copy(dbi.get(reads, keyBuf));
        }
        try (Txn<ByteBuffer> txn = env.txnRead()) {
            return copy(dbi.get(txn, keyBuf));
        }
    }

    private static byte[] copy(ByteBuffer v) {
        if (v == null) {
            return null;
        }
        byte[] out = new byte[v.remaining()];
        v.get(out);
        return out;
    }

    @Override
    public void readsBegin() {
        readsEnd();
        reads = env.txnRead();
    }

    @Override
    public void readsEnd() {
        if (reads != null) {
            reads.close();
            reads = null;
        }
    }

    @Override
    public long scan(Visitor visitor) {
        long n = 0;
        Txn<ByteBuffer> txn = reads != null ? reads : env.txnRead(); // one read txn per thread: use the held one
        try (Cursor<ByteBuffer> c = dbi.openCursor(txn)) {
            for (boolean ok = c.first(); ok; ok = c.next()) {
                n++;
                if (!visitor.visit(c.key().asReadOnlyBuffer(), c.val().asReadOnlyBuffer())) {
                    break;
                }
            }
        } finally {
            if (txn != reads) {
                txn.close();
            }
        }
        return n;
    }

    @Override
    public long scanReverse(Visitor visitor) {
        long n = 0;
        Txn<ByteBuffer> txn = reads != null ? reads : env.txnRead();
        try (Cursor<ByteBuffer> c = dbi.openCursor(txn)) {
            for (boolean ok = c.last(); ok; ok = c.prev()) {
                n++;
                if (!visitor.visit(c.key().asReadOnlyBuffer(), c.val().asReadOnlyBuffer())) {
                    break;
                }
            }
        } finally {
            if (txn != reads) {
                txn.close();
            }
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
            dbi.close();
            env.close();
            env = null;
        }
    }
}
