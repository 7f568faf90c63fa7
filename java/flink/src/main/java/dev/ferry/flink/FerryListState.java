package dev.ferry.flink;

import dev.ferry.ColumnFamily;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.ListSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.ListDelimitedSerializer;
import org.apache.flink.runtime.state.internal.InternalListState;
import org.apache.flink.runtime.state.ttl.TtlAwareSerializer;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.util.Preconditions;

/**
 * Flink's {@code ListState}: the elements of a (key, namespace) in one entry, each serialized by the
 * element serializer and separated by a comma byte, as the RocksDB backend stores them. On RocksDB an
 * add is a merge with RocksDB's {@code stringappend} operator (no read); on LMDB it reads, appends and
 * writes back.
 *
 * <p>Thread safety: confined to the task thread.
 */
final class FerryListState<K, N, V> extends FerryKvState<K, N, List<V>> implements InternalListState<K, N, V> {
    private final ListDelimitedSerializer lists = new ListDelimitedSerializer();
    private TypeSerializer<V> elementSerializer;

    FerryListState(FerryKeyedStateBackend<K> backend, ColumnFamily cf, TypeSerializer<N> namespaceSerializer,
            TypeSerializer<List<V>> valueSerializer) {
        super(backend, cf, namespaceSerializer, valueSerializer, null);
        this.elementSerializer = ((ListSerializer<V>) valueSerializer).getElementSerializer();
    }

    @Override
    void update(ColumnFamily cf, org.apache.flink.runtime.state.RegisteredKeyValueStateBackendMetaInfo<N, List<V>> meta) {
        super.update(cf, meta);
        this.elementSerializer = ((ListSerializer<V>) valueSerializer).getElementSerializer();
    }

    @Override
    public Iterable<V> get() throws Exception {
        return getInternal();
    }

    @Override
    public List<V> getInternal() throws IOException {
        byte[] raw = backend.get(cf, currentKey());
        return lists.deserializeList(raw, elementSerializer);
    }

    @Override
    public void add(V value) throws IOException {
        Preconditions.checkNotNull(value, "You cannot add null to a ListState.");
        out.clear();
        elementSerializer.serialize(value, out);
        backend.append(cf, currentKey(), out.getCopyOfBuffer());
    }

    @Override
    public void update(List<V> values) throws IOException {
        Preconditions.checkNotNull(values, "List of values to add cannot be null.");
        if (values.isEmpty()) {
            clear();
            return;
        }
        backend.put(cf, currentKey(), lists.serializeList(values, elementSerializer));
    }

    @Override
    public void updateInternal(List<V> valueToStore) throws IOException {
        update(valueToStore);
    }

    @Override
    public void addAll(List<V> values) throws IOException {
        Preconditions.checkNotNull(values, "List of values to add cannot be null.");
        if (values.isEmpty()) {
            return;
        }
        backend.append(cf, currentKey(), lists.serializeList(values, elementSerializer));
    }

    @Override
    public void mergeNamespaces(N target, Collection<N> sources) {
        if (sources == null || sources.isEmpty()) {
            return;
        }
        byte[] targetKey = keyOf(target);
        for (byte[] raw : takeValues(sources)) {
            if (raw.length > 0) {
                backend.append(cf, targetKey, raw);
            }
        }
    }

    @Override
    byte[] serializedValue(byte[] storeKey, TypeSerializer<List<V>> safeValueSerializer) {
        // the stored form is the form queryable state's clients read (KvStateSerializer.deserializeList)
        return backend.get(cf, storeKey);
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    void migrateValue(byte[] raw, TypeSerializer<List<V>> prior, TypeSerializer<List<V>> next, TtlTimeProvider ttl,
            DataOutputSerializer into) throws Exception {
        TtlAwareSerializer p = ((TtlAwareSerializer.TtlAwareListSerializer) prior).getElementSerializer();
        TtlAwareSerializer n = ((TtlAwareSerializer.TtlAwareListSerializer) next).getElementSerializer();
        DataInputDeserializer din = new DataInputDeserializer(raw);
        boolean first = true;
        while (din.available() > 0) {
            if (!first) {
                into.write(',');
            }
            first = false;
            n.migrateValueFromPriorSerializer(p,
                    () -> ListDelimitedSerializer.deserializeNextElement(din, p), into, ttl);
        }
    }
}
