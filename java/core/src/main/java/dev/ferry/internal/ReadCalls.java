package dev.ferry.internal;

import static dev.ferry.internal.NativeCalls.align8;
import static dev.ferry.internal.NativeCalls.check;

import dev.ferry.ErrorCode;
import dev.ferry.FerryException;
import dev.ferry.spi.NativeBinding;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The call layer's point reads, {@link NativeCalls#reads()}: {@code ferry_get}, {@code ferry_multi_get},
 * {@code ferry_value_count}, a transaction's {@code ferry_txn_get_for_update} and the RocksJava
 * interop's {@code ferry_rj_get} and {@code ferry_rj_multi_get}. Each crossing is made here: keys
 * copied into per-thread scratch memory ({@link Scratch}), the call, LMDB reader-table retries
 * ({@link Readers}), a larger value area and the call again when a value did not fit, values copied
 * out, a return code turned into the engine's {@link FerryException}. The reads of one shape share one
 * loop, which takes the native call as a constant lambda ({@code GET}, {@code MULTI_GET}, ...). The
 * conventions are {@link NativeCalls}'s (handles are {@code long}s; no handle state is checked here).
 *
 * <p>Thread safety: thread-safe (scratch memory is per thread).
 */
public final class ReadCalls {
    /** Returned by the reads into a buffer when the key is absent; the API's {@code Store.NOT_FOUND} is this one. */
    public static final int NOT_FOUND = -1;
    /** Scratch bytes offered to a value on the first read into a caller's buffer. */
    private static final int FIRST_VALUE_ROOM = 64 * 1024;

    // The point reads' native calls: lambdas that capture nothing, so each is one constant; the
    // handles travel as arguments, and no read allocates a lambda.
    static final Get GET = (b, store, snapshot, cf, flags, k, kl, d, c, vo, e) ->
            b.get(store, snapshot, (int) cf, k, kl, flags, d, c, vo, e);
    static final MultiGet MULTI_GET = (b, store, snapshot, cf, flags, n, k, kl, d, c, lo, e) ->
            b.multiGet(store, snapshot, (int) cf, n, k, kl, flags, d, c, lo, e);
    static final Get TXN_GET_FOR_UPDATE = (b, txn, cf, unused, flags, k, kl, d, c, vo, e) ->
            b.txnGetForUpdate(txn, (int) cf, k, kl, d, c, vo, e);
    static final Get RJ_GET = (b, db, cf, snapshot, flags, k, kl, d, c, vo, e) ->
            b.rjGet(db, cf, snapshot, k, kl, d, c, vo, e);
    static final MultiGet RJ_MULTI_GET = (b, db, cf, snapshot, flags, n, k, kl, d, c, lo, e) ->
            b.rjMultiGet(db, cf, snapshot, n, k, kl, d, c, lo, e);

    private final NativeBinding b;

    ReadCalls(NativeBinding binding) {
        this.b = binding;
    }

    /**
     * {@code ferry_get} with read flags ({@code FERRY_CURSOR_NO_FILL_CACHE}, {@code FERRY_CURSOR_NO_VERIFY_CHECKSUMS}).
     *
     * @param store the store
     * @param snapshot the read view's handle: 0, a snapshot's or a transaction's ({@code FERRY_TXN_VIEW})
     * @param cf the family
     * @param key the key array
     * @param off first key byte
     * @param len key length
     * @param flags 0 or read flags ({@code FERRY_CURSOR_NO_FILL_CACHE}, {@code FERRY_CURSOR_NO_VERIFY_CHECKSUMS})
     * @param readers retries when LMDB's reader table is full
     * @return a copy of the value, or null when absent
     */
    public byte[] get(long store, long snapshot, int cf, byte[] key, int off, int len, int flags, Readers readers) {
        return get(b, readers, GET, store, snapshot, cf, flags, key, off, len);
    }

    /**
     * {@code ferry_get} into a caller's buffer, through scratch memory (the buffer never reaches native
     * code by address: see the loop {@code getInto} below).
     *
     * @param store the store
     * @param snapshot the read view's handle: 0, a snapshot's or a transaction's ({@code FERRY_TXN_VIEW})
     * @param cf the family
     * @param key the key (position to limit)
     * @param into receives the value
     * @param readers retries when LMDB's reader table is full
     * @return the value's full length, or {@link #NOT_FOUND}
     */
    public int getInto(long store, long snapshot, int cf, ByteBuffer key, ByteBuffer into, Readers readers) {
        return getInto(b, readers, GET, store, snapshot, cf, 0, key, into);
    }

