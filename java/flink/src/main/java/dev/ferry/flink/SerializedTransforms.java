package dev.ferry.flink;

import java.io.IOException;
import java.util.Arrays;
import java.util.Optional;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.ListDelimitedSerializer;
import org.apache.flink.runtime.state.StateSnapshotTransformer;
import org.apache.flink.runtime.state.StateSnapshotTransformer.StateSnapshotTransformFactory;
import org.apache.flink.util.FlinkRuntimeException;

/**
 * Snapshot transformers (TTL cleanup in full snapshots) over the stored bytes of List and Map state:
 * a list's elements filtered one by one, a map value's null flag kept around the filtered value.
 *
 * <p>Thread safety: a transformer is made per snapshot and used by its thread only.
 */
final class SerializedTransforms {
    private SerializedTransforms() {
    }

    /** Wraps an element transform factory for the delimited list bytes of a List state. */
    static <T> StateSnapshotTransformFactory<byte[]> forList(StateSnapshotTransformFactory<T> elements,
            TypeSerializer<T> elementSerializer) {
        return new StateSnapshotTransformFactory<>() {
            @Override
            public Optional<StateSnapshotTransformer<byte[]>> createForDeserializedState() {
                return Optional.empty();
            }

            @Override
            public Optional<StateSnapshotTransformer<byte[]>> createForSerializedState() {
                TypeSerializer<T> serializer = elementSerializer.duplicate();
                return elements.createForDeserializedState().map(t -> list(t, serializer));
            }
        };
    }

    private static <T> StateSnapshotTransformer<byte[]> list(StateSnapshotTransformer<T> transformer,
            TypeSerializer<T> serializer) {
        DataInputDeserializer in = new DataInputDeserializer();
        DataOutputSerializer out = new DataOutputSerializer(128);
        return value -> {
            if (value == null) {
                return null;
            }
            try {
                in.setBuffer(value);
                out.clear();
                boolean any = false;
                boolean changed = false;
                T element;
                while ((element = ListDelimitedSerializer.deserializeNextElement(in, serializer)) != null) {
                    T kept = transformer.filterOrTransform(element);
                    if (kept == null) {
                        changed = true;
                        continue;
                    }
                    if (any) {
                        out.write(',');
                    }
                    serializer.serialize(kept, out);
                    any = true;
                }
                return !any ? null : changed ? out.getCopyOfBuffer() : value;
            } catch (IOException e) {
                throw new FlinkRuntimeException("Cannot filter a list value in a snapshot", e);
            }
        };
    }

    /** Wraps a serialized value transform factory for the null-flagged values of a Map state. */
    static StateSnapshotTransformFactory<byte[]> forMap(StateSnapshotTransformFactory<?> values) {
        return new StateSnapshotTransformFactory<>() {
            @Override
            public Optional<StateSnapshotTransformer<byte[]>> createForDeserializedState() {
                return Optional.empty();
            }

            @Override
            public Optional<StateSnapshotTransformer<byte[]>> createForSerializedState() {
                return values.createForSerializedState().map(SerializedTransforms::map);
            }
        };
    }

    private static StateSnapshotTransformer<byte[]> map(StateSnapshotTransformer<byte[]> transformer) {
        return value -> {
            // the first byte is the null flag (a boolean); a null user value stays as it is
            if (value == null || value.length == 0 || value[0] != 0) {
                return value;
            }
            byte[] body = Arrays.copyOfRange(value, 1, value.length);
            byte[] kept = transformer.filterOrTransform(body);
            if (kept == null) {
                return null;
            }
            if (kept == body) {
                return value;
            }
            byte[] out = new byte[kept.length + 1];
            System.arraycopy(kept, 0, out, 1, kept.length);
            return out;
        };
    }
}
