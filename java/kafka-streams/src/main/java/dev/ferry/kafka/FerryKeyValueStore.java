package dev.ferry.kafka;

import dev.ferry.Engine;
import dev.ferry.KeyRange;
import dev.ferry.Store;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

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
public class FerryKeyValueStore extends FerryStateStore implements KeyValueStore<Bytes, byte[]> {
    /**
     * Makes a store; it opens in {@link #init}. Use {@link FerryStores} rather than this constructor.
     *
     * @param name the store's name
     * @param engine the engine it runs on
     */
    public FerryKeyValueStore(String name, Engine engine) {
        super(name, engine);
    }

    /**
     * Takes a batch of changelog records (null value = delete): buffered, then written sorted by key
     * with other batches in one Ferry write ({@link FerryStateStore#bufferRestored}).
     */
    @Override
    void restoreAll(Collection<KeyValue<byte[], byte[]>> records) {
        try {
            bufferRestored(records);
        } catch (RuntimeException e) {
            throw translate(e, "restoring");
        }
    }

    @Override
    public byte[] get(Bytes key) {
        Objects.requireNonNull(key, "key cannot be null");
        Store s = checkOpen();
        try {
            return getData(s, key.get());
        } catch (RuntimeException e) {
            throw translate(e, "get");
        }
    }

    @Override
    public synchronized void put(Bytes key, byte[] value) {
        Objects.requireNonNull(key, "key cannot be null");
        Store s = checkOpen();
        try {
            putData(s, key.get(), value);
        } catch (RuntimeException e) {
            throw translate(e, "put");
        }
        updatePosition();
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
        try {
            DataBatch batch = new DataBatch();
            for (KeyValue<Bytes, byte[]> e : entries) {
                if (e.value == null) {
                    batch.delete(e.key.get());
                } else {
                    batch.put(e.key.get(), e.value);
                }
            }
            writeData(s, batch);
        } catch (RuntimeException e) {
            throw translate(e, "putAll");
        }
        updatePosition();
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
            // as Kafka's built-in store: an inverted range holds nothing, with its warning
            InvalidRange.warn(FerryKeyValueStore.class);
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
        return iterator(range, forward);
    }

    /**
     * The {@code READ_COMMITTED} view of a transactional store hides its uncommitted writes; any other
     * level, or a store that is not transactional, gives the store itself (KIP-892).
     */
    @Override
    @SuppressWarnings("unchecked")
    public ReadOnlyKeyValueStore<Bytes, byte[]> readOnly(IsolationLevel isolationLevel) {
        return readOnlyView(isolationLevel, ReadOnlyKeyValueStore.class, this);
    }

    @Override
    public long approximateNumEntries() {
        Store s = checkOpen();
        try {
            long n = s.estimatedKeyCount(data());
            return n < 0 ? Long.MAX_VALUE : n;
        } catch (RuntimeException e) {
            throw translate(e, "approximateNumEntries");
        }
    }
}
