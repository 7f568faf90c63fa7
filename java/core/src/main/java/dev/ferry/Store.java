package dev.ferry;

import dev.ferry.internal.Abi;
import dev.ferry.internal.Bindings;
import dev.ferry.internal.Children;
import dev.ferry.internal.Engines;
import dev.ferry.internal.Guard;
import dev.ferry.internal.Lifetime;
import dev.ferry.internal.NativeBuffer;
import dev.ferry.internal.Once;
import dev.ferry.internal.PointReads;
import dev.ferry.internal.SeekRuns;
import dev.ferry.internal.Readers;
import dev.ferry.internal.Scratch;
import dev.ferry.spi.NativeBinding;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An open key-value store: a RocksDB database or an LMDB environment on disk, reached through
 * Ferry's native shim with the binding chosen at run time (FFM on Java 22+, else JNI).
 *
 * <pre>{@code
 * try (Store store = Store.open(dir, StoreOptions.rocksdb())) {
 *     store.put(key, value);
 *     byte[] v = store.get(key);
 *     try (Cursor c = store.cursor(KeyRange.all())) {
 *         while (c.next()) { ... }       // or: for (boolean ok = c.first(); ok; ok = c.next())
 *     }
 * }
 * }</pre>
 *
 * <p>Keys are compared as unsigned bytes. A missing key is not an error: {@code get} returns
 * null (or {@link #NOT_FOUND}). Inputs are {@code byte[]} (whole or offset/length) or
 * {@link ByteBuffer}s (position to limit; heap buffers are copied).
 *
 * <p>Closing a store closes every cursor and snapshot it owns (waiting for native calls in
 * flight), then the engine. Every call on a closed store throws {@link IllegalStateException}.
 * Cursors, snapshots and stores that are dropped without being closed are released by a cleaner
 * once unreachable (close them anyway: a GC may come late).
 *
 * <p>Thread safety: thread-safe. Reads and writes may run from many threads at once; cursors
 * are confined to their thread.
 */
public final class Store implements AutoCloseable {
    /** Returned by the buffer-filling {@code get}s when the key is absent. */
    public static final int NOT_FOUND = -1;

    private static final int MAX_POOLED_PAGES = 8;
    private static final ConcurrentHashMap<Path, Boolean> OPEN_LMDB = new ConcurrentHashMap<>();
    /** Releases cursors, snapshots and stores that became unreachable without being closed. */
    static final Cleaner CLEANER = Cleaner.create();

    final NativeBinding binding;
    private final Engine engine;
    private final Path path;
    private final Guard guard = new Guard("store", true);
    private final long handle;
    private final StoreOptions options;
    private final boolean lmdbThreadBound;
    private final List<ColumnFamily> families = new CopyOnWriteArrayList<>();
    /** Open cursors (on the latest state) and snapshots, held weakly. */
    final Children children = new Children();
    /** The first page size after a cursor's positioning call, learnt from earlier cursors. */
    final SeekRuns seekRuns = new SeekRuns();
    private final ConcurrentLinkedDeque<NativeBuffer> pages = new ConcurrentLinkedDeque<>();
    final Lifetime lifetime;
    /** Drops the owner's reference to the engine once: on close, or by the cleaner. */
    private final Once unpinOwner;
    private final Cleaner.Cleanable cleanable;

    /**
     * Takes ownership of an open native store.
     *
     * @param release closes the native store once; the caller runs it too when this constructor
     *        throws (the cleaner registered last shares it)
     */
    private Store(NativeBinding binding, Path path, StoreOptions options, long handle, Once release) {
        this.binding = binding;
        this.engine = options.engine;
        this.path = path;
        this.options = options;
        this.handle = handle;
        this.lmdbThreadBound = engine == Engine.LMDB && !options.lmdbFlags.contains(LmdbFlag.NOTLS);
        Lifetime lt = new Lifetime(release);
        this.lifetime = lt;
        this.unpinOwner = new Once(lt::unpin);
        this.cleanable = CLEANER.register(this, unpinOwner);
    }

    /**
     * Opens (by default creating) a store.
     *
     * @param path the store's directory
     * @param options engine and options
     * @return the open store
     * @throws FerryException when the engine cannot open it (e.g. {@link FerryException.NotFound} when
     *         it does not exist and {@code createIfMissing} is off, {@link FerryException.AlreadyExists},
     *         {@link FerryException.Busy} when another process holds it)
     */
    public static Store open(Path path, StoreOptions options) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(options, "options");
        NativeBinding b = options.binding == null ? Bindings.defaultBinding() : Bindings.byName(options.binding);
        Engines.attach(b, options.engine);
        Path key = path.toAbsolutePath().normalize();
        if (options.createIfMissing && !options.readOnly && key.getParent() != null) {
            try {
                java.nio.file.Files.createDirectories(key.getParent());
            } catch (java.io.IOException e) {
                throw FerryException.of(ErrorCode.IO_ERROR, 0, "cannot create " + key.getParent() + ": " + e);
            }
        }
        if (options.engine == Engine.LMDB) {
            // LMDB forbids opening one environment twice in a process (it breaks its locks)
            if (OPEN_LMDB.putIfAbsent(key, Boolean.TRUE) != null) {
                throw FerryException.of(ErrorCode.BUSY, 0, "LMDB store " + key
                        + " is already open in this process: share that Store instead (BUSY)");
            }
            try {
                return openNative(b, key, options);
            } catch (RuntimeException | Error e) {
                OPEN_LMDB.remove(key);
                throw e;
            }
        }
        return openNative(b, key, options);
    }

    private static Store openNative(NativeBinding b, Path path, StoreOptions options) {
        byte[] p = path.toAbsolutePath().toString().getBytes(StandardCharsets.UTF_8);
        byte[] extra = options.rocksdbOptions == null ? null : options.rocksdbOptions.getBytes(StandardCharsets.UTF_8);
        long[] o = options.toNative();
        Scratch s = Scratch.get(b);
        NativeBuffer m = s.ensure(Scratch.DATA + 8L * o.length + p.length + 1 + (extra == null ? 0 : extra.length + 1) + 16, 0);
        int optsOff = Scratch.DATA;
        for (int i = 0; i < o.length; i++) {
            m.buf.putLong(optsOff + 8 * i, o[i]);
        }
        int pathOff = optsOff + 8 * o.length;
        int extraOff = m.putCString(pathOff, p);
        if (extra != null) {
            m.putCString(extraOff, extra);
        }
        int rc = b.storeOpen(options.engine.id(), m.addr + pathOff, m.addr + optsOff, o.length,
                extra == null ? 0 : m.addr + extraOff, s.out(0), s.err());
        if (rc != 0) {
            throw s.error(rc);
        }
        long h = s.outLong(0);
        Engine engine = options.engine;
        Once release = new Once(() -> {
            b.storeClose(h);
            if (engine == Engine.LMDB) {
                OPEN_LMDB.remove(path);
            }
        });
        Store store;
        try {
            store = new Store(b, path, options, h, release);
        } catch (RuntimeException | Error e) {
            release.run();
            throw e;
        }
        try {
            store.loadFamilies();
        } catch (RuntimeException | Error e) {
            store.close();
            throw e;
        }
        return store;
    }

    /** @return the engine */
    public Engine engine() {
        return engine;
    }

    /** @return the store's directory */
    public Path path() {
        return path;
    }

    /** @return the binding this store uses: {@code "jni"} or {@code "ffm"} */
    public String binding() {
        return binding.name();
    }

    // ---- column families ----

    /** @return the default column family */
    public ColumnFamily defaultColumnFamily() {
        return families.get(0);
    }

    /** @return the live (not dropped) column families, the default one first */
    public List<ColumnFamily> columnFamilies() {
        guard.check();
        List<ColumnFamily> r = new ArrayList<>();
        for (ColumnFamily cf : families) {
            if (!cf.dropped) {
                r.add(cf);
            }
        }
        return Collections.unmodifiableList(r);
    }

    /**
     * Finds a column family by name.
     *
     * @param name the name
     * @return the family, or empty when none has that name
     */
    public Optional<ColumnFamily> columnFamily(String name) {
        Objects.requireNonNull(name, "name");
        for (ColumnFamily cf : columnFamilies()) {
            if (cf.name().equals(name)) {
                return Optional.of(cf);
            }
        }
        return Optional.empty();
    }

    /**
     * Creates a column family (LMDB: a named database; live families are limited by
     * {@link StoreOptions#maxColumnFamilies(int)}, dropped ones do not count). A family gets an
     * id that no other family of this open store ever gets, so a dropped family's handle never
     * reaches a later one.
     *
     * @param name a non-empty name without NUL characters; on LMDB, which keeps family names as
     *        keys of the default family, at most the key size limit in UTF-8 (511 bytes)
     * @return the new family
     * @throws IllegalArgumentException for a name the engine cannot store, before any change
     * @throws FerryException.AlreadyExists when it exists
     * @throws FerryException with {@link ErrorCode#TOO_MANY_COLUMN_FAMILIES} when the limit is reached
     */
    public synchronized ColumnFamily createColumnFamily(String name) {
        Objects.requireNonNull(name, "name");
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        if (n.length == 0 || name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("column family name must be non-empty and free of NUL characters");
        }
        if (engine == Engine.LMDB) {
            long max = propertyLong(defaultColumnFamily(), "lmdb.max-key-size").orElse(511);
            if (n.length > max) {
                throw new IllegalArgumentException("column family name of " + n.length + " bytes is too long: LMDB keeps "
                        + "family names as keys of the default family, at most " + max + " bytes");
            }
        }
        guard.enter();
        try {
            Scratch s = Scratch.get(binding);
            int rc = binding.cfCreate(handle, s.cString(n), s.out(0), s.err());
            if (rc != 0) {
                throw s.error(rc);
            }
            int id = (int) (s.outLong(0) & 0xFFFFFFFFL);
            ColumnFamily cf = new ColumnFamily(this, id, name);
            families.add(cf);
            return cf;
        } finally {
            guard.exit();
        }
    }

    /**
     * Drops a column family and its data. Later use of it throws.
     *
     * @param cf the family (not the default one)
     */
    public synchronized void dropColumnFamily(ColumnFamily cf) {
        int id = cfId(cf);
        if (id == 0) {
            throw new IllegalArgumentException("the default column family cannot be dropped");
        }
        guard.enter();
        try {
            Scratch s = Scratch.get(binding);
            int rc = binding.cfDrop(handle, id, s.err());
            if (rc != 0) {
                throw s.error(rc);
            }
            cf.dropped = true;
        } finally {
            guard.exit();
        }
    }

    // ---- reads ----

    /**
     * Reads a key of the default family.
     *
     * @param key the key
     * @return a copy of the value, or null when absent
     */
    public byte[] get(byte[] key) {
        return get(defaultColumnFamily(), key);
    }

    /**
     * Reads a key.
     *
     * @param cf the family
     * @param key the key
     * @return a copy of the value, or null when absent
     */
    public byte[] get(ColumnFamily cf, byte[] key) {
        requireKey(key);
        return get(cf, key, 0, key.length);
    }

    /**
     * Reads a key given as a slice of an array.
     *
     * @param cf the family
     * @param key the array
     * @param offset first key byte
     * @param length key length
     * @return a copy of the value, or null when absent
     */
    public byte[] get(ColumnFamily cf, byte[] key, int offset, int length) {
        requireSlice(key, offset, length);
        int id = cfId(cf);
        guard.enter();
        try {
            return getImpl(0, id, key, offset, length);
        } finally {
            guard.exit();
        }
    }

    /**
     * Reads a key given as a buffer (position to limit; not moved).
     *
     * @param cf the family
     * @param key the key
     * @return a copy of the value, or null when absent
     */
    public byte[] get(ColumnFamily cf, ByteBuffer key) {
        Objects.requireNonNull(key, "key");
        byte[] k = new byte[key.remaining()];
        key.get(key.position(), k);
        return get(cf, k, 0, k.length);
    }

    /**
     * Reads a key of the default family into a buffer without allocating.
     *
     * @param key the key
     * @param into receives the value as by a relative {@link ByteBuffer#put(byte[])}: up to
     *        {@code into.remaining()} bytes written from its position, which advances by the bytes
     *        written; its limit is not changed (call {@code flip()} to read the value); when the key
     *        is absent nothing changes
     * @return the value's full length (larger than the bytes written when {@code into} was
     *         too small; {@code Integer.MAX_VALUE} for a value of 2 GiB or more), or {@link #NOT_FOUND}
     */
    public int get(byte[] key, ByteBuffer into) {
        requireKey(key);
        return get(defaultColumnFamily(), ByteBuffer.wrap(key), into);
    }

    /**
     * Reads a key into a buffer without allocating (the value is copied in through the buffer's own API).
     *
     * @param cf the family
     * @param key the key (position to limit; not moved)
     * @param into receives the value as by a relative {@link ByteBuffer#put(byte[])}: up to
     *        {@code into.remaining()} bytes written from its position, which advances by the bytes
     *        written; its limit is not changed (call {@code flip()} to read the value); when the key
     *        is absent nothing changes
     * @return the value's full length (larger than the bytes written when {@code into} was too
     *         small), or {@link #NOT_FOUND}
     */
    public int get(ColumnFamily cf, ByteBuffer key, ByteBuffer into) {
        int id = cfId(cf);
        guard.enter();
        try {
            return getIntoImpl(0, id, key, into);
        } finally {
            guard.exit();
        }
    }

    /**
     * Reads many keys of the default family in as few native calls as the value sizes allow.
     *
     * @param keys the keys
     * @return values in key order, null for absent keys
     */
    public List<byte[]> multiGet(List<byte[]> keys) {
        return multiGet(defaultColumnFamily(), keys);
    }

    /**
     * Reads many keys in as few native calls as the value sizes allow.
     *
     * @param cf the family
     * @param keys the keys
     * @return values in key order, null for absent keys
     */
    public List<byte[]> multiGet(ColumnFamily cf, List<byte[]> keys) {
        int id = cfId(cf);
        guard.enter();
        try {
            return multiGetImpl(0, id, keys);
        } finally {
            guard.exit();
        }
    }

    // ---- writes ----

    /**
     * Writes a key of the default family.
     *
     * @param key the key
     * @param value the value
     */
    public void put(byte[] key, byte[] value) {
        put(defaultColumnFamily(), key, value);
    }

    /**
     * Writes a key.
     *
     * @param cf the family
     * @param key the key
     * @param value the value
     */
    public void put(ColumnFamily cf, byte[] key, byte[] value) {
        requireKey(key);
        Objects.requireNonNull(value, "value");
        put(cf, key, 0, key.length, value, 0, value.length);
    }

    /**
     * Writes a key given as array slices.
     *
     * @param cf the family
     * @param key key array
     * @param keyOffset first key byte
     * @param keyLength key length
     * @param value value array
     * @param valueOffset first value byte
     * @param valueLength value length
     */
    public void put(ColumnFamily cf, byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength) {
        requireSlice(key, keyOffset, keyLength);
        requireSlice(value, valueOffset, valueLength);
        int id = cfId(cf);
        guard.enter();
        try {
            Scratch s = Scratch.get(binding);
            int voff = align8(Scratch.DATA + keyLength);
            NativeBuffer m = s.ensure((long) voff + valueLength, 0);
            m.buf.put(Scratch.DATA, key, keyOffset, keyLength);
            m.buf.put(voff, value, valueOffset, valueLength);
            int rc = binding.put(handle, id, m.addr + Scratch.DATA, keyLength, m.addr + voff, valueLength, s.err());
            if (rc != 0) {
                throw s.error(rc);
            }
        } finally {
            guard.exit();
        }
    }

    /**
     * Writes a key given as buffers (position to limit; not moved). Both are copied into native
     * memory Ferry owns before the engine sees them.
     *
     * @param cf the family
     * @param key the key
     * @param value the value
     */
    public void put(ColumnFamily cf, ByteBuffer key, ByteBuffer value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        int id = cfId(cf);
        guard.enter();
        try {
            Scratch s = Scratch.get(binding);
            int klen = key.remaining();
            int vlen = value.remaining();
            // both are copied through the buffers' own API: a caller's buffer never reaches native
            // code by address (a shared arena closed by another thread during the call would leave
            // the shim reading freed memory; copying gets the JDK's checks instead)
            int voff = align8(Scratch.DATA + klen);
            NativeBuffer m = s.ensure((long) voff + vlen, 0);
            m.buf.put(voff, value, value.position(), vlen);
            m.buf.put(Scratch.DATA, key, key.position(), klen);
            int rc = binding.put(handle, id, m.addr + Scratch.DATA, klen, m.addr + voff, vlen, s.err());
            if (rc != 0) {
                throw s.error(rc);
            }
        } finally {
            guard.exit();
        }
    }

    /**
     * Deletes a key of the default family (absent keys are fine).
     *
     * @param key the key
     */
    public void delete(byte[] key) {
        delete(defaultColumnFamily(), key);
    }

    /**
     * Deletes a key (absent keys are fine).
     *
     * @param cf the family
     * @param key the key
     */
    public void delete(ColumnFamily cf, byte[] key) {
        requireKey(key);
        delete(cf, key, 0, key.length);
    }

    /**
     * Deletes a key given as an array slice.
     *
     * @param cf the family
     * @param key the array
     * @param offset first key byte
     * @param length key length
     */
    public void delete(ColumnFamily cf, byte[] key, int offset, int length) {
        requireSlice(key, offset, length);
        int id = cfId(cf);
        guard.enter();
        try {
            Scratch s = Scratch.get(binding);
            NativeBuffer m = s.ensure(Scratch.DATA + (long) length, 0);
            m.buf.put(Scratch.DATA, key, offset, length);
            int rc = binding.delete(handle, id, m.addr + Scratch.DATA, length, s.err());
            if (rc != 0) {
                throw s.error(rc);
            }
        } finally {
            guard.exit();
        }
    }

    /**
     * Deletes a key given as a buffer (position to limit; not moved).
     *
     * @param cf the family
     * @param key the key
     */
    public void delete(ColumnFamily cf, ByteBuffer key) {
        Objects.requireNonNull(key, "key");
        byte[] k = new byte[key.remaining()];
        key.get(key.position(), k);
        delete(cf, k, 0, k.length);
    }

    /**
     * Deletes every key in {@code [begin, end)} of the default family. An empty range
     * ({@code begin >= end} in unsigned byte order, e.g. {@code end = new byte[0]}) is a no-op
     * on every engine.
     *
     * @param begin inclusive
     * @param end exclusive
     */
    public void deleteRange(byte[] begin, byte[] end) {
        deleteRange(defaultColumnFamily(), begin, end);
    }

    /**
     * Deletes every key in {@code [begin, end)}. Both bounds are keys compared as unsigned bytes;
     * an empty range ({@code begin >= end}, e.g. {@code end = new byte[0]}, the smallest key) is
     * a no-op on every engine and makes no native call.
     *
     * @param cf the family
     * @param begin inclusive
     * @param end exclusive
     */
    public void deleteRange(ColumnFamily cf, byte[] begin, byte[] end) {
        Objects.requireNonNull(begin, "begin");
        Objects.requireNonNull(end, "end");
        int id = cfId(cf);
        if (Arrays.compareUnsigned(begin, end) >= 0) {
            guard.check();
            return;
        }
        guard.enter();
        try {
            Scratch s = Scratch.get(binding);
            int eoff = align8(Scratch.DATA + begin.length);
            NativeBuffer m = s.ensure((long) eoff + end.length, 0);
            m.buf.put(Scratch.DATA, begin);
            m.buf.put(eoff, end);
            int rc = binding.deleteRange(handle, id, m.addr + Scratch.DATA, begin.length, m.addr + eoff, end.length, s.err());
            if (rc != 0) {
                throw s.error(rc);
            }
        } finally {
            guard.exit();
        }
    }

    /**
     * Applies a batch atomically in one native call.
     *
     * @param batch the batch (unchanged; can be reused)
     */
    public void write(WriteBatch batch) {
        Objects.requireNonNull(batch, "batch");
        ByteBuffer enc = batch.encoded();
        Store owner = batch.familiesOf();
        if (owner != null && owner != this) {
            throw new IllegalArgumentException("the batch names column families of another store");
        }
        int count = batch.count();
        int len = enc.position();
        guard.enter();
        try {
            Scratch s = Scratch.get(binding);
            NativeBuffer m = s.ensure(Scratch.DATA + (long) len, 0);
            m.buf.put(Scratch.DATA, enc, 0, len);
            int rc = binding.write(handle, m.addr + Scratch.DATA, len, count, s.err());
            if (rc != 0) {
                throw s.error(rc);
            }
        } finally {
            guard.exit();
        }
    }

    // ---- maintenance ----

    /**
     * Flushes the default family to disk: RocksDB writes its memtable to synced table files;
     * LMDB syncs the whole map. Writes acknowledged before the call then survive an OS crash or
     * power loss even with {@code syncWrites(false)} (on RocksDB: the default family's writes).
     */
    public void flush() {
        flush(defaultColumnFamily());
    }

    /**
     * Flushes one family to disk (RocksDB: its memtable to synced table files; LMDB: syncs the
     * whole map), as {@link #flush()}.
     *
     * @param cf the family
     */
    public void flush(ColumnFamily cf) {
        int id = cfId(cf);
        guard.enter();
        try {
            Scratch s = Scratch.get(binding);
            int rc = binding.flush(handle, id, s.err());
            if (rc != 0) {
                throw s.error(rc);
            }
        } finally {
            guard.exit();
        }
    }

    /** Compacts the whole default family (LMDB: nothing to do). */
    public void compactRange() {
        compactRange(defaultColumnFamily(), null, null);
    }

    /**
     * Compacts {@code [begin, end)} of a family; null bounds are open (LMDB: nothing to do).
     *
     * @param cf the family
     * @param begin inclusive bound or null
     * @param end exclusive bound or null
     */
    public void compactRange(ColumnFamily cf, byte[] begin, byte[] end) {
        int id = cfId(cf);
        guard.enter();
        try {
            Scratch s = Scratch.get(binding);
            int blen = begin == null ? 0 : begin.length;
            int eoff = align8(Scratch.DATA + blen);
            NativeBuffer m = s.ensure((long) eoff + (end == null ? 0 : end.length), 0);
            if (begin != null) {
                m.buf.put(Scratch.DATA, begin);
            }
            if (end != null) {
                m.buf.put(eoff, end);
            }
            int rc = binding.compactRange(handle, id, begin == null ? 0 : m.addr + Scratch.DATA, blen,
                    end == null ? 0 : m.addr + eoff, end == null ? 0 : end.length, s.err());
            if (rc != 0) {
                throw s.error(rc);
            }
        } finally {
            guard.exit();
        }
    }

    // ---- checkpoints ----

    /**
     * Writes a consistent point-in-time copy of the store into a new directory, as by
     * {@link #checkpoint(Path, boolean) checkpoint(dir, false)}.
     *
     * @param dir the directory to create; it must not exist (missing parents are created)
     * @throws FerryException.AlreadyExists when {@code dir} exists
     */
    public void checkpoint(Path dir) {
        checkpoint(dir, false);
    }

    /**
     * Writes a consistent point-in-time copy of the store into a new directory, which then opens
     * as a store of the same engine with every column family. Reads and writes go on meanwhile:
     * the copy holds every write that returned before this call and none that began after it
     * returned.
     *
     * <p>RocksDB: a checkpoint after a flush of every family: table files are hard links where
     * {@code dir} is on the store's file system (else copies), the log and manifest are copied; one
     * point in time across all families while the write-ahead log is on (with
     * {@code wal(false)}, each family holds what its flush captured). LMDB: a copy of the
     * environment as of one read transaction ({@code mdb_env_copy2} into {@code dir/data.mdb});
     * with {@code compact} the copy leaves out free pages ({@code MDB_CP_COMPACT}), so it can be
     * much smaller, and writers of this store wait until it is done.
     *
     * @param dir the directory to create; it must not exist (missing parents are created)
     * @param compact LMDB: compact the copy; must be false on RocksDB
     * @throws IllegalArgumentException when {@code compact} is true on a RocksDB store (an LMDB option)
     * @throws FerryException.AlreadyExists when {@code dir} exists
     */
    public void checkpoint(Path dir, boolean compact) {
        Objects.requireNonNull(dir, "dir");
        if (compact && engine != Engine.LMDB) {
            throw new IllegalArgumentException("checkpoint compact=true is an LMDB option (MDB_CP_COMPACT); this store is "
                    + "RocksDB, whose checkpoints hard-link their table files and have nothing to compact");
        }
        Path target = dir.toAbsolutePath().normalize();
        byte[] p = target.toString().getBytes(StandardCharsets.UTF_8);
        guard.enter();
        try {
            createParents(target);
            Scratch s = Scratch.get(binding);
            int rc = binding.checkpoint(handle, s.cString(p), compact ? Abi.CHECKPOINT_COMPACT : 0, s.err());
            if (rc != 0) {
                throw s.error(rc);
            }
        } finally {
            guard.exit();
        }
    }

    /** Creates the missing parents of {@code dir} (checkpoint and backup targets). */
    static void createParents(Path dir) {
        Path parent = dir.getParent();
        if (parent != null) {
            try {
                java.nio.file.Files.createDirectories(parent);
            } catch (java.io.IOException e) {
                throw FerryException.of(ErrorCode.IO_ERROR, 0, "cannot create " + parent + ": " + e);
            }
        }
    }

    /**
     * Reads a text property of the default family, e.g. {@code "rocksdb.stats"} or {@code "lmdb.stat"}.
     *
     * @param name the property
     * @return its value, or empty when the engine does not know it
     */
    public Optional<String> property(String name) {
        return property(defaultColumnFamily(), name);
    }

    /**
     * Reads a text property of a family.
     *
     * @param cf the family
     * @param name the property
     * @return its value, or empty when the engine does not know it
     */
    public Optional<String> property(ColumnFamily cf, String name) {
        byte[] n = Objects.requireNonNull(name, "name").getBytes(StandardCharsets.UTF_8);
        int id = cfId(cf);
        guard.enter();
        try {
            Scratch s = Scratch.get(binding);
            int cap = 64 * 1024;
            for (;;) {
                int dst = align8(Scratch.DATA + n.length + 1);
                NativeBuffer m = s.ensure((long) dst + cap, 0);
                m.putCString(Scratch.DATA, n);
                int rc = binding.property(handle, id, m.addr + Scratch.DATA, m.addr + dst, cap, s.out(0), s.err());
                if (rc == Abi.NOTFOUND) {
                    return Optional.empty();
                }
                if (rc != 0) {
                    throw s.error(rc);
                }
                long len = s.outLong(0);
                if (len < cap) {
                    return Optional.of(new String(m.bytes(dst, (int) len), StandardCharsets.UTF_8));
                }
                cap = (int) Math.min(Integer.MAX_VALUE - dst - 16, len + 1);
            }
        } finally {
            guard.exit();
        }
    }

    /**
     * Reads a numeric property, e.g. {@code "rocksdb.estimate-num-keys"}, {@code "lmdb.entries"}
     * or the engine-neutral {@code "ferry.estimate-num-keys"}.
     *
     * @param cf the family
     * @param name the property
     * @return its value, or empty when the engine does not know it
     */
    public OptionalLong propertyLong(ColumnFamily cf, String name) {
        byte[] n = Objects.requireNonNull(name, "name").getBytes(StandardCharsets.UTF_8);
        int id = cfId(cf);
        guard.enter();
        try {
            Scratch s = Scratch.get(binding);
            int rc = binding.propertyInt(handle, id, s.cString(n), s.out(0), s.err());
            if (rc == Abi.NOTFOUND) {
                return OptionalLong.empty();
            }
            if (rc != 0) {
                throw s.error(rc);
            }
            return OptionalLong.of(s.outLong(0));
        } finally {
            guard.exit();
        }
    }

    /** @return the engine's estimate of the number of keys in the default family */
    public long estimatedKeyCount() {
        return estimatedKeyCount(defaultColumnFamily());
    }

    /**
     * Estimates the number of keys (exact for LMDB; RocksDB's estimate counts overwrites and
     * deletes until compaction).
     *
     * @param cf the family
     * @return the estimate
     */
    public long estimatedKeyCount(ColumnFamily cf) {
        return propertyLong(cf, "ferry.estimate-num-keys").orElse(0);
    }

    // ---- snapshots, cursors ----

    /**
     * Takes a snapshot: a consistent read view of the current state, including the column
     * families that exist now (one created later cannot be read through it).
     *
     * @return the snapshot; close it to release engine resources
     */
    public Snapshot snapshot() {
        guard.enter();
        try {
            // families are numbered in creation order: those below this count exist in the snapshot
            int familyLimit = families.size();
            Scratch s = Scratch.get(binding);
            int rc = binding.snapshotOpen(handle, s.out(0), s.err());
            for (int attempt = 0; Readers.reclaim(rc, attempt); attempt++) { // leaked snapshots may hold LMDB's reader slots
                s.clearError();
                rc = binding.snapshotOpen(handle, s.out(0), s.err());
            }
            if (rc != 0) {
                throw s.error(rc);
            }
            long h = s.outLong(0);
            lifetime.pin();
            NativeBinding b = binding;
            Lifetime storeLifetime = lifetime;
            Once release = new Once(() -> { // captures no Store or Snapshot: a cleaner runs it
                b.snapshotClose(h);
                storeLifetime.unpin();
            });
            Snapshot snap;
            try {
                snap = new Snapshot(this, h, familyLimit, lmdbThreadBound, release);
            } catch (RuntimeException | Error e) {
                release.run();
                throw e;
            }
            snap.track(children);
            return snap;
        } finally {
            guard.exit();
        }
    }

    /** LMDB: how long one native wait for the write lock lasts before the store's state is checked again. */
    private static final long LOCK_SLICE_MS = 50;

    /**
     * Begins a write transaction (see {@link Transaction}). LMDB: waits while another thread's
     * transaction is open (only one writer at a time); RocksDB: needs a store opened with
     * {@link StoreOptions#transactions(TransactionMode)}.
     *
     * @return the transaction; commit it, and close it (closing without a commit rolls it back)
     * @throws FerryException.NotSupported on a RocksDB store opened without transactions
     * @throws FerryException.Busy on LMDB when this thread already holds the store's transaction
     *         (or one was abandoned on another thread, see {@link Transaction})
     * @throws FerryException.ReadOnly on a store opened read-only
     */
    public Transaction beginTransaction() {
        return beginTransaction(-1);
    }

    /**
     * Begins a write transaction, waiting at most {@code timeoutMillis}.
     *
     * @param timeoutMillis LMDB: how long to wait for the write lock while another transaction is
     *        open: -1 as long as it takes, 0 not at all ({@link FerryException.Busy} when it is held),
     *        more: that many ms ({@link FerryException.TimedOut}). RocksDB pessimistic: this
     *        transaction's lock timeout per key (-1: the store's {@link StoreOptions#lockTimeout});
     *        optimistic: ignored.
     * @return the transaction
     * @throws FerryException.TimedOut when the LMDB write lock was not free in time
     */
    public Transaction beginTransaction(long timeoutMillis) {
        if (timeoutMillis < -1) {
            throw new IllegalArgumentException("timeoutMillis=" + timeoutMillis + " (-1 = no limit)");
        }
        long deadline = timeoutMillis > 0 ? System.nanoTime() + timeoutMillis * 1_000_000L : 0;
        for (;;) {
            // LMDB waits in slices outside the store's guard, so that a close of the store is never
            // held up by a wait for the write lock (the transaction that holds it may be the closer's)
            long slice = timeoutMillis;
            if (engine == Engine.LMDB && timeoutMillis != 0) {
                long left = timeoutMillis < 0 ? LOCK_SLICE_MS : (deadline - System.nanoTime()) / 1_000_000L;
                slice = Math.max(1, Math.min(LOCK_SLICE_MS, left));
            }
            guard.enter();
            try {
                Scratch s = Scratch.get(binding);
                int rc = binding.txnBegin(handle, 0, slice, s.out(0), s.err());
                if (rc == Abi.ETIMEDOUT && engine == Engine.LMDB
                        && (timeoutMillis < 0 || System.nanoTime() - deadline < 0)) {
                    continue; // the finally below leaves the guard first
                }
                if (rc != 0) {
                    if (rc == Abi.ETIMEDOUT && engine == Engine.LMDB) {
                        throw FerryException.of(ErrorCode.TIMED_OUT, 0, "the LMDB store's write lock was not free within "
                                + timeoutMillis + " ms (another write transaction is open)");
                    }
                    throw s.error(rc);
                }
                long h = s.outLong(0);
                lifetime.pin();
                NativeBinding b = binding;
                Lifetime storeLifetime = lifetime;
                Once release = new Once(() -> { // captures no Store or Transaction: a cleaner runs it
                    b.txnClose(h);
                    storeLifetime.unpin();
                });
                Transaction t;
                try {
                    t = new Transaction(this, h, release);
                } catch (RuntimeException | Error e) {
                    release.run();
                    throw e;
                }
                t.track(children);
                return t;
            } finally {
                guard.exit();
            }
        }
    }

    /**
     * Runs a read-modify-write body in a transaction and commits it, again (in a new transaction,
     * after a short randomized pause) when it fails with a conflict that running it again can
     * resolve: {@link FerryException.Conflict}, {@link FerryException.Deadlock},
     * {@link FerryException.TimedOut}, and on LMDB with {@link StoreOptions#autoGrow}
     * {@link FerryException.MapFull} (the map grows when the failed transaction closes). At most 10
     * attempts; see {@link #inTransaction(int, java.util.function.Function)}.
     *
     * <pre>{@code
     * long next = store.inTransaction(txn -> {
     *     long n = decode(txn.getForUpdate(counter)) + 1;
     *     txn.put(counter, encode(n));
     *     return n;
     * });
     * }</pre>
     *
     * @param body reads and writes through the transaction and returns the result; it may run more
     *        than once, so it should have no other side effects (it may commit itself)
     * @param <T> the result type
     * @return what the body returned in the attempt that committed
     */
    public <T> T inTransaction(java.util.function.Function<Transaction, T> body) {
        return inTransaction(10, body);
    }

    /**
     * {@link #inTransaction(java.util.function.Function)} with at most {@code maxAttempts} attempts.
     *
     * @param maxAttempts attempts, at least 1
     * @param body the body
     * @param <T> the result type
     * @return what the body returned in the attempt that committed
     * @throws FerryException the last attempt's failure once the attempts are used up, or the first
     *         failure that is not a conflict; an exception of the body rolls back and is rethrown
     */
    public <T> T inTransaction(int maxAttempts, java.util.function.Function<Transaction, T> body) {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts=" + maxAttempts);
        }
        Objects.requireNonNull(body, "body");
        for (int attempt = 1;; attempt++) {
            try (Transaction txn = beginTransaction()) {
                T result = body.apply(txn);
                if (!txn.isEnded()) {
                    txn.commit();
                }
                return result;
            } catch (FerryException e) {
                if (attempt >= maxAttempts || !retryable(e)) {
                    throw e;
                }
            }
            backoff(attempt);
        }
    }

    private boolean retryable(FerryException e) {
        return e instanceof FerryException.Conflict || e instanceof FerryException.Deadlock
                || e instanceof FerryException.TimedOut
                || (e instanceof FerryException.MapFull && engine == Engine.LMDB && options.autoGrowStep > 0);
    }

    private static void backoff(int attempt) {
        long maxMicros = Math.min(50_000L, 100L << Math.min(attempt, 9));
        long micros = java.util.concurrent.ThreadLocalRandom.current().nextLong(maxMicros / 2, maxMicros + 1);
        java.util.concurrent.locks.LockSupport.parkNanos(micros * 1000L);
    }

    /** @return a cursor over all keys of the default family */
    public Cursor cursor() {
        return cursor(defaultColumnFamily(), KeyRange.all(), null);
    }

    /**
     * Opens a cursor over a range of the default family.
     *
     * @param range the range
     * @return the cursor
     */
    public Cursor cursor(KeyRange range) {
        return cursor(defaultColumnFamily(), range, null);
    }

    /**
     * Opens a cursor.
     *
     * @param cf the family
     * @param range the range
     * @param options cursor options, or null for defaults
     * @return the cursor
     */
    public Cursor cursor(ColumnFamily cf, KeyRange range, CursorOptions options) {
        return openTracked(cf, range, options, false);
    }

    /**
     * Visits every entry of a range of the default family in key order, a page per native call.
     *
     * @param range the range
     * @param visitor receives each entry; return false to stop
     * @return the number of entries visited
     */
    public long scan(KeyRange range, EntryVisitor visitor) {
        return scan(defaultColumnFamily(), range, visitor);
    }

    /**
     * Visits every entry of a range in key order, a page per native call.
     *
     * @param cf the family
     * @param range the range
     * @param visitor receives each entry; return false to stop
     * @return the number of entries visited
     */
    public long scan(ColumnFamily cf, KeyRange range, EntryVisitor visitor) {
        Objects.requireNonNull(visitor, "visitor");
        try (Cursor c = openTracked(cf, range, null, true)) {
            return drive(c, visitor);
        }
    }

    /** Opens a cursor on the latest state and tracks it, so closing the store closes it. */
    private Cursor openTracked(ColumnFamily cf, KeyRange range, CursorOptions options, boolean scanMode) {
        guard.enter();
        try {
            return openCursor(null, cf, range, options, scanMode);
        } finally {
            guard.exit();
        }
    }

    /** @return true once closed */
    public boolean isClosed() {
        return guard.isClosed();
    }

    /**
     * Closes the store: refuses new calls, waits for calls in flight, closes its cursors and
     * snapshots, then the engine. A cursor that another thread still owns keeps the engine open
     * until that thread next touches it (and gets an {@link IllegalStateException}) or drops
     * it, so a reader racing the close never reads freed memory. Idempotent.
     */
    @Override
    public void close() {
        if (guard.isClosed()) {
            return;
        }
        // Transactions first, before waiting for the calls in flight: an LMDB write waiting for the
        // write lock may wait for a transaction of this very thread (then it ends here) or of
        // another one (then it is abandoned, and the waiting writes fail instead of waiting).
        RuntimeException txnFailure = closeTransactions();
        if (!guard.close()) {
            return;
        }
        // keep closing the others and the engine; report the first failure at the end
        RuntimeException failure = children.closeAll();
        if (failure == null) {
            failure = txnFailure;
        }
        pages.clear();
        cleanable.clean(); // the owner's reference: the engine closes once no cursor or snapshot pins it
        if (failure != null) {
            throw failure;
        }
    }

    private RuntimeException closeTransactions() {
        RuntimeException[] failure = new RuntimeException[1];
        children.forEach(c -> {
            if (c instanceof Transaction) {
                try {
                    c.close();
                } catch (RuntimeException e) {
                    if (failure[0] == null) {
                        failure[0] = e;
                    }
                } catch (Exception e) {
                    if (failure[0] == null) {
                        failure[0] = new IllegalStateException(e);
                    }
                }
            }
        });
        return failure[0];
    }

    @Override
    public String toString() {
        return "Store[" + engine + ", " + path + ", " + binding.name() + (isClosed() ? ", closed" : "") + "]";
    }

    // ---- package internals ----

    static long drive(Cursor c, EntryVisitor visitor) {
        long n = 0;
        for (boolean ok = c.first(); ok; ok = c.next()) {
            n++;
            if (!visitor.visit(c.key(), c.value())) {
                break;
            }
        }
        return n;
    }

    Cursor openCursor(Snapshot snap, ColumnFamily cf, KeyRange range, CursorOptions options, boolean scanMode) {
        return snap == null ? openCursor(0, children, lifetime, cf, range, options, scanMode)
                : openCursor(snap.handle, snap.cursors, snap.lifetime, cf, range, options, scanMode);
    }

    /**
     * Opens a cursor reading through {@code view} (a snapshot's or transaction's handle, or 0 for
     * the latest state), tracked in {@code siblings} and pinning {@code parent}.
     */
    Cursor openCursor(long view, Children siblings, Lifetime parent, ColumnFamily cf, KeyRange range,
                      CursorOptions options, boolean scanMode) {
        Objects.requireNonNull(range, "range");
        int id = cfId(cf);
        CursorOptions o = options == null ? CursorOptions.defaults() : options;
        byte[] lo = range.lowerRef();
        byte[] hi = range.upperRef();
        Scratch s = Scratch.get(binding);
        int loLen = lo == null ? 0 : lo.length;
        int hiOff = s.putTwo(lo, hi);
        NativeBuffer m = s.mem;
        int flags = (o.pointers ? Abi.CURSOR_POINTERS : 0) | (o.fillCache ? 0 : Abi.CURSOR_NO_FILL_CACHE)
                | (o.pageWalk ? 0 : Abi.CURSOR_ENGINE_STEPS);
        long snapHandle = view;
        long loAddr = lo == null ? 0 : m.addr + Scratch.DATA;
        long hiAddr = hi == null ? 0 : m.addr + hiOff;
        int hiLen = hi == null ? 0 : hi.length;
        int rc = binding.cursorOpen(handle, snapHandle, id, loAddr, loLen, hiAddr, hiLen, flags, s.out(0), s.err());
        for (int attempt = 0; Readers.reclaim(rc, attempt); attempt++) { // leaked cursors may hold LMDB's reader slots
            s.clearError();
            rc = binding.cursorOpen(handle, snapHandle, id, loAddr, loLen, hiAddr, hiLen, flags, s.out(0), s.err());
        }
        if (rc != 0) {
            throw s.error(rc);
        }
        long h = s.outLong(0);
        parent.pin();
        StoreCursorHost host = new StoreCursorHost(this, siblings, parent);
        Once release = new Once(host.release(h));
        Cursor c;
        try {
            c = new Cursor(host, h, release, range, o.pageSize > 0 ? o.pageSize : options().pageSize, scanMode, false);
        } catch (RuntimeException | Error e) {
            release.run();
            throw e;
        }
        // from here the cursor's cleaner owns the release; tracking is weak
        host.track(c);
        return c;
    }

    byte[] getImpl(long snap, int cf, byte[] key, int koff, int klen) {
        return PointReads.get(binding, (k, kl, d, c, vo, e) -> binding.get(handle, snap, cf, k, kl, d, c, vo, e), key, koff, klen);
    }

    int getIntoImpl(long snap, int cf, ByteBuffer key, ByteBuffer into) {
        return PointReads.getInto(binding, (k, kl, d, c, vo, e) -> binding.get(handle, snap, cf, k, kl, d, c, vo, e), key, into);
    }

    List<byte[]> multiGetImpl(long snap, int cf, List<byte[]> keys) {
        return PointReads.multiGet(binding, (n, k, kl, d, c, lo, e) -> binding.multiGet(handle, snap, cf, n, k, kl, d, c, lo, e), keys);
    }

    int cfId(ColumnFamily cf) {
        Objects.requireNonNull(cf, "column family");
        if (cf.store != this) {
            throw new IllegalArgumentException(cf + " belongs to another store");
        }
        if (cf.dropped) {
            guard.check();
            throw new IllegalStateException(cf + " was dropped");
        }
        return cf.id;
    }

    StoreOptions options() {
        return options;
    }

    /**
     * Runs a native call on this store's handle while the store cannot close.
     *
     * @param call gets the handle, returns an rc
     * @return the rc
     * @throws IllegalStateException when the store is closed
     */
    int withHandle(java.util.function.LongToIntFunction call) {
        guard.enter();
        try {
            return call.applyAsInt(handle);
        } finally {
            guard.exit();
        }
    }

    NativeBuffer takePage(int size) {
        NativeBuffer p = pages.pollFirst();
        while (p != null && p.cap != size) {
            p = pages.pollFirst();
        }
        return p != null ? p : NativeBuffer.allocate(binding, size);
    }

    void returnPage(NativeBuffer p) {
        if (p != null && p.cap == options.pageSize + Cursor.AUX && pages.size() < MAX_POOLED_PAGES && !guard.isClosed()) {
            pages.offerFirst(p);
        }
    }


    static byte[] requireKey(byte[] key) {
        return Objects.requireNonNull(key, "key");
    }

    private static void requireSlice(byte[] a, int off, int len) {
        Objects.requireNonNull(a, "array");
        Objects.checkFromIndexSize(off, len, a.length);
    }

    private static int align8(int v) {
        return (v + 7) & ~7;
    }

    private void loadFamilies() {
        Scratch s = Scratch.get(binding);
        int rc = binding.cfCount(handle, s.out(0));
        if (rc != 0) {
            throw s.error(rc);
        }
        int n = (int) (s.outLong(0) & 0xFFFFFFFFL);
        int cap = 4096;
        for (int i = 0; i < n; i++) {
            NativeBuffer m = s.ensure(Scratch.DATA + (long) cap, 0);
            rc = binding.cfName(handle, i, m.addr + Scratch.DATA, cap, s.out(1));
            if (rc != 0 && rc != Abi.ECFDROPPED) {
                throw s.error(rc);
            }
            if (s.outLong(1) >= cap) { // a longer name (RocksDB): read it again whole
                cap = (int) Math.min(Integer.MAX_VALUE - Scratch.DATA - 16L, s.outLong(1) + 1);
                i--;
                continue;
            }
            int len = (int) s.outLong(1);
            ColumnFamily cf = new ColumnFamily(this, i, new String(m.bytes(Scratch.DATA, len), StandardCharsets.UTF_8));
            cf.dropped = rc == Abi.ECFDROPPED;
            families.add(cf);
        }
    }
}
