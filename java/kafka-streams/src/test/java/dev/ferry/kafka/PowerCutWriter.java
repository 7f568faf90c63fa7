package dev.ferry.kafka;

import dev.ferry.Engine;
import java.io.File;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.BatchingStateRestoreCallback;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The child JVM of {@link KafkaPowerCutTest}: a Ferry key-value store driven the way a Kafka Streams
 * task drives it, over a changelog that is a fixed sequence of records ({@link #key}, {@link #value}).
 * It opens the store, restores the changelog from the store's committed offset to the end the parent
 * names (through the store's registered {@link BatchingStateRestoreCallback}, in batches, as Kafka's
 * restoration does, committing the offset restored so far after some batches, as Kafka Streams does while it
 * restores), commits that offset, then processes new records: a put each, a commit of the
 * next offset every few records ({@code CP <offset>} on stdout before the commit, {@code C <offset>} once it
 * returned, {@code RC <offset>} for the commits while restoring), now and then
 * a flush. It runs until it is killed.
 *
 * <p>Arguments: engine, state directory, end of the changelog to restore, seed.
 */
public final class PowerCutWriter {
    /** The changelog's partition, the one offset the store commits. */
    static final TopicPartition PARTITION = new TopicPartition("ferry-powercut-changelog", 0);
    /** Records cycle over this many keys, so later records overwrite earlier ones. */
    static final int KEYS = 3000;
    /** The most records processed between two commits. */
    static final int MAX_COMMIT_EVERY = 40;
    static final String STORE = "powercut";

    private PowerCutWriter() {
    }

    static byte[] key(long record) {
        return ("k" + (record % KEYS)).getBytes(StandardCharsets.UTF_8);
    }

    /** Record {@code record}'s value: its number, then 92 bytes derived from it. */
    static byte[] value(long record) {
        ByteBuffer b = ByteBuffer.allocate(100).putLong(record);
        Random r = new Random(record);
        while (b.hasRemaining()) {
            b.put((byte) r.nextInt());
        }
        return b.array();
    }

    /** @return the record number a value holds, or -1 when it is not a value {@link #value} wrote */
    static long recordOf(byte[] v) {
        if (v == null || v.length != 100) {
            return -1;
        }
        long record = ByteBuffer.wrap(v).getLong();
        return record >= 0 && java.util.Arrays.equals(v, value(record)) ? record : -1;
    }

    /** An opened store and the context it registered its restore callback with. */
    record Opened(KeyValueStore<Bytes, byte[]> store, TestContext context) implements AutoCloseable {
        FerryStateStore ferry() {
            return (FerryStateStore) store;
        }

        @Override
        public void close() {
            store.close();
        }
    }

    /** The store a run opens: the same options in the child and in the parent's check. */
    static Opened open(Engine engine, File stateDir) {
        KeyValueStore<Bytes, byte[]> store = (engine == Engine.LMDB ? FerryStores.lmdbKeyValueStore(STORE)
                : FerryStores.persistentKeyValueStore(STORE)).get();
        TestContext context = new TestContext(stateDir);
        // a 256 KiB restore buffer: a restoration writes several buffers (RocksDB: table files ingested
        // one after the other; LMDB: sorted runs spilled to files, merged at the next commit)
        context.configs.put(FerryStoreConfig.RESTORE_BUFFER_BYTES, 256L << 10);
        if (engine == Engine.LMDB) {
            // a 1 MiB map growing by 1 MiB: the map grows (remaps) during the run
            context.configs.put(FerryStoreConfig.LMDB_MAP_SIZE_BYTES, 1L << 20);
            context.configs.put(FerryStoreConfig.LMDB_AUTO_GROW_BYTES, 1L << 20);
        } else {
            // a 256 KiB memtable: flushes and compactions during the run
            context.configs.put(FerryStoreConfig.ROCKSDB_OPTIONS, "write_buffer_size=262144");
        }
        store.init(context, store);
        return new Opened(store, context);
    }

    public static void main(String[] args) throws Exception {
        Engine engine = Engine.valueOf(args[0]);
        File stateDir = new File(args[1]);
        long end = Long.parseLong(args[2]);
        Random r = new Random(Long.parseLong(args[3]));
        Random restoreCommits = new Random(~Long.parseLong(args[3])); // apart: r draws what it drew before they were added
        PrintStream out = System.out;
        Opened opened = open(engine, stateDir);
        KeyValueStore<Bytes, byte[]> store = opened.store();
        FerryStateStore ferry = opened.ferry();
        BatchingStateRestoreCallback restore = (BatchingStateRestoreCallback) opened.context().restoreCallback;
        Long committed = ferry.committedOffset(PARTITION);
        long from = committed == null ? 0 : committed;
        out.println("OPEN " + from);
        out.flush();
        // restoration: the changelog from the committed offset to its end, in batches
        for (long at = from; at < end;) {
            int n = (int) Math.min(end - at, 1 + r.nextInt(2000));
            List<KeyValue<byte[], byte[]>> batch = new ArrayList<>(n);
            for (int i = 0; i < n; i++, at++) {
                batch.add(KeyValue.pair(key(at), value(at)));
            }
            restore.restoreAll(batch);
            if (restoreCommits.nextInt(3) == 0) { // Kafka Streams commits offsets while it restores, too
                ferry.commit(Map.of(PARTITION, at));
                out.println("RC " + at);
                out.flush();
            }
        }
        ferry.commit(Map.of(PARTITION, Math.max(from, end)));
        out.println("C " + Math.max(from, end));
        out.println("READY");
        out.flush();
        // processing: a put per record, a commit every few records
        long next = Math.max(from, end);
        while (true) {
            int n = 1 + r.nextInt(MAX_COMMIT_EVERY);
            for (int i = 0; i < n; i++, next++) {
                store.put(Bytes.wrap(key(next)), value(next));
            }
            if (r.nextInt(20) == 0) {
                store.flush();
            }
            out.println("CP " + next); // a commit may be durable before its C line is out: the parent allows for it
            out.flush();
            ferry.commit(Map.of(PARTITION, next));
            out.println("C " + next);
            out.flush();
        }
    }
}
