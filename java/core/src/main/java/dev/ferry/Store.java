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
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.LongConsumer;

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
    /**
     * Stores closed while a cursor of another thread still pinned their engine (see {@link #close()}), by
     * path: only to say so when a new open of the path is refused as busy. Pruned as engines go.
     */
    private static final ConcurrentHashMap<Path, List<Lifetime>> HELD_AFTER_CLOSE = new ConcurrentHashMap<>();
    /** Releases cursors, snapshots and stores that became unreachable without being closed. */
    static final Cleaner CLEANER = Cleaner.create();

    final NativeBinding binding;
    private final Engine engine;
    private final Path path;
    private final Guard guard = new Guard("store", true);
    private final long handle;
    private final StoreOptions options;
    private final boolean statisticsOn; // as opened (options may be changed later)
    private final boolean lmdbThreadBound;
    private final List<ColumnFamily> families = new CopyOnWriteArrayList<>();
    /** Every family of the store has its ColumnFamily (see {@link #listAllFamilies()}). */
    private volatile boolean familiesListed;
    /** Open cursors (on the latest state) and snapshots, held weakly. */
    final Children children = new Children();
    /** The first page size after a cursor's positioning call, learnt from earlier cursors. */
    final SeekRuns seekRuns = new SeekRuns();
    /** Reclaims this store's LMDB reader slots held by leaked cursors and snapshots. */
    private final Readers readers;
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
        this.statisticsOn = options.statistics;
        this.handle = handle;
        this.lmdbThreadBound = engine == Engine.LMDB && !options.lmdbFlags.contains(LmdbFlag.NOTLS);
        this.readers = engine == Engine.LMDB ? new Readers() : Readers.NONE;
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
        try {
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
        } catch (FerryException.Busy e) {
            if (!heldAfterClose(key)) {
                throw e;
            }
            throw FerryException.of(ErrorCode.BUSY, e.engineCode(), e.getMessage() + "; that Store was closed, but a"
                    + " cursor that another thread owns still holds its engine open: the engine closes when that thread"
                    + " next uses the cursor (which throws IllegalStateException) or lets it go");
        }
    }

    /** Records a store closed while its engine stays open for a cursor of another thread; prunes released ones. */
    private static void noteHeldAfterClose(Path path, Lifetime lifetime) {
        for (Path p : HELD_AFTER_CLOSE.keySet()) {
            HELD_AFTER_CLOSE.computeIfPresent(p, (k, v) -> {
                List<Lifetime> live = v.stream().filter(l -> !l.released()).toList();
                return live.isEmpty() ? null : live;
            });
        }
        HELD_AFTER_CLOSE.compute(path, (k, v) -> {
            List<Lifetime> l = new ArrayList<>(v == null ? List.of() : v);
            l.add(lifetime);
            return List.copyOf(l);
        });
    }

    private static boolean heldAfterClose(Path path) {
        List<Lifetime> l = HELD_AFTER_CLOSE.get(path);
        return l != null && l.stream().anyMatch(x -> !x.released());
    }

    private static Store openNative(NativeBinding b, Path path, StoreOptions options) {
        byte[] p = path.toAbsolutePath().toString().getBytes(StandardCharsets.UTF_8);
        String options0 = options.nativeOptionsString();
        byte[] extra = options0 == null ? null : options0.getBytes(StandardCharsets.UTF_8);
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
        int rc;
        if (options.familyOptions.isEmpty()) {
            rc = b.storeOpen(options.engine.id(), m.addr + pathOff, m.addr + optsOff, o.length,
                    extra == null ? 0 : m.addr + extraOff, s.out(0), s.err());
        } else {
            byte[] cfs = familyRecords(options);
            int cfsOff = (extraOff + (extra == null ? 0 : extra.length + 1) + 7) & ~7;
            m = s.ensure((long) cfsOff + cfs.length, cfsOff);
            m.buf.put(cfsOff, cfs);
            rc = b.storeOpen2(options.engine.id(), m.addr + pathOff, m.addr + optsOff, o.length,
                    extra == null ? 0 : m.addr + extraOff, m.addr + cfsOff, cfs.length, options.familyOptions.size(),
                    s.out(0), s.err());
        }
        if (rc != 0) {
            throw s.error(rc);
        }
        long h = s.outLong(0);
        Engine engine = options.engine;
        Once release = new Once(() -> {
            int closed = b.storeClose(h);
            // EBUSY: an LMDB write transaction of another thread kept the environment open (only
            // that thread may end it), so the path stays open in this process
            if (engine == Engine.LMDB && closed != Abi.EBUSY) {
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

    /** @return ferry_store_open2's family records for the options' per-family entries */
    private static byte[] familyRecords(StoreOptions options) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (java.util.Map.Entry<String, ColumnFamilyOptions> e : options.familyOptions.entrySet()) {
            byte[] name = e.getKey().getBytes(StandardCharsets.UTF_8);
            String x = e.getValue().nativeOptionsString();
            byte[] extra = x == null ? new byte[0] : x.getBytes(StandardCharsets.UTF_8);
            ByteBuffer h = ByteBuffer.allocate(Abi.CFDESC_HEADER).order(java.nio.ByteOrder.nativeOrder());
            h.putInt(name.length).putInt(extra.length);
            for (long v : e.getValue().toNative()) {
                h.putLong(v);
            }
            out.write(h.array(), 0, Abi.CFDESC_HEADER);
            out.write(name, 0, name.length);
            out.write(extra, 0, extra.length);
        }
        return out.toByteArray();
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

    /**
     * Lists the live (not dropped) column families, the default one first. On an LMDB store whose
     * default family held more than 1,000 records at open ({@code FERRY_LMDB_FAMILY_SCAN_MAX} of the
     * C ABI), the first call reads every key of the default family to find the others (LMDB keeps
     * them as its records), which the open skipped; {@link #columnFamily(String)} finds one by name
     * without that.
     *
     * @return the families
     */
    public List<ColumnFamily> columnFamilies() {
        guard.check();
        listAllFamilies();
        List<ColumnFamily> r = new ArrayList<>();
        for (ColumnFamily cf : families) {
            if (!cf.dropped) {
                r.add(cf);
            }
        }
        return Collections.unmodifiableList(r);
    }

    /**
     * Finds a column family by name. An LMDB family that the open did not list (see {@link
     * #columnFamilies()}) is looked up in the store and gets its id now: a snapshot, transaction
     * or cursor begun before reads it as it reads families created after it began, not at all.
     *
     * @param name the name
     * @return the family, or empty when none has that name
     * @throws FerryException with {@link ErrorCode#TOO_MANY_COLUMN_FAMILIES} when the family exists
     *         but {@link StoreOptions#maxColumnFamilies(int)} families are live already
     */
    public Optional<ColumnFamily> columnFamily(String name) {
        Objects.requireNonNull(name, "name");
        guard.check();
        Optional<ColumnFamily> known = liveFamily(name);
        if (known.isPresent() || familiesListed || name.isEmpty() || name.indexOf('\0') >= 0) {
            return known;
        }
        synchronized (this) {
            known = liveFamily(name);
            if (known.isPresent()) {
                return known;
            }
            guard.enter();
            try {
                Scratch s = Scratch.get(binding);
                int rc = binding.cfFind(handle, s.cString(name.getBytes(StandardCharsets.UTF_8)), s.out(0), s.err());
                if (rc == Abi.NOTFOUND) {
                    return Optional.empty();
                }
                if (rc != 0) {
                    throw s.error(rc);
                }
                int id = (int) (s.outLong(0) & 0xFFFFFFFFL);
                loadFamilies();
                ColumnFamily cf = families.get(id);
                return cf.dropped ? Optional.empty() : Optional.of(cf);
            } finally {
                guard.exit();
            }
        }
    }

    private Optional<ColumnFamily> liveFamily(String name) {
        for (ColumnFamily cf : families) {
            if (!cf.dropped && cf.name().equals(name)) {
                return Optional.of(cf);
            }
        }
        return Optional.empty();
    }

    /** Gives every family in the store an id (LMDB: once, see {@link #columnFamilies()}). */
    private void listAllFamilies() {
        if (familiesListed) {
            return;
        }
        synchronized (this) {
            if (familiesListed) {
                return;
            }
            guard.enter();
            try {
                Scratch s = Scratch.get(binding);
                int rc = binding.cfListAll(handle, s.err());
                if (rc != 0) {
                    throw s.error(rc);
                }
                loadFamilies();
                familiesListed = true;
            } finally {
                guard.exit();
            }
        }
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
        return createColumnFamily(name, EnumSet.noneOf(ColumnFamilyFlag.class));
    }

    /**
     * Creates a column family with flags, e.g. an LMDB family with duplicate keys:
     * {@code createColumnFamily("tags", EnumSet.of(ColumnFamilyFlag.DUPSORT))}. The flags are kept
     * with the family: when the store is opened again the family has the flags it was created with
     * ({@link ColumnFamily#flags()}); they cannot be changed.
     *
     * @param name as for {@link #createColumnFamily(String)}
     * @param flags the flags (empty: a plain family); {@link ColumnFamilyFlag#DUPFIXED} needs
     *        {@link ColumnFamilyFlag#DUPSORT}
     * @return the new family
     * @throws IllegalArgumentException for a name the engine cannot store, or DUPFIXED without DUPSORT
     * @throws FerryException.NotSupported for any flag on RocksDB (it keeps one value per key)
     * @throws FerryException.AlreadyExists when it exists
     */
    public synchronized ColumnFamily createColumnFamily(String name, Set<ColumnFamilyFlag> flags) {
        return createColumnFamily(name, flags, ColumnFamilyOptions.of());
    }

    /**
     * Creates a RocksDB column family with options of its own (compression, bloom filter, block
     * size, prefix extractor, merge operator; unset ones are the store's). RocksDB needs them again
     * at every open: give them with {@link StoreOptions#columnFamily(String, ColumnFamilyOptions)}
     * (see {@link ColumnFamilyOptions}).
     *
     * @param name as for {@link #createColumnFamily(String)}
     * @param options the family's options
     * @return the new family
     * @throws IllegalArgumentException for a name the engine cannot store
     * @throws FerryException.NotSupported on LMDB for options with any setting (LMDB has none of them;
     *         {@link ColumnFamilyOptions#of()} creates a plain family)
     * @throws FerryException.AlreadyExists when it exists
     */
    public synchronized ColumnFamily createColumnFamily(String name, ColumnFamilyOptions options) {
        return createColumnFamily(name, EnumSet.noneOf(ColumnFamilyFlag.class), options);
    }

    private ColumnFamily createColumnFamily(String name, Set<ColumnFamilyFlag> flags, ColumnFamilyOptions options) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(flags, "flags");
        Objects.requireNonNull(options, "options");
        if (flags.contains(ColumnFamilyFlag.DUPFIXED) && !flags.contains(ColumnFamilyFlag.DUPSORT)) {
            throw new IllegalArgumentException("column family flag DUPFIXED needs DUPSORT");
        }
        int mask = ColumnFamilyFlag.mask(flags);
        if (mask != 0 && engine != Engine.LMDB) {
            guard.check();
            throw FerryException.of(ErrorCode.NOT_SUPPORTED, 0, "column family flags " + flags + " are LMDB's: "
                    + engine + " keeps one value per key");
        }
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
            int rc;
            if (options.isEmpty()) {
                rc = mask == 0 ? binding.cfCreate(handle, s.cString(n), s.out(0), s.err())
                        : binding.cfCreate2(handle, s.cString(n), mask, s.out(0), s.err());
            } else {
                long[] o = options.toNative();
                String x = options.nativeOptionsString();
                byte[] extra = x == null ? null : x.getBytes(StandardCharsets.UTF_8);
                int optsOff = (Scratch.DATA + n.length + 1 + 7) & ~7;
                int extraOff = optsOff + 8 * o.length;
                NativeBuffer m = s.ensure((long) extraOff + (extra == null ? 0 : extra.length + 1), 0);
                m.putCString(Scratch.DATA, n);
                for (int i = 0; i < o.length; i++) {
                    m.buf.putLong(optsOff + 8 * i, o[i]);
                }
                if (extra != null) {
                    m.putCString(extraOff, extra);
                }
                rc = binding.cfCreate3(handle, m.addr + Scratch.DATA, mask, m.addr + optsOff, o.length,
                        extra == null ? 0 : m.addr + extraOff, s.out(0), s.err());
            }
            if (rc != 0) {
                throw s.error(rc);
            }
            int id = (int) (s.outLong(0) & 0xFFFFFFFFL);
            if (id != families.size()) { // not expected: every slot is made under this store's lock
                loadFamilies();
                return families.get(id);
            }
            ColumnFamily cf = new ColumnFamily(this, id, name, mask);
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
        return multiGet(cf, keys, ReadOptions.DEFAULT);
    }

    /**
     * Reads a key with read options ({@link ReadOptions}: RocksDB's fillCache and verifyChecksums).
     *
     * @param cf the family
     * @param key the key
     * @param options the read options
     * @return a copy of the value, or null when absent
     */
    public byte[] get(ColumnFamily cf, byte[] key, ReadOptions options) {
        requireKey(key);
        Objects.requireNonNull(options, "options");
        int id = cfId(cf);
        guard.enter();
        try {
            return getImpl(0, id, key, 0, key.length, options);
        } finally {
            guard.exit();
        }
    }

    /**
     * Reads many keys with read options ({@link ReadOptions}).
     *
     * @param cf the family
     * @param keys the keys
     * @param options the read options
     * @return values in key order, null for absent keys
     */
    public List<byte[]> multiGet(ColumnFamily cf, List<byte[]> keys, ReadOptions options) {
        Objects.requireNonNull(options, "options");
        int id = cfId(cf);
        guard.enter();
        try {
            return multiGetImpl(0, id, keys, options);
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
     * Writes a key with per-write options (see {@link WriteOptions} for what each does per engine).
     *
     * @param cf the family
     * @param key the key
     * @param value the value
     * @param options the options
     * @return true when written; false when {@link WriteOptions#noOverwrite(boolean) noOverwrite}
     *         found the key, or {@link WriteOptions#noDupData(boolean) noDupData} the (key, value)
     *         pair, already there (nothing was written)
     * @throws FerryException.NotSupported for LMDB-only options on RocksDB
     * @throws FerryException.InvalidArgument for an {@link WriteOptions#append(boolean) append} out of
     *         order, or noDupData on a family without duplicates
     */
    public boolean put(ColumnFamily cf, byte[] key, byte[] value, WriteOptions options) {
        requireKey(key);
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(options, "options");
        int id = cfId(cf);
        guard.enter();
        try {
            Scratch s = Scratch.get(binding);
            int voff = align8(Scratch.DATA + key.length);
            NativeBuffer m = s.ensure((long) voff + value.length, 0);
            m.buf.put(Scratch.DATA, key, 0, key.length);
            m.buf.put(voff, value, 0, value.length);
            int rc = binding.put2(handle, id, m.addr + Scratch.DATA, key.length, m.addr + voff, value.length,
                    options.flags(), s.err());
            if (rc == Abi.EKEYEXIST) {
                return false;
            }
            if (rc != 0) {
                throw s.error(rc);
            }
            return true;
        } finally {
            guard.exit();
        }
    }

    /**
     * Deletes one value of a key in an LMDB {@link ColumnFamilyFlag#DUPSORT} family (an absent
     * pair is fine); the key's other values stay. {@link #delete(ColumnFamily, byte[])} removes the
     * key with all its values.
     *
     * @param cf a DUPSORT family
     * @param key the key
     * @param value the value to remove
     * @throws FerryException.InvalidArgument when the family is not DUPSORT
     * @throws FerryException.NotSupported on RocksDB
     */
    public void delete(ColumnFamily cf, byte[] key, byte[] value) {
        requireKey(key);
        Objects.requireNonNull(value, "value");
        try (WriteBatch b = new WriteBatch()) {
            write(b.delete(cf, key, value));
        }
    }

    /**
     * Counts the values of a key: in an LMDB {@link ColumnFamilyFlag#DUPSORT} family the number of
     * its duplicates, elsewhere 1 when the key is present.
     *
     * @param cf the family
     * @param key the key
     * @return the count, 0 when the key is absent
     */
    public long valueCount(ColumnFamily cf, byte[] key) {
        requireKey(key);
        int id = cfId(cf);
        guard.enter();
        try {
            return valueCountImpl(0, id, key);
        } finally {
            guard.exit();
        }
    }

    long valueCountImpl(long snap, int cf, byte[] key) {
        Scratch s = Scratch.get(binding);
        NativeBuffer m = s.ensure(Scratch.DATA + (long) key.length, 0);
        m.buf.put(Scratch.DATA, key, 0, key.length);
        int rc = binding.valueCount(handle, snap, cf, m.addr + Scratch.DATA, key.length, s.out(0), s.err());
        if (rc != 0) {
            throw s.error(rc);
        }
        return s.outLong(0);
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
     * Merges an operand into a key of the default family with the store's merge operator
     * ({@link StoreOptions#mergeOperator(MergeOperator)}).
     *
     * @param key the key
     * @param operand the operand, in the operator's format (e.g. 8 bytes little-endian for
     *        {@link MergeOperator#UINT64_ADD})
     * @throws FerryException.NotSupported on LMDB (no merge operators) and on a RocksDB store opened
     *         without a merge operator
     */
    public void merge(byte[] key, byte[] operand) {
        merge(defaultColumnFamily(), key, operand);
    }

    /**
     * Merges an operand into a key with the store's merge operator
     * ({@link StoreOptions#mergeOperator(MergeOperator)}). RocksDB combines the operands with the
     * key's value when it is read or compacted.
     *
     * <pre>{@code
     * try (Store s = Store.open(dir, StoreOptions.rocksdb().mergeOperator(MergeOperator.UINT64_ADD))) {
     *     byte[] one = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(1).array();
     *     s.merge(s.defaultColumnFamily(), "hits".getBytes(), one);
     * }
     * }</pre>
     *
     * @param cf the family
     * @param key the key
     * @param operand the operand, in the operator's format
     * @throws FerryException.NotSupported on LMDB (no merge operators) and on a RocksDB store opened
     *         without a merge operator
     */
    public void merge(ColumnFamily cf, byte[] key, byte[] operand) {
        requireKey(key);
        Objects.requireNonNull(operand, "operand");
        int id = cfId(cf);
        guard.enter();
        try {
            Scratch s = Scratch.get(binding);
            int voff = align8(Scratch.DATA + key.length);
            NativeBuffer m = s.ensure((long) voff + operand.length, 0);
            m.buf.put(Scratch.DATA, key, 0, key.length);
            m.buf.put(voff, operand, 0, operand.length);
            int rc = binding.merge(handle, id, m.addr + Scratch.DATA, key.length, m.addr + voff, operand.length, s.err());
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
        write(batch, WriteOptions.DEFAULT);
    }

    /**
     * Applies a batch atomically with per-write options (see {@link WriteOptions}); noOverwrite,
     * noDupData and append apply to every put of the batch.
     *
     * @param batch the batch (unchanged; can be reused)
     * @param options the options
     * @throws FerryException.KeyExists when noOverwrite or noDupData met an existing key or pair:
     *         nothing of the batch was written, the message names the record
     * @throws FerryException.NotSupported for LMDB-only options on RocksDB
     */
    public void write(WriteBatch batch, WriteOptions options) {
        Objects.requireNonNull(batch, "batch");
        Objects.requireNonNull(options, "options");
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
            int flags = options.flags();
            int rc = flags == 0 ? binding.write(handle, m.addr + Scratch.DATA, len, count, s.err())
                    : binding.write2(handle, m.addr + Scratch.DATA, len, count, flags, s.err());
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

    /**
     * Adds finished SST files (from {@link SstFileWriter}, or RocksJava's {@code SstFileWriter}) to
     * a column family of a RocksDB store: their entries become visible at once, as one write newer
     * than every entry already in the family, without passing through the memtable and the
     * write-ahead log.
     *
     * @param cf the family
     * @param files the files; their key ranges must not overlap one another
     * @param move true: hard-link the files into the store (they leave {@code files}' paths, and
     *        must be on the store's file system); false: copy them
     * @throws IllegalArgumentException when {@code files} is empty
     * @throws FerryException.NotSupported on LMDB, which has no table files (load with a {@link WriteBatch})
     * @throws FerryException when RocksDB refuses (a missing file: {@link FerryException.IOError};
     *         overlapping files: {@link FerryException.InvalidArgument})
     */
    public void ingest(ColumnFamily cf, java.util.List<Path> files, boolean move) {
        Objects.requireNonNull(files, "files");
        if (files.isEmpty()) {
            throw new IllegalArgumentException("no files to ingest");
        }
        java.io.ByteArrayOutputStream paths = new java.io.ByteArrayOutputStream();
        for (Path f : files) {
            byte[] p = Objects.requireNonNull(f, "file").toAbsolutePath().normalize().toString().getBytes(StandardCharsets.UTF_8);
            for (byte c : p) {
                if (c == 0) {
                    throw new IllegalArgumentException("NUL character in file name " + f);
                }
            }
            paths.write(p, 0, p.length);
            paths.write(0);
        }
        byte[] all = paths.toByteArray();
        int id = cfId(cf);
        guard.enter();
        try {
            Scratch s = Scratch.get(binding);
            NativeBuffer m = s.ensure(Scratch.DATA + (long) all.length, 0);
            m.buf.put(Scratch.DATA, all);
            int rc = binding.ingest(handle, id, m.addr + Scratch.DATA, all.length, files.size(),
                    move ? Abi.INGEST_MOVE : 0, s.err());
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
     * RocksDB's statistics now: tickers and histograms since the store opened, by RocksDB's names.
     *
     * @return a snapshot of the statistics
     * @throws IllegalStateException when the store was opened without {@link StoreOptions#statistics(boolean)},
     *         or is closed
     * @throws FerryException.NotSupported on LMDB (see {@link #lmdbStats(ColumnFamily)})
     */
    public Statistics statistics() {
        if (engine != Engine.ROCKSDB) {
            throw FerryException.of(ErrorCode.NOT_SUPPORTED, 0, "statistics() reads RocksDB's tickers and histograms; "
                    + "LMDB keeps none: use lmdbStats(cf) for its page and reader counts");
        }
        if (!statisticsOn) {
            guard.enter(); // a closed store says so first
            guard.exit();
            throw new IllegalStateException("statistics are off: open the store with StoreOptions.statistics(true)");
        }
        String text = property(defaultColumnFamily(), "rocksdb.options-statistics")
                .orElseThrow(() -> new IllegalStateException("RocksDB reports no statistics"));
        return Statistics.parse(text);
    }

    /**
     * LMDB's statistics of a column family's B+tree (page size, depth, branch, leaf and overflow
     * pages, entries) and of the environment (map size, last page, last transaction, readers),
     * read now.
     *
     * @param cf the family
     * @return the statistics
     * @throws FerryException.NotSupported on RocksDB (see {@link #statistics()} and {@link #property(String)})
     */
    public LmdbStats lmdbStats(ColumnFamily cf) {
        if (engine != Engine.LMDB) {
            throw FerryException.of(ErrorCode.NOT_SUPPORTED, 0, "lmdbStats reads LMDB's mdb_stat and mdb_env_info; "
                    + "for RocksDB use statistics() (with StoreOptions.statistics(true)) and property(...)");
        }
        String stat = property(cf, "lmdb.stat").orElseThrow(() -> new IllegalStateException("no lmdb.stat"));
        String info = property(cf, "lmdb.info").orElseThrow(() -> new IllegalStateException("no lmdb.info"));
        return LmdbStats.parse(stat, info);
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
            for (int attempt = 0; readers.reclaim(rc, attempt); attempt++) { // leaked snapshots may hold LMDB's reader slots
                s.clearError();
                rc = binding.snapshotOpen(handle, s.out(0), s.err());
            }
            if (rc != 0) {
                throw s.error(rc);
            }
            long h = s.outLong(0);
            Snapshot snap = adopt(h, binding::snapshotClose, release -> new Snapshot(this, h, familyLimit, lmdbThreadBound, release));
            snap.track(children);
            return snap;
        } finally {
            guard.exit();
        }
    }

    /**
     * Wraps a native child just opened (a snapshot, a transaction): pins the store's lifetime and
     * builds the child around a release that closes the handle and unpins. The release captures
     * no Store and no child (a cleaner runs it when a child is dropped unclosed); a child that
     * fails to construct is released here.
     *
     * @param h the native handle
     * @param closeNative closes the handle (a method of the binding)
     * @param make builds the child around its release
     * @param <T> the child's type
     * @return the child
     */
    private <T> T adopt(long h, LongConsumer closeNative, Function<Once, T> make) {
        lifetime.pin();
        Lifetime storeLifetime = lifetime;
        Once release = new Once(() -> {
            closeNative.accept(h);
            storeLifetime.unpin();
        });
        try {
            return make.apply(release);
        } catch (RuntimeException | Error e) {
            release.run();
            throw e;
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
                Transaction t = adopt(h, binding::txnClose, release -> new Transaction(this, h, release));
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
     * Splits a range into at most {@code n} contiguous, non-overlapping sub-ranges whose union is
     * exactly {@code range}, balanced on the store's current state: {@link Snapshot#split} through a
     * snapshot taken for the call.
     *
     * @param cf the family
     * @param range the range to split
     * @param n the largest number of sub-ranges wanted (at least 1)
     * @return the sub-ranges, in key order
     */
    public java.util.List<KeyRange> split(ColumnFamily cf, KeyRange range, int n) {
        try (Snapshot s = snapshot()) {
            return s.split(cf, range, n);
        }
    }

    /**
     * Visits every entry of a range on several threads, all reading one snapshot taken for the
     * call: {@link Snapshot#parallelScan}.
     *
     * @param cf the family
     * @param range the range
     * @param threads threads to read with, the caller's included (at least 1)
     * @param visitors gives a visitor for each sub-range, called on the thread that visits it
     * @return the number of entries visited
     */
    public long parallelScan(ColumnFamily cf, KeyRange range, int threads,
                             java.util.function.Supplier<? extends EntryVisitor> visitors) {
        java.util.Objects.requireNonNull(visitors, "visitors");
        if (threads < 1) {
            throw new IllegalArgumentException("threads=" + threads + " (at least 1)");
        }
        try (Snapshot s = snapshot()) {
            return s.parallelScan(cf, range, threads, visitors);
        }
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
     * it, so a reader racing the close never reads freed memory; until then {@link #open} of the same
     * directory (for writing; on LMDB, at all) throws {@link FerryException.Busy} saying so. Idempotent.
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
        if (!lifetime.released()) {
            noteHeldAfterClose(path, lifetime);
        }
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
                | (o.pageWalk ? 0 : Abi.CURSOR_ENGINE_STEPS) | (o.verifyChecksums ? 0 : Abi.CURSOR_NO_VERIFY_CHECKSUMS)
                | (o.asyncIo ? Abi.CURSOR_ASYNC_IO : 0) | (o.autoPrefixMode ? Abi.CURSOR_AUTO_PREFIX : 0);
        long snapHandle = view;
        long loAddr = lo == null ? 0 : m.addr + Scratch.DATA;
        long hiAddr = hi == null ? 0 : m.addr + hiOff;
        int hiLen = hi == null ? 0 : hi.length;
        int rc = binding.cursorOpen(handle, snapHandle, id, loAddr, loLen, hiAddr, hiLen, flags, s.out(0), s.err());
        for (int attempt = 0; readers.reclaim(rc, attempt); attempt++) { // leaked cursors may hold LMDB's reader slots
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
            c.pairSeeks = cf.hasDuplicates();
        } catch (RuntimeException | Error e) {
            release.run();
            throw e;
        }
        // from here the cursor's cleaner owns the release; tracking is weak
        host.track(c);
        return c;
    }

    byte[] getImpl(long snap, int cf, byte[] key, int koff, int klen, ReadOptions options) {
        int flags = options.flags();
        if (flags == 0) {
            return getImpl(snap, cf, key, koff, klen);
        }
        return PointReads.get(binding, readers, (k, kl, d, c, vo, e) -> binding.get2(handle, snap, cf, k, kl, flags, d, c, vo, e),
                key, koff, klen);
    }

    List<byte[]> multiGetImpl(long snap, int cf, List<byte[]> keys, ReadOptions options) {
        int flags = options.flags();
        if (flags == 0) {
            return multiGetImpl(snap, cf, keys);
        }
        return PointReads.multiGet(binding, readers,
                (n, k, kl, d, c, lo, e) -> binding.multiGet2(handle, snap, cf, n, k, kl, flags, d, c, lo, e), keys);
    }

    byte[] getImpl(long snap, int cf, byte[] key, int koff, int klen) {
        return PointReads.get(binding, readers, (k, kl, d, c, vo, e) -> binding.get(handle, snap, cf, k, kl, d, c, vo, e), key, koff, klen);
    }

    int getIntoImpl(long snap, int cf, ByteBuffer key, ByteBuffer into) {
        return PointReads.getInto(binding, readers, (k, kl, d, c, vo, e) -> binding.get(handle, snap, cf, k, kl, d, c, vo, e), key, into);
    }

    List<byte[]> multiGetImpl(long snap, int cf, List<byte[]> keys) {
        return PointReads.multiGet(binding, readers, (n, k, kl, d, c, lo, e) -> binding.multiGet(handle, snap, cf, n, k, kl, d, c, lo, e), keys);
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

    /** Adds a {@link ColumnFamily} for every native slot it has none for (ids are dense, in order). */
    private void loadFamilies() {
        Scratch s = Scratch.get(binding);
        int rc = binding.cfCount(handle, s.out(0));
        if (rc != 0) {
            throw s.error(rc);
        }
        int n = (int) (s.outLong(0) & 0xFFFFFFFFL);
        int cap = 4096;
        for (int i = families.size(); i < n; i++) {
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
            String name = new String(m.bytes(Scratch.DATA, len), StandardCharsets.UTF_8);
            int flags = 0;
            if (rc == 0) {
                int frc = binding.cfFlags(handle, i, s.out(2), s.err());
                if (frc != 0 && frc != Abi.ECFDROPPED) {
                    throw s.error(frc);
                }
                flags = (int) (s.outLong(2) & 0xFFFFFFFFL); // a u32, as cfCount's

            }
            ColumnFamily cf = new ColumnFamily(this, i, name, flags);
            cf.dropped = rc == Abi.ECFDROPPED;
            families.add(cf);
        }
    }
}
