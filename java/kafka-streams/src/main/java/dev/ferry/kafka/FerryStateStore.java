package dev.ferry.kafka;

import dev.ferry.ColumnFamily;
import dev.ferry.Cursor;
import dev.ferry.Engine;
import dev.ferry.FerryException;
import dev.ferry.KeyRange;
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
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.apache.kafka.common.IsolationLevel;
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
    /**
     * The status while open as a transactional store ({@link Uncommitted}): the family holds committed
     * writes only, so a store found with it can be trusted under exactly-once too.
     */
    private static final byte[] OPENED_TRANSACTIONAL = ByteBuffer.allocate(Long.BYTES).putLong(2).array();
    /** Set while a {@link #readCommitted} call runs on this thread. */
    private static final ThreadLocal<Boolean> COMMITTED_READ = new ThreadLocal<>();
    private final String name;
    private final Engine engine;
    private final Set<FerryIterator> openIterators = ConcurrentHashMap.newKeySet();
    private volatile Store store;
    /** The uncommitted writes when Kafka Streams asked for transactional stores; else null. */
    private volatile Uncommitted uncommitted;
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
    /** How restored records are written on RocksDB: without the write-ahead log, as the built-in store. */
    private static final WriteOptions RESTORE = WriteOptions.DEFAULT.disableWal(true);
    /** Restored records not yet written, and how they are written (buffer, sort, runs, table files); set by {@link #init}. */
    private volatile RestoreBuffer restore;
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
        boolean transactional = Uncommitted.enabled(context.appConfigs());
        Position kept;
        // the application's memory budget (ferry.rocksdb.memory.total.bytes), held until close
        FerryMemoryBudget b = engine == Engine.ROCKSDB ? FerryMemoryBudget.acquire(context.applicationId(), context.appConfigs()) : null;
        try {
            if (b != null) {
                b.apply(options);
            }
            Files.createDirectories(dir.getParent());
            RestoreBuffer.deleteFiles(dir); // left by a crash while writing them
            BuiltInImport.run(this, dir, options, context); // no Ferry store yet, Kafka's built-in one: take its entries and offsets
            Store s = Store.open(dir, options);
            try {
                data = family(s, DATA_FAMILY);
                offsets = family(s, OFFSETS_FAMILY);
                byte[] p = s.get(offsets, POSITION_KEY);
                kept = p == null ? Position.emptyPosition() : PositionSerde.deserialize(ByteBuffer.wrap(p));
                byte[] status = s.get(offsets, STATUS_KEY);
                if (status != null && !Arrays.equals(status, CLOSED) && !Arrays.equals(status, OPENED_TRANSACTIONAL)
                        && StreamsConfig.EXACTLY_ONCE_V2.equals(
                        context.appConfigs().get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG))) {
                    // not closed: it may hold writes of a transaction the broker aborted, which its offsets do not
                    // cover; Kafka Streams wipes the task's state and restores it (as for its own store)
                    throw new TaskCorruptedException(Set.of(context.taskId()), new ProcessorStateException(
                            "Ferry store " + name + " at " + dir + " was not closed: under exactly-once its entries may hold uncommitted writes"));
                }
                // synced: before every write this opening makes
                s.put(offsets, STATUS_KEY, transactional ? OPENED_TRANSACTIONAL : OPENED, COMMIT);
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
        this.uncommitted = transactional ? new Uncommitted() : null;
        this.restore = new RestoreBuffer(this, dir, bufferLimit, bufferTotalLimit, tableFiles,
                tableFiles ? RestoreBuffer.tableOptions(options) : null, engine == Engine.LMDB && bufferLimit > 0 && runs);
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
     * them in changelog order leaves), through {@link #writeRestored} ({@link RestoreBuffer}): RocksDB inserts sorted keys
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
        restore.add(openStore(), records);
    }

    /** @return bytes in this store's restore buffer (tests) */
    final long restoreBufferedBytes() {
        return restore.bufferedBytes();
    }

    /** @return the LMDB restore runs of this store, or null (tests) */
    final RestoreRuns restoreRuns() {
        return restore.runs();
    }

    /** @return bytes in the restore buffers of every store in this JVM (tests) */
    static long restoreBufferedTotal() {
        return RestoreBuffer.bufferedTotal();
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

    /** @return whether the store keeps its writes out of the family until a commit (KIP-892) */
    final boolean transactional() {
        return uncommitted != null;
    }

    /**
     * Reads one key of the data family: in a transactional store, as the task sees it (its
     * uncommitted writes over the family) unless a {@link #readCommitted} call runs on this thread.
     *
     * @param s the Ferry store
     * @param key the key in the family's layout
     * @return the value, or null
     */
    final byte[] getData(Store s, byte[] key) {
        Uncommitted u = uncommitted;
        if (u != null && COMMITTED_READ.get() == null) {
            byte[] v = u.lookup(key);
            if (v != null) {
                return v == Uncommitted.DELETED ? null : v;
            }
        }
        return s.get(data, key);
    }

    /**
     * Writes one key of the data family (a null value deletes it): to the family, or in a
     * transactional store to its uncommitted writes.
     *
     * @param s the Ferry store
     * @param key the key in the family's layout
     * @param value the value, or null
     */
    final void putData(Store s, byte[] key, byte[] value) {
        Uncommitted u = uncommitted;
        if (u != null) {
            u.put(key, value);
            return;
        }
        markDirty();
        if (value == null) {
            s.delete(data, key);
        } else {
            s.put(data, key, value);
        }
    }

    /**
     * Writes a batch of operations on the data family: in one atomic write to the family, or in a
     * transactional store to its uncommitted writes.
     *
     * @param s the Ferry store
     * @param batch the operations
     */
    final void writeData(Store s, DataBatch batch) {
        if (batch.count() == 0) {
            return;
        }
        Uncommitted u = uncommitted;
        if (u != null) {
            u.apply(batch);
            return;
        }
        try (WriteBatch b = new WriteBatch()) {
            batch.addTo(b, data);
            markDirty();
            s.write(b);
        }
    }

    /** @return whether a {@link #readCommitted} call runs on this thread */
    static boolean readingCommitted() {
        return COMMITTED_READ.get() != null;
    }

    /**
     * Runs reads on this store with its uncommitted writes hidden: the {@code READ_COMMITTED} view of
     * a transactional store ({@link CommittedView}). Iterators opened inside keep reading the
     * committed state only.
     *
     * @param read the reads
     * @param <T> the result
     * @return the result
     * @throws Exception what the reads throw
     */
    final <T> T readCommitted(Callable<T> read) throws Exception {
        if (COMMITTED_READ.get() != null) {
            return read.call();
        }
        COMMITTED_READ.set(Boolean.TRUE);
        try {
            return read.call();
        } finally {
            COMMITTED_READ.remove();
        }
    }

    /**
     * What {@code readOnly(IsolationLevel)} returns (KIP-892): a transactional store's
     * {@code READ_COMMITTED} view hides its uncommitted writes; otherwise the store itself, which
     * holds every write.
     *
     * @param level the isolation level
     * @param type the store kind's read-only interface
     * @param self this store, as that interface
     * @param <T> the interface
     * @return the view
     */
    final <T> T readOnlyView(IsolationLevel level, Class<T> type, T self) {
        Objects.requireNonNull(level, "isolationLevel cannot be null");
        return level == IsolationLevel.READ_COMMITTED && uncommitted != null ? CommittedView.of(type, this) : self;
    }

    /**
     * The bytes of a transactional store's uncommitted writes (keys, values and
     * {@value Uncommitted#ENTRY_OVERHEAD} bytes per entry), which Kafka Streams adds up to commit
     * early ({@code statestore.uncommitted.max.bytes}); 0 when the store is not transactional.
     */
    @Override
    public long approximateNumUncommittedBytes() {
        Uncommitted u = uncommitted;
        return u == null ? 0 : u.bytes();
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
        Uncommitted u = uncommitted;
        try (WriteBatch batch = new WriteBatch()) {
            flushUnlogged(s);
            if (u != null && !u.isEmpty()) {
                u.writeTo(batch, data); // the uncommitted writes first: the offsets cover them
            }
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
                if (u == null) {
                    s.write(batch, COMMIT);
                } else {
                    synchronized (u) { // an iterator opening meanwhile sees the writes in the family or in the overlay
                        markDirty();
                        s.write(batch, COMMIT);
                        u.clear();
                    }
                }
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

    /**
     * Closes the store: stops its metrics, closes its iterators, writes what is still buffered from
     * restoration and the query position (best effort), closes the Ferry store and lets go of the
     * memory budget. Each step runs even when one before it failed; the first failure is thrown
     * afterwards, the others added to it as suppressed.
     */
    @Override
    public synchronized void close() {
        if (!open) {
            return;
        }
        open = false;
        Store s = store;
        FerryMemoryBudget b = budget;
        budget = null;
        FerryStoreMetrics m = metrics;
        metrics = null;
        RuntimeException failure = null;
        if (m != null) {
            failure = step(failure, m::stop);
        }
        for (FerryIterator it : new ArrayList<>(openIterators)) {
            failure = step(failure, it::close);
        }
        if (s != null) {
            try {
                restore.drain(s); // best effort, as close is: records it loses were never covered by a commit
                flushUnlogged(s); // RocksDB's own close would flush them too; the order stays explicit
                Uncommitted u = uncommitted;
                Position now = position.copy();
                // a transactional store's uncommitted writes are lost: its position stays at the last commit
                if (!now.equals(writtenPosition) && (u == null || u.isEmpty())) { // keep the position of every write so far (best effort, as close is)
                    s.put(offsets, POSITION_KEY, positionBytes(now));
                    writtenPosition = now;
                }
                s.put(offsets, STATUS_KEY, CLOSED); // after every write: a store found without it was not closed
            } catch (RuntimeException e) {
                // the position stays at its last commit: never ahead of the entries
            }
            failure = step(failure, restore::discard); // empty unless writing it failed: never covered by a commit
            Uncommitted u = uncommitted;
            if (u != null) {
                u.clear(); // never committed: dropped
            }
            failure = step(failure, () -> closeStore(s));
        }
        if (b != null) {
            // after the Ferry store's close, whatever it threw: the budget closes with its last store
            // (later, if another thread's cursor still holds this store's engine)
            failure = step(failure, b::release);
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Runs one step of {@link #close()}: returns the first failure so far, later ones suppressed in it. */
    private static RuntimeException step(RuntimeException failure, Runnable step) {
        try {
            step.run();
        } catch (RuntimeException e) {
            if (failure == null) {
                return e;
            }
            failure.addSuppressed(e);
        }
        return failure;
    }

    /** Closes the Ferry store underneath, in {@link #close()} (a method of its own: tests make it fail). */
    void closeStore(Store s) {
        s.close();
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
        if (restore.buffered()) {
            try {
                restore.drain(s);
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
        /** A transactional store's uncommitted writes to merge over the cursors, or null (none, or read-committed). */
        private final Uncommitted overlay;
        /** The first range's cursor has been opened (at creation, or at the first read if segmented). */
        private boolean started;
        private Cursor cursor;
        /** The current range's cursor with the overlay merged over it, or null to read the cursor alone. */
        private Uncommitted.Merge merge;
        private KeyValue<Bytes, byte[]> next;
        private boolean done;
        private volatile boolean closed;

        FerryIterator(Iterator<KeyRange> ranges, boolean forward, int strip, Predicate<byte[]> keep, boolean segmented) {
            this.ranges = ranges;
            this.forward = forward;
            this.strip = strip;
            this.keep = keep;
            this.segmented = segmented;
            this.overlay = COMMITTED_READ.get() == null ? uncommitted : null;
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
            merge = null;
            try {
                KeyRange range = ranges.next();
                if (overlay == null) {
                    cursor = s.cursor(data, range, null);
                } else {
                    synchronized (overlay) { // the cursor and the overlay's copy show the same commit
                        cursor = s.cursor(data, range, null);
                        merge = overlay.merge(cursor, range, forward);
                    }
                }
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
                closeCursor(); // closed by the store's close(): free the cursor on its own thread
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
                    boolean ok = merge != null ? merge.move() : forward ? cursor.next() : cursor.prev();
                    if (!ok) {
                        advanceRange();
                        continue;
                    }
                    byte[] k = merge != null ? merge.key() : cursor.keyBytes();
                    if (strip > 0) {
                        k = Arrays.copyOfRange(k, strip, k.length);
                    }
                    if (keep == null || keep.test(k)) {
                        next = KeyValue.pair(Bytes.wrap(k), merge != null ? merge.value() : cursor.valueBytes());
                        return true;
                    }
                }
                return false;
            } catch (RuntimeException e) {
                if (closed) {
                    closeCursor(); // the move that found it closed freed it: the budget may go now
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
            closeCursor();
        }

        /**
         * Closes the cursor. On the thread that owns it, this also frees its native side, which a close
         * of the store from another thread leaves to this thread; that may be the last hold on the
         * store's engine, and so on the memory budget ({@link FerryMemoryBudget#closePending()}).
         */
        private void closeCursor() {
            Cursor c = cursor;
            if (c == null) {
                return;
            }
            c.close();
            if (!open) { // the store closed: this may have let its engine, and the budget it held, go
                FerryMemoryBudget.closePending();
            }
        }
    }
}
