package dev.ferry.flink;

import dev.ferry.ColumnFamily;
import org.apache.flink.api.common.functions.ReduceFunction;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.runtime.state.internal.InternalReducingState;

/**
 * Flink's {@code ReducingState}: the reduced value in one entry, read, reduced and written back on
 * each add ({@link FerryMergingState} with the reduce function).
 *
 * <p>Thread safety: confined to the task thread.
 */
final class FerryReducingState<K, N, V> extends FerryMergingState<K, N, V, V>
        implements InternalReducingState<K, N, V> {
    private ReduceFunction<V> reduce;

    FerryReducingState(FerryKeyedStateBackend<K> backend, ColumnFamily cf, TypeSerializer<N> namespaceSerializer,
            TypeSerializer<V> valueSerializer, ReduceFunction<V> reduce) {
        super(backend, cf, namespaceSerializer, valueSerializer);
        this.reduce = reduce;
    }

    void reduceFunction(ReduceFunction<V> f) {
        this.reduce = f;
    }

    @Override
    V combine(V stored, V value) throws Exception {
        return stored == null ? value : reduce.reduce(stored, value);
    }

    @Override
    V merge(V a, V b) throws Exception {
        return reduce.reduce(a, b);
    }

    @Override
    public V get() throws Exception {
        return getInternal();
    }
}
