package dev.ferry.kafka;

import dev.ferry.ColumnFamily;
import dev.ferry.Cursor;
import dev.ferry.Engine;
import dev.ferry.KeyRange;
import dev.ferry.SstFileWriter;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import dev.ferry.WriteBatch;
import dev.ferry.WriteOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.state.TimestampedBytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Switching without a full restore (docs/kafka-streams.md, "Switching from the built-in store"): when a
 * Ferry key-value store opens and finds no Ferry store of its own but Kafka's built-in RocksDB store of the
 * same name in the task's directory ({@code <task>/rocksdb/<name>}), it copies that store's entries and
 * committed changelog offsets into a new Ferry store, so Kafka Streams restores only what the changelog holds
 * beyond those offsets.
 *
 * <p>The built-in store is read through Ferry itself (a read-only Ferry RocksDB store over its directory, all
 * column families). Its entries are in {@code default} (plain stores) or {@code keyValueWithTimestamp}
 * (timestamped stores), its offsets in {@code offsets}: each changelog partition under the key
 * {@code <topic>-<partition>} (UTF-8) as an 8-byte big-endian long, the query position under
 * {@code position}, the open/closed status under {@code status} (Kafka 4.3+, KIP-1035), the layout Ferry's own
 * {@code offsets} family uses. The import writes a complete Ferry store in {@code <name>~import} beside the
 * store's directory (RocksDB: the entries as table files ingested into {@code data}; LMDB: appended in key
 * order), then its offsets, closes it and renames it to {@code <name>}: a crash before the rename leaves no
 * Ferry store (the next open deletes the partial one and imports again), and after it a complete one. The
 * built-in store's directory is left as it was unless {@link FerryStoreConfig#IMPORT_BUILT_IN_DELETE}.
 *
 * <p>Not imported (the store then opens empty and Kafka Streams restores it from the changelog, as without
 * the import; each case logged): a built-in store in the other value format (plain against timestamped), one
 * in Kafka's upgrade mode (plain values left in {@code default} of a timestamped store), one with entries in
 * a family of another layout (the header-carrying stores), and under exactly-once one that was not closed.
 * Window and session stores import through {@link SegmentedImport}, versioned stores through
 * {@link VersionedImport}. A failure of the import itself is logged and falls back to the restore.
 *
 * <p>Thread safety: called from a store's {@code init}, one store at a time per directory.
 */
final class BuiltInImport {
    private static final Logger LOG = LoggerFactory.getLogger(BuiltInImport.class);
    /** Where Kafka's built-in RocksDB stores live in a task's directory. */
    static final String BUILT_IN_DIR = "rocksdb";
    /** The built-in plain store's family of entries (RocksDB's default family). */
    static final String PLAIN_FAMILY = "default";
    /** The built-in timestamped store's family of entries ({@code RocksDBTimestampedStore}). */
    static final String TIMESTAMPED_FAMILY = "keyValueWithTimestamp";
    /** The built-in store's family of committed offsets, position and status ({@code RocksDBStore}). */
    static final String OFFSETS_FAMILY = "offsets";
    /** The suffix of the directory a Ferry store is imported into before it is renamed into place. */
    static final String TEMP_SUFFIX = "~import";
    /** The folder in the temporary store's directory that holds the table files until they are ingested. */
    private static final String TABLES = "ferry-import-tables";
    /** RocksDB: the size at which a table file of imported entries is finished and the next begun. */
    static final long TABLE_FILE_BYTES = 64L << 20;
    /** LMDB: the size of one write transaction of imported entries. */
    private static final int LMDB_TRANSACTION_BYTES = 8 << 20;
    private static final WriteOptions APPEND = WriteOptions.DEFAULT.append(true);
    private static final WriteOptions SYNC = WriteOptions.DEFAULT.sync(true);
    private static final byte[] CLOSED = ByteBuffer.allocate(Long.BYTES).putLong(0).array();
    /** Tests: runs just before the complete temporary store is renamed into place (a crash there). */
    static volatile Runnable beforeRename;

    /**
     * What one import copied.
     *
     * @param records entries
     * @param bytes their keys' and values' bytes
     * @param offsets the changelog offsets carried over, by partition ({@code <topic>-<partition>})
     * @param millis how long it took
     */
    record Result(long records, long bytes, Map<String, Long> offsets, long millis) {
    }

    private BuiltInImport() {
    }

