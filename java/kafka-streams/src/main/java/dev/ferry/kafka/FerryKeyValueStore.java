package dev.ferry.kafka;

import dev.ferry.ColumnFamily;
import dev.ferry.Cursor;
import dev.ferry.Engine;
import dev.ferry.FerryException;
import dev.ferry.KeyRange;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import dev.ferry.WriteBatch;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.processor.BatchingStateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.internals.StoreQueryUtils;

/**
 * A persistent Kafka Streams key-value store on a Ferry {@link Store} (RocksDB or LMDB): the
 * {@code KeyValueStore<Bytes, byte[]>} that {@link FerryStores}' suppliers hand to
 * {@code Stores.keyValueStoreBuilder} and the DSL. Keys are ordered as unsigned bytes, as in Kafka's
 * built-in store.
 *
 * <p>Each instance is one partition of one store, in {@code <state.dir>/<task>/ferry/<name>}.
 * Iterators walk Ferry cursors (a page of entries per native call) and read a consistent view of
 * the store taken when they were opened; an iterator is confined to the thread that opened it, and
 * closing the store closes every iterator still open. Writes, and reads from interactive queries,
 * may come from any thread.
 *
 * <p>After {@link #close()} (or before {@link #init}) every method but {@code name()},
 * {@code persistent()}, {@code isOpen()} and {@code close()} throws
 * {@link InvalidStateStoreException}; engine errors become {@link ProcessorStateException}; a null
 * key throws {@link NullPointerException}.
 */
public class FerryKeyValueStore implements KeyValueStore<Bytes, byte[]>, AutoCloseable {
    /** The column family that holds the store's entries. */
    static final String DATA_FAMILY = "data";
    /** The column family that holds the committed changelog offsets ({@link #managesOffsets()}). */
    static final String OFFSETS_FAMILY = "offsets";
    private final String name;
    private final Engine engine;
    private final Set<FerryIterator> openIterators = ConcurrentHashMap.newKeySet();
    private volatile Store store;
    private ColumnFamily data;
    private ColumnFamily offsets;
    private volatile boolean open;
    /** Written to since the last flush: a flush of a clean store returns at once. */
    private volatile boolean dirty;
    private StateStoreContext context;
    private Position position = Position.emptyPosition();

    /**
     * Makes a store; it opens in {@link #init}. Use {@link FerryStores} rather than this constructor.
     *
     * @param name the store's name
     * @param engine the engine it runs on
     */
    public FerryKeyValueStore(String name, Engine engine) {
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
        Path dir = new File(new File(context.stateDir(), "ferry"), name).toPath();
        try {
            Files.createDirectories(dir.getParent());
            Store s = Store.open(dir, options);
            try {
                data = family(s, DATA_FAMILY);
                offsets = family(s, OFFSETS_FAMILY);
            } catch (RuntimeException e) {
                s.close();
                throw e;
            }
            store = s;
        } catch (java.io.IOException | RuntimeException e) {
            throw new ProcessorStateException("Error opening Ferry " + engine + " store " + name + " at " + dir, e);
        }
        this.context = context;
        this.position = Position.emptyPosition();
        open = true;
        context.register(root, (BatchingStateRestoreCallback) this::restoreAll);
    }

    private static ColumnFamily family(Store s, String name) {
        return s.columnFamily(name).orElseGet(() -> s.createColumnFamily(name));
    }

