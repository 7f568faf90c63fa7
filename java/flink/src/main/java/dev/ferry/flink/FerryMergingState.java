package dev.ferry.flink;

import dev.ferry.ColumnFamily;
import java.util.Collection;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.ttl.TtlAwareSerializer;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

/**
 * What Flink's {@code ReducingState} and {@code AggregatingState} share: the accumulated value in one
 * entry, read, combined with the added value and written back on each add; namespaces merged by merging
 * their accumulated values. The subclasses give the combine and merge functions (a reduce function, or
 * an aggregate function's {@code add} and {@code merge}).
 *
 * <p>Thread safety: confined to the task thread.
 *
 * @param <K> the key type
 * @param <N> the namespace type
 * @param <IN> the type of the values added
 * @param <ACC> the type of the value stored
 */
abstract class FerryMergingState<K, N, IN, ACC> extends FerryKvState<K, N, ACC> {

    FerryMergingState(FerryKeyedStateBackend<K> backend, ColumnFamily cf, TypeSerializer<N> namespaceSerializer,
            TypeSerializer<ACC> accSerializer) {
        super(backend, cf, namespaceSerializer, accSerializer, null);
    }

    /**
     * Combines a value into the stored one.
     *
     * @param stored the stored value, or null when there is none
     * @param value the value added
     * @return the new stored value
     * @throws Exception from the user's function
     */
    abstract ACC combine(ACC stored, IN value) throws Exception;

    /**
     * Merges two stored values (of namespaces being merged).
     *
     * @param a one value
     * @param b the other
     * @return the merged value
     * @throws Exception from the user's function
     */
    abstract ACC merge(ACC a, ACC b) throws Exception;

    /**
     * Adds a value to the current key and namespace's stored value.
     *
     * @param value the value
     * @throws Exception from the user's function or the store
     */
    public void add(IN value) throws Exception {
        byte[] key = currentKey();
        byte[] raw = backend.get(cf, key);
        backend.put(cf, key, serialize(combine(raw == null ? null : deserialize(raw), value)));
    }

    /** @return the stored value of the current key and namespace, or null */
    public ACC getInternal() throws Exception {
        byte[] raw = backend.get(cf, currentKey());
        return raw == null ? null : deserialize(raw);
    }

    /**
     * Replaces the stored value of the current key and namespace.
     *
     * @param valueToStore the value, or null to clear it
     * @throws Exception from the store or the serializer
     */
    public void updateInternal(ACC valueToStore) throws Exception {
        if (valueToStore == null) {
            clear();
        } else {
            backend.put(cf, currentKey(), serialize(valueToStore));
        }
    }

    /**
     * Merges the stored values of the source namespaces into the target namespace's, and removes them.
     *
     * @param target the namespace merged into
     * @param sources the namespaces merged
     * @throws Exception from the user's function or the store
     */
    public void mergeNamespaces(N target, Collection<N> sources) throws Exception {
        if (sources == null || sources.isEmpty()) {
            return;
        }
        ACC merged = null;
        for (byte[] raw : takeValues(sources)) {
            ACC v = deserialize(raw);
            merged = merged == null ? v : merge(merged, v);
        }
        if (merged != null) {
            byte[] targetKey = keyOf(target);
            byte[] raw = backend.get(cf, targetKey);
            if (raw != null) {
                merged = merge(merged, deserialize(raw));
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