    /**
     * {@code ferry_multi_get}.
     *
     * @param store the store
     * @param snapshot the read view's handle: 0, a snapshot's or a transaction's ({@code FERRY_TXN_VIEW})
     * @param cf the family
     * @param keys the keys
     * @param flags 0 or read flags ({@code FERRY_CURSOR_NO_FILL_CACHE}, {@code FERRY_CURSOR_NO_VERIFY_CHECKSUMS})
     * @param readers retries when LMDB's reader table is full
     * @return values in key order, null for absent keys
     */
    public List<byte[]> multiGet(long store, long snapshot, int cf, List<byte[]> keys, int flags, Readers readers) {
        return multiGet(b, readers, MULTI_GET, store, snapshot, cf, flags, keys);
    }

    /**
     * {@code ferry_value_count}.
     *
     * @param store the store
     * @param snapshot the read view's handle: 0, a snapshot's or a transaction's ({@code FERRY_TXN_VIEW})
     * @param cf the family
     * @param key the key
     * @return the count
     */
    public long valueCount(long store, long snapshot, int cf, byte[] key) {
        Scratch s = Scratch.get(b);
        NativeBuffer m = s.ensure(Scratch.DATA + (long) key.length, 0);
        m.buf.put(Scratch.DATA, key, 0, key.length);
        check(s, b.valueCount(store, snapshot, cf, m.addr + Scratch.DATA, key.length, s.out(0), s.err()));
        return s.outLong(0);
    }

    /**
     * {@code ferry_txn_get_for_update}.
     *
     * @param txn the transaction
     * @param cf the family
     * @param key the key
     * @return a copy of the value, or null when absent
     */
    public byte[] txnGetForUpdate(long txn, int cf, byte[] key) {
        return get(b, Readers.NONE, TXN_GET_FOR_UPDATE, txn, cf, 0, 0, key, 0, key.length);
    }

    /**
     * {@code ferry_rj_get}.
     *
     * @param db the database
     * @param cf the family handle
     * @param snapshot the snapshot handle, or 0
     * @param key the key
     * @return a copy of the value, or null when absent
     */
    public byte[] rjGet(long db, long cf, long snapshot, byte[] key) {
        return get(b, Readers.NONE, RJ_GET, db, cf, snapshot, 0, key, 0, key.length);
    }

    /**
     * {@code ferry_rj_get} into a caller's buffer.
     *
     * @param db the database
     * @param cf the family handle
     * @param key the key
     * @param into receives the value
     * @return the value's full length, or {@link #NOT_FOUND}
     */
    public int rjGetInto(long db, long cf, ByteBuffer key, ByteBuffer into) {
        return getInto(b, Readers.NONE, RJ_GET, db, cf, 0, 0, key, into);
    }

    /**
     * {@code ferry_rj_multi_get}.
     *
     * @param db the database
     * @param cf the family handle
     * @param snapshot the snapshot handle, or 0
     * @param keys the keys
     * @return values in key order, null for absent keys
     */
    public List<byte[]> rjMultiGet(long db, long cf, long snapshot, List<byte[]> keys) {
        return multiGet(b, Readers.NONE, RJ_MULTI_GET, db, cf, snapshot, 0, keys);
    }

    // ---- the loops: one per shape of read, the native call a parameter ----

    /**
     * A {@code ferry_get}-shaped call. The reader's handles come as arguments rather than captured,
     * so that the callers' lambdas capture nothing and are constants: a lambda capturing them was
     * allocated on every read (40 bytes per {@code Store.get}).
     */
    @FunctionalInterface
    interface Get {
        /**
         * Reads one key.
         *
         * @param b the binding
         * @param h1 the first handle ({@code ferry_get}: the store; RocksJava's: the database; a transaction's)
         * @param h2 the second ({@code ferry_get}: the read view; RocksJava's: the family; a transaction's: the family)
         * @param h3 the third ({@code ferry_get}: the family; RocksJava's: the snapshot; a transaction's: unused)
         * @param flags read flags
         * @param key key address
         * @param klen key length
         * @param dst destination
         * @param cap destination capacity
         * @param vlenOut size_t slot
         * @param err error struct
         * @return rc
         */
        int call(NativeBinding b, long h1, long h2, long h3, int flags, long key, long klen, long dst, long cap,
                long vlenOut, long err);
    }

