package dev.ferry.flink;

import dev.ferry.ColumnFamily;
import dev.ferry.Cursor;
import dev.ferry.KeyRange;
import java.io.IOException;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.Function;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.MapSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.queryablestate.client.state.serialization.KvStateSerializer;
import org.apache.flink.runtime.state.RegisteredKeyValueStateBackendMetaInfo;
import org.apache.flink.runtime.state.internal.InternalMapState;
import org.apache.flink.runtime.state.ttl.TtlAwareSerializer;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.util.FlinkRuntimeException;

/**
 * Flink's {@code MapState}: one entry per user key, keyed (key group, key, namespace, user key) and
 * valued (null flag, user value), as the RocksDB backend lays them out.
 *
 * <p>{@link #entries()}, {@link #keys()}, {@link #values()} and {@link #iterator()} read the map
 * through Ferry cursors, a batch of entries per refill, each refill filled by pages of entries per
 * native call (not one call per entry). Iterators see the map as of each refill; their
 * {@code remove()} and {@code Entry.setValue} write through.
 *
 * <p>Thread safety: confined to the task thread.
 */
final class FerryMapState<K, N, UK, UV> extends FerryKvState<K, N, Map<UK, UV>>
        implements InternalMapState<K, N, UK, UV> {
    /** Entries read per refill of an iterator. */
    static final int BATCH = 256;

    private TypeSerializer<UK> userKeySerializer;
    private TypeSerializer<UV> userValueSerializer;

    FerryMapState(FerryKeyedStateBackend<K> backend, ColumnFamily cf, TypeSerializer<N> namespaceSerializer,
            TypeSerializer<Map<UK, UV>> valueSerializer) {
        super(backend, cf, namespaceSerializer, valueSerializer, null);
        serializers();
    }

    private void serializers() {
        MapSerializer<UK, UV> ms = (MapSerializer<UK, UV>) valueSerializer;
        this.userKeySerializer = ms.getKeySerializer();
        this.userValueSerializer = ms.getValueSerializer();
    }

    @Override
    void update(ColumnFamily cf, RegisteredKeyValueStateBackendMetaInfo<N, Map<UK, UV>> meta) {
        super.update(cf, meta);
        serializers();
    }

    private byte[] userKey(UK userKey) {
        try {
            return backend.keyBuilder().buildCompositeKeyNamesSpaceUserKey(currentNamespace, namespaceSerializer,
                    userKey, userKeySerializer);
        } catch (IOException e) {
            throw new FlinkRuntimeException("Cannot serialize the map key", e);
        }
    }

    private byte[] userValue(UV value) throws IOException {
        out.clear();
        out.writeBoolean(value == null);
        if (value != null) {
            userValueSerializer.serialize(value, out);
        }
        return out.getCopyOfBuffer();
    }

    private static <T> T decodeValue(byte[] raw, TypeSerializer<T> serializer) throws IOException {
        DataInputDeserializer din = new DataInputDeserializer(raw);
        return din.readBoolean() ? null : serializer.deserialize(din);
    }

    private static <T> T decodeKey(byte[] raw, int prefixLength, TypeSerializer<T> serializer) throws IOException {
        DataInputDeserializer din = new DataInputDeserializer(raw, prefixLength, raw.length - prefixLength);
        return serializer.deserialize(din);
    }

    @Override
    public UV get(UK key) throws IOException {
        byte[] raw = backend.get(cf, userKey(key));
        return raw == null ? null : decodeValue(raw, userValueSerializer);
    }

    @Override
    public void put(UK key, UV value) throws IOException {
        backend.put(cf, userKey(key), userValue(value));
    }

    @Override
    public void putAll(Map<UK, UV> map) throws IOException {
        if (map == null) {
            return;
        }
        for (Map.Entry<UK, UV> e : map.entrySet()) {
            backend.put(cf, userKey(e.getKey()), userValue(e.getValue()));
        }
    }

    @Override
    public void remove(UK key) {
        backend.delete(cf, userKey(key));
    }

    @Override
    public boolean contains(UK key) {
        return backend.get(cf, userKey(key)) != null;
    }

    @Override
    public Iterable<Map.Entry<UK, UV>> entries() {
        byte[] prefix = currentKey();
        return () -> new PagedIterator<>(prefix, e -> e);
    }

    @Override
    public Iterable<UK> keys() {
        byte[] prefix = currentKey();
        return () -> new PagedIterator<>(prefix, Map.Entry::getKey);
    }

    @Override
    public Iterable<UV> values() {
        byte[] prefix = currentKey();
        return () -> new PagedIterator<>(prefix, Map.Entry::getValue);
    }

    @Override
    public Iterator<Map.Entry<UK, UV>> iterator() {
        return new PagedIterator<>(currentKey(), e -> e);
    }

    @Override
    public boolean isEmpty() {
        try (Cursor c = backend.cursor(cf, KeyRange.prefix(currentKey()))) {
            return !c.first();
        }
    }

    @Override
    public void clear() {
        byte[] prefix = currentKey();
        List<byte[]> keys = new ArrayList<>();
        try (Cursor c = backend.cursor(cf, KeyRange.prefix(prefix))) {
            while (c.next()) {
                keys.add(c.keyBytes());
            }
        }
        backend.deleteAll(cf, keys);
    }

    @Override
    byte[] serializedValue(byte[] storeKey, TypeSerializer<Map<UK, UV>> safeValueSerializer) throws Exception {
        MapSerializer<UK, UV> ms = (MapSerializer<UK, UV>) safeValueSerializer;
        List<Map.Entry<UK, UV>> entries = new ArrayList<>();
        for (byte[][] kv : scanPrefix(storeKey)) {
            entries.add(new AbstractMap.SimpleEntry<>(decodeKey(kv[0], storeKey.length, ms.getKeySerializer()),
                    decodeValue(kv[1], ms.getValueSerializer())));
        }
        return entries.isEmpty() ? null : KvStateSerializer.serializeMap(entries, ms.getKeySerializer(),
                ms.getValueSerializer());
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    void migrateValue(byte[] raw, TypeSerializer<Map<UK, UV>> prior, TypeSerializer<Map<UK, UV>> next,
            TtlTimeProvider ttl, DataOutputSerializer into) throws Exception {
        TtlAwareSerializer p = ((TtlAwareSerializer.TtlAwareMapSerializer) prior).getValueSerializer();
        TtlAwareSerializer n = ((TtlAwareSerializer.TtlAwareMapSerializer) next).getValueSerializer();
        DataInputDeserializer din = new DataInputDeserializer(raw);
        boolean isNull = din.readBoolean();
        into.writeBoolean(isNull);
        if (!isNull) {
            n.migrateValueFromPriorSerializer(p, () -> p.deserialize(din), into, ttl);
        }
    }

    /** One map entry read by an iterator: decoded on first use; {@link #setValue} writes through. */
    private final class StoredEntry implements Map.Entry<UK, UV> {
        private final byte[] storeKey;
        private final int prefixLength;
        private byte[] rawValue;
        private UK key;
        private UV value;
        private boolean keyRead;
        private boolean valueRead;
        boolean deleted;

        StoredEntry(byte[] storeKey, int prefixLength, byte[] rawValue) {
            this.storeKey = storeKey;
            this.prefixLength = prefixLength;
            this.rawValue = rawValue;
        }

        @Override
        public UK getKey() {
            if (!keyRead) {
                try {
                    key = decodeKey(storeKey, prefixLength, userKeySerializer);
                } catch (IOException e) {
                    throw new FlinkRuntimeException("Cannot read a map key", e);
                }
                keyRead = true;
            }
            return key;
        }

        @Override
        public UV getValue() {
            if (deleted) {
                return null;
            }
            if (!valueRead) {
                try {
                    value = decodeValue(rawValue, userValueSerializer);
                } catch (IOException e) {
                    throw new FlinkRuntimeException("Cannot read a map value", e);
                }
                valueRead = true;
            }
            return value;
        }

        @Override
        public UV setValue(UV newValue) {
            if (deleted) {
                throw new IllegalStateException("The entry has been removed");
            }
            UV old = getValue();
            try {
                rawValue = userValue(newValue);
            } catch (IOException e) {
                throw new FlinkRuntimeException("Cannot write a map value", e);
            }
            backend.put(cf, storeKey, rawValue);
            value = newValue;
            valueRead = true;
            return old;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Map.Entry)) {
                return false;
            }
            Map.Entry<?, ?> e = (Map.Entry<?, ?>) o;
            return java.util.Objects.equals(getKey(), e.getKey()) && java.util.Objects.equals(getValue(), e.getValue());
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hashCode(getKey()) ^ java.util.Objects.hashCode(getValue());
        }

        @Override
        public String toString() {
            return getKey() + "=" + getValue();
        }

        void remove() {
            deleted = true;
            backend.delete(cf, storeKey);
        }
    }

    /** Walks a prefix in batches, each read by one cursor; the next batch starts after the last key read. */
    private final class PagedIterator<T> implements Iterator<T> {
        private final byte[] prefix;
        private final Function<Map.Entry<UK, UV>, T> project;
        private final List<StoredEntry> batch = new ArrayList<>();
        private int index;
        private byte[] lastKey;
        private boolean exhausted;
        private StoredEntry current;

        PagedIterator(byte[] prefix, Function<Map.Entry<UK, UV>, T> project) {
            this.prefix = prefix;
            this.project = project;
        }

        private void refill() {
            batch.clear();
            index = 0;
            KeyRange all = KeyRange.prefix(prefix);
            KeyRange range = lastKey == null ? all
                    : all.upper() == null ? KeyRange.greaterThan(lastKey) : KeyRange.open(lastKey, all.upper());
            // the range's upper bound keeps the cursor inside the prefix; a prefix without one (all 0xFF
            // bytes) is bounded by the check
            boolean check = all.upper() == null;
            try (Cursor c = backend.cursor(cf, range)) {
                while (batch.size() < BATCH && c.next()) {
                    byte[] k = c.keyBytes();
                    if (check && !startsWith(k, prefix)) {
                        exhausted = true;
                        break;
                    }
                    batch.add(new StoredEntry(k, prefix.length, c.valueBytes()));
                }
                if (batch.size() < BATCH) {
                    exhausted = true;
                }
            }
            if (!batch.isEmpty()) {
                lastKey = batch.get(batch.size() - 1).storeKey;
            }
        }

        @Override
        public boolean hasNext() {
            if (index < batch.size()) {
                return true;
            }
            if (exhausted) {
                return false;
            }
            refill();
            return index < batch.size();
        }

        @Override
        public T next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            current = batch.get(index++);
            return project.apply(current);
        }

        @Override
        public void remove() {
            if (current == null || current.deleted) {
                throw new IllegalStateException("next() has not been called, or remove() was called already");
            }
            current.remove();
        }
    }

    static boolean startsWith(byte[] key, byte[] prefix) {
        return key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
    }
}
