package dev.ferry.kafka;

import dev.ferry.ColumnFamily;
import dev.ferry.Cursor;
import dev.ferry.Engine;
import dev.ferry.FerryException;
import dev.ferry.Compression;
import dev.ferry.KeyRange;
import dev.ferry.SstFileWriter;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import dev.ferry.WriteBatch;
import dev.ferry.WriteOptions;
import java.io.File;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.errors.TaskCorruptedException;
import org.apache.kafka.streams.processor.BatchingStateRestoreCallback;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.internals.PositionSerde;
import org.apache.kafka.streams.state.internals.StoreQueryUtils;

/**
 * What every Ferry state store shares: one Ferry {@link Store} per partition, in
 * {@code <state.dir>/<task>/ferry/<name>}, with a {@code data} column family for the entries and an
 * {@code offsets} family for the changelog offsets the store commits itself
 * ({@link #managesOffsets()}); restoration through a {@link BatchingStateRestoreCallback}; iterators
 * over Ferry cursors that close with the store; the translation of failures to Kafka Streams'
 * exceptions. {@link FerryKeyValueStore}, {@link FerryWindowStore} and {@link FerrySessionStore}
 * add their own key layouts on top.
 *
 * <p>Thread safety: writes, and reads from interactive queries, may come from any thread; an
 * iterator is confined to the thread that opened it. After {@link #close()} (or before
 * {@link #init}) every method but {@code name()}, {@code persistent()}, {@code isOpen()} and
 * {@code close()} throws {@link InvalidStateStoreException}; engine errors become
 * {@link ProcessorStateException}.
 */
public abstract class FerryStateStore implements StateStore, AutoCloseable {
    /** The column family that holds the store's entries. */
    static final String DATA_FAMILY = "data";
    /** The column family that holds the committed changelog offsets ({@link #managesOffsets()}). */
    static final String OFFSETS_FAMILY = "offsets";
    /** A commit's offsets write: synced, one fsync per commit (see {@link #commit}). */
    private static final WriteOptions COMMIT = WriteOptions.DEFAULT.sync(true);
    /**
     * The key of the store's query {@link Position} in the offsets family (the built-in store's key in
     * its own offsets family); no changelog partition's key ({@code <topic>-<partition>}) can equal it.
     */
    static final byte[] POSITION_KEY = "position".getBytes(StandardCharsets.UTF_8);
    /**
     * The key of the store's open/closed status in the offsets family (the built-in store's key and values:
     * 1 while open, 0 once closed); under exactly-once a store found open was not closed and is not trusted.
     */
    static final byte[] STATUS_KEY = "status".getBytes(StandardCharsets.UTF_8);
    private static final byte[] OPENED = ByteBuffer.allocate(Long.BYTES).putLong(1).array();
    private static final byte[] CLOSED = ByteBuffer.allocate(Long.BYTES).putLong(0).array();
    private final String name;
    private final Engine engine;
    private final Set<FerryIterator> openIterators = ConcurrentHashMap.newKeySet();
    private volatile Store store;
    /** The application's shared memory budget this store holds while open, or null. */
    private volatile FerryMemoryBudget budget;
    private ColumnFamily data;
    private ColumnFamily offsets;
    private volatile boolean open;
    /** Written to since the last flush: a flush of a clean store returns at once. */
    private volatile boolean dirty;
    /**
     * RocksDB: restored records were written without the write-ahead log since the data family was
     * last flushed; the next {@link #commit(Map)}, {@link #flush()} or {@link #close()} flushes the
     * data family to synced table files before it writes any offset.
     */
    private volatile boolean unlogged;
    /** RocksDB: the store refused writes without the log (opened with syncWrites): restore with it. */
    private volatile boolean restoreLogged;
    /**
     * RocksDB: restored buffers are written as table files and ingested
     * ({@link FerryStoreConfig#ROCKSDB_RESTORE_TABLE_FILES}, and the engine library can); guarded by
     * {@link #restoreBuffer}.
     */
    private boolean restoreTableFiles;
    /** RocksDB: the options string restored table files are written with ({@link #tableOptions}). */
    private String restoreTableOptions;
    /** RocksDB: where restored table files are written, before the store moves them in: {@code <dir>.restore-<i>.sst}. */
    private Path restoreTablePrefix;
    /**
     * LMDB: full restore buffers spilled as sorted runs, merged at the next drain
     * ({@link FerryStoreConfig#LMDB_RESTORE_RUNS}); null on RocksDB, without a buffer or with runs off.
     * Guarded by {@link #restoreBuffer}.
     */
    private RestoreRuns restoreRuns;
    /** A sorted buffer with at least this many records is written as two table files at once, on two threads. */
    private static final int PARALLEL_TABLE_RECORDS = 16_384;
    /** Whether a second thread can help: the second table file of a buffer is written on {@link #TABLE_WRITERS}. */
    private static final boolean PARALLEL_TABLES = Runtime.getRuntime().availableProcessors() > 1;
    /** The threads that write the second table file of a restored buffer: daemons, idle ones end. */
    private static final java.util.concurrent.ExecutorService TABLE_WRITERS = new java.util.concurrent.ThreadPoolExecutor(0,
            Integer.MAX_VALUE, 10, java.util.concurrent.TimeUnit.SECONDS, new java.util.concurrent.SynchronousQueue<>(), r -> {
                Thread t = new Thread(r, "ferry-restore-table-writer");
                t.setDaemon(true);
                return t;
            });
    /** How restored records are written on RocksDB: without the write-ahead log, as the built-in store. */
    private static final WriteOptions RESTORE = WriteOptions.DEFAULT.disableWal(true);
    /** LMDB: how merged restored records are appended into an empty data family ({@link #writeMerged}). */
    private static final WriteOptions APPEND = WriteOptions.DEFAULT.append(true);
    /** LMDB: the size of one write transaction of merged restored records ({@link #writeMerged}). */
    static final int MERGED_TRANSACTION_BYTES = 8 << 20;
    /** The heap a buffered restored record costs beyond its key and value (the KeyValue, two array headers, a slot). */
    private static final int BUFFERED_RECORD_OVERHEAD = 64;
    /**
     * Restored records not yet written ({@link #bufferRestored}), in changelog order; guarded by
     * itself. Written as one sorted write when they reach {@link #restoreBufferLimit} bytes, and
     * before any other use of the store ({@link #checkOpen()}, {@link #close()}).
     */
    private final ArrayList<KeyValue<byte[], byte[]>> restoreBuffer = new ArrayList<>();
    /** Bytes of the buffered records (keys, values and {@link #BUFFERED_RECORD_OVERHEAD} each). */
    private long restoreBufferBytes;
    /** {@link #restoreBuffer} is not empty: the one read the other paths pay. */
    private volatile boolean restoreBuffered;
    /** {@link FerryStoreConfig#RESTORE_BUFFER_BYTES}: 0 writes each restore batch at once. */
    private long restoreBufferLimit;
    /** {@link FerryStoreConfig#RESTORE_BUFFER_TOTAL_BYTES}: 0 = no bound on {@link #RESTORE_BUFFERED_TOTAL}. */
    private long restoreBufferTotalLimit;
    /** Bytes in the restore buffers of every store in this JVM (each store's {@link #restoreBufferBytes}). */
    private static final java.util.concurrent.atomic.AtomicLong RESTORE_BUFFERED_TOTAL = new java.util.concurrent.atomic.AtomicLong();
    private StateStoreContext context;
    private Position position = Position.emptyPosition();
    /** The position last written to the offsets family: a commit writes it again only when it moved. */
    private Position writtenPosition = Position.emptyPosition();
    /** Kafka's RocksDB metrics for this store (FerryStoreMetrics), or null outside Kafka Streams. */
    private FerryStoreMetrics metrics;