    /** A {@code ferry_multi_get}-shaped call, its handles passed as {@link Get}'s are. */
    @FunctionalInterface
    interface MultiGet {
        /**
         * Reads many keys.
         *
         * @param b the binding
         * @param h1 the first handle (as {@link Get#call})
         * @param h2 the second
         * @param h3 the third
         * @param flags read flags
         * @param n key count
         * @param keys packed keys
         * @param keysLen their length
         * @param dst destination
         * @param cap destination capacity
         * @param lensOut int64 array
         * @param err error struct
         * @return keys answered or rc
         */
        int call(NativeBinding b, long h1, long h2, long h3, int flags, int n, long keys, long keysLen, long dst,
                long cap, long lensOut, long err);
    }

    /**
     * Reads one key, growing the value area until the value fits.
     *
     * @param binding resolves scratch memory
     * @param readers retries calls that found LMDB's reader table full
     * @param fn the native read
     * @param h1 its first handle
     * @param h2 its second
     * @param h3 its third
     * @param flags its read flags
     * @param key key array
     * @param koff first key byte
     * @param klen key length
     * @return a copy of the value, or null when absent
     */
    static byte[] get(NativeBinding binding, Readers readers, Get fn, long h1, long h2, long h3, int flags,
            byte[] key, int koff, int klen) {
        Scratch s = Scratch.get(binding);
        int voff = align8(Scratch.DATA + klen);
        NativeBuffer m = s.ensure(voff + 256L, 0);
        m.buf.put(Scratch.DATA, key, koff, klen);
        for (;;) {
            int cap = m.cap - voff;
            int rc = fn.call(binding, h1, h2, h3, flags, m.addr + Scratch.DATA, klen, m.addr + voff, cap, s.out(0), s.err());
            for (int attempt = 0; readers.reclaim(rc, attempt); attempt++) {
                s.clearError();
                rc = fn.call(binding, h1, h2, h3, flags, m.addr + Scratch.DATA, klen, m.addr + voff, cap, s.out(0), s.err());
            }
            if (rc == Abi.NOTFOUND) {
                return null;
            }
            if (rc != 0) {
                throw s.error(rc);
            }
            long vlen = s.outLong(0);
            if (vlen <= cap) {
                return m.bytes(voff, (int) vlen);
            }
            m = s.ensure(voff + checkFits(vlen, voff), voff);
        }
    }

    /**
     * Checks that a value of {@code vlen} bytes fits a Java array after {@code offset} bytes of
     * scratch memory. Values of 2 GiB and more exist (LMDB and RocksDB take them from C), but no
     * byte[] holds them: say so instead of growing forever.
     *
     * @param vlen the value's length as the engine reported it
     * @param offset scratch bytes in front of the value
     * @return {@code vlen}
     */
    static long checkFits(long vlen, int offset) {
        if (vlen > Integer.MAX_VALUE - 16 - offset) {
            throw new FerryException(ErrorCode.BUFFER_TOO_SMALL, 0, "value of " + vlen
                    + " bytes is larger than a Java array holds; get(key, ByteBuffer) reads its first bytes");
        }
        return vlen;
    }