    /** Writes a batch of changelog records (null value = delete) in one Ferry write. */
    void restoreAll(Collection<KeyValue<byte[], byte[]>> records) {
        Store s = checkOpen();
        try (WriteBatch batch = new WriteBatch()) {
            for (KeyValue<byte[], byte[]> r : records) {
                if (r.value == null) {
                    batch.delete(data, r.key);
                } else {
                    batch.put(data, r.key, r.value);
                }
            }
            dirty = true;
            s.write(batch);
        } catch (RuntimeException e) {
            throw translate(e, "restoring");
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

    @Override
    public byte[] get(Bytes key) {
        Objects.requireNonNull(key, "key cannot be null");
        Store s = checkOpen();
        try {
            return s.get(data, key.get());
        } catch (RuntimeException e) {
            throw translate(e, "get");
        }
    }

    @Override
    public synchronized void put(Bytes key, byte[] value) {
        Objects.requireNonNull(key, "key cannot be null");
        Store s = checkOpen();
        try {
            dirty = true;
            if (value == null) {
                s.delete(data, key.get());
            } else {
                s.put(data, key.get(), value);
            }
        } catch (RuntimeException e) {
            throw translate(e, "put");
        }
        StoreQueryUtils.updatePosition(position, context);
    }

    @Override
    public synchronized byte[] putIfAbsent(Bytes key, byte[] value) {
        Objects.requireNonNull(key, "key cannot be null");
        byte[] old = get(key);
        if (old == null) {
            put(key, value);
        }
        return old;
    }

    @Override
    public synchronized void putAll(List<KeyValue<Bytes, byte[]>> entries) {
        Objects.requireNonNull(entries, "entries");
        for (KeyValue<Bytes, byte[]> e : entries) {
            Objects.requireNonNull(e.key, "key cannot be null");
        }
        Store s = checkOpen();
        try (WriteBatch batch = new WriteBatch()) {
            for (KeyValue<Bytes, byte[]> e : entries) {
                if (e.value == null) {
                    batch.delete(data, e.key.get());
                } else {
                    batch.put(data, e.key.get(), e.value);
                }
            }
            dirty = true;
            s.write(batch);
        } catch (RuntimeException e) {
            throw translate(e, "putAll");
        }
        StoreQueryUtils.updatePosition(position, context);
    }

    @Override
    public synchronized byte[] delete(Bytes key) {
        Objects.requireNonNull(key, "key cannot be null");
        byte[] old = get(key);
        put(key, null);
        return old;
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
        return range(from, to, true);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseRange(Bytes from, Bytes to) {
        return range(from, to, false);
    }

    private KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to, boolean forward) {
        KeyRange r;
        if (from == null && to == null) {
            r = KeyRange.all();
        } else if (from == null) {
            r = KeyRange.atMost(to.get());
        } else if (to == null) {
            r = KeyRange.atLeast(from.get());
        } else if (Arrays.compareUnsigned(from.get(), to.get()) > 0) {
            // as Kafka's built-in store: an inverted range holds nothing (it logs a warning)
            r = KeyRange.open(new byte[0], new byte[0]);
        } else {
            r = KeyRange.closed(from.get(), to.get());
        }
        return open(r, forward);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> all() {
        return open(KeyRange.all(), true);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseAll() {
        return open(KeyRange.all(), false);
    }

    @Override
    public <PS extends Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(P prefix, PS prefixKeySerializer) {
        Objects.requireNonNull(prefix, "prefix cannot be null");
        Objects.requireNonNull(prefixKeySerializer, "prefixKeySerializer cannot be null");
        byte[] p = prefixKeySerializer.serialize(null, prefix);
        return open(KeyRange.prefix(p), true);
    }

    private KeyValueIterator<Bytes, byte[]> open(KeyRange range, boolean forward) {
        Store s = checkOpen();
        Cursor c;
        try {
            c = s.cursor(data, range, null);
        } catch (RuntimeException e) {
            throw translate(e, "opening an iterator");
        }
        FerryIterator it = new FerryIterator(c, forward);
        openIterators.add(it);
        if (!open) { // raced with close(), which may not have seen this one
            it.close();
            throw closed(null);
        }
        return it;
    }

    @Override
    public long approximateNumEntries() {
        Store s = checkOpen();
        try {
            long n = s.estimatedKeyCount(data);
            return n < 0 ? Long.MAX_VALUE : n;
        } catch (RuntimeException e) {
            throw translate(e, "approximateNumEntries");
        }
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
            // the entries first, then the offsets: a crash between the two keeps offsets no newer
            // than the entries (Store.flush() alone would flush only the empty default family)
            s.flush(data);
            if (engine == Engine.ROCKSDB) { // LMDB's flush syncs the whole map at once
                s.flush(offsets);
            }
        } catch (RuntimeException e) {
            dirty = true;
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

    @Override
    public void commit(Map<TopicPartition, Long> changelogOffsets) {
        Objects.requireNonNull(changelogOffsets, "changelogOffsets");
        Store s = checkOpen();
        try (WriteBatch batch = new WriteBatch()) {
            for (Map.Entry<TopicPartition, Long> e : changelogOffsets.entrySet()) {
                byte[] k = e.getKey().toString().getBytes(StandardCharsets.UTF_8);
                if (e.getValue() == null) {
                    batch.delete(offsets, k);
                } else {
                    batch.put(offsets, k, ByteBuffer.allocate(Long.BYTES).putLong(e.getValue()).array());
                }
            }
            if (batch.count() > 0) {
                s.write(batch);
            }
        } catch (RuntimeException e) {
            throw translate(e, "commit");
        }
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
        for (FerryIterator it : new ArrayList<>(openIterators)) {
            it.close();
        }
        Store s = store;
        if (s != null) {
            s.close();
        }
    }

    @Override
    public String toString() {
        return "FerryKeyValueStore[" + name + ", " + engine + (open ? "" : ", closed") + "]";
    }

    /** The open Ferry store underneath (package-private: tests look at its families). */
    Store checkOpen() {
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
    private RuntimeException translate(RuntimeException e, String what) {
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

    /** An iterator over one Ferry cursor; entries are copied out as Kafka's API hands out arrays. */
    private final class FerryIterator implements KeyValueIterator<Bytes, byte[]> {
        private final Cursor cursor;
        private final boolean forward;
        private KeyValue<Bytes, byte[]> next;
        private boolean done;
        private volatile boolean closed;

        FerryIterator(Cursor cursor, boolean forward) {
            this.cursor = cursor;
            this.forward = forward;
        }

        @Override
        public boolean hasNext() {
            if (closed) {
                throw new InvalidStateStoreException("Ferry iterator for store " + name + " has closed");
            }
            if (next != null) {
                return true;
            }
            if (done) {
                return false;
            }
            try {
                boolean ok = forward ? cursor.next() : cursor.prev();
                if (!ok) {
                    done = true;
                    return false;
                }
                next = KeyValue.pair(Bytes.wrap(cursor.keyBytes()), cursor.valueBytes());
                return true;
            } catch (RuntimeException e) {
                if (closed) {
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
            cursor.close();
        }
    }
}