    FerryStateStore(String name, Engine engine) {
        this.name = Objects.requireNonNull(name, "name");
        this.engine = Objects.requireNonNull(engine, "engine");
    }

    @Override
    public String name() {
        return name;
    }

    /** @return the engine this store runs on */
    public Engine engine() {
        return engine;
    }

    @Override
    public synchronized void init(StateStoreContext context, StateStore root) {
        if (open) {
            throw new IllegalStateException("store " + name + " is already initialized");
        }
        StoreOptions options = FerryStoreConfig.options(engine, name, context.appConfigs());
        boolean tableFiles = engine == Engine.ROCKSDB && FerryStoreConfig.restoreTableFiles(context.appConfigs());
        boolean runs = FerryStoreConfig.lmdbRestoreRuns(context.appConfigs()); // on both engines: a bad value fails here
        long bufferLimit = FerryStoreConfig.restoreBufferBytes(context.appConfigs(), engine == Engine.LMDB || tableFiles);
        long bufferTotalLimit = FerryStoreConfig.restoreBufferTotalBytes(context.appConfigs());
        Path dir = new File(new File(context.stateDir(), "ferry"), name).toPath();
        Position kept;
        // the application's memory budget (ferry.rocksdb.memory.total.bytes), held until close
        FerryMemoryBudget b = engine == Engine.ROCKSDB ? FerryMemoryBudget.acquire(context.applicationId(), context.appConfigs()) : null;
        try {
            if (b != null) {
                b.apply(options);
            }
            Files.createDirectories(dir.getParent());
            deleteRestoreTables(dir); // left by a crash while writing them
            Store s = Store.open(dir, options);
            try {
                data = family(s, DATA_FAMILY);
                offsets = family(s, OFFSETS_FAMILY);
                byte[] p = s.get(offsets, POSITION_KEY);
                kept = p == null ? Position.emptyPosition() : PositionSerde.deserialize(ByteBuffer.wrap(p));
                byte[] status = s.get(offsets, STATUS_KEY);
                if (status != null && !Arrays.equals(status, CLOSED) && StreamsConfig.EXACTLY_ONCE_V2.equals(
                        context.appConfigs().get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG))) {
                    // not closed: it may hold writes of a transaction the broker aborted, which its offsets do not
                    // cover; Kafka Streams wipes the task's state and restores it (as for its own store)
                    throw new TaskCorruptedException(Set.of(context.taskId()), new ProcessorStateException(
                            "Ferry store " + name + " at " + dir + " was not closed: under exactly-once its entries may hold uncommitted writes"));
                }
                s.put(offsets, STATUS_KEY, OPENED, COMMIT); // synced: before every write this opening makes
                opened(s, data);
            } catch (RuntimeException e) {
                s.close();
                throw e;
            }
            store = s;
            budget = b;
        } catch (java.io.IOException | RuntimeException e) {
            if (b != null) {
                b.release();
            }
            if (e instanceof TaskCorruptedException t) {
                throw t;
            }
            throw new ProcessorStateException("Error opening Ferry " + engine + " store " + name + " at " + dir, e);
        }
        this.context = context;
        this.restoreBufferLimit = bufferLimit;
        this.restoreBufferTotalLimit = bufferTotalLimit;
        this.restoreTableFiles = tableFiles;
        this.restoreTableOptions = tableFiles ? tableOptions(options) : null;
        this.restoreTablePrefix = dir.resolveSibling(dir.getFileName() + ".restore-");
        this.restoreRuns = engine == Engine.LMDB && bufferLimit > 0 && runs ? new RestoreRuns(restoreTablePrefix) : null;
        this.position = kept;
        this.writtenPosition = kept.copy();
        open = true;
        metrics = FerryStoreMetrics.start(this, context, dir);
        context.register(root, restoreCallback());
    }

    /**
     * The callback Kafka Streams restores the store through: by default {@link #restoreAll} in batches;
     * the versioned store, which needs each record's timestamp, registers its own.
     *
     * @return the callback to register in {@link #init}
     */
    StateRestoreCallback restoreCallback() {
        return (BatchingStateRestoreCallback) this::restoreAll;
    }

    /**
     * Called in {@link #init} once the Ferry store and its families are open, before the store
     * counts as open: subclasses read what they keep in memory about the entries.
     *
     * @param s the Ferry store
     * @param data the data family
     */
    void opened(Store s, ColumnFamily data) {
    }

    /**
     * The options string of restored table files: the table options the store's families run with
     * (compression, bloom filter, and the store's RocksDB options string, whatever set them),
     * so that restored files are read, cached and filtered as the files of the store's own flushes.
     */
    static String tableOptions(StoreOptions o) {
        StringBuilder b = new StringBuilder();
        Compression c = o.compression();
        if (c != null) {
            b.append("compression=").append(switch (c) {
                case NONE -> "kNoCompression";
                case SNAPPY -> "kSnappyCompression";
                case LZ4 -> "kLZ4Compression";
                case ZSTD -> "kZSTD";
            }).append(';');
        }
        if (o.bloomBitsPerKey() > 0) {
            b.append("block_based_table_factory={filter_policy=bloomfilter:").append(o.bloomBitsPerKey()).append(":false};");
        }
        if (o.rocksdbOptions() != null) {
            b.append(o.rocksdbOptions());
        }
        return b.length() == 0 ? null : b.toString();
    }

    /**
     * Deletes restored table files and runs a crash left beside the store's directory (never ingested:
     * ingestion moves them; runs are merged before an offset covers their records).
     */
    private static void deleteRestoreTables(Path dir) throws java.io.IOException {
        String prefix = dir.getFileName() + ".restore-";
        try (java.util.stream.Stream<Path> l = Files.list(dir.getParent())) {
            for (Path p : (Iterable<Path>) l::iterator) {
                String f = p.getFileName().toString();
                if (f.startsWith(prefix) && (f.endsWith(".sst") || f.endsWith(RestoreRuns.SUFFIX))) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    private static ColumnFamily family(Store s, String name) {
        return s.columnFamily(name).orElseGet(() -> s.createColumnFamily(name));
    }

    /**
     * Writes a batch of changelog records (null value = delete) in one Ferry write.
     *
     * @param records the records, keys and values as the changelog holds them
     */
    abstract void restoreAll(Collection<KeyValue<byte[], byte[]>> records);

    /**
     * Writes one batch of restored records. On RocksDB it goes without the write-ahead log, as the
     * built-in store restores, and marks the store {@link #unlogged}: a crash before the data
     * family is flushed loses the batch, and no offset covering it is written before that flush
     * ({@link #commit(Map)}), so the store's committed offset stays behind the lost records and
     * Kafka Streams restores them again. LMDB has no log: the batch is one write transaction.
     *
     * @param s the Ferry store
     * @param batch the batch
     */
    final void writeRestored(Store s, WriteBatch batch) {
        markDirty();
        if (engine != Engine.ROCKSDB || restoreLogged) {
            s.write(batch);
            return;
        }
        unlogged = true; // before the write: a flush racing it flushes again at the next commit
        try {
            s.write(batch, RESTORE);
        } catch (FerryException.InvalidArgument e) {
            // opened with syncWrites (an options setter): every write goes through the synced log
            restoreLogged = true;
            s.write(batch);
        }
    }

    /**
     * Buffers a batch of restored records, already in the data family's layout (null value =
     * delete), and writes the buffer once it holds {@link FerryStoreConfig#RESTORE_BUFFER_BYTES}.
     * Kafka Streams hands restored records over in batches of a few hundred, in changelog order,
     * that is in random key order; written one batch at a time, each batch pays for random inserts
     * into RocksDB's memtable or, on LMDB, a transaction that copies a page per record. The buffer
     * is written as one batch sorted by key, with only the last record of each key (what writing
     * them in changelog order leaves), through {@link #writeRestored}: RocksDB inserts sorted keys
     * next to one another and flushes a memtable laid out in key order, LMDB writes each page once.
     *
     * <p>The buffer is written before any other use of the store ({@link #checkOpen()}: reads,
     * writes, {@link #flush()}, {@link #commit(Map)}; and {@link #close()}), so no caller sees the
     * store without the records restored so far, and no offset is committed that covers a record
     * still in the buffer: a crash loses buffered records as it loses RocksDB's unlogged memtable,
     * with the committed offset still behind them. Kafka Streams never changes a record's arrays
     * after handing them over, so the buffer keeps them without copying.
     *
     * @param records the records, in changelog order
     */
    final void bufferRestored(Collection<KeyValue<byte[], byte[]>> records) {
        Store s = openStore();
        for (KeyValue<byte[], byte[]> r : records) {
            Objects.requireNonNull(r.key, "key cannot be null");
        }
        if (restoreBufferLimit == 0) {
            writeSorted(s, records instanceof List<KeyValue<byte[], byte[]>> l ? l : new ArrayList<>(records));
            return;
        }
        synchronized (restoreBuffer) {
            long added = 0;
            for (KeyValue<byte[], byte[]> r : records) {
                restoreBuffer.add(r);
                added += r.key.length + (r.value == null ? 0 : r.value.length) + BUFFERED_RECORD_OVERHEAD;
            }
            restoreBufferBytes += added;
            long total = RESTORE_BUFFERED_TOTAL.addAndGet(added);
            restoreBuffered = !restoreBuffer.isEmpty();
            if (restoreBufferBytes >= restoreBufferLimit || (restoreBufferTotalLimit > 0 && total >= restoreBufferTotalLimit)) {
                if (restoreRuns != null) {
                    spillRestored();
                } else {
                    drainRestored(s);
                }
            }
        }
    }

    /**
     * Writes the buffered restored records, if any ({@link #bufferRestored}). On failure they stay
     * buffered: every later use of the store tries again and fails, so no commit covers them.
     */
    private void drainRestored(Store s) {
        synchronized (restoreBuffer) {
            if (restoreBuffer.isEmpty() && (restoreRuns == null || restoreRuns.isEmpty())) {
                return;
            }
            writeSorted(s, restoreBuffer);
            releaseRestoreBuffer();
        }
    }

    /**
     * LMDB: writes the restore buffer as a sorted run to a file ({@link RestoreRuns}) and empties it;
     * the next drain merges the runs into the store. If the file cannot be written, the buffer is
     * written into the store instead.
     */
    private void spillRestored() {
        synchronized (restoreBuffer) {
            Sorted sd = sortLastOfEachKey(restoreBuffer);
            try {
                restoreRuns.spill(sd::get, sd.n());
            } catch (java.io.UncheckedIOException e) {
                writeMerged(openStore(), sd); // a full or read-only disk: in the store, as without runs
            }
            releaseRestoreBuffer();
        }
    }

    /**
     * LMDB: merges the runs ({@link RestoreRuns}) with the sorted records and writes each key's newest
     * record in key order, in transactions of about {@link #MERGED_TRANSACTION_BYTES}: the key ranges
     * of the transactions follow one another, so each leaf page of the tree is copied once. Into an
     * empty data family the records are appended (LMDB's MDB_APPEND: no search, full pages) and
     * deletes dropped (they delete nothing). The runs are deleted once everything is written; on a
     * failure they stay, with the buffer, and the next drain writes them again (then not appending:
     * the family holds what the failed drain wrote, and writing it again leaves the same entries).
     *
     * @param s the store
     * @param newest the records not in a run, sorted by key, each key once
     */
    private void writeMerged(Store s, Sorted newest) {
        ColumnFamily d = data;
        boolean[] append = {s.estimatedKeyCount(d) == 0}; // exact on LMDB
        try (WriteBatch batch = new WriteBatch()) {
            restoreRuns.merge(newest::get, newest.n(), r -> {
                if (r.value != null) {
                    batch.put(d, r.key, r.value);
                } else if (!append[0]) {
                    batch.delete(d, r.key);
                }
                if (batch.sizeInBytes() >= MERGED_TRANSACTION_BYTES) {
                    append[0] = writeMergedBatch(s, batch, append[0]);
                    batch.clear();
                }
            });
            if (batch.count() > 0) {
                writeMergedBatch(s, batch, append[0]);
            }
        }
        restoreRuns.clear();
    }

    /**
     * One transaction of {@link #writeMerged}.
     *
     * @return whether the next batch may append
     */
    private boolean writeMergedBatch(Store s, WriteBatch batch, boolean append) {
        markDirty();
        if (append) {
            try {
                s.write(batch, APPEND);
                return true;
            } catch (FerryException.InvalidArgument e) {
                // a key at or before the family's last one (written by another path meanwhile): write it in place
            }
        }
        s.write(batch);
        return false;
    }

    /** @return bytes in this store's restore buffer (tests) */
    final long restoreBufferedBytes() {
        synchronized (restoreBuffer) {
            return restoreBufferBytes;
        }
    }

    /** @return bytes in the restore buffers of every store in this JVM (tests) */
    static long restoreBufferedTotal() {
        return RESTORE_BUFFERED_TOTAL.get();
    }

    /** Empties the restore buffer (written, or given up at close) and takes its bytes off the JVM's total. */
    private void releaseRestoreBuffer() {
        synchronized (restoreBuffer) {
            restoreBuffer.clear();
            restoreBuffer.trimToSize(); // a store keeps no large empty array once restoration is over
            RESTORE_BUFFERED_TOTAL.addAndGet(-restoreBufferBytes);
            restoreBufferBytes = 0;
            restoreBuffered = restoreRuns != null && !restoreRuns.isEmpty();
        }
    }

    /**
     * Sorts records by key (stably) and moves the last record of each key (what writing them in
     * changelog order leaves), in key order, to the front.
     *
     * @param records the records, in changelog order
     * @return the sorted records, each key once
     */
    private static Sorted sortLastOfEachKey(List<KeyValue<byte[], byte[]>> records) {
        @SuppressWarnings("unchecked")
        KeyValue<byte[], byte[]>[] in = records.toArray(new KeyValue[0]); // any List: indexed once, in order
        int n = in.length;
        byte[][] keys = new byte[n][];
        for (int i = 0; i < n; i++) {
            keys[i] = in[i].key;
        }
        int[] order = KeyOrder.sort(keys); // stable: a key's records keep their changelog order
        @SuppressWarnings("unchecked")
        KeyValue<byte[], byte[]>[] sorted = new KeyValue[n];
        int u = 0;
        for (int p = 0; p < n; p++) {
            if (p + 1 < n && Arrays.equals(keys[order[p]], keys[order[p + 1]])) {
                continue; // a later record of the key replaces it
            }
            sorted[u++] = in[order[p]];
        }
        return new Sorted(sorted, u);
    }

    /** Records sorted by key: the first {@code n}, each key once. */
    private record Sorted(KeyValue<byte[], byte[]>[] records, int n) {
        KeyValue<byte[], byte[]> get(int i) {
            return records[i];
        }
    }

    /** Sorts records by key (stably) and writes the last record of each key in one restore write. */
    private void writeSorted(Store s, List<KeyValue<byte[], byte[]>> records) {
        Sorted sd = sortLastOfEachKey(records);
        if (restoreRuns != null) { // LMDB: merged with the runs, in key order
            writeMerged(s, sd);
            return;
        }
        KeyValue<byte[], byte[]>[] sorted = sd.records();
        int u = sd.n();
        // a buffer of 0 writes each restore batch at once: through the memtable, not as a table file per batch
        if (restoreTableFiles && restoreBufferLimit > 0 && writeTables(s, sorted, u)) {
            return;
        }
        ColumnFamily d = data;
        try (WriteBatch batch = new WriteBatch()) {
            for (int i = 0; i < u; i++) {
                KeyValue<byte[], byte[]> r = sorted[i];
                if (r.value == null) {
                    batch.delete(d, r.key);
                } else {
                    batch.put(d, r.key, r.value);
                }
            }
            writeRestored(s, batch);
        }
    }

    /**
     * RocksDB: writes sorted restored records (one per key) as table files and ingests them into
     * the data family: RocksDB adds the files as they are, newer than every entry of the family,
     * without the memtable, the write-ahead log and a flush. A buffer of at least
     * {@link #PARALLEL_TABLE_RECORDS} records is split at its middle key into two files, the second
     * written on another thread, and both are ingested in one step. Ingestion syncs the files and
     * records them in RocksDB's MANIFEST (synced) before it returns: the records are durable before
     * any offset covering them can be committed, so the store is not marked {@link #unlogged}.
     * A crash before the ingestion leaves the files outside the store (deleted at the next
     * {@link #init}) and the records to restore again.
     *
     * @param s the store
     * @param sorted the records, the first {@code n} sorted by key, each key once
     * @param n how many
     * @return false when this RocksDB library cannot write or ingest table files (the caller writes
     *     a batch instead, from now on)
     */
    private boolean writeTables(Store s, KeyValue<byte[], byte[]>[] sorted, int n) {
        int parts = PARALLEL_TABLES && n >= PARALLEL_TABLE_RECORDS ? 2 : 1;
        int mid = parts == 2 ? n / 2 : n;
        List<Path> files = new ArrayList<>(parts);
        for (int p = 0; p < parts; p++) {
            files.add(Path.of(restoreTablePrefix + Integer.toString(p) + ".sst"));
        }
        String binding = s.binding();
        java.util.concurrent.Future<?> second = null;
        try {
            if (parts == 2) {
                second = TABLE_WRITERS.submit(() -> writeTable(files.get(1), binding, sorted, mid, n));
            }
            writeTable(files.get(0), binding, sorted, 0, mid);
            if (second != null) {
                awaitTable(second);
                second = null;
            }
            // not markDirty(): ingested files are synced, so flush() has nothing to add for them
            s.ingest(data, files, true);
            return true;
        } catch (FerryException.NotSupported e) {
            restoreTableFiles = false; // a RocksDB library without the SstFileWriter or ingestion C API
            return false;
        } finally {
            if (second != null) {
                try {
                    awaitTable(second);
                } catch (RuntimeException ignored) {
                    // the first failure is the one reported
                }
            }
            for (Path f : files) { // ingested files were moved into the store: these are left over from a failure
                try {
                    Files.deleteIfExists(f);
                } catch (java.io.IOException ignored) {
                    // deleted at the next init
                }
            }
        }
    }

    /** Writes sorted[from, to) as one table file. */
    private void writeTable(Path file, String binding, KeyValue<byte[], byte[]>[] sorted, int from, int to) {
        try (SstFileWriter w = SstFileWriter.open(file, restoreTableOptions, binding)) {
            for (int i = from; i < to; i++) {
                KeyValue<byte[], byte[]> r = sorted[i];
                if (r.value == null) {
                    w.delete(r.key);
                } else {
                    w.put(r.key, r.value);
                }
            }
            w.finish();
        }
    }

    /** Waits for a table file written on another thread, rethrowing its failure. */
    private static void awaitTable(java.util.concurrent.Future<?> f) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    f.get();
                    return;
                } catch (InterruptedException e) {
                    interrupted = true; // the file must be complete (or failed) before it is ingested or deleted
                } catch (java.util.concurrent.ExecutionException e) {
                    Throwable c = e.getCause();
                    if (c instanceof RuntimeException r) {
                        throw r;
                    }
                    if (c instanceof Error err) {
                        throw err;
                    }
                    throw new IllegalStateException(c);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * RocksDB: if restored records were written without the log since the last flush, flushes the
     * data family to synced table files, so that no offset written after this returns can be
     * durable while those records are only in the memtable.
     */
    private void flushUnlogged(Store s) {
        if (!unlogged) {
            return;
        }
        unlogged = false; // a restore racing this flush marks the store again
        try {
            s.flush(data);
        } catch (RuntimeException e) {
            unlogged = true;
            throw e;
        }
    }

    @Override
    public boolean persistent() {
        return true;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    /** @return the data family (valid while the store is open) */
    ColumnFamily data() {
        return data;
    }

    /** Marks the store written to, so the next {@link #flush()} flushes. */
    void markDirty() {
        dirty = true;
    }

    /** Advances the store's {@link Position} by the record being processed, as Kafka's stores do. */
    void updatePosition() {
        StoreQueryUtils.updatePosition(position, context);
    }

    /**
     * Makes every write so far durable against an operating-system crash too: RocksDB writes its
     * memtables to synced table files, LMDB syncs its map. Kafka Streams does not need it (it calls
     * {@link #commit(Map)}); a store with no write since the last flush returns at once.
     */
    @Override
    public void flush() {
        Store s = checkOpen();
        if (!dirty) {
            return;
        }
        try {
            dirty = false; // a write racing this flush marks the store again
            unlogged = false; // the data family's flush below covers the restored records too
            // the entries first, then the offsets: a crash between the two keeps offsets no newer
            // than the entries (Store.flush() alone would flush only the empty default family)
            s.flush(data);
            if (engine == Engine.ROCKSDB) { // LMDB's flush syncs the whole map at once
                s.flush(offsets);
            }
        } catch (RuntimeException e) {
            dirty = true;
            if (engine == Engine.ROCKSDB) {
                unlogged = true;
            }
            throw translate(e, "flush");
        }
    }

    /**
     * The store keeps its changelog offsets itself, beside its entries, so Kafka Streams writes no
     * {@code .checkpoint} file for it and a commit costs one small write instead of a flush: entries
     * and offsets reach the engine in write order (RocksDB's write-ahead log, LMDB's commits), so
     * whatever a crash keeps of the store, the offsets kept match the entries kept, and restoration
     * starts from there.
     *
     * @return true
     */
    @Override
    public boolean managesOffsets() {
        return true;
    }

    /**
     * Records the changelog offsets, and the store's query {@link Position} if it moved since it was
     * last written, in one atomic write after every entry written so far: after a restart the store
     * reports the position it had at its last commit (or {@link #close()}), as the built-in store
     * does, never a position ahead of the entries it holds.
     *
     * <p>On RocksDB, if records were restored without the write-ahead log since the data family was
     * last flushed, the commit first flushes the data family to synced table files: the offsets go
     * through the log, and must not be durable while the records they cover are only in the memtable.
     */
    @Override
    public synchronized void commit(Map<TopicPartition, Long> changelogOffsets) {
        Objects.requireNonNull(changelogOffsets, "changelogOffsets");
        Store s = checkOpen();
        try (WriteBatch batch = new WriteBatch()) {
            flushUnlogged(s);
            Position now = position.copy();
            boolean moved = !now.equals(writtenPosition);
            if (moved) {
                batch.put(offsets, POSITION_KEY, positionBytes(now));
            }
            for (Map.Entry<TopicPartition, Long> e : changelogOffsets.entrySet()) {
                byte[] k = e.getKey().toString().getBytes(StandardCharsets.UTF_8);
                if (e.getValue() == null) {
                    batch.delete(offsets, k);
                } else {
                    batch.put(offsets, k, ByteBuffer.allocate(Long.BYTES).putLong(e.getValue()).array());
                }
            }
            if (batch.count() > 0) {
                // synced: it makes every entry logged before it durable first, so a power cut that
                // keeps some unsynced log pages and drops others (a hole the log's reader skips)
                // cannot keep these offsets without the entries they cover (KafkaPowerCutTest)
                s.write(batch, COMMIT);
            }
            if (moved) {
                writtenPosition = now;
            }
        } catch (RuntimeException e) {
            throw translate(e, "commit");
        }
    }

    private static byte[] positionBytes(Position p) {
        ByteBuffer b = PositionSerde.serialize(p);
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    @Override
    public Long committedOffset(TopicPartition partition) {
        Objects.requireNonNull(partition, "partition");
        Store s = checkOpen();
        byte[] v;
        try {
            v = s.get(offsets, partition.toString().getBytes(StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
            throw translate(e, "committedOffset");
        }
        return v == null || v.length != Long.BYTES ? null : ByteBuffer.wrap(v).getLong();
    }

    /**
     * Answers interactive queries through Kafka's {@code StoreQueryUtils}: the standard queries of
     * the store's kind ({@code KeyQuery}, {@code RangeQuery}, {@code WindowKeyQuery},
     * {@code WindowRangeQuery}) where Kafka's handlers take them.
     */
    @Override
    public <R> QueryResult<R> query(Query<R> query, PositionBound positionBound, QueryConfig config) {
        return StoreQueryUtils.handleBasicQueries(query, positionBound, config, this, position, context);
    }

    @Override
    public Position getPosition() {
        return position;
    }

    /** @return the number of iterators opened and not yet closed (for tests and monitoring) */
    public int openIterators() {
        return openIterators.size();
    }

    @Override
    public synchronized void close() {
        if (!open) {
            return;
        }
        open = false;
        if (metrics != null) {
            metrics.stop();
            metrics = null;
        }
        for (FerryIterator it : new ArrayList<>(openIterators)) {
            it.close();
        }
        Store s = store;
        if (s != null) {
            try {
                drainRestored(s); // best effort, as close is: records it loses were never covered by a commit
                flushUnlogged(s); // RocksDB's own close would flush them too; the order stays explicit
                Position now = position.copy();
                if (!now.equals(writtenPosition)) { // keep the position of every write so far (best effort, as close is)
                    s.put(offsets, POSITION_KEY, positionBytes(now));
                    writtenPosition = now;
                }
                s.put(offsets, STATUS_KEY, CLOSED); // after every write: a store found without it was not closed
            } catch (RuntimeException e) {
                // the position stays at its last commit: never ahead of the entries
            } finally {
                synchronized (restoreBuffer) {
                    if (restoreRuns != null) {
                        restoreRuns.clear(); // empty unless merging them failed: never covered by a commit
                    }
                }
                releaseRestoreBuffer(); // empty unless writing it failed: those records were never covered by a commit
                s.close();
                FerryMemoryBudget b = budget;
                budget = null;
                if (b != null) {
                    b.release();
                }
            }
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + name + ", " + engine + (open ? "" : ", closed") + "]";
    }

    /** @return the memory budget this store holds, or null (tests) */
    FerryMemoryBudget budget() {
        return budget;
    }

    /**
     * The open Ferry store underneath, with every restored record written
     * ({@link #bufferRestored}) (package-private: tests look at its families).
     */
    Store checkOpen() {
        Store s = openStore();
        if (restoreBuffered) {
            try {
                drainRestored(s);
            } catch (RuntimeException e) {
                throw translate(e, "writing restored records");
            }
        }
        return s;
    }

    /** The open Ferry store underneath, restored records perhaps still buffered (metrics, restoration). */
    Store openStore() {
        Store s = store;
        if (!open || s == null) {
            throw closed(null);
        }
        return s;
    }

    private InvalidStateStoreException closed(Throwable cause) {
        return new InvalidStateStoreException("Store " + name + " is currently closed", cause);
    }

    /** A failure of a Ferry call: a closed store (a race with close) or an engine error. */
    RuntimeException translate(RuntimeException e, String what) {
        if (e instanceof InvalidStateStoreException || e instanceof NullPointerException) {
            return e;
        }
        Store s = store;
        if (!open || s == null || s.isClosed()) {
            return closed(e);
        }
        if (e instanceof FerryException) {
            return new ProcessorStateException("Error in " + what + " on Ferry store " + name + ": " + e.getMessage(), e);
        }
        return e;
    }

    /**
     * An iterator over one range of the data family; its cursor opens now and reads the state of
     * this moment.
     *
     * @param range the keys
     * @param forward ascending or descending
     * @return the iterator, registered to close with the store
     */
    KeyValueIterator<Bytes, byte[]> iterator(KeyRange range, boolean forward) {
        return iterator(List.of(range).iterator(), forward, 0, null, false);
    }

    /**
     * An iterator over a sequence of ranges of the data family, walked one after the other, each
     * range's cursor opening when the previous range is exhausted (as Kafka's segmented stores open
     * one segment's iterator after the other).
     *
     * <p>Two behaviours, one per kind of Kafka store:
     * <ul>
     * <li>{@code segmented == false} (key-value stores, as Kafka's {@code RocksDBStore}): the first
     *     cursor opens now and reads the state of this moment; {@code hasNext()} on an iterator
     *     closed by the store's {@code close()} (or by its own) throws
     *     {@link InvalidStateStoreException}.</li>
     * <li>{@code segmented == true} (window and session stores, as Kafka's segmented stores): the
     *     first cursor opens at the first {@code hasNext()}, so writes made between the iterator's
     *     creation and its first read are seen; once the iterator is closed (by the store's
     *     {@code close()} or its own) {@code hasNext()} returns false.</li>
     * </ul>
     *
     * @param ranges the ranges, in the order to walk them
     * @param forward ascending or descending within each range
     * @param strip how many leading bytes of each key to drop before filtering and handing it out
     * @param keep which (stripped) keys to hand out, or null for all
     * @param segmented the window and session stores' behaviour (above)
     * @return the iterator, registered to close with the store
     */
    KeyValueIterator<Bytes, byte[]> iterator(Iterator<KeyRange> ranges, boolean forward, int strip, Predicate<byte[]> keep,
                                             boolean segmented) {
        checkOpen();
        FerryIterator it = new FerryIterator(ranges, forward, strip, keep, segmented);
        openIterators.add(it);
        if (!open) { // raced with close(), which may not have seen this one
            it.close();
            throw closed(null);
        }
        if (!segmented) {
            try {
                it.advanceRange();
            } catch (RuntimeException e) {
                it.close();
                throw e;
            }
        }
        return it;
    }

    /** An iterator over Ferry cursors; entries are copied out as Kafka's API hands out arrays. */
    private final class FerryIterator implements KeyValueIterator<Bytes, byte[]> {
        private final Iterator<KeyRange> ranges;
        private final boolean forward;
        private final int strip;
        private final Predicate<byte[]> keep;
        private final boolean segmented;
        /** The first range's cursor has been opened (at creation, or at the first read if segmented). */
        private boolean started;
        private Cursor cursor;
        private KeyValue<Bytes, byte[]> next;
        private boolean done;
        private volatile boolean closed;

        FerryIterator(Iterator<KeyRange> ranges, boolean forward, int strip, Predicate<byte[]> keep, boolean segmented) {
            this.ranges = ranges;
            this.forward = forward;
            this.strip = strip;
            this.keep = keep;
            this.segmented = segmented;
        }

        /** Closes the current cursor and opens the next range's; false when no range is left. */
        boolean advanceRange() {
            started = true;
            if (cursor != null) {
                cursor.close();
                cursor = null;
            }
            if (!ranges.hasNext()) {
                done = true;
                return false;
            }
            Store s = checkOpen();
            try {
                cursor = s.cursor(data, ranges.next(), null);
            } catch (RuntimeException e) {
                throw translate(e, "opening an iterator");
            }
            if (closed) { // closed by the store's close() meanwhile
                cursor.close();
                throw closed(null);
            }
            return true;
        }

        @Override
        public boolean hasNext() {
            if (closed) {
                if (segmented) {
                    return false;
                }
                throw new InvalidStateStoreException("Ferry iterator for store " + name + " has closed");
            }
            if (next != null) {
                return true;
            }
            try {
                if (!started && !advanceRange()) {
                    return false;
                }
                while (!done) {
                    boolean ok = forward ? cursor.next() : cursor.prev();
                    if (!ok) {
                        advanceRange();
                        continue;
                    }
                    byte[] k = cursor.keyBytes();
                    if (strip > 0) {
                        k = Arrays.copyOfRange(k, strip, k.length);
                    }
                    if (keep == null || keep.test(k)) {
                        next = KeyValue.pair(Bytes.wrap(k), cursor.valueBytes());
                        return true;
                    }
                }
                return false;
            } catch (RuntimeException e) {
                if (closed) {
                    if (segmented) {
                        return false;
                    }
                    throw new InvalidStateStoreException("Ferry iterator for store " + name + " has closed", e);
                }
                throw translate(e, "iterating");
            }
        }

        @Override
        public KeyValue<Bytes, byte[]> next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            KeyValue<Bytes, byte[]> kv = next;
            next = null;
            return kv;
        }

        @Override
        public Bytes peekNextKey() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return next.key;
        }

        @Override
        public void close() {
            closed = true;
            openIterators.remove(this);
            Cursor c = cursor;
            if (c != null) {
                c.close();
            }
        }
    }
}
