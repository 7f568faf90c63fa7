package dev.ferry.kafka;

import dev.ferry.ColumnFamily;
import dev.ferry.Compression;
import dev.ferry.FerryException;
import dev.ferry.SstFileWriter;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import dev.ferry.WriteBatch;
import dev.ferry.WriteOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.streams.KeyValue;

/**
 * A store's restore pipeline (docs/kafka-streams.md, "Restoration"): restored records buffered in
 * changelog order, sorted by key with the last record of each key kept, and written as one batch
 * ({@link FerryStateStore#writeRestored}), on RocksDB as table files ingested into the data family,
 * on LMDB spilled as sorted runs ({@link RestoreRuns}) and merged into the store in key order; and
 * the restore files beside the store's directory ({@code <name>.restore-<n>.sst} and {@code .run}).
 *
 * <p>Thread safety: thread-safe; guarded by the buffer's own lock.
 */
final class RestoreBuffer {
    private final FerryStateStore store;
    /**
     * RocksDB: restored buffers are written as table files and ingested
     * ({@link FerryStoreConfig#ROCKSDB_RESTORE_TABLE_FILES}, and the engine library can); guarded by
     * {@link #restoreBuffer}.
     */
    private boolean restoreTableFiles;
    /** RocksDB: the options string restored table files are written with ({@link #tableOptions}). */
    private final String restoreTableOptions;
    /** RocksDB: where restored table files are written, before the store moves them in: {@code <dir>.restore-<i>.sst}. */
    private final Path restoreTablePrefix;
    /**
     * LMDB: full restore buffers spilled as sorted runs, merged at the next drain
     * ({@link FerryStoreConfig#LMDB_RESTORE_RUNS}); null on RocksDB, without a buffer or with runs off.
     * Guarded by {@link #restoreBuffer}.
     */
    private final RestoreRuns restoreRuns;
    /** A sorted buffer with at least this many records is written as two table files at once, on two threads. */
    private static final int PARALLEL_TABLE_RECORDS = 16_384;
    /** Whether a second thread can help: the second table file of a buffer is written on {@link #TABLE_WRITERS}. */
    private static final boolean PARALLEL_TABLES = Runtime.getRuntime().availableProcessors() > 1;
    /** The threads that write the second table file of a restored buffer: daemons, idle ones end. */
    private static final java.util.concurrent.ExecutorService TABLE_WRITERS = new java.util.concurrent.ThreadPoolExecutor(0,
            Integer.MAX_VALUE, 10, java.util.concurrent.TimeUnit.SECONDS, new java.util.concurrent.SynchronousQueue<>(), r -> {
                Thread t = new Thread(r, "ferry-restore-table-writer");
                t.setDaemon(true);
                return t;
            });
    /** LMDB: how merged restored records are appended into an empty data family ({@link #writeMerged}). */
    private static final WriteOptions APPEND = WriteOptions.DEFAULT.append(true);
    /** LMDB: the size of one write transaction of merged restored records ({@link #writeMerged}). */
    static final int MERGED_TRANSACTION_BYTES = 8 << 20;
    /** The heap a buffered restored record costs beyond its key and value (the KeyValue, two array headers, a slot). */
    private static final int BUFFERED_RECORD_OVERHEAD = 64;
    /**
     * Restored records not yet written ({@link #add}), in changelog order; guarded by
     * itself. Written as one sorted write when they reach {@link #restoreBufferLimit} bytes, and
     * before any other use of the store ({@link FerryStateStore#checkOpen()}, {@link FerryStateStore#close()}).
     */
    private final ArrayList<KeyValue<byte[], byte[]>> restoreBuffer = new ArrayList<>();
    /** Bytes of the buffered records (keys, values and {@link #BUFFERED_RECORD_OVERHEAD} each). */
    private long restoreBufferBytes;
    /** {@link #restoreBuffer} is not empty, or runs wait: the one read the store's other paths pay. */
    private volatile boolean restoreBuffered;
    /** {@link FerryStoreConfig#RESTORE_BUFFER_BYTES}: 0 writes each restore batch at once. */
    private final long restoreBufferLimit;
    /** {@link FerryStoreConfig#RESTORE_BUFFER_TOTAL_BYTES}: 0 = no bound on {@link #RESTORE_BUFFERED_TOTAL}. */
    private final long restoreBufferTotalLimit;
    /** Bytes in the restore buffers of every store in this JVM (each store's {@link #restoreBufferBytes}). */
    private static final java.util.concurrent.atomic.AtomicLong RESTORE_BUFFERED_TOTAL = new java.util.concurrent.atomic.AtomicLong();

