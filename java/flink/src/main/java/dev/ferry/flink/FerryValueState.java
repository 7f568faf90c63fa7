package dev.ferry.flink;

import dev.ferry.ColumnFamily;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.internal.InternalValueState;
import org.apache.flink.runtime.state.ttl.TtlAwareSerializer;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

/**
 * Flink's {@code ValueState} in a Ferry column family: one entry per (key group, key, namespace),
 * the value serialized by the state's serializer.
 *
 * <p>Thread safety: confined to the task thread.
 */
final class FerryValueState<K, N, V> extends FerryKvState<K, N, V> implements InternalValueState<K, N, V> {
    FerryValueState(FerryKeyedStateBackend<K> backend, ColumnFamily cf, TypeSerializer<N> namespaceSerializer,
            TypeSerializer<V> valueSerializer, V defaultValue) {
        super(backend, cf, namespaceSerializer, valueSerializer, defaultValue);
    }

    @Override
    public V value() throws IOException {
        byte[] raw = backend.get(cf, currentKey());
        return raw == null ? defaultValue() : deserialize(raw);
    }

    @Override
    public void update(V value) throws IOException {
        if (value == null) {
            clear();
            return;
        }
        backend.put(cf, currentKey(), serialize(value));
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
