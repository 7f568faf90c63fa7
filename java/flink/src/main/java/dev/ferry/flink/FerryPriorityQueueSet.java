package dev.ferry.flink;

import dev.ferry.ColumnFamily;
import dev.ferry.Cursor;
import dev.ferry.KeyRange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.TreeSet;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.CompositeKeySerializationUtils;
import org.apache.flink.runtime.state.InternalPriorityQueue;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueElement;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.FlinkRuntimeException;

/**
 * The timers (or other queue elements) of one key group in the store: one entry per element, keyed
 * (key group, element) with the element serializer, which orders its bytes as the elements' priority
 * (Flink's byte-ordered timer serializers). The smallest elements are cached in memory, sorted as
 * bytes, up to {@link #CACHE} of them; the cache is refilled from a cursor when it runs empty, so a
 * scan of many timers reads pages of entries per native call. Adds and removes go to the backend's timer
 * write batch ({@link FerryKeyedStateBackend#timerPut}), which is written to the store before every
 * cursor here opens, so a read never misses a batched write.
 *
 * <p>Thread safety: confined to the task thread.
 *
 * @param <E> the element type
 */
final class FerryPriorityQueueSet<E> implements InternalPriorityQueue<E>, HeapPriorityQueueElement {
    /** Elements cached in memory per key group. */
    static final int CACHE = 128;

    private final FerryKeyedStateBackend<?> backend;
    private final ColumnFamily cf;
    private final TypeSerializer<E> serializer;
    private final byte[] groupPrefix;
    private final DataOutputSerializer out = new DataOutputSerializer(64);
    private final DataInputDeserializer in = new DataInputDeserializer();
    /** The smallest elements of the store's key group, as store keys. */
    private final TreeSet<byte[]> cache = new TreeSet<>(Arrays::compareUnsigned);
    /** Whether {@link #cache} holds every element of the key group. */
    private boolean complete;
    /** Whether the cache has been read from the store since it last ran empty. */
    private boolean loaded;
    private E head;
    private int internalIndex = HeapPriorityQueueElement.NOT_CONTAINED;

    FerryPriorityQueueSet(FerryKeyedStateBackend<?> backend, ColumnFamily cf, TypeSerializer<E> serializer,
            int keyGroup, int keyGroupPrefixBytes) {
        this.backend = backend;
        this.cf = cf;
        this.serializer = serializer;
        try {
            DataOutputSerializer p = new DataOutputSerializer(4);
            CompositeKeySerializationUtils.writeKeyGroup(keyGroup, keyGroupPrefixBytes, p);
            this.groupPrefix = p.getCopyOfBuffer();
        } catch (IOException e) {
            throw new FlinkRuntimeException(e);
        }
    }

    private byte[] storeKey(E element) {
        try {
            out.clear();
            out.write(groupPrefix);
            serializer.serialize(element, out);
            return out.getCopyOfBuffer();
        } catch (IOException e) {
            throw new FlinkRuntimeException("Cannot serialize a queue element", e);
        }
    }

    private E element(byte[] storeKey) {
        try {
            in.setBuffer(storeKey, groupPrefix.length, storeKey.length - groupPrefix.length);
            return serializer.deserialize(in);
        } catch (IOException e) {
            throw new FlinkRuntimeException("Cannot read a queue element", e);
        }
    }

    /** @return a cursor over the key group's elements, after the batched timer writes reach the store */
    private Cursor cursor() {
        backend.flushTimers();
        return backend.store().cursor(cf, KeyRange.prefix(groupPrefix), backend.cursorOptions());
    }

    private void load() {
        if (loaded || complete) {
            return;
        }
        int n = 0;
        try (Cursor c = cursor()) {
            while (n < CACHE && c.next()) {
                cache.add(c.keyBytes());
                n++;
            }
        }
        complete = n < CACHE;
        loaded = true;
        head = null;
    }

    @Override
    public E poll() {
        E first = peek();
        if (first != null) {
            // the head's store key is the cache's first: no second serialization, no second lookup
            backend.timerDelete(cf, cache.pollFirst());
            head = null;
            refillIfDrained();
        }
        return first;
    }

    @Override
    public E peek() {
        load();
        if (cache.isEmpty()) {
            return null;
        }
        if (head == null) {
            head = element(cache.first());
        }
        return head;
    }

    @Override
    public boolean add(E toAdd) {
        load();
        byte[] key = storeKey(toAdd);
        if (cache.contains(key)) {
            return false; // a set: already queued
        }
        backend.timerPut(cf, key);
        if (complete || (!cache.isEmpty() && Arrays.compareUnsigned(key, cache.last()) < 0)) {
            cache.add(key);
            if (cache.size() > CACHE) {
                cache.pollLast();
                complete = false;
            }
        }
        boolean isHead = !cache.isEmpty() && Arrays.equals(cache.first(), key);
        if (isHead) {
            head = null;
        }
        return isHead;
    }

    @Override
    public boolean remove(E toRemove) {
        load();
        byte[] key = storeKey(toRemove);
        backend.timerDelete(cf, key);
        boolean wasHead = !cache.isEmpty() && Arrays.equals(cache.first(), key);
        cache.remove(key);
        if (wasHead) {
            head = null;
        }
        refillIfDrained();
        return wasHead;
    }

    /** Reads the next elements from the store when the cache ran empty but the store holds more. */
    private void refillIfDrained() {
        if (cache.isEmpty() && !complete) {
            loaded = false;
            load();
        }
    }

    @Override
    public boolean isEmpty() {
        load();
        return cache.isEmpty();
    }

    @Override
    public int size() {
        load();
        if (complete) {
            return cache.size();
        }
        int n = 0;
        try (Cursor c = cursor()) {
            while (c.next()) {
                n++;
            }
        }
        return n;
    }

    @Override
    public void addAll(Collection<? extends E> toAdd) {
        if (toAdd != null) {
            for (E e : toAdd) {
                add(e);
            }
        }
    }

    @Override
    public CloseableIterator<E> iterator() {
        List<byte[]> keys = new ArrayList<>();
        try (Cursor c = cursor()) {
            while (c.next()) {
                keys.add(c.keyBytes());
            }
        }
        Iterator<byte[]> it = keys.iterator();
        return new CloseableIterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public E next() {
                return element(it.next());
            }

            @Override
            public void close() {
            }
        };
    }

    @Override
    public int getInternalIndex() {
        return internalIndex;
    }

    @Override
    public void setInternalIndex(int newIndex) {
        this.internalIndex = newIndex;
    }
}