    /**
     * @param store the store the records go to
     * @param dir the store's directory (restore files are written beside it)
     * @param bufferLimit {@link FerryStoreConfig#RESTORE_BUFFER_BYTES}: 0 writes each batch at once
     * @param totalLimit {@link FerryStoreConfig#RESTORE_BUFFER_TOTAL_BYTES}: 0 = no bound on the JVM's total
     * @param tableFiles RocksDB: write buffers as table files and ingest them
     * @param tableOptions RocksDB: the options string of those files ({@link #tableOptions}), or null
     * @param runs LMDB: spill full buffers as sorted runs ({@link RestoreRuns})
     */
    RestoreBuffer(FerryStateStore store, Path dir, long bufferLimit, long totalLimit, boolean tableFiles, String tableOptions,
                  boolean runs) {
        this.store = store;
        this.restoreBufferLimit = bufferLimit;
        this.restoreBufferTotalLimit = totalLimit;
        this.restoreTableFiles = tableFiles;
        this.restoreTableOptions = tableOptions;
        this.restoreTablePrefix = dir.resolveSibling(dir.getFileName() + ".restore-");
        this.restoreRuns = runs ? new RestoreRuns(restoreTablePrefix) : null;
    }

    /** @return whether records wait to be written (in the buffer, or in runs): the one read the store's other paths pay */
    boolean buffered() {
        return restoreBuffered;
    }

    /** Gives up what is still buffered or spilled, at close (records no commit covers: restored again). */
    void discard() {
        synchronized (restoreBuffer) {
            try {
                if (restoreRuns != null) {
                    restoreRuns.clear(); // empty unless merging them failed
                }
            } finally {
                releaseRestoreBuffer(); // empty unless writing it failed
            }
        }
    }

    /**
     * The options string of restored table files: the table options the store's families run with
     * (compression, bloom filter, and the store's RocksDB options string, whatever set them),
     * so that restored files are read, cached and filtered as the files of the store's own flushes.
     */
    static String tableOptions(StoreOptions o) {
        StringBuilder b = new StringBuilder();
        Compression c = o.compression();
        if (c != null) {
            b.append("compression=").append(switch (c) {
                case NONE -> "kNoCompression";
                case SNAPPY -> "kSnappyCompression";
                case LZ4 -> "kLZ4Compression";
                case ZSTD -> "kZSTD";
            }).append(';');
        }
        if (o.bloomBitsPerKey() > 0) {
            b.append("block_based_table_factory={filter_policy=bloomfilter:").append(o.bloomBitsPerKey()).append(":false};");
        }
        if (o.rocksdbOptions() != null) {
            b.append(o.rocksdbOptions());
        }
        return b.length() == 0 ? null : b.toString();
    }

