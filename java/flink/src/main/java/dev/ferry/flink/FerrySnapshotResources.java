package dev.ferry.flink;

import dev.ferry.ColumnFamily;
import dev.ferry.Cursor;
import dev.ferry.KeyRange;
import dev.ferry.Snapshot;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.CompositeKeySerializationUtils;
import org.apache.flink.runtime.state.FullSnapshotResources;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyValueStateIterator;
import org.apache.flink.runtime.state.StateSnapshotTransformer;
import org.apache.flink.runtime.state.StreamCompressionDecorator;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueStateSnapshot;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;
import org.apache.flink.util.ResourceGuard;

/**
 * What a full snapshot of {@link FerryKeyedStateBackend} reads: a store {@link Snapshot} taken in the
 * synchronous part, the meta info of every state, and the heap timers' copies. Its iterator walks the
 * states key group by key group, state by state, in Flink's full snapshot order, so Flink's
 * {@code FullSnapshotAsyncWriter} writes them in the canonical savepoint format.
 *
 * <p>Thread safety: created on the task thread, read by the asynchronous snapshot thread.
 */
final class FerrySnapshotResources<K> implements FullSnapshotResources<K> {
    /** One state of the snapshot read from the store. */
    record StoreState(ColumnFamily cf, StateSnapshotTransformer<byte[]> transformer) {
    }

    private final Snapshot snapshot;
    /** Keeps the backend from closing the store while this snapshot reads it. */
    private final ResourceGuard.Lease lease;
    private final List<StateMetaInfoSnapshot> metaInfos;
    private final List<StoreState> storeStates;
    private final List<HeapPriorityQueueStateSnapshot<?>> heapQueues;
    private final KeyGroupRange keyGroupRange;
    private final TypeSerializer<K> keySerializer;
    private final StreamCompressionDecorator compression;
    private final int keyGroupPrefixBytes;
    private final FerryKeyedStateBackend<K> backend;

    FerrySnapshotResources(FerryKeyedStateBackend<K> backend, Snapshot snapshot, ResourceGuard.Lease lease,
            List<StateMetaInfoSnapshot> metaInfos, List<StoreState> storeStates,
            List<HeapPriorityQueueStateSnapshot<?>> heapQueues) {
        this.backend = backend;
        this.snapshot = snapshot;
        this.lease = lease;
        this.metaInfos = metaInfos;
        this.storeStates = storeStates;
        this.heapQueues = heapQueues;
        this.keyGroupRange = backend.getKeyGroupRange();
        this.keySerializer = backend.getKeySerializer().duplicate();
        this.compression = backend.getKeyGroupCompressionDecorator();
        this.keyGroupPrefixBytes = backend.keyGroupPrefixBytes();
    }

    @Override
    public List<StateMetaInfoSnapshot> getMetaInfoSnapshots() {
        return metaInfos;
    }

    @Override
    public KeyValueStateIterator createKVStateIterator() throws IOException {
        List<Source> sources = new ArrayList<>();
        try {
            for (StoreState s : storeStates) {
                sources.add(new StoreSource(snapshot.cursor(s.cf(), KeyRange.all(), backend.cursorOptions()),
                        s.transformer()));
            }
            for (HeapPriorityQueueStateSnapshot<?> q : heapQueues) {
                sources.add(new HeapQueueSource<>(q));
            }
            return new MergeIterator(sources);
        } catch (RuntimeException e) {
            sources.forEach(Source::close);
            throw new IOException("Cannot read the store snapshot", e);
        }
    }

    @Override
    public KeyGroupRange getKeyGroupRange() {
        return keyGroupRange;
    }

    @Override
    public TypeSerializer<K> getKeySerializer() {
        return keySerializer;
    }

    @Override
    public StreamCompressionDecorator getStreamCompressionDecorator() {
        return compression;
    }

    @Override
    public void release() {
        snapshot.close();
        lease.close();
    }

    /** Entries of one state in key order (so key group order): the current one, then the next. */
    private abstract static class Source {
        int keyGroup;
        byte[] key;
        byte[] value;

        /** @return whether it moved to another entry */
        abstract boolean advance() throws IOException;

        void close() {
        }
    }

    private final class StoreSource extends Source {
        private final Cursor cursor;
        private final StateSnapshotTransformer<byte[]> transformer;

