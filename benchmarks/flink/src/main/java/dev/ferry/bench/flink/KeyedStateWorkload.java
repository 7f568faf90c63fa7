package dev.ferry.bench.flink;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.KeyGroupedInternalPriorityQueue;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.TimerHeapInternalTimer;
import org.apache.flink.streaming.api.operators.TimerSerializer;

/**
 * The state workloads of the Flink benchmarks, in the shapes of flink-benchmarks' state benchmarks (Value, List and
 * Map state accessed per key of a batch of random keys; Map iteration over one key's map), plus timers registered
 * and fired through the backend's timer queue, and the same reads over many deleted entries. Used by the JMH
 * benchmarks ({@link StateBench}) and the interleaved run ({@link FlinkInterleaved}) alike, so both measure the
 * same code. Every operation works on {@link #BATCH} keys (or timers) and returns a sum of what it read, which the
 * callers consume. The data is the same for every backend (fixed seeds). Not thread-safe.
 */
public final class KeyedStateWorkload implements AutoCloseable {
    /** Keys (or timers) per operation call: the figures are per key, so per state access. */
    public static final int BATCH = 1_000;
    /** Elements per list. */
    public static final int LIST_SIZE = 16;
    /** Live entries in each key's map when entries were deleted, and how many were deleted before them. */
    public static final int LIVE = 16;
    /** Deleted entries (tombstones) before the live ones in the deleted-entries variant's maps. */
    public static final int DELETED = 240;
    /** Timers registered and deleted, before every timer the deleted-entries timer workload registers. */
    public static final int DELETED_TIMERS = 100_000;

    private final Backends backends;
    private final AbstractKeyedStateBackend<Long> keyed;
    private final int keys;
    private final int mapSize;
    private final long[] batchKeys;
    private final long[] batchUserKeys;
    private final ValueState<Long> value;
    private final ListState<Long> list;
    private final ListState<Long> appended;
    private final MapState<Long, Long> map;
    private final MapState<Long, Long> deletedMap;
    private final KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> timers;
    private final KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> deletedTimers;
    private long deletedTimerTime;
    private final List<Long> replacement = new ArrayList<>();
    private long timerTime;
    private int cursor;

    /**
     * Opens a backend and writes the data: {@code keys} keys, each with a value, a list of {@link #LIST_SIZE}, a map
     * of {@code mapSize} entries and and (a tenth of the keys) a map of {@link #LIVE} entries after {@link #DELETED}
     * deleted ones.
     *
     * @param backend a name {@link Backends#open} accepts
     * @param keys how many keys
     * @param mapSize entries per key's map
     * @param deletedTimers timers registered and deleted before the run (tombstones in the timer queue)
     * @throws Exception if the backend fails
     */
    public KeyedStateWorkload(String backend, int keys, int mapSize, int deletedTimers) throws Exception {
        this.keys = keys;
        this.mapSize = mapSize;
        backends = Backends.open(backend);
        keyed = backends.keyed();
        value = state(new ValueStateDescriptor<>("value", LongSerializer.INSTANCE));
        list = state(new ListStateDescriptor<>("list", LongSerializer.INSTANCE));
        appended = state(new ListStateDescriptor<>("appended", LongSerializer.INSTANCE));
        map = state(new MapStateDescriptor<>("map", LongSerializer.INSTANCE, LongSerializer.INSTANCE));
        deletedMap = state(new MapStateDescriptor<>("deleted", LongSerializer.INSTANCE, LongSerializer.INSTANCE));
        timers = keyed.create("timers", new TimerSerializer<>(LongSerializer.INSTANCE, VoidNamespaceSerializer.INSTANCE));
        this.deletedTimers = keyed.create("timers-deleted",
                new TimerSerializer<>(LongSerializer.INSTANCE, VoidNamespaceSerializer.INSTANCE));
        for (long i = 0; i < LIST_SIZE; i++) {
            replacement.add(i * 3);
        }
        SplittableRandom random = new SplittableRandom(42);
        for (long k = 0; k < keys; k++) {
            keyed.setCurrentKey(k);
            value.update(k);
            List<Long> elements = new ArrayList<>();
            for (int i = 0; i < LIST_SIZE; i++) {
                elements.add(random.nextLong());
            }
            list.update(elements);
            for (long u = 0; u < mapSize; u++) {
                map.put(u, random.nextLong());
            }
            if (k < deletedKeys()) {
                for (long u = 0; u < DELETED + LIVE; u++) {
                    deletedMap.put(u, u);
                }
                for (long u = 0; u < DELETED; u++) {
                    deletedMap.remove(u);
                }
            }
        }
        for (int i = 0; i < deletedTimers; i++) {
            TimerHeapInternalTimer<Long, VoidNamespace> t = new TimerHeapInternalTimer<>(i, (long) (i % keys), VoidNamespace.INSTANCE);
            timers.add(t);
        }
        for (int i = 0; i < deletedTimers; i++) {
            timers.remove(new TimerHeapInternalTimer<>(i, (long) (i % keys), VoidNamespace.INSTANCE));
        }
        timerTime = deletedTimers;
        for (int i = 0; i < DELETED_TIMERS; i++) {
            this.deletedTimers.add(new TimerHeapInternalTimer<>(i, (long) (i % keys), VoidNamespace.INSTANCE));
        }
        for (int i = 0; i < DELETED_TIMERS; i++) {
            this.deletedTimers.remove(new TimerHeapInternalTimer<>(i, (long) (i % keys), VoidNamespace.INSTANCE));
        }
        deletedTimerTime = DELETED_TIMERS;
        SplittableRandom pick = new SplittableRandom(7);
        batchKeys = new long[BATCH * 16];
        batchUserKeys = new long[batchKeys.length];
        for (int i = 0; i < batchKeys.length; i++) {
            batchKeys[i] = pick.nextInt(keys);
            batchUserKeys[i] = pick.nextInt(mapSize);
        }
    }