    /**
     * Deletes restored table files and runs a crash left beside the store's directory (never ingested:
     * ingestion moves them; runs are merged before an offset covers their records): the regular files
     * named {@code <store>.restore-<n>.sst} or {@code <store>.restore-<n>.run}, and no other, since a
     * store may be named like another's restore files (store {@code a} and store {@code a.restore-x}).
     */
    static void deleteFiles(Path dir) throws java.io.IOException {
        try (java.util.stream.Stream<Path> l = Files.list(dir.getParent())) {
            for (Path p : (Iterable<Path>) l::iterator) {
                if (isRestoreFile(dir, p.getFileName().toString()) && Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /** @return whether {@code file} is the name of one of the restore files of the store in {@code dir} */
    static boolean isRestoreFile(Path dir, String file) {
        String prefix = dir.getFileName() + ".restore-";
        String suffix = file.endsWith(".sst") ? ".sst" : file.endsWith(RestoreRuns.SUFFIX) ? RestoreRuns.SUFFIX : null;
        if (suffix == null || !file.startsWith(prefix) || file.length() <= prefix.length() + suffix.length()) {
            return false;
        }
        for (int i = prefix.length(); i < file.length() - suffix.length(); i++) {
            char c = file.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /**
     * Takes a batch of restored records, already in the data family's layout (null value = delete),
     * and writes the buffer once it is full ({@link FerryStateStore#bufferRestored} says why and when).
     *
     * @param s the open store
     * @param records the records, in changelog order
     */
    void add(Store s, Collection<KeyValue<byte[], byte[]>> records) {
        for (KeyValue<byte[], byte[]> r : records) {
            Objects.requireNonNull(r.key, "key cannot be null");
        }
        if (restoreBufferLimit == 0) {
            writeSorted(s, records instanceof List<KeyValue<byte[], byte[]>> l ? l : new ArrayList<>(records));
            return;
        }
        synchronized (restoreBuffer) {
            long added = 0;
            for (KeyValue<byte[], byte[]> r : records) {
                restoreBuffer.add(r);
                added += r.key.length + (r.value == null ? 0 : r.value.length) + BUFFERED_RECORD_OVERHEAD;
            }
            restoreBufferBytes += added;
            long total = RESTORE_BUFFERED_TOTAL.addAndGet(added);
            restoreBuffered = !restoreBuffer.isEmpty();
            if (restoreBufferBytes >= restoreBufferLimit || (restoreBufferTotalLimit > 0 && total >= restoreBufferTotalLimit)) {
                if (restoreRuns != null) {
                    spillRestored();
                } else {
                    drain(s);
                }
            }
        }
    }

    /**
     * Writes the buffered restored records, if any ({@link #add}). On failure they stay
     * buffered: every later use of the store tries again and fails, so no commit covers them.
     */
    void drain(Store s) {
        synchronized (restoreBuffer) {
            if (restoreBuffer.isEmpty() && (restoreRuns == null || restoreRuns.isEmpty())) {
                return;
            }
            writeSorted(s, restoreBuffer);
            releaseRestoreBuffer();
        }
    }

    /**
     * LMDB: writes the restore buffer as a sorted run to a file ({@link RestoreRuns}) and empties it;
     * the next drain merges the runs into the store. If the file cannot be written, the buffer is
     * written into the store instead.
     */
    private void spillRestored() {
        synchronized (restoreBuffer) {
            Sorted sd = sortLastOfEachKey(restoreBuffer);
            try {
                restoreRuns.spill(sd::get, sd.n());
            } catch (java.io.UncheckedIOException e) {
                writeMerged(store.openStore(), sd); // a full or read-only disk: in the store, as without runs
            }
            releaseRestoreBuffer();
        }
    }

    /**
     * LMDB: merges the runs ({@link RestoreRuns}) with the sorted records and writes each key's newest
     * record in key order, in transactions of about {@link #MERGED_TRANSACTION_BYTES}: the key ranges
     * of the transactions follow one another, so each leaf page of the tree is copied once. Into an
     * empty data family the records are appended (LMDB's MDB_APPEND: no search, full pages) and
     * deletes dropped (they delete nothing). The runs are deleted once everything is written; on a
     * failure they stay, with the buffer, and the next drain writes them again (then not appending:
     * the family holds what the failed drain wrote, and writing it again leaves the same entries).
     *
     * @param s the store
     * @param newest the records not in a run, sorted by key, each key once
     */
    private void writeMerged(Store s, Sorted newest) {
        ColumnFamily d = store.data();
        boolean[] append = {s.estimatedKeyCount(d) == 0}; // exact on LMDB
        try (WriteBatch batch = new WriteBatch()) {
            restoreRuns.merge(newest::get, newest.n(), r -> {
                if (r.value != null) {
                    batch.put(d, r.key, r.value);
                } else if (!append[0]) {
                    batch.delete(d, r.key);
                }
                if (batch.sizeInBytes() >= MERGED_TRANSACTION_BYTES) {
                    append[0] = writeMergedBatch(s, batch, append[0]);
                    batch.clear();
                }
            });
            if (batch.count() > 0) {
                writeMergedBatch(s, batch, append[0]);
            }
        }
        restoreRuns.clear();
    }

    /**
     * One transaction of {@link #writeMerged}.
     *
     * @return whether the next batch may append
     */
    private boolean writeMergedBatch(Store s, WriteBatch batch, boolean append) {
        store.markDirty();
        if (append) {
            try {
                s.write(batch, APPEND);
                return true;
            } catch (FerryException.InvalidArgument e) {
                // a key at or before the family's last one (written by another path meanwhile): write it in place
            }
        }
        s.write(batch);
        return false;
    }

    /** @return bytes in this store's restore buffer (tests) */
    long bufferedBytes() {
        synchronized (restoreBuffer) {
            return restoreBufferBytes;
        }
    }

    /** @return the LMDB restore runs of this store, or null (tests) */
    RestoreRuns runs() {
        synchronized (restoreBuffer) {
            return restoreRuns;
        }
    }

    /** @return bytes in the restore buffers of every store in this JVM (tests) */
    static long bufferedTotal() {
        return RESTORE_BUFFERED_TOTAL.get();
    }

    /** Empties the restore buffer (written, or given up at close) and takes its bytes off the JVM's total. */
    private void releaseRestoreBuffer() {
        synchronized (restoreBuffer) {
            restoreBuffer.clear();
            restoreBuffer.trimToSize(); // a store keeps no large empty array once restoration is over
            RESTORE_BUFFERED_TOTAL.addAndGet(-restoreBufferBytes);
            restoreBufferBytes = 0;
            restoreBuffered = restoreRuns != null && !restoreRuns.isEmpty();
        }
    }

    /**
     * Sorts records by key (stably) and moves the last record of each key (what writing them in
     * changelog order leaves), in key order, to the front.
     *
     * @param records the records, in changelog order
     * @return the sorted records, each key once
     */
    private static Sorted sortLastOfEachKey(List<KeyValue<byte[], byte[]>> records) {
        @SuppressWarnings("unchecked")
        KeyValue<byte[], byte[]>[] in = records.toArray(new KeyValue[0]); // any List: indexed once, in order
        int n = in.length;
        byte[][] keys = new byte[n][];
        for (int i = 0; i < n; i++) {
            keys[i] = in[i].key;
        }
        int[] order = KeyOrder.sort(keys); // stable: a key's records keep their changelog order
        @SuppressWarnings("unchecked")
        KeyValue<byte[], byte[]>[] sorted = new KeyValue[n];
        int u = 0;
        for (int p = 0; p < n; p++) {
            if (p + 1 < n && Arrays.equals(keys[order[p]], keys[order[p + 1]])) {
                continue; // a later record of the key replaces it
            }
            sorted[u++] = in[order[p]];
        }
        return new Sorted(sorted, u);
    }

    /** Records sorted by key: the first {@code n}, each key once. */
    private record Sorted(KeyValue<byte[], byte[]>[] records, int n) {
        KeyValue<byte[], byte[]> get(int i) {
            return records[i];
        }
    }

    /** Sorts records by key (stably) and writes the last record of each key in one restore write. */
    private void writeSorted(Store s, List<KeyValue<byte[], byte[]>> records) {
        Sorted sd = sortLastOfEachKey(records);
        if (restoreRuns != null) { // LMDB: merged with the runs, in key order
            writeMerged(s, sd);
            return;
        }
        KeyValue<byte[], byte[]>[] sorted = sd.records();
        int u = sd.n();
        // a buffer of 0 writes each restore batch at once: through the memtable, not as a table file per batch
        if (restoreTableFiles && restoreBufferLimit > 0 && writeTables(s, sorted, u)) {
            return;
        }
        ColumnFamily d = store.data();
        try (WriteBatch batch = new WriteBatch()) {
            for (int i = 0; i < u; i++) {
                KeyValue<byte[], byte[]> r = sorted[i];
                if (r.value == null) {
                    batch.delete(d, r.key);
                } else {
                    batch.put(d, r.key, r.value);
                }
            }
            store.writeRestored(s, batch);
        }
    }

    /**
     * RocksDB: writes sorted restored records (one per key) as table files and ingests them into
     * the data family: RocksDB adds the files as they are, newer than every entry of the family,
     * without the memtable, the write-ahead log and a flush. A buffer of at least
     * {@link #PARALLEL_TABLE_RECORDS} records is split at its middle key into two files, the second
     * written on another thread, and both are ingested in one step. Ingestion syncs the files and
     * records them in RocksDB's MANIFEST (synced) before it returns: the records are durable before
     * any offset covering them can be committed, so the store is not marked {@link FerryStateStore#unlogged}.
     * A crash before the ingestion leaves the files outside the store (deleted at the next
     * {@link FerryStateStore#init}) and the records to restore again.
     *
     * @param s the store
     * @param sorted the records, the first {@code n} sorted by key, each key once
     * @param n how many
     * @return false when this RocksDB library cannot write or ingest table files (the caller writes
     *     a batch instead, from now on)
     */
    private boolean writeTables(Store s, KeyValue<byte[], byte[]>[] sorted, int n) {
        int parts = PARALLEL_TABLES && n >= PARALLEL_TABLE_RECORDS ? 2 : 1;
        int mid = parts == 2 ? n / 2 : n;
        List<Path> files = new ArrayList<>(parts);
        for (int p = 0; p < parts; p++) {
            files.add(Path.of(restoreTablePrefix + Integer.toString(p) + ".sst"));
        }
        String binding = s.binding();
        java.util.concurrent.Future<?> second = null;
        try {
            if (parts == 2) {
                second = TABLE_WRITERS.submit(() -> writeTable(files.get(1), binding, sorted, mid, n));
            }
            writeTable(files.get(0), binding, sorted, 0, mid);
            if (second != null) {
                awaitTable(second);
                second = null;
            }
            // not markDirty(): ingested files are synced, so flush() has nothing to add for them
            s.ingest(store.data(), files, true);
            return true;
        } catch (FerryException.NotSupported e) {
            restoreTableFiles = false; // a RocksDB library without the SstFileWriter or ingestion C API
            return false;
        } finally {
            if (second != null) {
                try {
                    awaitTable(second);
                } catch (RuntimeException ignored) {
                    // the first failure is the one reported
                }
            }
            for (Path f : files) { // ingested files were moved into the store: these are left over from a failure
                try {
                    Files.deleteIfExists(f);
                } catch (java.io.IOException ignored) {
                    // deleted at the next init
                }
            }
        }
    }

    /** Writes sorted[from, to) as one table file. */
    private void writeTable(Path file, String binding, KeyValue<byte[], byte[]>[] sorted, int from, int to) {
        try (SstFileWriter w = SstFileWriter.open(file, restoreTableOptions, binding)) {
            for (int i = from; i < to; i++) {
                KeyValue<byte[], byte[]> r = sorted[i];
                if (r.value == null) {
                    w.delete(r.key);
                } else {
                    w.put(r.key, r.value);
                }
            }
            w.finish();
        }
    }

    /** Waits for a table file written on another thread, rethrowing its failure. */
    private static void awaitTable(java.util.concurrent.Future<?> f) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    f.get();
                    return;
                } catch (InterruptedException e) {
                    interrupted = true; // the file must be complete (or failed) before it is ingested or deleted
                } catch (java.util.concurrent.ExecutionException e) {
                    Throwable c = e.getCause();
                    if (c instanceof RuntimeException r) {
                        throw r;
                    }
                    if (c instanceof Error err) {
                        throw err;
                    }
                    throw new IllegalStateException(c);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
