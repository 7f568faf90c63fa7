package dev.ferry.flink;

import dev.ferry.ColumnFamily;
import java.util.Collection;
import org.apache.flink.api.common.functions.ReduceFunction;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.internal.InternalReducingState;
import org.apache.flink.runtime.state.ttl.TtlAwareSerializer;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

/**
 * Flink's {@code ReducingState}: the reduced value in one entry, read, reduced and written back on
 * each add.
 *
 * <p>Thread safety: confined to the task thread.
 */
final class FerryReducingState<K, N, V> extends FerryKvState<K, N, V> implements InternalReducingState<K, N, V> {
    private ReduceFunction<V> reduce;

    FerryReducingState(FerryKeyedStateBackend<K> backend, ColumnFamily cf, TypeSerializer<N> namespaceSerializer,
            TypeSerializer<V> valueSerializer, ReduceFunction<V> reduce) {
        super(backend, cf, namespaceSerializer, valueSerializer, null);
        this.reduce = reduce;
    }

    void reduceFunction(ReduceFunction<V> f) {
        this.reduce = f;
    }

    @Override
    public V get() throws Exception {
        return getInternal();
    }

    @Override
    public void add(V value) throws Exception {
        byte[] key = currentKey();
        byte[] raw = backend.get(cf, key);
        V result = raw == null ? value : reduce.reduce(deserialize(raw), value);
        backend.put(cf, key, serialize(result));
    }

    @Override
    public V getInternal() throws Exception {
        byte[] raw = backend.get(cf, currentKey());
        return raw == null ? null : deserialize(raw);
    }

    @Override
    public void updateInternal(V valueToStore) throws Exception {
        if (valueToStore == null) {
            clear();
        } else {
            backend.put(cf, currentKey(), serialize(valueToStore));
        }
    }

    @Override
    public void mergeNamespaces(N target, Collection<N> sources) throws Exception {
        if (sources == null || sources.isEmpty()) {
            return;
        }
        V merged = null;
        for (byte[] raw : takeValues(sources)) {
            V v = deserialize(raw);
            merged = merged == null ? v : reduce.reduce(merged, v);
        }
        if (merged != null) {
            byte[] targetKey = keyOf(target);
            byte[] raw = backend.get(cf, targetKey);
            if (raw != null) {
                merged = reduce.reduce(merged, deserialize(raw));
            }
            backend.put(cf, targetKey, serialize(merged));
        }
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    void migrateValue(byte[] raw, TypeSerializer<V> prior, TypeSerializer<V> next, TtlTimeProvider ttl,
            DataOutputSerializer into) throws Exception {
        TtlAwareSerializer p = (TtlAwareSerializer) prior;
        TtlAwareSerializer n = (TtlAwareSerializer) next;
        DataInputDeserializer din = new DataInputDeserializer(raw);
        n.migrateValueFromPriorSerializer(p, () -> p.deserialize(din), into, ttl);
    }
}
