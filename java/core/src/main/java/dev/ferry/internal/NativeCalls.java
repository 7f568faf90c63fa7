package dev.ferry.internal;

import dev.ferry.ErrorCode;
import dev.ferry.FerryException;
import dev.ferry.spi.NativeBinding;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * The call layer: one typed method per native operation of the ferry C ABI. It lays arguments
 * out in per-thread scratch memory ({@link Scratch}), calls the binding and turns a return code
 * into an exception (made in one place, {@link #failure}). The public classes of {@code dev.ferry}
 * and {@code dev.ferry.rocksjava} call the layer instead of the binding, and no other code crosses.
 * The layer is three classes over one binding, split by what the calls are for:
 * <ul>
 * <li>this one: engines, stores, families, writes, snapshots, transactions, split points and
 *     cursors, the page fill included ({@link #cursorFill}: the page and its error struct are a
 *     {@link CursorPage}, a page too small for an entry grows here, so {@code Cursor} only walks
 *     the entries of a page);
 * <li>{@link ReadCalls}, through {@link #reads()}: the point reads ({@code get}, {@code multiGet},
 *     {@code valueCount}, a transaction's {@code getForUpdate}, the RocksJava interop's), with their
 *     grow-and-retry and LMDB reader-table loops;
 * <li>{@link AdminCalls}, through {@link #admin()}: maintenance and administration (flush,
 *     compaction, checkpoints, ingestion, properties, backups, SST file writers, block caches, write
 *     buffer managers);
 * <li>{@link CallbackCalls}, through {@link #callbacks()}: the registration of callbacks written in
 *     Java (merge operators, compaction filters).
 * </ul>
 *
 * <p>Conventions: handles are {@code long}s; a method that fails throws the engine's
 * {@link FerryException}; "absent" answers that are not errors come back as values (null, false,
 * -1, a zero handle), as each method says. No method checks a handle's state: the caller's guard
 * does that before calling.
 *
 * <p>Thread safety: thread-safe (scratch memory is per thread).
 */
public final class NativeCalls {
    private final NativeBinding b;
    private final ReadCalls reads;
    private AdminCalls admin;
    private CallbackCalls callbacks;

    /**
     * A call layer over one binding.
     *
     * @param binding the binding
     */
    public NativeCalls(NativeBinding binding) {
        this.b = binding;
        this.reads = new ReadCalls(binding);
    }

    /**
     * The point reads over the same binding.
     *
     * @return them
     */
    public ReadCalls reads() {
        return reads;
    }

    /**
     * The maintenance and administration calls over the same binding.
     *
     * @return them (made on first use)
     */
    public AdminCalls admin() {
        AdminCalls a = admin;
        if (a == null) {
            a = new AdminCalls(b); // stateless: a race makes two, either serves
            admin = a;
        }
        return a;
    }

    /**
     * The calls that register callbacks written in Java, over the same binding.
     *
     * @return them (made on first use)
     */
    public CallbackCalls callbacks() {
        CallbackCalls c = callbacks;
        if (c == null) {
            c = new CallbackCalls(b); // stateless: a race makes two, either serves
            callbacks = c;
        }
        return c;
    }

    /** @return the binding's name ({@code "jni"} or {@code "ffm"}) */
    public String bindingName() {
        return b.name();
    }

    /**
     * Allocates a native buffer (a cursor page).
     *
     * @param cap its capacity
     * @return the buffer
     */
    public NativeBuffer allocate(int cap) {
        return NativeBuffer.allocate(b, cap);
    }

    /**
     * A direct buffer over native memory (for copies out of a view).
     *
     * @param address the first byte
     * @param length its length
     * @return the buffer
     */
    public ByteBuffer wrap(long address, int length) {
        return b.wrap(address, length);
    }

    // ---- errors: the one place that makes an exception of a return code ----

    /**
     * Builds the exception for a failed call whose {@code ferry_error} is at {@code off} of {@code m}.
     *
     * @param m memory holding the error struct
     * @param off its offset
     * @param rc the return code
     * @return the exception
     */
    public static FerryException failure(NativeBuffer m, int off, int rc) {
        ErrorCode code = ErrorCode.of(rc);
        int written = m.buf.getInt(off);
        String msg;
        int engineCode = 0;
        if (written == rc) {
            engineCode = m.buf.getInt(off + Abi.ERROR_ENGINE_CODE);
            int start = off + Abi.ERROR_MESSAGE;
            int end = start;
            int limit = off + Abi.ERROR_SIZE;
            while (end < limit && m.buf.get(end) != 0) {
                end++;
            }
            byte[] bytes = new byte[end - start];
            m.buf.get(start, bytes);
            msg = new String(bytes, StandardCharsets.UTF_8);
        } else {
            msg = code.name().toLowerCase(Locale.ROOT).replace('_', ' ');
        }
        FerryException e = FerryException.of(code, engineCode, msg + " (" + code + ")");
        Throwable cause = code == ErrorCode.CORRUPTION || code == ErrorCode.ABORTED ? Callbacks.takeFailure() : null;
        if (cause != null) { // a merge operator or comparator written in Java threw during this call
            e.initCause(cause);
        }
        return e;
    }

    /**
     * {@link #check} for a call of a store whose failure may come from a callback of that store that
     * failed on another thread (RocksDB's flush and compaction threads): the exception's cause is then
     * that callback's exception.
     */
    static void checkStore(Scratch s, int rc, long store) {
        if (rc != 0) {
            FerryException e = s.error(rc);
            if (e.getCause() == null && (e.code() == ErrorCode.CORRUPTION || e.code() == ErrorCode.ABORTED)) {
                Throwable cause = Callbacks.causeFor(store);
                if (cause != null) {
                    e.initCause(cause);
                }
            }
            throw e;
        }
    }

    static void check(Scratch s, int rc) {
        if (rc != 0) {
            throw s.error(rc);
        }
    }

    static int align8(int v) {
        return (v + 7) & ~7;
    }

    /** Copies {@code [a][pad][c]} into the data area; returns the offset of {@code c}. */
    private static int two(Scratch s, byte[] a, int ao, int al, byte[] c, int co, int cl) {
        int coff = align8(Scratch.DATA + al);
        NativeBuffer m = s.ensure((long) coff + cl, 0);
        m.buf.put(Scratch.DATA, a, ao, al);
        m.buf.put(coff, c, co, cl);
        return coff;
    }

    /** Copies options, a C string and an optional C string; returns their offsets {opts, str, extra}. */
    private static int[] optionsAndStrings(Scratch s, long[] opts, byte[] str, byte[] extra) {
        int optsOff = Scratch.DATA;
        int strOff = optsOff + 8 * opts.length;
        NativeBuffer m = s.ensure((long) strOff + str.length + 1 + (extra == null ? 0 : extra.length + 1) + 16, 0);
        for (int i = 0; i < opts.length; i++) {
            m.buf.putLong(optsOff + 8 * i, opts[i]);
        }
        int extraOff = m.putCString(strOff, str);
        if (extra != null) {
            m.putCString(extraOff, extra);
        }
        return new int[] {optsOff, strOff, extraOff};
    }

    // ---- engines ----

    /**
     * {@code ferry_engine_attach}.
     *
     * @param engine the engine id
     * @param path the engine library's path, or null to find it loaded
     */
    public void engineAttach(int engine, byte[] path) {
        Scratch s = Scratch.get(b);
        check(s, b.engineAttach(engine, path == null ? 0 : s.cString(path), s.err()));
    }

    /**
     * {@code ferry_engine_path}.
     *
     * @param engine the engine id
     * @return the attached library's path, or null
     */
    public String enginePath(int engine) {
        Scratch s = Scratch.get(b);
        NativeBuffer m = s.ensure(Scratch.DATA + 4096L, 0);
        int n = b.enginePath(engine, m.addr + Scratch.DATA, 4096);
        return n < 0 ? null : new String(m.bytes(Scratch.DATA, Math.min(n, 4095)), StandardCharsets.UTF_8);
    }

    // ---- stores ----

    /**
     * {@code ferry_store_open}, with or without family records.
     *
     * @param engine the engine id
     * @param path the directory (UTF-8)
     * @param opts the {@code FERRY_OPT_*} array
     * @param extra the engine's option string, or null
     * @param families encoded family records, or null
     * @param familyCount how many records
     * @return the store handle
     */
    public long storeOpen(int engine, byte[] path, long[] opts, byte[] extra, byte[] families, int familyCount) {
        Scratch s = Scratch.get(b);
        int[] o = optionsAndStrings(s, opts, path, extra);
        NativeBuffer m = s.mem;
        long extraAddr = extra == null ? 0 : m.addr + o[2];
        int rc;
        if (families == null) {
            rc = b.storeOpen(engine, m.addr + o[1], m.addr + o[0], opts.length, extraAddr, 0, 0, 0, s.out(0), s.err());
        } else {
            int cfsOff = align8(o[2] + (extra == null ? 0 : extra.length + 1));
            m = s.ensure((long) cfsOff + families.length, cfsOff);
            m.buf.put(cfsOff, families);
            rc = b.storeOpen(engine, m.addr + o[1], m.addr + o[0], opts.length, extra == null ? 0 : m.addr + o[2],
                    m.addr + cfsOff, families.length, familyCount, s.out(0), s.err());
        }
        check(s, rc);
        return s.outLong(0);
    }

    /**
     * {@code ferry_store_open_secondary}, with or without family records.
     *
     * @param path the primary's directory (UTF-8)
     * @param secondary the secondary instance's own directory (UTF-8)
     * @param opts the {@code FERRY_OPT_*} array
     * @param extra the engine's option string, or null
     * @param families encoded family records, or null
     * @param familyCount how many records
     * @return the store handle
     */
    public long storeOpenSecondary(byte[] path, byte[] secondary, long[] opts, byte[] extra, byte[] families, int familyCount) {
        Scratch s = Scratch.get(b);
        int[] o = optionsAndStrings(s, opts, path, extra);
        int secOff = o[2] + (extra == null ? 0 : extra.length + 1);
        NativeBuffer m = s.ensure((long) secOff + secondary.length + 1 + 16, secOff);
        int cfsOff = align8(m.putCString(secOff, secondary));
        if (families != null) {
            m = s.ensure((long) cfsOff + families.length, cfsOff);
            m.buf.put(cfsOff, families);
        }
        int rc = b.storeOpenSecondary(m.addr + o[1], m.addr + secOff, m.addr + o[0], opts.length,
                extra == null ? 0 : m.addr + o[2], families == null ? 0 : m.addr + cfsOff,
                families == null ? 0 : families.length, familyCount, s.out(0), s.err());
        check(s, rc);
        return s.outLong(0);
    }

    /**
     * {@code ferry_store_close}.
     *
     * @param store the handle
     * @return false when an LMDB write transaction of another thread keeps the store open
     *         ({@code FERRY_EBUSY}: only that thread may end it); true otherwise (a failed close
     *         has no other answer: the handle is gone)
     */
    public boolean storeClose(long store) {
        return b.storeClose(store) != Abi.EBUSY;
    }

    /**
     * Appends one family record of {@code ferry_store_open} ({@code FERRY_CFDESC_HEADER}: the name's
     * and the options string's lengths and the {@code FERRY_CFOPT_*} values, then the two strings).
     *
     * @param out receives the record
     * @param name the family's name (UTF-8)
     * @param extra its options string (UTF-8; empty for none)
     * @param opts its {@code FERRY_CFOPT_*} values ({@code FERRY_CFOPT_COUNT} of them)
     */
    public static void familyRecord(ByteArrayOutputStream out, byte[] name, byte[] extra, long[] opts) {
        ByteBuffer h = ByteBuffer.allocate(Abi.CFDESC_HEADER).order(ByteOrder.nativeOrder());
        h.putInt(name.length).putInt(extra.length);
        for (long v : opts) {
            h.putLong(v);
        }
        out.write(h.array(), 0, Abi.CFDESC_HEADER);
        out.write(name, 0, name.length);
        out.write(extra, 0, extra.length);
    }

    /**
     * The bytes one record of an encoded batch ({@code ferry_write}, {@code ferry_txn_write}) takes:
     * its {@code FERRY_OP_HEADER} and its two byte strings.
     *
     * @param alen the key's (or range begin's) length
     * @param blen the value's (or range end's) length
     * @return the record's length
     */
    public static long batchRecordSize(int alen, int blen) {
        return (long) Abi.OP_HEADER + alen + blen;
    }

    /**
     * Writes one record of an encoded batch at the buffer's position: its {@code FERRY_OP_HEADER}
     * ({@code op}, {@code cf}, the two lengths, native byte order) and the two byte strings.
     *
     * @param buf the batch (native byte order), with {@link #batchRecordSize} bytes remaining
     * @param op the write
     * @param cf the family's id
     * @param a the key (or range begin)
     * @param c the value (or range end; empty for a delete)
     */
    public static void batchRecord(ByteBuffer buf, WriteOp op, int cf, byte[] a, byte[] c) {
        buf.putInt(op.code()).putInt(cf).putInt(a.length).putInt(c.length).put(a).put(c);
    }

    /** A column family slot as the store reports it. */
    public static final class Slot {
        /** The family's name. */
        public final String name;
        /** Its {@code FERRY_CF_*} flags. */
        public final int flags;
        /** True when it was dropped. */
        public final boolean dropped;

        Slot(String name, int flags, boolean dropped) {
            this.name = name;
            this.flags = flags;
            this.dropped = dropped;
        }
    }

    /**
     * {@code ferry_cf_count}.
     *
     * @param store the handle
     * @return the number of family slots
     */
    public int cfCount(long store) {
        Scratch s = Scratch.get(b);
        check(s, b.cfCount(store, s.out(0)));
        return (int) (s.outLong(0) & 0xFFFFFFFFL);
    }

    /**
     * {@code ferry_cf_name} and {@code ferry_cf_flags} of one slot.
     *
     * @param store the handle
     * @param id the slot
     * @return the slot
     */
    public Slot cfSlot(long store, int id) {
        Scratch s = Scratch.get(b);
        int cap = 4096;
        for (;;) {
            NativeBuffer m = s.ensure(Scratch.DATA + (long) cap, 0);
            int rc = b.cfName(store, id, m.addr + Scratch.DATA, cap, s.out(1));
            if (rc != 0 && rc != Abi.ECFDROPPED) {
                throw s.error(rc);
            }
            if (s.outLong(1) >= cap) { // a longer name (RocksDB): read it again whole
                cap = (int) Math.min(Integer.MAX_VALUE - Scratch.DATA - 16L, s.outLong(1) + 1);
                continue;
            }
            String name = new String(m.bytes(Scratch.DATA, (int) s.outLong(1)), StandardCharsets.UTF_8);
            int flags = 0;
            if (rc == 0) {
                int frc = b.cfFlags(store, id, s.out(2), s.err());
                if (frc != 0 && frc != Abi.ECFDROPPED) {
                    throw s.error(frc);
                }
                flags = (int) (s.outLong(2) & 0xFFFFFFFFL); // a u32, as cfCount's
            }
            return new Slot(name, flags, rc == Abi.ECFDROPPED);
        }
    }

    /**
     * {@code ferry_cf_find}.
     *
     * @param store the handle
     * @param name the name (UTF-8)
     * @return the family's id, or -1 when none has that name
     */
    public int cfFind(long store, byte[] name) {
        Scratch s = Scratch.get(b);
        int rc = b.cfFind(store, s.cString(name), s.out(0), s.err());
        if (rc == Abi.NOTFOUND) {
            return -1;
        }
        check(s, rc);
        return (int) (s.outLong(0) & 0xFFFFFFFFL);
    }

    /**
     * {@code ferry_cf_list_all}.
     *
     * @param store the handle
     */
    public void cfListAll(long store) {
        Scratch s = Scratch.get(b);
        check(s, b.cfListAll(store, s.err()));
    }

    /**
     * {@code ferry_cf_create}, with flags and, optionally, options.
     *
     * @param store the handle
     * @param name the name (UTF-8)
     * @param flags {@code FERRY_CF_*} flags
     * @param opts the family's {@code FERRY_OPT_*} array, or null for the store's
     * @param extra the family's option string, or null
     * @return the new family's id
     */
    public int cfCreate(long store, byte[] name, int flags, long[] opts, byte[] extra) {
        Scratch s = Scratch.get(b);
        int rc;
        if (opts == null) {
            rc = b.cfCreate(store, s.cString(name), flags, 0, 0, 0, s.out(0), s.err());
        } else {
            int[] o = optionsAndStrings(s, opts, name, extra);
            NativeBuffer m = s.mem;
            rc = b.cfCreate(store, m.addr + o[1], flags, m.addr + o[0], opts.length,
                    extra == null ? 0 : m.addr + o[2], s.out(0), s.err());
        }
        check(s, rc);
        return (int) (s.outLong(0) & 0xFFFFFFFFL);
    }

    /**
     * {@code ferry_cf_drop}.
     *
     * @param store the handle
     * @param cf the family
     */
    public void cfDrop(long store, int cf) {
        Scratch s = Scratch.get(b);
        check(s, b.cfDrop(store, cf, s.err()));
    }

    // ---- split points (snapshot: 0 for the latest state or a snapshot's handle, as in ferry.h) ----

    /**
     * What {@code ferry_split_points} answered: boundary candidates and the weight of the data from each
     * to the next. {@code keys[0]} is null (the range's start).
     *
     * @param keys the candidates' keys, in key order, the first null
     * @param weights the weight after each candidate, in the engine's unit
     */
    public record SplitPoints(byte[][] keys, long[] weights) {
    }

    /**
     * {@code ferry_split_points}.
     *
     * @param store the store
     * @param snapshot a snapshot's handle or 0
     * @param cf the family
     * @param lo lower bound or null
     * @param hi upper bound or null
     * @param max most records wanted
     * @return the records (none when the engine has nothing to say)
     */
    public SplitPoints splitPoints(long store, long snapshot, int cf, byte[] lo, byte[] hi, int max) {
        Scratch s = Scratch.get(b);
        int hiOff = s.putTwo(lo, hi);
        int outOff = align8(hiOff + (hi == null ? 0 : hi.length));
        int cap = (int) Math.min(1 << 20, Math.max(4096L, 64L * max));
        NativeBuffer m = s.ensure((long) outOff + cap, outOff);
        long a = m.addr;
        int n = b.splitPoints(store, snapshot, cf, lo == null ? 0 : a + Scratch.DATA, lo == null ? 0 : lo.length,
                hi == null ? 0 : a + hiOff, hi == null ? 0 : hi.length, max, a + outOff, cap, s.out(0), s.err());
        if (n < 0) {
            throw s.error(n);
        }
        long len = s.outLong(0);
        if (len < 0 || len > cap) {
            throw new IllegalStateException("ferry_split_points wrote " + len + " bytes into " + cap);
        }
        byte[][] keys = new byte[n][];
        long[] weights = new long[n];
        ByteBuffer buf = m.buf.duplicate().order(ByteOrder.nativeOrder());
        int at = outOff;
        for (int i = 0; i < n; i++) {
            if (at + Abi.SPLIT_HEADER > outOff + len) {
                throw new IllegalStateException("ferry_split_points: record " + i + " of " + n + " overruns " + len + " bytes");
            }
            weights[i] = buf.getLong(at);
            int kl = buf.getInt(at + 8);
            if (kl < 0 || at + Abi.SPLIT_HEADER + (long) kl > outOff + len) {
                throw new IllegalStateException("ferry_split_points: record " + i + " of " + n + " overruns " + len + " bytes");
            }
            if (i > 0) {
                keys[i] = new byte[kl];
                buf.get(at + Abi.SPLIT_HEADER, keys[i]);
            }
            at += Abi.SPLIT_HEADER + kl;
        }
        return new SplitPoints(keys, weights);
    }

    // ---- writes ----

    /**
     * {@code ferry_put}.
     *
     * @param store the store
     * @param cf the family
     * @param key key array
     * @param ko first key byte
     * @param kl key length
     * @param value value array
     * @param vo first value byte
     * @param vl value length
     */
    public void put(long store, int cf, byte[] key, int ko, int kl, byte[] value, int vo, int vl) {
        Scratch s = Scratch.get(b);
        int voff = two(s, key, ko, kl, value, vo, vl);
        long a = s.mem.addr;
        checkStore(s, b.put(store, cf, a + Scratch.DATA, kl, a + voff, vl, 0, s.err()), store);
    }

    /**
     * {@code ferry_put} with {@code FERRY_WRITE_*} flags.
     *
     * @param store the store
     * @param cf the family
     * @param key the key
     * @param value the value
     * @param flags the flags
     * @return false when the flags refused an existing key or pair ({@code FERRY_EKEYEXIST})
     */
    public boolean put(long store, int cf, byte[] key, byte[] value, int flags) {
        Scratch s = Scratch.get(b);
        int voff = two(s, key, 0, key.length, value, 0, value.length);
        long a = s.mem.addr;
        int rc = b.put(store, cf, a + Scratch.DATA, key.length, a + voff, value.length, flags, s.err());
        if (rc == Abi.EKEYEXIST) {
            return false;
        }
        check(s, rc);
        return true;
    }

    /**
     * {@code ferry_put} of buffers (position to limit; not moved), copied through the buffers' own
     * API: a caller's buffer never reaches native code by address (a shared arena closed by another
     * thread during the call would leave the shim reading freed memory; copying gets the JDK's checks).
     *
     * @param store the store
     * @param cf the family
     * @param key the key
     * @param value the value
     */
    public void put(long store, int cf, ByteBuffer key, ByteBuffer value) {
        Scratch s = Scratch.get(b);
        int klen = key.remaining();
        int vlen = value.remaining();
        int voff = align8(Scratch.DATA + klen);
        NativeBuffer m = s.ensure((long) voff + vlen, 0);
        m.buf.put(voff, value, value.position(), vlen);
        m.buf.put(Scratch.DATA, key, key.position(), klen);
        checkStore(s, b.put(store, cf, m.addr + Scratch.DATA, klen, m.addr + voff, vlen, 0, s.err()), store);
    }

    /**
     * {@code ferry_merge}.
     *
     * @param store the store
     * @param cf the family
     * @param key the key
     * @param operand the operand
     */
    public void merge(long store, int cf, byte[] key, byte[] operand) {
        Scratch s = Scratch.get(b);
        int voff = two(s, key, 0, key.length, operand, 0, operand.length);
        long a = s.mem.addr;
        checkStore(s, b.merge(store, cf, a + Scratch.DATA, key.length, a + voff, operand.length, s.err()), store);
    }

    /**
     * {@code ferry_delete}.
     *
     * @param store the store
     * @param cf the family
     * @param key key array
     * @param off first key byte
     * @param len key length
     */
    public void delete(long store, int cf, byte[] key, int off, int len) {
        Scratch s = Scratch.get(b);
        NativeBuffer m = s.ensure(Scratch.DATA + (long) len, 0);
        m.buf.put(Scratch.DATA, key, off, len);
        checkStore(s, b.delete(store, cf, m.addr + Scratch.DATA, len, s.err()), store);
    }

    /**
     * {@code ferry_delete_range}.
     *
     * @param store the store
     * @param cf the family
     * @param begin inclusive
     * @param end exclusive
     */
    public void deleteRange(long store, int cf, byte[] begin, byte[] end) {
        Scratch s = Scratch.get(b);
        int eoff = two(s, begin, 0, begin.length, end, 0, end.length);
        long a = s.mem.addr;
        checkStore(s, b.deleteRange(store, cf, a + Scratch.DATA, begin.length, a + eoff, end.length, s.err()), store);
    }

    /**
     * {@code ferry_write}: an encoded batch with {@code FERRY_WRITE_*} flags.
     *
     * @param store the store
     * @param ops the records (position = length)
     * @param count how many
     * @param flags {@code FERRY_WRITE_*} flags
     */
    public void write(long store, ByteBuffer ops, int count, int flags) {
        Scratch s = Scratch.get(b);
        long addr = copy(s, ops);
        int len = ops.position();
        checkStore(s, b.write(store, addr, len, count, flags, s.err()), store);
    }

    private static long copy(Scratch s, ByteBuffer ops) {
        int len = ops.position();
        NativeBuffer m = s.ensure(Scratch.DATA + (long) len, 0);
        m.buf.put(Scratch.DATA, ops, 0, len);
        return m.addr + Scratch.DATA;
    }

    // ---- snapshots and transactions ----

    /**
     * {@code ferry_snapshot_open}.
     *
     * @param store the store
     * @param readers retries when LMDB's reader table is full (leaked snapshots may hold its slots)
     * @return the snapshot handle
     */
    public long snapshotOpen(long store, Readers readers) {
        Scratch s = Scratch.get(b);
        int rc = b.snapshotOpen(store, s.out(0), s.err());
        for (int attempt = 0; readers.reclaim(rc, attempt); attempt++) {
            s.clearError();
            rc = b.snapshotOpen(store, s.out(0), s.err());
        }
        check(s, rc);
        return s.outLong(0);
    }

    /**
     * {@code ferry_snapshot_close}.
     *
     * @param snapshot the handle
     */
    public void snapshotClose(long snapshot) {
        b.snapshotClose(snapshot);
    }

    /**
     * {@code ferry_txn_begin}.
     *
     * @param store the store
     * @param timeoutMs how long to wait for the write lock (-1: no limit)
     * @param timeoutIsAnswer true: a timed-out wait ({@code FERRY_ETIMEDOUT}) returns 0 (LMDB's
     *        write lock); false: it throws as any failure
     * @return the transaction handle, or 0 when the wait timed out
     */
    public long txnBegin(long store, long timeoutMs, boolean timeoutIsAnswer) {
        Scratch s = Scratch.get(b);
        int rc = b.txnBegin(store, 0, timeoutMs, s.out(0), s.err());
        if (rc == Abi.ETIMEDOUT && timeoutIsAnswer) {
            return 0;
        }
        check(s, rc);
        return s.outLong(0);
    }

    /**
     * {@code ferry_txn_write} of an encoded batch.
     *
     * @param txn the transaction
     * @param ops the records (position = length)
     * @param count how many
     */
    public void txnWrite(long txn, ByteBuffer ops, int count) {
        Scratch s = Scratch.get(b);
        long addr = copy(s, ops);
        check(s, b.txnWrite(txn, addr, ops.position(), count, s.err()));
    }

    /**
     * {@code ferry_txn_write} of one record {@code op cf a b}.
     *
     * @param txn the transaction
     * @param op the write
     * @param cf the family
     * @param a the key (or range begin) array
     * @param ao its first byte
     * @param al its length
     * @param c the value (or range end; empty for a delete) array
     * @param co its first byte
     * @param cl its length
     */
    public void txnRecord(long txn, WriteOp op, int cf, byte[] a, int ao, int al, byte[] c, int co, int cl) {
        Scratch s = Scratch.get(b);
        int aoff = Scratch.DATA + Abi.OP_HEADER;
        NativeBuffer m = s.ensure((long) aoff + al + cl, 0);
        ByteBuffer buf = m.buf;
        buf.putInt(Scratch.DATA, op.code());
        buf.putInt(Scratch.DATA + 4, cf);
        buf.putInt(Scratch.DATA + 8, al);
        buf.putInt(Scratch.DATA + 12, cl);
        buf.put(aoff, a, ao, al);
        buf.put(aoff + al, c, co, cl);
        check(s, b.txnWrite(txn, m.addr + Scratch.DATA, Abi.OP_HEADER + al + cl, 1, s.err()));
    }

    /**
     * {@code ferry_txn_commit}.
     *
     * @param txn the transaction
     */
    public void txnCommit(long txn) {
        Scratch s = Scratch.get(b);
        check(s, b.txnCommit(txn, s.err()));
    }

    /**
     * {@code ferry_txn_close}.
     *
     * @param txn the transaction
     */
    public void txnClose(long txn) {
        b.txnClose(txn);
    }

    /**
     * {@code ferry_txn_abandon}.
     *
     * @param txn the transaction
     */
    public void txnAbandon(long txn) {
        b.txnAbandon(txn);
    }

    /**
     * {@code ferry_txn_set_savepoint}.
     *
     * @param txn the transaction
     */
    public void txnSetSavepoint(long txn) {
        Scratch s = Scratch.get(b);
        check(s, b.txnSetSavepoint(txn, s.err()));
    }

    /**
     * {@code ferry_txn_rollback_to_savepoint}.
     *
     * @param txn the transaction
     */
    public void txnRollbackToSavepoint(long txn) {
        Scratch s = Scratch.get(b);
        check(s, b.txnRollbackToSavepoint(txn, s.err()));
    }

    /**
     * {@code ferry_txn_pop_savepoint}.
     *
     * @param txn the transaction
     */
    public void txnPopSavepoint(long txn) {
        Scratch s = Scratch.get(b);
        check(s, b.txnPopSavepoint(txn, s.err()));
    }

    // ---- cursors ----

    /**
     * {@code ferry_cursor_open}.
     *
     * @param store the store
     * @param snapshot the read view's handle: 0, a snapshot's or a transaction's ({@code FERRY_TXN_VIEW})
     * @param cf the family
     * @param lo inclusive lower bound, or null
     * @param hi exclusive upper bound, or null
     * @param flags {@code FERRY_CURSOR_*} flags
     * @param readers retries when LMDB's reader table is full (leaked cursors may hold its slots)
     * @return the cursor handle
     */
    public long cursorOpen(long store, long snapshot, int cf, byte[] lo, byte[] hi, int flags, Readers readers) {
        Scratch s = Scratch.get(b);
        int hiOff = s.putTwo(lo, hi);
        long a = s.mem.addr;
        long loAddr = lo == null ? 0 : a + Scratch.DATA;
        int loLen = lo == null ? 0 : lo.length;
        long hiAddr = hi == null ? 0 : a + hiOff;
        int hiLen = hi == null ? 0 : hi.length;
        int rc = b.cursorOpen(store, snapshot, cf, loAddr, loLen, hiAddr, hiLen, flags, s.out(0), s.err());
        for (int attempt = 0; readers.reclaim(rc, attempt); attempt++) {
            s.clearError();
            rc = b.cursorOpen(store, snapshot, cf, loAddr, loLen, hiAddr, hiLen, flags, s.out(0), s.err());
        }
        check(s, rc);
        return s.outLong(0);
    }

    /**
     * {@code ferry_cursor_fill} into the cursor's own page (not scratch memory): moves the cursor by
     * {@code op} and writes entries until the page is full, {@code max} are written or the range
     * ends; {@link CursorPage#count()}, {@link CursorPage#endReached()} and {@link CursorPage#pointers()}
     * then describe the page. A page too small for the next entry is grown to the size the engine
     * reports and the fill goes on from there ({@code FERRY_NEXT} or {@code FERRY_PREV}). One native
     * call per page; nothing allocated unless the page grows.
     *
     * @param cursor the handle
     * @param op the move
     * @param key seek key address (in the page's aux area, {@link CursorPage#key}), or 0
     * @param klen its length
     * @param page the page
     * @param max entries at most
     * @return the entries written (0: none in range)
     * @throws FerryException the engine's error, or {@code BUFFER_TOO_SMALL} for an entry larger than
     *         a Java buffer holds
     */
    public int cursorFill(long cursor, CursorPage.Op op, long key, int klen, CursorPage page, int max) {
        int rc = b.cursorFill(cursor, op.code, key, klen, page.address(), page.capacity(), max, page.clearedError());
        while (rc == Abi.ETOOSMALL) {
            long need = page.needed();
            if (need > CursorPage.MAX_PAGE) {
                // no Java buffer or view holds the entry: stop here, a seek past its key goes on
                throw new FerryException(ErrorCode.BUFFER_TOO_SMALL, 0, "entry of " + need
                        + " bytes (key and value) is larger than a Java buffer or view holds; seek past it to go on");
            }
            page.grow(need);
            rc = b.cursorFill(cursor, op.forward ? Abi.NEXT : Abi.PREV, 0, 0, page.address(), page.capacity(), max,
                    page.clearedError());
        }
        if (rc < 0) {
            throw failure(page.errorMemory(), page.errorOffset(), rc);
        }
        page.filled(rc);
        return rc;
    }

    /**
     * {@code ferry_cursor_close}.
     *
     * @param cursor the handle
     */
    public void cursorClose(long cursor) {
        b.cursorClose(cursor);
    }

    // ---- RocksJava interop (handles are RocksJava's) ----

    /**
     * {@code ferry_rj_cursor_open}.
     *
     * @param db the {@code rocksdb::DB*}
     * @param cf the family handle
     * @param snapshot the snapshot handle, or 0
     * @param lo inclusive lower bound, or null
     * @param hi exclusive upper bound, or null
     * @return the cursor handle
     */
    public long rjCursorOpen(long db, long cf, long snapshot, byte[] lo, byte[] hi) {
        Scratch s = Scratch.get(b);
        int hiOff = s.putTwo(lo, hi);
        long a = s.mem.addr;
        check(s, b.rjCursorOpen(db, cf, snapshot, lo == null ? 0 : a + Scratch.DATA, lo == null ? 0 : lo.length,
                hi == null ? 0 : a + hiOff, hi == null ? 0 : hi.length, 0, s.out(0), s.err()));
        return s.outLong(0);
    }

    /**
     * {@code ferry_rj_cursor_wrap}.
     *
     * @param iterator the {@code rocksdb::Iterator*}
     * @return the cursor handle
     */
    public long rjCursorWrap(long iterator) {
        Scratch s = Scratch.get(b);
        check(s, b.rjCursorWrap(iterator, s.out(0), s.err()));
        return s.outLong(0);
    }

    /**
     * {@code ferry_rj_cursor_forget}.
     *
     * @param cursor the handle
     */
    public void rjCursorForget(long cursor) {
        b.rjCursorForget(cursor);
    }

    /**
     * {@code ferry_rj_put}.
     *
     * @param db the database
     * @param cf the family handle
     * @param key the key
     * @param value the value
     */
    public void rjPut(long db, long cf, byte[] key, byte[] value) {
        Scratch s = Scratch.get(b);
        int voff = s.putTwo(key, value);
        long a = s.mem.addr;
        check(s, b.rjPut(db, cf, a + Scratch.DATA, key.length, a + voff, value.length, s.err()));
    }

    /**
     * {@code ferry_rj_write}: an encoded batch whose records all go to one family.
     *
     * @param db the database
     * @param cf the family handle
     * @param ops the records (position = length)
     * @param count how many
     */
    public void rjWrite(long db, long cf, ByteBuffer ops, int count) {
        Scratch s = Scratch.get(b);
        int len = ops.position();
        int opsOff = Scratch.DATA + 8;
        NativeBuffer m = s.ensure((long) opsOff + len, 0);
        m.buf.putLong(Scratch.DATA, cf);
        m.buf.put(opsOff, ops, 0, len);
        check(s, b.rjWrite(db, m.addr + Scratch.DATA, 1, m.addr + opsOff, len, count, s.err()));
    }

}
