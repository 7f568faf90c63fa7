package dev.ferry;

import dev.ferry.internal.Codes;
import dev.ferry.internal.NativeCalls;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Options for {@link Store#open(java.nio.file.Path, StoreOptions)}. Setters return {@code this};
 * unset values keep the engine's defaults. A setter of the other engine's option throws
 * {@link IllegalArgumentException} naming the option and the engine: nothing is silently ignored.
 *
 * <pre>{@code
 * StoreOptions o = StoreOptions.rocksdb().compression(Compression.LZ4).bloomBitsPerKey(10);
 * }</pre>
 *
 * <p>Thread safety: not thread-safe; copy-on-open (changes after open have no effect).
 */
public final class StoreOptions {
    /** Default cursor page size: 64 KiB. */
    public static final int DEFAULT_PAGE_SIZE = 64 * 1024;
    /** Smallest cursor page. */
    public static final int MIN_PAGE_SIZE = 256;
    /** Largest cursor page: 1 GiB (a larger entry still comes through, in a page grown for it). */
    public static final int MAX_PAGE_SIZE = 1 << 30;

    final Engine engine;
    String binding;
    boolean createIfMissing = true;
    boolean errorIfExists;
    boolean readOnly;
    long blockCacheSize = -1;
    BlockCache blockCache;
    WriteBufferManager writeBufferManager;
    RateLimiter rateLimiter;
    SstFileManager sstFileManager;
    boolean cacheIndexAndFilterBlocks;
    Compression compression;
    Boolean wal;
    boolean syncWrites;
    int bloomBitsPerKey = -1;
    int maxOpenFiles = -1;
    String rocksdbOptions;
    MergeOperator mergeOperator;
    JavaMergeOperator javaMergeOperator;
    JavaCompactionFilter.Factory javaCompactionFilter;
    boolean statistics;
    int ttlSeconds = -1;
    Path secondary;
    long readaheadSize = -1;
    long mapSize = -1;
    int maxColumnFamilies = -1;
    int maxReaders = -1;
    EnumSet<LmdbFlag> lmdbFlags = EnumSet.noneOf(LmdbFlag.class);
    long autoGrowStep;
    int pageSize = DEFAULT_PAGE_SIZE;
    TransactionMode transactions = TransactionMode.NONE;
    long lockTimeoutMillis = -1;
    final LinkedHashMap<String, ColumnFamilyOptions> familyOptions = new LinkedHashMap<>();

    private StoreOptions(Engine engine) {
        this.engine = Objects.requireNonNull(engine, "engine");
    }

    /**
     * Options for an engine.
     *
     * @param engine the engine
     * @return new options with defaults
     */
    public static StoreOptions of(Engine engine) {
        return new StoreOptions(engine);
    }

    /** @return new RocksDB options with defaults */
    public static StoreOptions rocksdb() {
        return new StoreOptions(Engine.ROCKSDB);
    }

    /** @return new LMDB options with defaults */
    public static StoreOptions lmdb() {
        return new StoreOptions(Engine.LMDB);
    }

    /** @return the engine */
    public Engine engine() {
        return engine;
    }

    /**
     * Chooses the binding for this store instead of the process default.
     *
     * @param name {@code "jni"} or {@code "ffm"}, or null for the default
     * @return this
     */
    public StoreOptions binding(String name) {
        this.binding = name;
        return this;
    }

    /**
     * Creates the store when missing (default true). When off, opening a store that does not
     * exist throws {@link FerryException.NotFound} on every engine.
     *
     * @param v the flag
     * @return this
     */
    public StoreOptions createIfMissing(boolean v) {
        this.createIfMissing = v;
        return this;
    }

    /**
     * Fails with {@link FerryException.AlreadyExists} when the store exists (default false).
     *
     * @param v the flag
     * @return this
     */
    public StoreOptions errorIfExists(boolean v) {
        this.errorIfExists = v;
        return this;
    }

    /**
     * Opens read-only: writes throw {@link FerryException.ReadOnly} (default false).
     *
     * @param v the flag
     * @return this
     */
    public StoreOptions readOnly(boolean v) {
        this.readOnly = v;
        return this;
    }

    /**
     * RocksDB: size of the LRU block cache in bytes (default: RocksDB's 32 MiB).
     *
     * @param bytes the size
     * @return this
     * @throws IllegalArgumentException when these are LMDB options (this option is RocksDB's only)
     */
    public StoreOptions blockCacheSize(long bytes) {
        only(Engine.ROCKSDB, "blockCacheSize");
        if (bytes < 0) {
            throw new IllegalArgumentException("blockCacheSize=" + bytes);
        }
        if (blockCache != null) {
            throw new IllegalArgumentException("StoreOptions.blockCacheSize: these options have a shared blockCache ("
                    + blockCache + "); a store takes one or the other");
        }
        this.blockCacheSize = bytes;
        return this;
    }

    /**
     * RocksDB: a block cache shared with other stores, instead of a cache of the store's own. Every
     * column family of the store uses it; the store holds it until the store closes (closing the cache
     * before throws {@link FerryException.Busy}).
     *
     * @param cache the cache, or null for none (the default: a cache of the store's own)
     * @return this
     * @throws IllegalArgumentException when these are LMDB options (LMDB has no block cache), or with
     *         {@link #blockCacheSize(long)} set
     */
    public StoreOptions blockCache(BlockCache cache) {
        only(Engine.ROCKSDB, "blockCache");
        if (cache != null && blockCacheSize >= 0) {
            throw new IllegalArgumentException("StoreOptions.blockCache: a store takes a shared block cache or a "
                    + "blockCacheSize of its own (" + blockCacheSize + "), not both");
        }
        this.blockCache = cache;
        return this;
    }

    /**
     * RocksDB: a write buffer manager shared with other stores: it flushes memtables once those of all
     * its stores reach its size, and (when charged to a cache) counts them in the cache. The store holds
     * it until the store closes.
     *
     * @param wbm the manager, or null for none (the default)
     * @return this
     * @throws IllegalArgumentException when these are LMDB options (LMDB has no memtables)
     */
    public StoreOptions writeBufferManager(WriteBufferManager wbm) {
        only(Engine.ROCKSDB, "writeBufferManager");
        this.writeBufferManager = wbm;
        return this;
    }

    /**
     * RocksDB: a rate limiter shared with other stores: the store's flushes and compactions write within
     * its budget. The store holds it until the store closes (closing the limiter before throws
     * {@link FerryException.Busy}).
     *
     * @param limiter the limiter, or null for none (the default)
     * @return this
     * @throws IllegalArgumentException when these are LMDB options (LMDB has no flushes or compactions)
     */
    public StoreOptions rateLimiter(RateLimiter limiter) {
        only(Engine.ROCKSDB, "rateLimiter");
        this.rateLimiter = limiter;
        return this;
    }

    /**
     * RocksDB: an SST file manager shared with other stores: it tracks the store's table and blob files,
     * bounds their space and paces their deletion. The store holds it until the store closes (closing the
     * manager before throws {@link FerryException.Busy}).
     *
     * @param manager the manager, or null for none (the default)
     * @return this
     * @throws IllegalArgumentException when these are LMDB options (LMDB has no table files)
     */
    public StoreOptions sstFileManager(SstFileManager manager) {
        only(Engine.ROCKSDB, "sstFileManager");
        this.sstFileManager = manager;
        return this;
    }

    /**
     * RocksDB: keep index and filter blocks in the block cache (charged to it, in its high-priority pool),
     * with those of level-0 files pinned, instead of outside any bound (default false). With a shared
     * {@link BlockCache}, this makes its capacity bound them too.
     *
     * @param v on or off
     * @return this
     * @throws IllegalArgumentException when these are LMDB options
     */
    public StoreOptions cacheIndexAndFilterBlocks(boolean v) {
        only(Engine.ROCKSDB, "cacheIndexAndFilterBlocks");
        this.cacheIndexAndFilterBlocks = v;
        return this;
    }

    /** @return the shared block cache, or null */
    public BlockCache blockCache() {
        return blockCache;
    }

    /** @return the shared write buffer manager, or null */
    public WriteBufferManager writeBufferManager() {
        return writeBufferManager;
    }

    /**
     * RocksDB: block compression (default: RocksDB's, Snappy).
     *
     * @param c the compression
     * @return this
     * @throws IllegalArgumentException when these are LMDB options (this option is RocksDB's only)
     */
    public StoreOptions compression(Compression c) {
        Objects.requireNonNull(c, "compression");
        only(Engine.ROCKSDB, "compression");
        this.compression = c;
        return this;
    }

    /** @return the compression set with {@link #compression(Compression)}, or null for RocksDB's default */
    public Compression compression() {
        return compression;
    }

    /**
     * RocksDB: write-ahead log on or off (default on). Off is faster; a crash loses unflushed writes.
     *
     * @param v the flag
     * @return this
     * @throws IllegalArgumentException when these are LMDB options (this option is RocksDB's only)
     */
    public StoreOptions wal(boolean v) {
        only(Engine.ROCKSDB, "wal");
        this.wal = v;
        return this;
    }

    /**
     * Whether every write is synced to disk before it returns (default false); the same on both
     * engines:
     * <ul>
     * <li>{@code false}: a write has reached the operating system when it returns, not the disk.
     *     It survives a crash or kill of the process, not an OS crash or power loss, which may
     *     lose the last writes ({@link Store#flush()} syncs). RocksDB: {@code sync=false}; LMDB:
     *     {@code MDB_NOSYNC}, a commit writes its pages to the OS without fsync.</li>
     * <li>{@code true}: a write is on disk when it returns and survives an OS crash or power
     *     loss; it costs a sync per write. On RocksDB it needs the write-ahead log: opening with
     *     {@code wal(false)} and {@code syncWrites(true)} throws {@link FerryException.InvalidArgument};
     *     on LMDB with {@link LmdbFlag#NOSYNC} it throws the same.</li>
     * </ul>
     *
     * @param v the flag
     * @return this
     */
    public StoreOptions syncWrites(boolean v) {
        this.syncWrites = v;
        return this;
    }

    /**
     * RocksDB: bloom filter bits per key, 0 for none (default none).
     *
     * @param bits bits per key
     * @return this
     * @throws IllegalArgumentException when these are LMDB options (this option is RocksDB's only)
     */
    public StoreOptions bloomBitsPerKey(int bits) {
        only(Engine.ROCKSDB, "bloomBitsPerKey");
        if (bits < 0) {
            throw new IllegalArgumentException("bloomBitsPerKey=" + bits);
        }
        this.bloomBitsPerKey = bits;
        return this;
    }

    /** @return the bloom filter bits per key set with {@link #bloomBitsPerKey(int)}, or -1 for the default (none) */
    public int bloomBitsPerKey() {
        return bloomBitsPerKey;
    }

    /**
     * RocksDB: max open files, -1 for unlimited (RocksDB's default).
     *
     * @param n the limit
     * @return this
     * @throws IllegalArgumentException when these are LMDB options (this option is RocksDB's only)
     */
    public StoreOptions maxOpenFiles(int n) {
        only(Engine.ROCKSDB, "maxOpenFiles");
        this.maxOpenFiles = n;
        return this;
    }

    /**
     * RocksDB: an options string applied last, e.g. {@code "write_buffer_size=8388608;max_write_buffer_number=4"}.
     * The escape hatch for every RocksDB option Ferry does not name.
     *
     * @param options the string
     * @return this
     * @throws IllegalArgumentException when these are LMDB options (this option is RocksDB's only)
     */
    public StoreOptions rocksdbOptions(String options) {
        only(Engine.ROCKSDB, "rocksdbOptions");
        this.rocksdbOptions = options;
        return this;
    }

    /** @return the options string set with {@link #rocksdbOptions(String)}, or null */
    public String rocksdbOptions() {
        return rocksdbOptions;
    }

    /**
     * RocksDB: the merge operator of every column family, which {@link Store#merge(ColumnFamily, byte[], byte[])}
     * and {@link WriteBatch#merge(ColumnFamily, byte[], byte[])} need (default none: a merge then
     * throws {@link FerryException.NotSupported} naming this option). RocksDB does not remember it:
     * give it at every open of a store that holds merge operands, and keep it the same: flushes and
     * compactions combine the stored operands with whichever operator the store is open with. The options string may set it
     * instead ({@code merge_operator=uint64add}, or {@code merge_operator={id=stringappend;delimiter=:}}
     * for another delimiter); the string is applied after this option, so its value wins. Names other
     * than those of {@link MergeOperator} fail the open with {@link FerryException.InvalidArgument}.
     *
     * @param op the operator, or null for none
     * @return this
     * @throws IllegalArgumentException when these are LMDB options (LMDB has no merge operators)
     */
    public StoreOptions mergeOperator(MergeOperator op) {
        only(Engine.ROCKSDB, "mergeOperator");
        this.mergeOperator = op;
        this.javaMergeOperator = null;
        return this;
    }

    /**
     * RocksDB: a merge operator written in Java for every column family (replaces one set with
     * {@link #mergeOperator(MergeOperator)}); see {@link JavaMergeOperator}. Each store opened with these
     * options registers it with the engine at open and releases it at close. A merge operator in the options
     * string ({@link #rocksdbOptions(String)}) still wins over it.
     *
     * @param op the operator, or null for none
     * @return this
     * @throws IllegalArgumentException when these are LMDB options (LMDB has no merge operators), or when the
     *         operator's {@link JavaMergeOperator#name() name} breaks the rules
     */
    public StoreOptions javaMergeOperator(JavaMergeOperator op) {
        only(Engine.ROCKSDB, "javaMergeOperator");
        if (op != null) {
            JavaCallbacks.checkName(op);
        }
        this.javaMergeOperator = op;
        this.mergeOperator = null;
        return this;
    }

    /**
     * RocksDB: a compaction filter written in Java for every column family; see {@link JavaCompactionFilter}.
     * Each store opened with these options registers it with the engine at open and releases it at close. A
     * compaction filter factory in the options string ({@link #rocksdbOptions(String)}) still wins over it.
     *
     * @param factory the filter's factory, or null for none
     * @return this
     * @throws IllegalArgumentException when these are LMDB options (LMDB has no compactions), or when the
     *         factory's {@link JavaCompactionFilter.Factory#name() name} breaks the rules
     */
    public StoreOptions javaCompactionFilter(JavaCompactionFilter.Factory factory) {
        only(Engine.ROCKSDB, "javaCompactionFilter");
        if (factory != null) {
            JavaCallbacks.checkName(factory);
        }
        this.javaCompactionFilter = factory;
        return this;
    }

    /**
     * RocksDB: collect statistics (RocksDB's tickers and histograms, default off), read with
     * {@link Store#statistics()}. Costs a few percent of throughput (RocksDB's estimate for its
     * default level, which leaves out the detailed timers). LMDB keeps no such counters: its page
     * and reader counts are always there ({@link Store#lmdbStats(ColumnFamily)}).
     *
     * @param on whether to collect them
     * @return this
     * @throws IllegalArgumentException when these are LMDB options (this option is RocksDB's only)
     */
    public StoreOptions statistics(boolean on) {
        only(Engine.ROCKSDB, "statistics");
        this.statistics = on;
        return this;
    }

    /**
     * RocksDB: open the store as a secondary instance ({@code DB::OpenAsSecondary}): it reads the files
     * of the store that another {@code Store} or process (the primary) has open for writing, without its
     * lock, and keeps its own logs in {@code dir}. It sees the primary's writes as of its open, then as
     * of each {@link Store#tryCatchUpWithPrimary()}. Read-only: writes throw
     * {@link FerryException.ReadOnly}. Give the families' options as the primary has them (merge
     * operators, key orders). Families the primary creates later are seen after a new open only. Not
     * with transactions, {@link #ttlSeconds(int)} or {@link #readOnly(boolean)} (the open throws
     * {@link FerryException.InvalidArgument}).
     *
     * @param dir the instance's own directory (not the store's)
     * @return this
     * @throws IllegalArgumentException when these are LMDB options
     */
    public StoreOptions secondary(Path dir) {
        only(Engine.ROCKSDB, "secondary");
        this.secondary = Objects.requireNonNull(dir, "dir");
        return this;
    }

    /**
     * RocksDB: open a TTL store (RocksDB's {@code DBWithTTL}, RocksJava's {@code TtlDB}): every value
     * written gets a 4-byte timestamp suffix on disk, which reads strip, and compactions drop values
     * older than {@code seconds} (reads may still see them until a compaction reaches them, as in
     * RocksDB; 0: never expire). Every column family has this TTL. A TTL store must always be opened
     * with a TTL, and a plain store without: the other open throws {@link FerryException.InvalidArgument}
     * (so a checkpoint or backup of a TTL store, or RocksJava's TtlDB's store, never shows the suffixes).
     * Not with transactions (the open throws {@link FerryException.InvalidArgument}), not read-only and
     * no SST ingestion ({@link FerryException.NotSupported}). For an expiry read from a timestamp of the value itself,
     * see {@link ColumnFamilyOptions#ttl(long, int)}.
     *
     * @param seconds the TTL in seconds, 0 or more
     * @return this
     * @throws IllegalArgumentException when negative, or when these are LMDB options
     */
    public StoreOptions ttlSeconds(int seconds) {
        only(Engine.ROCKSDB, "ttlSeconds");
        if (seconds < 0) {
            throw new IllegalArgumentException("ttlSeconds=" + seconds + ", must be 0 or more");
        }
        this.ttlSeconds = seconds;
        return this;
    }

    /**
     * RocksDB: readahead of every cursor's table file reads, in bytes ({@code ReadOptions.readahead_size};
     * default 0: RocksDB's own automatic readahead, which grows on sequential reads). A fixed size
     * helps long scans on storage with high latency. LMDB reads through the OS page cache (see
     * {@link LmdbFlag#NORDAHEAD}).
     *
     * @param bytes the readahead, 0 for RocksDB's automatic one
     * @return this
     * @throws IllegalArgumentException when these are LMDB options (this option is RocksDB's only), or bytes is negative
     */
    public StoreOptions readaheadSize(long bytes) {
        only(Engine.ROCKSDB, "readaheadSize");
        if (bytes < 0) {
            throw new IllegalArgumentException("readaheadSize=" + bytes);
        }
        this.readaheadSize = bytes;
        return this;
    }

    /**
     * RocksDB: the options of one column family at this open ({@link ColumnFamilyOptions}). RocksDB
     * needs a family's options at every open and Ferry does not read them back from the store's
     * files: give each family the options it was created with. A family without an entry here has
     * the store's options; an entry for a family that does not exist is checked and otherwise ignored
     * (create that family with {@link Store#createColumnFamily(String, ColumnFamilyOptions)}). The
     * name {@code "default"} gives the default family options of its own. Giving a name again
     * replaces its entry. On LMDB, options with any setting make the open throw
     * {@link FerryException.NotSupported}; {@link ColumnFamilyOptions#of()} is accepted and changes
     * nothing.
     *
     * @param name the family's name (non-empty, no NUL)
     * @param options its options
     * @return this
     * @throws IllegalArgumentException for an empty name or one holding NUL
     */
    public StoreOptions columnFamily(String name, ColumnFamilyOptions options) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(options, "options");
        if (name.isEmpty() || name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("column family name must be non-empty and free of NUL characters");
        }
        familyOptions.put(name, options);
        return this;
    }

    /** @return the per-family options given with {@link #columnFamily(String, ColumnFamilyOptions)}, by name */
    public Map<String, ColumnFamilyOptions> columnFamilyOptions() {
        return Collections.unmodifiableMap(new LinkedHashMap<>(familyOptions));
    }

    /**
     * The options string the shim receives: the merge operator, the compaction filter, then
     * {@link #rocksdbOptions(String)}.
     *
     * @param callbacks the registry of the store being opened, for callbacks written in Java
     * @return the string, or null when there is none
     */
    String nativeOptionsString(JavaCallbacks callbacks) {
        StringBuilder b = new StringBuilder();
        if (javaMergeOperator != null) {
            b.append("merge_operator=").append(callbacks.value(javaMergeOperator)).append(';');
        } else if (mergeOperator != null) {
            b.append("merge_operator=").append(mergeOperator.engineName()).append(';');
        }
        if (javaCompactionFilter != null) {
            b.append("compaction_filter_factory=").append(callbacks.value(javaCompactionFilter)).append(';');
        }
        if (b.length() == 0) {
            return rocksdbOptions;
        }
        b.setLength(b.length() - 1);
        return rocksdbOptions == null ? b.toString() : b + ";" + rocksdbOptions;
    }

    /**
     * LMDB: map size in bytes, the store's maximum size (default 1 GiB). The whole map is
     * reserved as address space at open: a size the process cannot map fails the open with
     * {@link FerryException.InvalidArgument} naming it.
     *
     * @param bytes the size
     * @return this
     * @throws IllegalArgumentException when these are RocksDB options (this option is LMDB's only)
     */
    public StoreOptions mapSize(long bytes) {
        only(Engine.LMDB, "mapSize");
        if (bytes <= 0) {
            throw new IllegalArgumentException("mapSize=" + bytes);
        }
        this.mapSize = bytes;
        return this;
    }

    /**
     * LMDB: maximum number of live column families besides the default one (LMDB's max dbs;
     * default 64). Dropped families do not count. Creating one more throws a
     * {@link FerryException} with {@link ErrorCode#TOO_MANY_COLUMN_FAMILIES}. RocksDB has no
     * such limit: the option is LMDB's only.
     *
     * @param n the limit
     * @return this
     * @throws IllegalArgumentException when these are RocksDB options (this option is LMDB's only)
     */
    public StoreOptions maxColumnFamilies(int n) {
        only(Engine.LMDB, "maxColumnFamilies");
        if (n < 0) {
            throw new IllegalArgumentException("maxColumnFamilies=" + n);
        }
        this.maxColumnFamilies = n;
        return this;
    }

    /**
     * LMDB: maximum concurrent read transactions (default 126).
     *
     * @param n the limit
     * @return this
     * @throws IllegalArgumentException when these are RocksDB options (this option is LMDB's only)
     */
    public StoreOptions maxReaders(int n) {
        only(Engine.LMDB, "maxReaders");
        if (n <= 0) {
            throw new IllegalArgumentException("maxReaders=" + n);
        }
        this.maxReaders = n;
        return this;
    }

    /**
     * LMDB: environment flags. {@link LmdbFlag#NOSYNC} is what {@code syncWrites(false)} (the
     * default) already sets, and contradicts {@code syncWrites(true)} (the open throws);
     * {@link LmdbFlag#NOMETASYNC} relaxes {@code syncWrites(true)}: the meta page is synced one
     * commit late, so an OS crash may lose the last commit.
     *
     * @param flags the flags (copied)
     * @return this
     * @throws IllegalArgumentException when these are RocksDB options (this option is LMDB's only)
     */
    public StoreOptions lmdbFlags(EnumSet<LmdbFlag> flags) {
        Objects.requireNonNull(flags, "flags");
        only(Engine.LMDB, "lmdbFlags");
        this.lmdbFlags = EnumSet.copyOf(flags);
        return this;
    }

    /**
     * LMDB: grow the map by this many bytes when it is full instead of failing (0 = off, the
     * default). Growth happens only while no snapshot or cursor of the store is open.
     *
     * @param bytes growth step
     * @return this
     * @throws IllegalArgumentException when these are RocksDB options (this option is LMDB's only)
     */
    public StoreOptions autoGrow(long bytes) {
        only(Engine.LMDB, "autoGrow");
        if (bytes < 0) {
            throw new IllegalArgumentException("autoGrow=" + bytes);
        }
        this.autoGrowStep = bytes;
        return this;
    }

    /**
     * RocksDB: open the store as a TransactionDB ({@link TransactionMode#PESSIMISTIC}) or an
     * OptimisticTransactionDB ({@link TransactionMode#OPTIMISTIC}), so that
     * {@link Store#beginTransaction()} works (default {@link TransactionMode#NONE}). Every other call
     * works the same on such a store. LMDB always has its write transaction: the choice is ignored.
     * A store opened read-only ignores it too ({@link Store#beginTransaction()} throws
     * {@link FerryException.ReadOnly}).
     *
     * @param mode the transactions
     * @return this
     */
    public StoreOptions transactions(TransactionMode mode) {
        this.transactions = Objects.requireNonNull(mode, "mode");
        return this;
    }

    /**
     * RocksDB pessimistic transactions: how long a transaction (and a plain write of the store)
     * waits for a key lock before {@link FerryException.TimedOut} (RocksDB's default: 1000 ms; 0 =
     * do not wait). {@link Store#beginTransaction(long)} sets it per transaction.
     *
     * @param millis the lock timeout in ms, at least 0
     * @return this
     * @throws IllegalArgumentException when these are LMDB options, or millis is negative
     */
    public StoreOptions lockTimeout(long millis) {
        only(Engine.ROCKSDB, "lockTimeout");
        if (millis < 0) {
            throw new IllegalArgumentException("lockTimeout=" + millis);
        }
        this.lockTimeoutMillis = millis;
        return this;
    }

    /**
     * Default page size for cursors (default 64 KiB, from 256 bytes to 1 GiB bytes). Entries larger than a
     * page still come through whole: the cursor grows its page for them.
     *
     * @param bytes the size
     * @return this
     */
    public StoreOptions pageSize(int bytes) {
        if (bytes < StoreOptions.MIN_PAGE_SIZE || bytes > StoreOptions.MAX_PAGE_SIZE) {
            throw new IllegalArgumentException("pageSize=" + bytes + " (from " + StoreOptions.MIN_PAGE_SIZE + " to "
                    + StoreOptions.MAX_PAGE_SIZE + " bytes)");
        }
        this.pageSize = bytes;
        return this;
    }

    /** Throws when {@code option} belongs to another engine than this one's. */
    private void only(Engine owner, String option) {
        if (engine != owner) {
            throw new IllegalArgumentException("StoreOptions." + option + " is a" + (owner == Engine.LMDB ? "n " : " ")
                    + title(owner) + " option; these options are for " + title(engine) + " (StoreOptions."
                    + engine.name().toLowerCase(Locale.ROOT) + "())");
        }
    }

    private static String title(Engine e) {
        return e == Engine.ROCKSDB ? "RocksDB" : "LMDB";
    }

    /** @return the open options' record; the shared cache and write buffer manager are set by {@link Stores} */
    Codes.StoreRecord toNative() {
        int f = 0;
        for (LmdbFlag fl : lmdbFlags) {
            f |= fl.bit();
        }
        boolean rocksdb = engine == Engine.ROCKSDB;
        return new Codes.StoreRecord()
                .createIfMissing(createIfMissing)
                .errorIfExists(errorIfExists)
                .readOnly(readOnly)
                .blockCacheBytes(blockCacheSize)
                .compression(compression == null ? -1 : compression.value())
                .wal(wal)
                .syncWrites(syncWrites)
                .bloomBits(bloomBitsPerKey)
                .maxOpenFiles(maxOpenFiles)
                .mapSize(mapSize)
                .maxColumnFamilies(maxColumnFamilies)
                .maxReaders(maxReaders)
                .lmdbFlags(f)
                .autoGrowStep(autoGrowStep)
                .statistics(statistics)
                .ttlSeconds(ttlSeconds)
                .readaheadBytes(readaheadSize)
                .transactions(rocksdb && transactions == TransactionMode.PESSIMISTIC,
                        rocksdb && transactions == TransactionMode.OPTIMISTIC)
                .lockTimeoutMillis(lockTimeoutMillis)
                .cacheIndexAndFilterBlocks(cacheIndexAndFilterBlocks);
    }

    /** @return ferry_store_open's family records for the per-family entries */
    byte[] familyRecords(JavaCallbacks callbacks) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Map.Entry<String, ColumnFamilyOptions> e : familyOptions.entrySet()) {
            byte[] name = e.getKey().getBytes(StandardCharsets.UTF_8);
            String x = e.getValue().nativeOptionsString(callbacks);
            byte[] extra = x == null ? new byte[0] : x.getBytes(StandardCharsets.UTF_8);
            NativeCalls.familyRecord(out, name, extra, e.getValue().toNative());
        }
        return out.toByteArray();
    }
}