    private <S extends org.apache.flink.api.common.state.State> S state(
            org.apache.flink.api.common.state.StateDescriptor<S, ?> descriptor) throws Exception {
        return keyed.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
    }

    /** The next batch's first index into the random keys. */
    private int next() {
        int at = cursor;
        cursor = (cursor + BATCH) % batchKeys.length;
        return at;
    }

    /** {@code ValueState.value()} for a batch of random keys. */
    public long valueGet() throws Exception {
        long sum = 0;
        for (int i = next(), end = i + BATCH; i < end; i++) {
            keyed.setCurrentKey(batchKeys[i]);
            sum += value.value();
        }
        return sum;
    }

    /** {@code ValueState.update()} for a batch of random keys. */
    public long valueUpdate() throws Exception {
        for (int i = next(), end = i + BATCH; i < end; i++) {
            keyed.setCurrentKey(batchKeys[i]);
            value.update(batchKeys[i] + i);
        }
        return BATCH;
    }

    /** {@code ListState.add()} of one element for a batch of random keys (lists that grow during a run). */
    public long listAdd() throws Exception {
        for (int i = next(), end = i + BATCH; i < end; i++) {
            keyed.setCurrentKey(batchKeys[i]);
            appended.add((long) i);
        }
        return BATCH;
    }

    /** {@code ListState.get()} and a walk of its {@link #LIST_SIZE} elements for a batch of random keys. */
    public long listGet() throws Exception {
        long sum = 0;
        for (int i = next(), end = i + BATCH; i < end; i++) {
            keyed.setCurrentKey(batchKeys[i]);
            for (Long e : list.get()) {
                sum += e;
            }
        }
        return sum;
    }

    /** {@code ListState.update()} with {@link #LIST_SIZE} elements for a batch of random keys. */
    public long listUpdate() throws Exception {
        for (int i = next(), end = i + BATCH; i < end; i++) {
            keyed.setCurrentKey(batchKeys[i]);
            list.update(replacement);
        }
        return BATCH;
    }

    /** {@code MapState.get()} of one user key for a batch of random keys. */
    public long mapGet() throws Exception {
        long sum = 0;
        for (int i = next(), end = i + BATCH; i < end; i++) {
            keyed.setCurrentKey(batchKeys[i]);
            sum += map.get(batchUserKeys[i]);
        }
        return sum;
    }

    /** {@code MapState.put()} of an existing user key for a batch of random keys. */
    public long mapPut() throws Exception {
        for (int i = next(), end = i + BATCH; i < end; i++) {
            keyed.setCurrentKey(batchKeys[i]);
            map.put(batchUserKeys[i], (long) i);
        }
        return BATCH;
    }

    /** {@code MapState.contains()} of one user key for a batch of random keys. */
    public long mapContains() throws Exception {
        long n = 0;
        for (int i = next(), end = i + BATCH; i < end; i++) {
            keyed.setCurrentKey(batchKeys[i]);
            n += map.contains(batchUserKeys[i]) ? 1 : 0;
        }
        return n;
    }

