package dev.ferry;

import dev.ferry.internal.Children;
import dev.ferry.internal.Lifetime;
import dev.ferry.internal.Once;
import dev.ferry.internal.ReadCalls;
import dev.ferry.internal.WriteOp;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;

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
 * <p>Closing a store closes every cursor, snapshot and transaction it owns (waiting for native
 * calls in flight), then the engine. Every call on a closed store throws {@link IllegalStateException}.
 * Snapshots, transactions and stores dropped without being closed are released by a shared
 * cleaner once unreachable; cursors by a cleaner of their own (close them all anyway: a GC may
 * come late).
 *
 * <p>Thread safety: thread-safe. Reads and writes may run from many threads at once; cursors
 * are confined to their thread.
 */
public final class Store extends StoreWriter implements AutoCloseable {
    /** Returned by the buffer-filling {@code get}s when the key is absent: -1. */
    public static final int NOT_FOUND = ReadCalls.NOT_FOUND;


    private final StoreAdmin admin;
    /** Drops the owner's reference to the engine once: on close, or by the cleaner. */
    private final Cleaner.Cleanable cleanable;

    Store(StoreCore core) {
        super(core, 0);
        this.admin = new StoreAdmin(core);
        this.cleanable = StoreCore.CLEANER.register(this, new Once(core.lifetime::unpin));
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
        return Stores.open(path, options);
    }

    /** @return the engine */
    public Engine engine() {
        return core.engine;
    }

    /** @return the store's directory */
    public Path path() {
        return core.path;
    }

    /** @return the binding this store uses: {@code "jni"} or {@code "ffm"} */
    public String binding() {
        return core.calls.bindingName();
    }

    // ---- column families ----

