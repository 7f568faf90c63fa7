package dev.ferry.bench.store;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.fusesource.lmdbjni.BufferCursor;
import org.fusesource.lmdbjni.Constants;
import org.fusesource.lmdbjni.Database;
import org.fusesource.lmdbjni.Env;
import org.fusesource.lmdbjni.Transaction;

/**
 * LMDBJNI (org.deephacks.lmdbjni, its bundled liblmdb) the way the LmdbJava suite used it: a {@link
 * BufferCursor} over direct memory for writes and scans; LMDB's defaults (synced commits), a 4 GiB map,
 * changed by the {@link Settings} {@code nosync}, {@code writemap}, {@code map=BYTES}, {@code append}
 * (MDB_APPEND). A batch is one write transaction; a get {@code Database.get} in a read transaction (the one
 * {@link #readsBegin()} holds, if any); the scans copy each key and value into scratch arrays (LMDBJNI hands
 * out its own buffer type, not ByteBuffers).
 *
 * <p>Thread safety: one thread at a time.
 */
final class LmdbJniPeer implements KvStore {
    private final Path dir;
    private final boolean append;
    private Env env;
    private Database db;
    private Transaction reads;
    private byte[] keyScratch = new byte[511];
    private byte[] valScratch = new byte[256];

    LmdbJniPeer(Path dir, Settings set) {
        this.dir = dir;
        append = set.flag("append");
        int flags = (set.flag("nosync") ? Constants.NOSYNC : 0) | (set.flag("writemap") ? Constants.WRITEMAP : 0);
        env = new Env();
        env.setMapSize(set.number("map", 4L << 30));
        env.setMaxDbs(1);
        env.open(dir.toString(), flags, 0644);
        db = env.openDatabase("db", Constants.CREATE);
    }

    @Override
    public String name() {
        return "lmdbjni";
    }

    @Override
    public boolean ordered() {
        return true;
    }

    @Override
    public void write(List<byte[]> keys, List<byte[]> values, int from, int to) {
        try (Transaction tx = env.createWriteTransaction()) {
            try (BufferCursor c = db.bufferCursor(tx)) {
                for (int i = from; i < to; i++) {
                    c.keyWriteBytes(keys.get(i)).valWriteBytes(values.get(i));
                    if (append) {
                        c.append();
                    } else {
                        c.overwrite();
                    }
                }
            }
            tx.commit();
        }
    }

    @Override
    public byte[] get(byte[] key) {
        if (reads != null) {
            return db.get(reads, key);
        }
        try (Transaction tx = env.createReadTransaction()) {
            return db.get(tx, key);
        }
    }

    @Override
    public void readsBegin() {
        readsEnd();
        reads = env.createReadTransaction();
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
        Transaction tx = reads != null ? reads : env.createReadTransaction(); // one read txn per thread: use the held one
        try (BufferCursor c = db.bufferCursor(tx)) {
            for (boolean ok = reverse ? c.last() : c.first(); ok; ok = reverse ? c.prev() : c.next()) {
                n++;
                int kl = c.keyLength();
                int vl = c.valLength();
                if (vl > valScratch.length) {
                    valScratch = new byte[Math.max(vl, valScratch.length * 2)];
                }
                c.keyDirectBuffer().getBytes(0, keyScratch, 0, kl);
                c.valDirectBuffer().getBytes(0, valScratch, 0, vl);
                if (!visitor.visit(ByteBuffer.wrap(keyScratch, 0, kl).slice().asReadOnlyBuffer(),
                        ByteBuffer.wrap(valScratch, 0, vl).slice().asReadOnlyBuffer())) {
                    break;
                }
            }
        } finally {
            if (tx != reads) {
                tx.abort();
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
            db.close();
            env.close();
            env = null;
        }
    }
}
