package dev.ferry.bench.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;

/**
 * Chronicle Map persisted to a file, as the LmdbJava suite used it: {@code byte[]} keys and values,
 * sized up front with the {@link Settings} {@code entries=N}, {@code key=BYTES} and {@code value=BYTES}
 * (constant sizes, as the suite; without them average sizes of 24 and 64 bytes for 10,000 entries). A hash
 * map: no ordered scan ({@link #ordered()} false), so the suite runs only write and readKey on it. Needs
 * {@code -Dchronicle.analytics.disable=true} and the add-exports/add-opens of PEERS.md.
 *
 * <p>Thread safety: one thread at a time.
 */
final class ChroniclePeer implements KvStore {
    private final Path dir;
    private ChronicleMap<byte[], byte[]> map;

    ChroniclePeer(Path dir, Settings set) {
        this.dir = dir;
        ChronicleMapBuilder<byte[], byte[]> b = ChronicleMapBuilder.of(byte[].class, byte[].class).entries(set.number("entries", 10_000));
        b = set.values().containsKey("key") ? b.constantKeySizeBySample(new byte[(int) set.number("key", 0)]) : b.averageKeySize(24);
        b = set.values().containsKey("value") ? b.constantValueSizeBySample(new byte[(int) set.number("value", 0)]) : b.averageValueSize(64);
        try {
            map = b.createPersistedTo(dir.resolve("chronicle.map").toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String name() {
        return "chronicle";
    }

    @Override
    public boolean ordered() {
        return false;
    }

    @Override
    public void write(List<byte[]> keys, List<byte[]> values, int from, int to) {
        for (int i = from; i < to; i++) {
            map.put(keys.get(i), values.get(i));
        }
    }

    @Override
    public byte[] get(byte[] key) {
        return map.get(key);
    }

    @Override
    public long scan(Visitor visitor) {
        throw new UnsupportedOperationException("Chronicle Map is a hash map: no ordered scan");
    }

    @Override
    public long storageBytes() {
        return KvStore.allocatedBytes(dir);
    }

    @Override
    public void close() {
        if (map != null) {
            map.close();
            map = null;
        }
    }
}