    /** @return the default column family */
    public ColumnFamily defaultColumnFamily() {
        return core.defaultFamily();
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
        return core.families.live();
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
        return core.families.find(name);
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
    public ColumnFamily createColumnFamily(String name) {
        return core.families.create(name, EnumSet.noneOf(ColumnFamilyFlag.class), ColumnFamilyOptions.of());
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
    public ColumnFamily createColumnFamily(String name, Set<ColumnFamilyFlag> flags) {
        return core.families.create(name, flags, ColumnFamilyOptions.of());
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
     * @throws FerryException.NotSupported on LMDB for options with any setting but the key order and the
     *         {@link ColumnFamilyOptions#javaComparator Java comparator} (LMDB has none of the others;
     *         {@link ColumnFamilyOptions#of()} creates a plain family)
     * @throws FerryException.AlreadyExists when it exists
     */
    public ColumnFamily createColumnFamily(String name, ColumnFamilyOptions options) {
        return core.families.create(name, EnumSet.noneOf(ColumnFamilyFlag.class), options);
    }

    /**
     * Drops a column family and its data. Later use of it throws.
     *
     * @param cf the family (not the default one)
     */
    public void dropColumnFamily(ColumnFamily cf) {
        core.families.drop(cf);
    }

    // ---- writes ----

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
        StoreCore.requireKey(key);
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(options, "options");
        return core.writeFor(cf, id -> core.calls.put(core.handle, id, key, value, options.flags()));
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
        core.requireOwn(batch);
        core.write(batch, options.flags());
    }

    @Override
    void send(WriteOp op, ColumnFamily cf, byte[] a, int ao, int al, byte[] b, int bo, int bl) {
        core.send(op, cf, a, ao, al, b, bo, bl);
    }

    @Override
    void send(ColumnFamily cf, ByteBuffer key, ByteBuffer value) {
        core.write(cf, id -> core.calls.put(core.handle, id, key, value));
    }

    @Override
    void send(WriteBatch batch) {
        core.write(batch, 0);
    }

    // ---- maintenance, checkpoints, properties (StoreAdmin) ----

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
        admin.flush(cf);
    }

    /**
     * Brings a secondary instance ({@link StoreOptions#secondary(Path)}) up to date with its primary
     * (RocksDB's {@code TryCatchUpWithPrimary}): reads after the call see what the primary had written
     * by then. A snapshot of a secondary does not keep its view across a catch-up: RocksDB reads a
     * secondary instance at its latest state, whatever the snapshot.
     *
     * @throws FerryException.InvalidArgument when this store is not a secondary instance
     * @throws FerryException.NotSupported on LMDB (an LMDB store sees other processes' commits at its
     *         next read)
     */
    public void tryCatchUpWithPrimary() {
        admin.catchUp();
    }

    /**
     * Sets the clock of the store's TTL families ({@link ColumnFamilyOptions#ttl(long, int)}): their
     * compactions and reads take this time as "now" from the next one on. For tests: a store starts on
     * the wall clock.
     *
     * @param nowMillis milliseconds since the epoch, or a negative value for the wall clock again
     * @throws FerryException.NotSupported on LMDB
     */
    public void setTtlClock(long nowMillis) {
        admin.ttlClock(nowMillis);
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
        admin.compactRange(cf, begin, end);
    }

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
        checkpoint(dir, compact, true);
    }

    /**
     * Writes a checkpoint as {@link #checkpoint(Path, boolean)} does, with or without making it
     * durable. With {@code sync} (what the other overloads do) the call returns after an fsync of
     * every file and directory of the checkpoint and of the directories above it, so the checkpoint
     * survives a power cut. Without it that fsync is left out (the engine's own remain): the
     * checkpoint is complete at once for this and any other process, but a power cut may lose or
     * truncate its files. Leave it out for a copy that is read or uploaded elsewhere and then
     * deleted, such as a local staging copy whose uploader makes its own copy durable.
     *
     * @param dir the directory to create; it must not exist (missing parents are created)
     * @param compact LMDB: compact the copy; must be false on RocksDB
     * @param sync fsync the checkpoint's files and directories before returning
     * @throws IllegalArgumentException when {@code compact} is true on a RocksDB store (an LMDB option)
     * @throws FerryException.AlreadyExists when {@code dir} exists
     */
    public void checkpoint(Path dir, boolean compact, boolean sync) {
        admin.checkpoint(dir, compact, sync);
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
    public void ingest(ColumnFamily cf, List<Path> files, boolean move) {
        admin.ingest(cf, files, move);
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
        return admin.statistics();
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
        return admin.lmdbStats(cf);
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
        return admin.property(cf, name);
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
        return admin.propertyLong(cf, name);
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

    // ---- snapshots and transactions ----

    /**
     * Takes a snapshot: a consistent read view of the current state, including the column
     * families that exist now (one created later cannot be read through it).
     *
     * @return the snapshot; close it to release engine resources
     */
    public Snapshot snapshot() {
        return core.snapshot();
    }

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
        return core.beginTransaction(timeoutMillis);
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
    public <T> T inTransaction(Function<Transaction, T> body) {
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
    public <T> T inTransaction(int maxAttempts, Function<Transaction, T> body) {
        return core.inTransaction(maxAttempts, body);
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
    public List<KeyRange> split(ColumnFamily cf, KeyRange range, int n) {
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
    public long parallelScan(ColumnFamily cf, KeyRange range, int threads, Supplier<? extends EntryVisitor> visitors) {
        Objects.requireNonNull(visitors, "visitors");
        if (threads < 1) {
            throw new IllegalArgumentException("threads=" + threads + " (at least 1)");
        }
        try (Snapshot s = snapshot()) {
            return s.parallelScan(cf, range, threads, visitors);
        }
    }

    /**
     * Visits every entry of a range with tasks of the caller's executor and the calling thread, all
     * reading one snapshot taken for the call: {@link Snapshot#parallelScan(ColumnFamily, KeyRange, int,
     * java.util.concurrent.Executor, java.util.function.Supplier)}.
     *
     * @param cf the family
     * @param range the range
     * @param threads tasks to read with, the caller's thread included (at least 1)
     * @param executor runs the helper tasks
     * @param visitors gives a visitor for each sub-range, called on the thread that visits it
     * @return the number of entries visited
     */
    public long parallelScan(ColumnFamily cf, KeyRange range, int threads, Executor executor,
                             Supplier<? extends EntryVisitor> visitors) {
        Objects.requireNonNull(executor, "executor");
        Objects.requireNonNull(visitors, "visitors");
        if (threads < 1) {
            throw new IllegalArgumentException("threads=" + threads + " (at least 1)");
        }
        try (Snapshot s = snapshot()) {
            return s.parallelScan(cf, range, threads, executor, visitors);
        }
    }

    // ---- close ----

    /** @return true once closed */
    public boolean isClosed() {
        return core.guard.isClosed();
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
        if (core.close()) {
            cleanable.clean(); // the owner's reference: the engine closes once no cursor, snapshot or transaction pins it
            core.rethrowCloseFailure();
        }
    }

    @Override
    public String toString() {
        return "Store[" + core.engine + ", " + core.path + ", " + binding() + (isClosed() ? ", closed" : "") + "]";
    }

    @Override
    int enter(ColumnFamily cf) {
        int id = core.cfId(cf);
        core.guard.enter();
        return id;
    }

    @Override
    void exit() {
        core.guard.exit();
    }

    @Override
    Children cursors() {
        return core.children;
    }

    @Override
    Lifetime lifetime() {
        return core.lifetime;
    }

    /**
     * The sequence number of the store's latest write (RocksDB's {@code GetLatestSequenceNumber}): 0 before
     * the first write; a write batch of n operations adds n.
     *
     * @return the sequence number
     * @throws FerryException.NotSupported on LMDB (no sequence numbers)
     */
    public long latestSequenceNumber() {
        return admin.latestSequence();
    }

    /**
     * Reads the write-ahead log from the write batch holding sequence number {@code since} on (RocksDB's
     * {@code GetUpdatesSince}): the store's writes, batch by batch, as they were written, for
     * change-data capture. RocksDB deletes a WAL file once its memtables are flushed: to read further
     * back, keep them archived with {@link StoreOptions#rocksdbOptions(String)}
     * ({@code WAL_ttl_seconds=...} or {@code WAL_size_limit_MB=...}). Close the iterator; closing the
     * store closes it. See docs/usage.md, "Write-ahead log".
     *
     * @param since the first sequence number wanted (0 or 1: from the first write; beyond
     *        {@link #latestSequenceNumber()}: an iterator that ends at once)
     * @return the iterator, confined to this thread
     * @throws IllegalArgumentException when since is negative
     * @throws FerryException.NotFound when {@code since} is no longer in the WAL (its files went after a
     *         flush; the message names the first sequence number still there)
     * @throws FerryException.NotSupported on LMDB (no write-ahead log), a TTL store
     *         ({@link StoreOptions#ttlSeconds(int)}) and a store opened without a WAL
     *         ({@link StoreOptions#wal(boolean)})
     */
    public WalIterator updatesSince(long since) {
        if (since < 0) {
            throw new IllegalArgumentException("since=" + since + " (a sequence number, at least 0)");
        }
        return admin.updatesSince(since);
    }
}
