package dev.ferry.bench.peer;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.lmdbjava.Cursor;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.Txn;

/**
 * lmdbjava with its default ByteBuffer proxy and LMDB's defaults (synced commits), a 4 GiB map:
 * a batch is one write transaction, a get one read transaction ({@code Dbi.get}, value copied out),
 * a scan one read transaction with a cursor. Needs {@code --add-opens java.base/java.nio=ALL-UNNAMED
 * --add-opens java.base/sun.nio.ch=ALL-UNNAMED}.
 *
 * <p>Thread safety: one thread at a time.
 */
final class LmdbJavaPeer implements PeerStore {
    private final Path dir;
    private final ByteBuffer keyBuf = ByteBuffer.allocateDirect(511);
    private Env<ByteBuffer> env;
    private Dbi<ByteBuffer> dbi;

    LmdbJavaPeer(Path dir) {
        this.dir = dir;
        env = Env.create().setMapSize(4L << 30).setMaxDbs(1).open(dir.toFile());
        dbi = env.openDbi((byte[]) null, DbiFlags.MDB_CREATE);
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
                dbi.put(txn, keyBuf, v);
            }
            txn.commit();
        }
    }

    @Override
    public byte[] get(byte[] key) {
        keyBuf.clear().put(key).flip();
        try (Txn<ByteBuffer> txn = env.txnRead()) {
            ByteBuffer v = dbi.get(txn, keyBuf);
            if (v == null) {
                return null;
            }
            byte[] out = new byte[v.remaining()];
            v.get(out);
            return out;
        }
    }

    @Override
    public long scan(Visitor visitor) {
        long n = 0;
        try (Txn<ByteBuffer> txn = env.txnRead(); Cursor<ByteBuffer> c = dbi.openCursor(txn)) {
            for (boolean ok = c.first(); ok; ok = c.next()) {
                n++;
                if (!visitor.visit(c.key().asReadOnlyBuffer(), c.val().asReadOnlyBuffer())) {
                    break;
                }
            }
        }
        return n;
    }

    @Override
    public long storageBytes() {
        return PeerStore.allocatedBytes(dir);
    }

    @Override
    public void close() {
        if (env != null) {
            dbi.close();
            env.close();
            env = null;
        }
    }
}