    /**
     * Imports the built-in store of {@code store}'s name into {@code dir} if the configuration allows it,
     * {@code dir} does not exist, and the built-in store's directory does; deletes a partial import a crash
     * left first. Never throws but for a bad configuration value: a failed import is logged, and the store
     * restores from the changelog.
     *
     * @param store the Ferry store being opened
     * @param dir its directory ({@code <task>/ferry/<name>}), whose parent exists
     * @param options the options it opens with (the imported store is written with them)
     * @param context its context
     * @return what was imported, or null when nothing was
     */
    static Result run(FerryStateStore store, Path dir, StoreOptions options, StateStoreContext context) {
        Map<String, Object> configs = context.appConfigs();
        boolean versioned = store instanceof FerryVersionedKeyValueStore;
        boolean keyValue = store instanceof FerryKeyValueStore || versioned; // both in <task>/rocksdb/<name>
        boolean segmented = SegmentedImport.importable(store);
        if (!(keyValue || segmented) || store instanceof org.apache.kafka.streams.state.HeadersBytesStore
                || !FerryStoreConfig.importBuiltIn(configs)) { // a headers store's built-in counterpart keeps another layout
            return null;
        }
        boolean delete = FerryStoreConfig.importBuiltInDelete(configs);
        Path temp = dir.resolveSibling(dir.getFileName() + TEMP_SUFFIX);
        // the built-in key-value store in <task>/rocksdb/<name>; window and session stores' segments in <task>/<name>/<name>.<start>
        Path builtIn = keyValue ? new java.io.File(new java.io.File(context.stateDir(), BUILT_IN_DIR), store.name()).toPath()
                : new java.io.File(context.stateDir(), store.name()).toPath();
        try {
            deleteTree(temp); // a partial import a crash left: never renamed into place, so never used
            if (Files.exists(dir) || !(keyValue ? Files.isRegularFile(builtIn.resolve("CURRENT")) : SegmentedImport.hasSegments(builtIn))) {
                return null;
            }
            boolean eos = StreamsConfig.EXACTLY_ONCE_V2.equals(configs.get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG));
            Result r = versioned ? VersionedImport.copy(builtIn, temp, options, (FerryVersionedKeyValueStore) store, eos)
                    : keyValue ? copy(builtIn, temp, options, store instanceof TimestampedBytesStore, eos, store.name())
                    : SegmentedImport.copy(builtIn, temp, options, (FerrySegmentedStore) store, eos);
            if (r == null) {
                deleteTree(temp);
                return null;
            }
            Runnable hook = beforeRename;
            if (hook != null) {
                hook.run();
            }
            Files.move(temp, dir, StandardCopyOption.ATOMIC_MOVE);
            syncDirectory(dir.getParent());
            LOG.info("Ferry store {} of task {}: imported {} records ({} bytes of keys and values) and the changelog offsets {} "
                    + "from Kafka's built-in store at {} in {} ms; Kafka Streams restores only the changelog beyond them",
                    store.name(), context.taskId(), r.records(), r.bytes(), r.offsets(), builtIn, r.millis());
            if (delete) {
                try {
                    deleteTree(builtIn);
                    LOG.info("Ferry store {} of task {}: deleted the built-in store's directory {} ({}=true)", store.name(),
                            context.taskId(), builtIn, FerryStoreConfig.IMPORT_BUILT_IN_DELETE);
                } catch (IOException | RuntimeException e) {
                    LOG.warn("Ferry store {}: could not delete the built-in store's directory {} after its import", store.name(), builtIn, e);
                }
            }
            return r;
        } catch (IOException | RuntimeException e) {
            LOG.warn("Ferry store {} of task {}: importing Kafka's built-in store at {} failed; the store restores from the changelog",
                    store.name(), context.taskId(), builtIn, e);
            try {
                deleteTree(temp);
            } catch (IOException | RuntimeException ignored) {
                // deleted at the next open
            }
            return null;
        }
    }

    /**
     * A built-in store's families as an import reads them: the entries' family, the offsets family, and the
     * first other family that holds entries (null when none: a store of another layout has one).
     */
    record Families(ColumnFamily from, ColumnFamily offsets, String other) {
    }

    /** @return {@code src}'s families, the entries' one named {@code want} (see {@link Families}) */
    static Families families(Store src, String want) {
        ColumnFamily from = null;
        ColumnFamily offsets = null;
        for (ColumnFamily cf : src.columnFamilies()) {
            String n = cf.name();
            if (n.equals(want)) {
                from = cf;
            } else if (n.equals(OFFSETS_FAMILY)) {
                offsets = cf;
            } else if (!isEmpty(src, cf)) {
                return new Families(from, offsets, n);
            }
        }
        return new Families(from, offsets, null);
    }

    /** @return the built-in store (or segment) in {@code dir}, opened read-only */
    static Store openBuiltIn(Path dir) {
        return Store.open(dir, StoreOptions.rocksdb().readOnly(true).createIfMissing(false));
    }

    /**
     * Copies the built-in store in {@code builtIn} into a new Ferry store in {@code temp}, complete and closed.
     *
     * @return what was copied, or null when the built-in store is not one to import (logged)
     */
    private static Result copy(Path builtIn, Path temp, StoreOptions options, boolean timestamped, boolean eos, String name)
            throws IOException {
        long start = System.nanoTime();
        try (Store src = openBuiltIn(builtIn)) {
            String want = timestamped ? TIMESTAMPED_FAMILY : PLAIN_FAMILY;
            Families f = families(src, want);
            ColumnFamily from = f.from();
            ColumnFamily offsets = f.offsets();
            if (f.other() != null) {
                LOG.info("Ferry store {}: Kafka's built-in store at {} holds entries in its column family {}, not a {} "
                        + "key-value store's layout: not imported, the store restores from the changelog", name, builtIn,
                        f.other(), timestamped ? "timestamped" : "plain");
                return null;
            }
            if (from == null) {
                LOG.info("Ferry store {}: Kafka's built-in store at {} has no column family {} (it is not a {} key-value store): "
                        + "not imported, the store restores from the changelog", name, builtIn, want, timestamped ? "timestamped" : "plain");
                return null;
            }
            TreeMap<String, byte[]> kept = readOffsets(src, offsets);
            byte[] status = kept.remove(new String(FerryStateStore.STATUS_KEY, StandardCharsets.UTF_8));
            if (eos && notClosed(status)) {
                LOG.info("Ferry store {}: Kafka's built-in store at {} was not closed: under exactly-once it may hold uncommitted "
                        + "writes, not imported, the store restores from the changelog", name, builtIn);
                return null;
            }
            Map<String, Long> carried = offsetsOf(kept);
            long[] counts = new long[2];
            try (Store dst = Store.open(temp, options)) {
                ColumnFamily data = dst.createColumnFamily(FerryStateStore.DATA_FAMILY);
                ColumnFamily offs = dst.createColumnFamily(FerryStateStore.OFFSETS_FAMILY);
                copyAll(src, from, dst, data, temp, options, counts);
                writeOffsets(dst, offs, kept);
            }
            return new Result(counts[0], counts[1], carried, (System.nanoTime() - start) / 1_000_000);
        }
    }

    /** @return the changelog offsets among the entries of an offsets family (the position and status left out) */
    static Map<String, Long> offsetsOf(Map<String, byte[]> kept) {
        Map<String, Long> carried = new TreeMap<>();
        kept.forEach((k, v) -> {
            if (!k.equals(new String(FerryStateStore.POSITION_KEY, StandardCharsets.UTF_8))
                    && !k.equals(new String(FerryStateStore.STATUS_KEY, StandardCharsets.UTF_8)) && v.length == Long.BYTES) {
                carried.put(k, ByteBuffer.wrap(v).getLong());
            }
        });
        return carried;
    }

    /** Whether a built-in store's status entry (null: none, Kafka before 4.3) says it was not closed. */
    static boolean notClosed(byte[] status) {
        return status != null && !Arrays.equals(status, CLOSED);
    }

    /**
     * Writes the carried offsets and position and a closed status into the imported store, synced, after its
     * entries (the offsets cover them; only the rename makes either visible), and flushes it.
     */
    static void writeOffsets(Store dst, ColumnFamily offs, Map<String, byte[]> kept) {
        try (WriteBatch b = new WriteBatch()) {
            for (Map.Entry<String, byte[]> e : kept.entrySet()) {
                b.put(offs, e.getKey().getBytes(StandardCharsets.UTF_8), e.getValue());
            }
            b.put(offs, FerryStateStore.STATUS_KEY, CLOSED);
            dst.write(b, SYNC);
        }
        dst.flush();
    }

    /** @return every entry of a built-in store's offsets family, by key (UTF-8) */
    static TreeMap<String, byte[]> readOffsets(Store src, ColumnFamily offsets) {
        TreeMap<String, byte[]> kept = new TreeMap<>();
        if (offsets != null) {
            try (Cursor c = src.cursor(offsets, KeyRange.all(), null)) {
                while (c.next()) {
                    kept.put(new String(c.keyBytes(), StandardCharsets.UTF_8), c.valueBytes());
                }
            }
        }
        return kept;
    }

    /** Copies every entry of {@code from} into the empty {@code data}, in key order. */
    private static void copyAll(Store src, ColumnFamily from, Store dst, ColumnFamily data, Path temp, StoreOptions options,
                                long[] counts) throws IOException {
        try (EntryWriter w = new EntryWriter(dst, data, temp, options); Cursor c = src.cursor(from, KeyRange.all(), null)) {
            while (c.next()) {
                w.put(c.keyBytes(), c.valueBytes());
            }
            w.finish();
            counts[0] += w.records;
            counts[1] += w.bytes;
        }
    }

    /**
     * Writes entries handed over in ascending key order into the empty data family of a store being imported:
     * RocksDB: as table files of about {@link #TABLE_FILE_BYTES}, ingested in one step by {@link #finish};
     * LMDB: appended in transactions of about 8 MiB. A key not above the one before fails the import.
     */
    static final class EntryWriter implements AutoCloseable {
        private final Store dst;
        private final ColumnFamily data;
        private final Path tables;
        private final String tableOptions;
        private final List<Path> files = new ArrayList<>();
        private SstFileWriter sst;
        private long inFile;
        private WriteBatch batch;
        private byte[] last;
        /** Entries written. */
        long records;
        /** Their keys' and values' bytes. */
        long bytes;

        /**
         * @param dst the store being imported into
         * @param data its empty data family
         * @param temp its directory (RocksDB: the table files are written in a folder there)
         * @param options the options it was opened with
         */
        EntryWriter(Store dst, ColumnFamily data, Path temp, StoreOptions options) {
            this.dst = dst;
            this.data = data;
            boolean rocksdb = dst.engine() == Engine.ROCKSDB;
            this.tables = rocksdb ? temp.resolve(TABLES) : null;
            this.tableOptions = rocksdb ? RestoreBuffer.tableOptions(options) : null;
        }

        void put(byte[] k, byte[] v) throws IOException {
            if (last != null && Arrays.compareUnsigned(last, k) >= 0) {
                throw new IllegalStateException("keys out of order: the built-in store's layout is not the one expected");
            }
            last = k;
            records++;
            bytes += k.length + v.length;
            if (tables == null) {
                if (batch == null) {
                    batch = new WriteBatch();
                }
                batch.put(data, k, v);
                if (batch.sizeInBytes() >= LMDB_TRANSACTION_BYTES) {
                    dst.write(batch, APPEND);
                    batch.close();
                    batch = null;
                }
                return;
            }
            if (sst == null) {
                Files.createDirectories(tables);
                Path f = tables.resolve(files.size() + ".sst");
                files.add(f);
                sst = SstFileWriter.open(f, tableOptions, dst.binding());
                inFile = 0;
            }
            sst.put(k, v);
            inFile += k.length + v.length;
            if (inFile >= TABLE_FILE_BYTES) {
                sst.finish();
                sst.close();
                sst = null;
            }
        }

        /** Makes everything put part of the data family. */
        void finish() throws IOException {
            if (tables == null) {
                if (batch != null && batch.count() > 0) {
                    dst.write(batch, APPEND);
                }
                return;
            }
            if (sst != null) {
                sst.finish();
                sst.close();
                sst = null;
            }
            if (!files.isEmpty()) {
                dst.ingest(data, files, true);
            }
            deleteTree(tables);
        }

        @Override
        public void close() {
            if (sst != null) {
                sst.close();
                sst = null;
            }
            if (batch != null) {
                batch.close();
                batch = null;
            }
        }
    }

    static boolean isEmpty(Store s, ColumnFamily cf) {
        try (Cursor c = s.cursor(cf, KeyRange.all(), null)) {
            return !c.next();
        }
    }

    /** Makes a rename in {@code dir} durable (where the platform can open a directory; elsewhere a no-op). */
    private static void syncDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // not possible on this platform (Windows): the rename is still atomic
        }
    }

    /** Deletes a directory and everything under it, if it exists (symbolic links are deleted, never followed). */
    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> all = Files.walk(root)) {
            List<Path> paths = all.sorted(Comparator.reverseOrder()).toList();
            for (Path p : paths) {
                Files.deleteIfExists(p);
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