    /**
     * Reads one key into a buffer. The value is read into per-thread scratch memory and copied
     * into {@code into} through the buffer's own API: a caller's buffer never reaches native code
     * by address, so a buffer over memory that another thread frees meanwhile (a shared arena
     * closed during the call) gets the JDK's checks instead of a write into freed memory.
     *
     * @param binding resolves scratch memory
     * @param readers retries calls that found LMDB's reader table full
     * @param fn the native read
     * @param h1 its first handle
     * @param h2 its second
     * @param h3 its third
     * @param flags its read flags
     * @param key the key (position to limit; not moved)
     * @param into receives up to {@code into.remaining()} bytes of the value; its position advances
     * @return the value's full length (at most {@code Integer.MAX_VALUE}), or {@link #NOT_FOUND}
     */
    static int getInto(NativeBinding binding, Readers readers, Get fn, long h1, long h2, long h3, int flags,
            ByteBuffer key, ByteBuffer into) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(into, "into");
        if (into.isReadOnly()) {
            throw new IllegalArgumentException("target buffer is read-only");
        }
        if (into.hasRemaining()) {
            into.get(into.position()); // a buffer over freed memory (a closed arena) throws here, found or not
        }
        Scratch s = Scratch.get(binding);
        int klen = key.remaining();
        int want = into.remaining();
        int voff = align8(Scratch.DATA + klen);
        NativeBuffer m = s.ensure((long) voff + Math.min(want, FIRST_VALUE_ROOM), 0);
        m.buf.put(Scratch.DATA, key, key.position(), klen);
        for (;;) {
            int cap = (int) Math.min(want, (long) m.cap - voff);
            int rc = fn.call(binding, h1, h2, h3, flags, m.addr + Scratch.DATA, klen, m.addr + voff, cap, s.out(0), s.err());
            for (int attempt = 0; readers.reclaim(rc, attempt); attempt++) {
                s.clearError();
                rc = fn.call(binding, h1, h2, h3, flags, m.addr + Scratch.DATA, klen, m.addr + voff, cap, s.out(0), s.err());
            }
            if (rc == Abi.NOTFOUND) {
                return NOT_FOUND;
            }
            if (rc != 0) {
                throw s.error(rc);
            }
            long vlen = s.outLong(0);
            if (vlen <= cap || cap == want) {
                int copied = (int) Math.min(vlen, want);
                into.put(into.position(), m.buf, voff, copied);
                into.position(into.position() + copied);
                return (int) Math.min(vlen, Integer.MAX_VALUE);
            }
            // the value is longer than the room so far and the caller has more: read it again
            // with room for what the caller takes (the answer is then this second read's)
            m = s.ensure(voff + Math.min(vlen, want), voff);
        }
    }

    /**
     * Reads many keys in as few native calls as the value sizes allow.
     *
     * @param binding resolves scratch memory
     * @param readers retries calls that found LMDB's reader table full
     * @param fn the native multi-read
     * @param h1 its first handle
     * @param h2 its second
     * @param h3 its third
     * @param flags its read flags
     * @param keys the keys
     * @return values in key order, null for absent keys
     */
    static List<byte[]> multiGet(NativeBinding binding, Readers readers, MultiGet fn, long h1, long h2, long h3,
            int flags, List<byte[]> keys) {
        Objects.requireNonNull(keys, "keys");
        int n = keys.size();
        List<byte[]> out = new ArrayList<>(n);
        Scratch s = Scratch.get(binding);
        int done = 0;
        int valueCap = 64 * 1024;
        while (done < n) {
            // pack as many keys as fit a 1 MiB key area
            long keyBytes = 0;
            int batch = 0;
            for (int i = done; i < n && batch < 4096; i++) {
                byte[] k = Objects.requireNonNull(keys.get(i), "key");
                if (batch > 0 && keyBytes + 4 + k.length > (1 << 20)) {
                    break;
                }
                keyBytes += 4 + k.length;
                batch++;
            }
            int lensOff = align8(Scratch.DATA + (int) keyBytes);
            int dstOff = lensOff + 8 * batch;
            NativeBuffer m = s.ensure((long) dstOff + valueCap, 0);
            int p = Scratch.DATA;
            for (int i = done; i < done + batch; i++) {
                byte[] k = keys.get(i);
                m.buf.putInt(p, k.length);
                m.buf.put(p + 4, k);
                p += 4 + k.length;
            }
            int rc = fn.call(binding, h1, h2, h3, flags, batch, m.addr + Scratch.DATA, keyBytes, m.addr + dstOff,
                    m.cap - dstOff, m.addr + lensOff, s.err());
            for (int attempt = 0; readers.reclaim(rc, attempt); attempt++) {
                s.clearError();
                rc = fn.call(binding, h1, h2, h3, flags, batch, m.addr + Scratch.DATA, keyBytes, m.addr + dstOff, m.cap - dstOff, m.addr + lensOff, s.err());
            }
            if (rc == Abi.ETOOSMALL) {
                long need = checkFits(m.buf.getLong(lensOff), dstOff);
                valueCap = (int) Math.max(need, Math.min(Integer.MAX_VALUE - dstOff - 16, 2L * valueCap));
                s.ensure((long) dstOff + valueCap, 0);
                continue;
            }
            if (rc < 0) {
                throw s.error(rc);
            }
            int vo = dstOff;
            for (int i = 0; i < rc; i++) {
                long len = m.buf.getLong(lensOff + 8 * i);
                if (len < 0) {
                    out.add(null);
                } else {
                    out.add(m.bytes(vo, (int) len));
                    vo += (int) len;
                }
            }
            done += rc;
        }
        return out;
    }
}
