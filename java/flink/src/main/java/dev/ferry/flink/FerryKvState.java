package dev.ferry.flink;

import dev.ferry.ColumnFamily;
import dev.ferry.Cursor;
import dev.ferry.KeyRange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.queryablestate.client.state.serialization.KvStateSerializer;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.RegisteredKeyValueStateBackendMetaInfo;
import org.apache.flink.runtime.state.SerializedCompositeKeyBuilder;
import org.apache.flink.runtime.state.internal.InternalKvState;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

/**
 * What every keyed state of {@link FerryKeyedStateBackend} shares: its column family, its
 * serializers, the current namespace, and the store key of (key group, key, namespace), laid out as
 * Flink's RocksDB backend lays it out so that canonical savepoints read the same on both.
 *
 * <p>Thread safety: confined to the task thread, as Flink's keyed states are.
 *
 * @param <K> the key type
 * @param <N> the namespace type
 * @param <V> the type of the state's value (for a list: the list; for a map: the map)
 */
abstract class FerryKvState<K, N, V> implements InternalKvState<K, N, V> {
    final FerryKeyedStateBackend<K> backend;
    ColumnFamily cf;
    TypeSerializer<N> namespaceSerializer;
    TypeSerializer<V> valueSerializer;
    final V defaultValue;
    N currentNamespace;
    final DataOutputSerializer out = new DataOutputSerializer(128);
    final DataInputDeserializer in = new DataInputDeserializer();

    FerryKvState(FerryKeyedStateBackend<K> backend, ColumnFamily cf, TypeSerializer<N> namespaceSerializer,
            TypeSerializer<V> valueSerializer, V defaultValue) {
        this.backend = backend;
        this.cf = cf;
        this.namespaceSerializer = namespaceSerializer;
        this.valueSerializer = valueSerializer;
        this.defaultValue = defaultValue;
    }

    /** Points this state at a re-registered column family and meta info (serializer upgrade). */
    void update(ColumnFamily cf, RegisteredKeyValueStateBackendMetaInfo<N, V> meta) {
        this.cf = cf;
        this.namespaceSerializer = meta.getNamespaceSerializer();
        this.valueSerializer = meta.getStateSerializer();
    }

    @Override
    public TypeSerializer<K> getKeySerializer() {
        return backend.getKeySerializer();
    }

    @Override
    public TypeSerializer<N> getNamespaceSerializer() {
        return namespaceSerializer;
    }

    @Override
    public TypeSerializer<V> getValueSerializer() {
        return valueSerializer;
    }

    @Override
    public void setCurrentNamespace(N namespace) {
        this.currentNamespace = namespace;
    }

    /** @return the store key of the current key and namespace */
    byte[] currentKey() {
        return backend.keyBuilder().buildCompositeKeyNamespace(currentNamespace, namespaceSerializer);
    }

    /** @return the store key of the current key and the given namespace */
    byte[] keyOf(N namespace) {
        return backend.keyBuilder().buildCompositeKeyNamespace(namespace, namespaceSerializer);
    }

    V defaultValue() {
        return defaultValue == null ? null : valueSerializer.copy(defaultValue);
    }

    byte[] serialize(V value) throws IOException {
        out.clear();
        valueSerializer.serialize(value, out);
        return out.getCopyOfBuffer();
    }

    V deserialize(byte[] bytes) throws IOException {
        in.setBuffer(bytes);
        return valueSerializer.deserialize(in);
    }

    @Override
    public void clear() {
        backend.delete(cf, currentKey());
    }

    /**
     * Serializes the value of a (key, namespace) for queryable state with the given serializers.
     *
     * @param storeKey the store key of the entry
     * @param safeValueSerializer a serializer this thread may use
     * @return the bytes, or null when there is no value
     */
    byte[] serializedValue(byte[] storeKey, TypeSerializer<V> safeValueSerializer) throws Exception {
        byte[] raw = backend.get(cf, storeKey);
        if (raw == null) {
            return null;
        }
        DataInputDeserializer din = new DataInputDeserializer(raw);
        return KvStateSerializer.serializeValue(safeValueSerializer.deserialize(din), safeValueSerializer);
    }

    @Override
    public byte[] getSerializedValue(byte[] serializedKeyAndNamespace, TypeSerializer<K> safeKeySerializer,
            TypeSerializer<N> safeNamespaceSerializer, TypeSerializer<V> safeValueSerializer) throws Exception {
        Tuple2<K, N> kn = KvStateSerializer.deserializeKeyAndNamespace(serializedKeyAndNamespace,
                safeKeySerializer, safeNamespaceSerializer);
        int keyGroup = KeyGroupRangeAssignment.assignToKeyGroup(kn.f0, backend.getNumberOfKeyGroups());
        SerializedCompositeKeyBuilder<K> builder =
                new SerializedCompositeKeyBuilder<>(safeKeySerializer, backend.keyGroupPrefixBytes(), 32);
        builder.setKeyAndKeyGroup(kn.f0, keyGroup);
        byte[] storeKey = builder.buildCompositeKeyNamespace(kn.f1, safeNamespaceSerializer);
        return serializedValue(storeKey, safeValueSerializer);
    }

    @Override
    public StateIncrementalVisitor<K, N, V> getStateIncrementalVisitor(int recommendedMaxNumberOfReturnedRecords) {
        throw new UnsupportedOperationException("Ferry's keyed state backend does not offer incremental visitors "
                + "(they serve the heap backend's incremental TTL cleanup)");
    }

    /**
     * Rewrites one stored value from the prior serializer's form to the new one's (state migration).
     *
     * @param raw the stored bytes
     * @param prior the serializer that wrote them (TTL-aware)
     * @param next the serializer to write with (TTL-aware)
     * @param ttl the TTL time provider
     * @param into where the migrated bytes go
     */
    abstract void migrateValue(byte[] raw, TypeSerializer<V> prior, TypeSerializer<V> next, TtlTimeProvider ttl,
            DataOutputSerializer into) throws Exception;

    /**
     * Collects the entries of a key range through one cursor: pages of entries per crossing.
     *
     * @param prefix the key prefix
     * @return keys and values, copied
     */
    List<byte[][]> scanPrefix(byte[] prefix) {
        List<byte[][]> entries = new ArrayList<>();
        try (Cursor c = backend.cursor(cf, KeyRange.prefix(prefix))) {
            while (c.next()) {
                entries.add(new byte[][] {c.keyBytes(), c.valueBytes()});
            }
        }
        return entries;
    }

    /** Values of the given namespaces for the current key, deleting them (merging states). */
    List<byte[]> takeValues(Collection<N> sources) {
        List<byte[]> values = new ArrayList<>();
        for (N source : sources) {
            if (source == null) {
                continue;
            }
            byte[] key = keyOf(source);
            byte[] v = backend.get(cf, key);
            if (v != null) {
                values.add(v);
                backend.delete(cf, key);
            }
        }
        return values;
    }
}
