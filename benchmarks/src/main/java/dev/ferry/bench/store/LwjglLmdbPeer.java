package dev.ferry.bench.store;

import static org.lwjgl.util.lmdb.LMDB.MDB_APPEND;
import static org.lwjgl.util.lmdb.LMDB.MDB_CREATE;
import static org.lwjgl.util.lmdb.LMDB.MDB_FIRST;
import static org.lwjgl.util.lmdb.LMDB.MDB_LAST;
import static org.lwjgl.util.lmdb.LMDB.MDB_NEXT;
import static org.lwjgl.util.lmdb.LMDB.MDB_NOSYNC;
import static org.lwjgl.util.lmdb.LMDB.MDB_NOTFOUND;
import static org.lwjgl.util.lmdb.LMDB.MDB_PREV;
import static org.lwjgl.util.lmdb.LMDB.MDB_RDONLY;
import static org.lwjgl.util.lmdb.LMDB.MDB_SUCCESS;
import static org.lwjgl.util.lmdb.LMDB.MDB_WRITEMAP;
import static org.lwjgl.util.lmdb.LMDB.mdb_cursor_close;
import static org.lwjgl.util.lmdb.LMDB.mdb_cursor_get;
import static org.lwjgl.util.lmdb.LMDB.mdb_cursor_open;
import static org.lwjgl.util.lmdb.LMDB.mdb_dbi_open;
import static org.lwjgl.util.lmdb.LMDB.mdb_env_close;
import static org.lwjgl.util.lmdb.LMDB.mdb_env_create;
import static org.lwjgl.util.lmdb.LMDB.mdb_env_open;
import static org.lwjgl.util.lmdb.LMDB.mdb_env_set_mapsize;
import static org.lwjgl.util.lmdb.LMDB.mdb_env_set_maxdbs;
import static org.lwjgl.util.lmdb.LMDB.mdb_get;
import static org.lwjgl.util.lmdb.LMDB.mdb_put;
import static org.lwjgl.util.lmdb.LMDB.mdb_strerror;
import static org.lwjgl.util.lmdb.LMDB.mdb_txn_abort;
import static org.lwjgl.util.lmdb.LMDB.mdb_txn_begin;
import static org.lwjgl.util.lmdb.LMDB.mdb_txn_commit;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.lwjgl.PointerBuffer;
import org.lwjgl.system.MemoryUtil;
import org.lwjgl.util.lmdb.MDBVal;

/**
 * LWJGL's LMDB binding (org.lwjgl:lwjgl-lmdb, its bundled liblmdb): LMDB's C API called directly with
 * {@link MDBVal}s over direct buffers, as the LmdbJava suite did. LMDB's defaults (synced commits), a 4 GiB
 * map, changed by the {@link Settings} {@code nosync}, {@code writemap}, {@code map=BYTES}, {@code append}
 * (MDB_APPEND). A batch is one write transaction; a get {@code mdb_get} in a read transaction (the one
 * {@link #readsBegin()} holds, if any); scans hand out LMDB's own memory as ByteBuffers (zero-copy).
 *
 * <p>Thread safety: one thread at a time.
 */
final class LwjglLmdbPeer implements KvStore {
    private final Path dir;
    private final boolean append;
    private final MDBVal k = MDBVal.calloc();
    private final MDBVal v = MDBVal.calloc();
    private final PointerBuffer pp = MemoryUtil.memAllocPointer(1);
    private final ByteBuffer keyBuf = MemoryUtil.memAlloc(511);
    private ByteBuffer valBuf = MemoryUtil.memAlloc(256);
    private long env;
    private int dbi;
    private long reads;

    LwjglLmdbPeer(Path dir, Settings set) {
        this.dir = dir;
        append = set.flag("append");
        check(mdb_env_create(pp), "mdb_env_create");
        env = pp.get(0);
        check(mdb_env_set_mapsize(env, set.number("map", 4L << 30)), "mdb_env_set_mapsize");
        check(mdb_env_set_maxdbs(env, 1), "mdb_env_set_maxdbs");
        int flags = (set.flag("nosync") ? MDB_NOSYNC : 0) | (set.flag("writemap") ? MDB_WRITEMAP : 0);
        check(mdb_env_open(env, dir.toString(), flags, 0644), "mdb_env_open");
        long txn = begin(0);
        int[] d = new int[1];
        check(mdb_dbi_open(txn, "db", MDB_CREATE, d), "mdb_dbi_open");
        check(mdb_txn_commit(txn), "mdb_txn_commit");
        dbi = d[0];
    }