        StoreSource(Cursor cursor, StateSnapshotTransformer<byte[]> transformer) {
            this.cursor = cursor;
            this.transformer = transformer;
        }

        @Override
        boolean advance() {
            while (cursor.next()) {
                byte[] v = cursor.valueBytes();
                if (transformer != null) {
                    v = transformer.filterOrTransform(v);
                    if (v == null) {
                        continue;
                    }
                }
                key = cursor.keyBytes();
                value = v;
                keyGroup = CompositeKeySerializationUtils.extractKeyGroup(keyGroupPrefixBytes, key);
                return true;
            }
            return false;
        }

        @Override
        void close() {
            cursor.close();
        }
    }

    private final class HeapQueueSource<T> extends Source {
        private final HeapPriorityQueueStateSnapshot<T> queue;
        private final TypeSerializer<T> serializer;
        private final DataOutputSerializer out = new DataOutputSerializer(64);
        private int group;
        private Iterator<T> elements;

        HeapQueueSource(HeapPriorityQueueStateSnapshot<T> queue) {
            this.queue = queue;
            this.serializer = queue.getMetaInfo().getElementSerializer();
            this.group = keyGroupRange.getStartKeyGroup();
        }

        @Override
        boolean advance() throws IOException {
            while (elements == null || !elements.hasNext()) {
                if (elements != null) {
                    group++;
                }
                if (group > keyGroupRange.getEndKeyGroup()) {
                    return false;
                }
                elements = queue.getIteratorForKeyGroup(group);
            }
            out.clear();
            CompositeKeySerializationUtils.writeKeyGroup(group, keyGroupPrefixBytes, out);
            serializer.serialize(elements.next(), out);
            key = out.getCopyOfBuffer();
            value = new byte[0];
            keyGroup = group;
            return true;
        }
    }

    /**
     * The states' entries merged in (key group, state id, key) order: within a key group, all of
     * state 0's entries, then state 1's, and so on.
     */
    private static final class MergeIterator implements KeyValueStateIterator {
        private final List<Source> sources;
        private final boolean[] live;
        private int state = -1;
        private int keyGroup = -1;
        private boolean newState;
        private boolean newGroup;
        private byte[] key;
        private byte[] value;

        MergeIterator(List<Source> sources) throws IOException {
            this.sources = sources;
            this.live = new boolean[sources.size()];
            for (int i = 0; i < live.length; i++) {
                live[i] = sources.get(i).advance();
            }
            next();
        }

        @Override
        public void next() throws IOException {
            int prevState = state;
            int prevGroup = keyGroup;
            if (state >= 0) {
                live[state] = sources.get(state).advance();
                if (live[state] && sources.get(state).keyGroup == keyGroup) {
                    take(state, prevState, prevGroup);
                    return;
                }
            }
            // the next state with entries in the current key group, else the lowest key group
            int best = -1;
            for (int i = 0; i < live.length; i++) {
                if (!live[i]) {
                    continue;
                }
                int g = sources.get(i).keyGroup;
                if (g == keyGroup && i > state) {
                    best = i;
                    break;
                }
            }
            if (best < 0) {
                int minGroup = Integer.MAX_VALUE;
                for (int i = 0; i < live.length; i++) {
                    if (live[i] && sources.get(i).keyGroup < minGroup) {
                        minGroup = sources.get(i).keyGroup;
                        best = i;
                    }
                }
            }
            if (best < 0) {
                key = null;
                value = null;
                state = -1;
                return;
            }
            take(best, prevState, prevGroup);
        }

        private void take(int i, int prevState, int prevGroup) {
            Source s = sources.get(i);
            state = i;
            keyGroup = s.keyGroup;
            key = s.key;
            value = s.value;
            newGroup = keyGroup != prevGroup;
            newState = newGroup || i != prevState;
        }

        @Override
        public int keyGroup() {
            return keyGroup;
        }

        @Override
        public byte[] key() {
            return key;
        }

        @Override
        public byte[] value() {
            return value;
        }

        @Override
        public int kvStateId() {
            return state;
        }

        @Override
        public boolean isNewKeyValueState() {
            return newState;
        }

        @Override
        public boolean isNewKeyGroup() {
            return newGroup;
        }

        @Override
        public boolean isValid() {
            return key != null;
        }

        @Override
        public void close() {
            sources.forEach(Source::close);
        }
    }
}
