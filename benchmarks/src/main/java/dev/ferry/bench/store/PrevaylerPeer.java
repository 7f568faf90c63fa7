package dev.ferry.bench.store;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.prevayler.Prevayler;
import org.prevayler.PrevaylerFactory;
import org.prevayler.Query;
import org.prevayler.Transaction;

/**
 * Prevayler 2.6 ({@code PrevaylerFactory.createPrevayler(system, dir)}, its defaults: a journal of
 * Java-serialized transactions synced to disk per transaction) over a prevalent {@link TreeMap}.
 * A batch is one {@link Transaction}; a get is one {@link Query} (Prevayler's way to read under its
 * lock), a scan one query that visits the map.
 *
 * <p>Thread safety: Prevayler serializes transactions and queries.
 */
final class PrevaylerPeer implements KvStore {
    /** The prevalent system: a sorted map of keys to values (unsigned byte order). */
    static final class Root implements Serializable {
        private static final long serialVersionUID = 1L;
        final TreeMap<byte[], byte[]> map = new TreeMap<>(Arrays::compareUnsigned);
    }

    private record Put(byte[][] keys, byte[][] values) implements Transaction<Root> {
        @Override
        public void executeOn(Root root, Date time) {
            for (int i = 0; i < keys.length; i++) {
                root.map.put(keys[i], values[i]);
            }
        }
    }

    private record Get(byte[] key) implements Query<Root, byte[]> {
        @Override
        public byte[] query(Root root, Date time) {
            byte[] v = root.map.get(key);
            return v == null ? null : v.clone();
        }
    }

    private final Path dir;
    private Prevayler<Root> prevayler;

    PrevaylerPeer(Path dir) {
        this.dir = dir;
        try {
            prevayler = PrevaylerFactory.createPrevayler(new Root(), dir.toString());
        } catch (Exception e) {
            throw new IllegalStateException("Prevayler failed to open " + dir + ": " + e, e);
        }
    }

    @Override
    public String name() {
        return "prevayler";
    }

    @Override
    public boolean ordered() {
        return true;
    }

    @Override
    public void write(List<byte[]> keys, List<byte[]> values, int from, int to) {
        byte[][] k = new byte[to - from][];
        byte[][] v = new byte[to - from][];
        for (int i = from; i < to; i++) {
            k[i - from] = keys.get(i).clone();
            v[i - from] = values.get(i).clone();
        }
        prevayler.execute(new Put(k, v));
    }

    @Override
    public byte[] get(byte[] key) {
        try {
            return prevayler.execute(new Get(key));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public long scan(Visitor visitor) {
        Query<Root, Long> q = (Query<Root, Long> & Serializable) (root, time) -> {
            long n = 0;
            for (Map.Entry<byte[], byte[]> e : root.map.entrySet()) {
                n++;
                if (!visitor.visit(ByteBuffer.wrap(e.getKey()).asReadOnlyBuffer(), ByteBuffer.wrap(e.getValue()).asReadOnlyBuffer())) {
                    break;
                }
            }
            return n;
        };
        try {
            return prevayler.execute(q);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public long storageBytes() {
        return KvStore.allocatedBytes(dir);
    }

    @Override
    public void close() {
        if (prevayler != null) {
            try {
                prevayler.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                prevayler = null;
            }
        }
    }
}