    private static void check(int rc, String what) {
        if (rc != MDB_SUCCESS) {
            throw new IllegalStateException(what + ": " + mdb_strerror(rc));
        }
    }

    private long begin(int flags) {
        check(mdb_txn_begin(env, 0L, flags, pp), "mdb_txn_begin");
        return pp.get(0);
    }

    @Override
    public String name() {
        return "lwjgl-lmdb";
    }

    @Override
    public boolean ordered() {
        return true;
    }

    @Override
    public void write(List<byte[]> keys, List<byte[]> values, int from, int to) {
        long txn = begin(0);
        try {
            for (int i = from; i < to; i++) {
                byte[] val = values.get(i);
                if (val.length > valBuf.capacity()) {
                    MemoryUtil.memFree(valBuf);
                    valBuf = MemoryUtil.memAlloc(Math.max(val.length, valBuf.capacity() * 2));
                }
                keyBuf.clear().put(keys.get(i)).flip();
                valBuf.clear().put(val).flip();
                k.mv_data(keyBuf);
                v.mv_data(valBuf);
                check(mdb_put(txn, dbi, k, v, append ? MDB_APPEND : 0), "mdb_put");
            }
            check(mdb_txn_commit(txn), "mdb_txn_commit");
            txn = 0;
        } finally {
            if (txn != 0) {
                mdb_txn_abort(txn);
            }
        }
    }

    @Override
    public byte[] get(byte[] key) {
        long txn = reads != 0 ? reads : begin(MDB_RDONLY);
        try {
            keyBuf.clear().put(key).flip();
            k.mv_data(keyBuf);
            int rc = mdb_get(txn, dbi, k, v);
            if (rc == MDB_NOTFOUND) {
                return null;
            }
            check(rc, "mdb_get");
            ByteBuffer d = v.mv_data();
            byte[] out = new byte[d.remaining()];
            d.get(out);
            return out;
        } finally {
            if (txn != reads) {
                mdb_txn_abort(txn);
            }
        }
    }

    @Override
    public void readsBegin() {
        readsEnd();
        reads = begin(MDB_RDONLY);
    }

    @Override
    public void readsEnd() {
        if (reads != 0) {
            mdb_txn_abort(reads);
            reads = 0;
        }
    }

    @Override
    public long scan(Visitor visitor) {
        return walk(visitor, MDB_FIRST, MDB_NEXT);
    }

    @Override
    public long scanReverse(Visitor visitor) {
        return walk(visitor, MDB_LAST, MDB_PREV);
    }

    private long walk(Visitor visitor, int start, int step) {
        long n = 0;
        long txn = reads != 0 ? reads : begin(MDB_RDONLY); // one read txn per thread: use the held one
        try {
            check(mdb_cursor_open(txn, dbi, pp), "mdb_cursor_open");
            long c = pp.get(0);
            try {
                MDBVal ck = MDBVal.calloc();
                MDBVal cv = MDBVal.calloc();
                try {
                    for (int rc = mdb_cursor_get(c, ck, cv, start); rc != MDB_NOTFOUND; rc = mdb_cursor_get(c, ck, cv, step)) {
                        check(rc, "mdb_cursor_get");
                        n++;
                        if (!visitor.visit(ck.mv_data().asReadOnlyBuffer(), cv.mv_data().asReadOnlyBuffer())) {
                            break;
                        }
                    }
                } finally {
                    ck.free();
                    cv.free();
                }
            } finally {
                mdb_cursor_close(c);
            }
        } finally {
            if (txn != reads) {
                mdb_txn_abort(txn);
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
        if (env != 0) {
            readsEnd();
            mdb_env_close(env);
            env = 0;
            k.free();
            v.free();
            MemoryUtil.memFree(pp);
            MemoryUtil.memFree(keyBuf);
            MemoryUtil.memFree(valBuf);
        }
    }
}
