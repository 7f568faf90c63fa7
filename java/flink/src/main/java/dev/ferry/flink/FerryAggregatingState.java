package dev.ferry.flink;

import dev.ferry.ColumnFamily;
import java.util.Collection;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.internal.InternalAggregatingState;
import org.apache.flink.runtime.state.ttl.TtlAwareSerializer;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

/**
 * Flink's {@code AggregatingState}: the accumulator in one entry, read, added to and written back on
 * each add; {@link #get()} returns the aggregate function's result.
 *
 * <p>Thread safety: confined to the task thread.
 */
final class FerryAggregatingState<K, N, IN, ACC, OUT> extends FerryKvState<K, N, ACC>
        implements InternalAggregatingState<K, N, IN, ACC, OUT> {
    private AggregateFunction<IN, ACC, OUT> fn;

    FerryAggregatingState(FerryKeyedStateBackend<K> backend, ColumnFamily cf, TypeSerializer<N> namespaceSerializer,
            TypeSerializer<ACC> accSerializer, AggregateFunction<IN, ACC, OUT> fn) {
        super(backend, cf, namespaceSerializer, accSerializer, null);
        this.fn = fn;
    }

    void aggregateFunction(AggregateFunction<IN, ACC, OUT> f) {
        this.fn = f;
    }

    @Override
    public OUT get() throws Exception {
        byte[] raw = backend.get(cf, currentKey());
        return raw == null ? null : fn.getResult(deserialize(raw));
    }

    @Override
    public void add(IN value) throws Exception {
        byte[] key = currentKey();
        byte[] raw = backend.get(cf, key);
        ACC acc = raw == null ? fn.createAccumulator() : deserialize(raw);
        backend.put(cf, key, serialize(fn.add(value, acc)));
    }

    @Override
    public ACC getInternal() throws Exception {
        byte[] raw = backend.get(cf, currentKey());
        return raw == null ? null : deserialize(raw);
    }

    @Override
    public void updateInternal(ACC valueToStore) throws Exception {
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
        ACC merged = null;
        for (byte[] raw : takeValues(sources)) {
            ACC v = deserialize(raw);
            merged = merged == null ? v : fn.merge(merged, v);
        }
        if (merged != null) {
            byte[] targetKey = keyOf(target);
            byte[] raw = backend.get(cf, targetKey);
            if (raw != null) {
                merged = fn.merge(merged, deserialize(raw));
            }
            backend.put(cf, targetKey, serialize(merged));
        }
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    void migrateValue(byte[] raw, TypeSerializer<ACC> prior, TypeSerializer<ACC> next, TtlTimeProvider ttl,
            DataOutputSerializer into) throws Exception {
        TtlAwareSerializer p = (TtlAwareSerializer) prior;
        TtlAwareSerializer n = (TtlAwareSerializer) next;
        DataInputDeserializer din = new DataInputDeserializer(raw);
        n.migrateValueFromPriorSerializer(p, () -> p.deserialize(din), into, ttl);
    }
}
