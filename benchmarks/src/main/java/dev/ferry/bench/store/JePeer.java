package dev.ferry.bench.store;

import com.sleepycat.je.Cursor;
import com.sleepycat.je.Database;
import com.sleepycat.je.DatabaseConfig;
import com.sleepycat.je.DatabaseEntry;
import com.sleepycat.je.Environment;
import com.sleepycat.je.EnvironmentConfig;
import com.sleepycat.je.LockMode;
import com.sleepycat.je.OperationStatus;
import com.sleepycat.je.Transaction;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

/**
 * Berkeley DB Java Edition 18.3 with its defaults (cache: 60% of the heap; keys compared as unsigned
 * bytes). Without transactions ({@code je}): a non-transactional environment and database, every call
 * with a null transaction. With transactions ({@code je-tx}): a transactional environment and database;
 * a batch is one transaction, each get runs in its own transaction ({@code beginTransaction}, get,
 * {@code commit}), a scan in one.
 *
 * <p>Thread safety: JE's handles are thread-safe; one thread at a time here.
 */
final class JePeer implements KvStore {
    private final Path dir;
    private final boolean tx;
    private Environment env;
    private Database db;

    JePeer(Path dir, boolean tx) {
        this.dir = dir;
        this.tx = tx;
        EnvironmentConfig ec = new EnvironmentConfig().setAllowCreate(true).setTransactional(tx);
        env = new Environment(dir.toFile(), ec);
        DatabaseConfig dc = new DatabaseConfig().setAllowCreate(true).setTransactional(tx);
        db = env.openDatabase(null, "kv", dc);
    }

    @Override
    public String name() {
        return tx ? "je-tx" : "je";
    }

    @Override
    public boolean ordered() {
        return true;
    }

    @Override
    public void write(List<byte[]> keys, List<byte[]> values, int from, int to) {
        Transaction t = tx ? env.beginTransaction(null, null) : null;
        boolean done = false;
        try {
            for (int i = from; i < to; i++) {
                db.put(t, new DatabaseEntry(keys.get(i)), new DatabaseEntry(values.get(i)));
            }
            if (t != null) {
                t.commit();
            }
            done = true;
        } finally {
            if (t != null && !done) {
                t.abort();
            }
        }
    }

    @Override
    public byte[] get(byte[] key) {
        DatabaseEntry v = new DatabaseEntry();
        if (!tx) {
            return db.get(null, new DatabaseEntry(key), v, LockMode.DEFAULT) == OperationStatus.SUCCESS ? v.getData() : null;
        }
        Transaction t = env.beginTransaction(null, null);
        boolean done = false;
        try {
            OperationStatus s = db.get(t, new DatabaseEntry(key), v, LockMode.DEFAULT);
            t.commit();
            done = true;
            return s == OperationStatus.SUCCESS ? v.getData() : null;
        } finally {
            if (!done) {
                t.abort();
            }
        }
    }

    @Override
    public long scan(Visitor visitor) {
        Transaction t = tx ? env.beginTransaction(null, null) : null;
        long n = 0;
        try (Cursor c = db.openCursor(t, null)) {
            DatabaseEntry k = new DatabaseEntry();
            DatabaseEntry v = new DatabaseEntry();
            while (c.getNext(k, v, LockMode.DEFAULT) == OperationStatus.SUCCESS) {
                n++;
                ByteBuffer kb = ByteBuffer.wrap(k.getData(), k.getOffset(), k.getSize()).slice().asReadOnlyBuffer();
                ByteBuffer vb = ByteBuffer.wrap(v.getData(), v.getOffset(), v.getSize()).slice().asReadOnlyBuffer();
                if (!visitor.visit(kb, vb)) {
                    break;
                }
            }
        }
        if (t != null) {
            t.commit();
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
            try {
                db.close();
            } finally {
                env.close();
                env = null;
                db = null;
            }
        }
    }
}
