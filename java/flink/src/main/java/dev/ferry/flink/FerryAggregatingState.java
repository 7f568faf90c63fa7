package dev.ferry.flink;

import dev.ferry.ColumnFamily;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.runtime.state.internal.InternalAggregatingState;

/**
 * Flink's {@code AggregatingState}: the accumulator in one entry, read, added to and written back on
 * each add ({@link FerryMergingState} with the aggregate function's {@code add} and {@code merge});
 * {@link #get()} returns the aggregate function's result.
 *
 * <p>Thread safety: confined to the task thread.
 */
final class FerryAggregatingState<K, N, IN, ACC, OUT> extends FerryMergingState<K, N, IN, ACC>
        implements InternalAggregatingState<K, N, IN, ACC, OUT> {
    private AggregateFunction<IN, ACC, OUT> fn;

    FerryAggregatingState(FerryKeyedStateBackend<K> backend, ColumnFamily cf, TypeSerializer<N> namespaceSerializer,
            TypeSerializer<ACC> accSerializer, AggregateFunction<IN, ACC, OUT> fn) {
        super(backend, cf, namespaceSerializer, accSerializer);
        this.fn = fn;
    }

    void aggregateFunction(AggregateFunction<IN, ACC, OUT> f) {
        this.fn = f;
    }

    @Override
    ACC combine(ACC stored, IN value) throws Exception {
        return fn.add(value, stored == null ? fn.createAccumulator() : stored);
    }

    @Override
    ACC merge(ACC a, ACC b) throws Exception {
        return fn.merge(a, b);
    }

    @Override
    public OUT get() throws Exception {
        byte[] raw = backend.get(cf, currentKey());
        return raw == null ? null : fn.getResult(deserialize(raw));
    }
}
