package dev.ferry.bench.store;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A {@code Collections.synchronizedSortedMap(new TreeMap<>(Arrays::compareUnsigned))}: the in-memory
 * baseline of "One in a Million" ("TreeMap (synchronized)"). Nothing on disk.
 *
 * <p>Thread safety: the map is synchronized; a scan holds its lock.
 */
final class TreeMapPeer implements KvStore {
    private final SortedMap<byte[], byte[]> map = Collections.synchronizedSortedMap(new TreeMap<>(Arrays::compareUnsigned));

    @Override
    public String name() {
        return "treemap";
    }

    @Override
    public boolean ordered() {
        return true;
    }

    @Override
    public void write(List<byte[]> keys, List<byte[]> values, int from, int to) {
        for (int i = from; i < to; i++) {
            map.put(keys.get(i).clone(), values.get(i).clone());
        }
    }

    @Override
    public byte[] get(byte[] key) {
        byte[] v = map.get(key);
        return v == null ? null : v.clone();
    }

    @Override
    public long scan(Visitor visitor) {
        long n = 0;
        synchronized (map) {
            for (Map.Entry<byte[], byte[]> e : map.entrySet()) {
                n++;
                if (!visitor.visit(ByteBuffer.wrap(e.getKey()).asReadOnlyBuffer(), ByteBuffer.wrap(e.getValue()).asReadOnlyBuffer())) {
                    break;
                }
            }
        }
        return n;
    }

    @Override
    public long storageBytes() {
        return -1;
    }

    @Override
    public void close() {
    }
}