    /** {@code MapState.iterator()} over each whole map, for a batch of random keys. */
    public long mapIterator() throws Exception {
        long sum = 0;
        for (int i = next(), end = i + BATCH; i < end; i++) {
            keyed.setCurrentKey(batchKeys[i]);
            var it = map.iterator();
            while (it.hasNext()) {
                sum += it.next().getValue();
            }
        }
        return sum;
    }

    /** {@code MapState.keys()} over each whole map, for a batch of random keys. */
    public long mapKeys() throws Exception {
        long sum = 0;
        for (int i = next(), end = i + BATCH; i < end; i++) {
            keyed.setCurrentKey(batchKeys[i]);
            for (Long k : map.keys()) {
                sum += k;
            }
        }
        return sum;
    }

    /** {@code MapState.values()} over each whole map, for a batch of random keys. */
    public long mapValues() throws Exception {
        long sum = 0;
        for (int i = next(), end = i + BATCH; i < end; i++) {
            keyed.setCurrentKey(batchKeys[i]);
            for (Long v : map.values()) {
                sum += v;
            }
        }
        return sum;
    }

    /** {@code MapState.entries()} over each whole map, for a batch of random keys. */
    public long mapEntries() throws Exception {
        long sum = 0;
        for (int i = next(), end = i + BATCH; i < end; i++) {
            keyed.setCurrentKey(batchKeys[i]);
            for (Map.Entry<Long, Long> e : map.entries()) {
                sum += e.getKey() + e.getValue();
            }
        }
        return sum;
    }

    /** Keys with a map of deleted entries: a tenth of the keys (the first ones), to keep the setup short. */
    private int deletedKeys() {
        return Math.max(1, keys / 10);
    }

    /** {@code MapState.entries()} over maps of {@link #LIVE} entries behind {@link #DELETED} deleted ones. */
    public long mapEntriesDeleted() throws Exception {
        long sum = 0;
        for (int i = next(), end = i + BATCH; i < end; i++) {
            keyed.setCurrentKey(batchKeys[i] % deletedKeys());
            for (Map.Entry<Long, Long> e : deletedMap.entries()) {
                sum += e.getValue();
            }
        }
        return sum;
    }

    /** {@code MapState.isEmpty()} on maps of {@link #LIVE} entries behind {@link #DELETED} deleted ones. */
    public long mapIsEmptyDeleted() throws Exception {
        long n = 0;
        for (int i = next(), end = i + BATCH; i < end; i++) {
            keyed.setCurrentKey(batchKeys[i] % deletedKeys());
            n += deletedMap.isEmpty() ? 0 : 1;
        }
        return n;
    }

    /**
     * Registers {@link #BATCH} event-time timers for random keys (increasing times), then fires them all in order
     * (poll until empty), as a timer service does when the watermark passes them.
     */
    public long timerRegisterFire() throws Exception {
        int at = next();
        for (int i = at, end = at + BATCH; i < end; i++) {
            timers.add(new TimerHeapInternalTimer<>(timerTime++, batchKeys[i], VoidNamespace.INSTANCE));
        }
        long sum = 0;
        for (TimerHeapInternalTimer<Long, VoidNamespace> t = timers.poll(); t != null; t = timers.poll()) {
            sum += t.getTimestamp();
        }
        return sum;
    }

    /**
     * {@link #timerRegisterFire} on a queue where {@link #DELETED_TIMERS} timers, all earlier than the ones registered
     * here, were registered and deleted before the run.
     */
    public long timerRegisterFireDeleted() throws Exception {
        int at = next();
        for (int i = at, end = at + BATCH; i < end; i++) {
            deletedTimers.add(new TimerHeapInternalTimer<>(deletedTimerTime++, batchKeys[i], VoidNamespace.INSTANCE));
        }
        long sum = 0;
        for (TimerHeapInternalTimer<Long, VoidNamespace> t = deletedTimers.poll(); t != null; t = deletedTimers.poll()) {
            sum += t.getTimestamp();
        }
        return sum;
    }

    /** The backend the workload runs on. */
    public Backends backends() {
        return backends;
    }

    /** The map size the workload was opened with. */
    public int mapSize() {
        return mapSize;
    }

    /** The number of keys the workload was opened with. */
    public int keys() {
        return keys;
    }

    @Override
    public void close() throws Exception {
        backends.close();
    }
}
