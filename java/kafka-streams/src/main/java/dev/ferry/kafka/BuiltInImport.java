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
 * Window, session and versioned stores are never imported. A failure of the import itself is logged and
 * falls back to the restore.
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
        if (!(store instanceof FerryKeyValueStore) || store instanceof org.apache.kafka.streams.state.HeadersBytesStore
                || !FerryStoreConfig.importBuiltIn(configs)) { // a headers store's built-in counterpart keeps another layout
            return null;
        }
        boolean delete = FerryStoreConfig.importBuiltInDelete(configs);
        Path temp = dir.resolveSibling(dir.getFileName() + TEMP_SUFFIX);
        Path builtIn = new java.io.File(new java.io.File(context.stateDir(), BUILT_IN_DIR), store.name()).toPath();
        try {
            deleteTree(temp); // a partial import a crash left: never renamed into place, so never used
            if (Files.exists(dir) || !Files.isRegularFile(builtIn.resolve("CURRENT"))) {
                return null;
            }
            boolean eos = StreamsConfig.EXACTLY_ONCE_V2.equals(configs.get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG));
            Result r = copy(builtIn, temp, options, store instanceof TimestampedBytesStore, eos, store.name());
            if (r == null) {
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
     * Copies the built-in store in {@code builtIn} into a new Ferry store in {@code temp}, complete and closed.
     *
     * @return what was copied, or null when the built-in store is not one to import (logged)
     */
    private static Result copy(Path builtIn, Path temp, StoreOptions options, boolean timestamped, boolean eos, String name)
            throws IOException {
        long start = System.nanoTime();
        try (Store src = Store.open(builtIn, StoreOptions.rocksdb().readOnly(true).createIfMissing(false))) {
            String want = timestamped ? TIMESTAMPED_FAMILY : PLAIN_FAMILY;
            ColumnFamily from = null;
            ColumnFamily offsets = null;
            for (ColumnFamily cf : src.columnFamilies()) {
                String n = cf.name();
                if (n.equals(want)) {
                    from = cf;
                } else if (n.equals(OFFSETS_FAMILY)) {
                    offsets = cf;
                } else if (!isEmpty(src, cf)) {
                    LOG.info("Ferry store {}: Kafka's built-in store at {} holds entries in its column family {}, not a {} "
                            + "key-value store's layout: not imported, the store restores from the changelog", name, builtIn, n,
                            timestamped ? "timestamped" : "plain");
                    return null;
                }
            }
            if (from == null) {
                LOG.info("Ferry store {}: Kafka's built-in store at {} has no column family {} (it is not a {} key-value store): "
                        + "not imported, the store restores from the changelog", name, builtIn, want, timestamped ? "timestamped" : "plain");
                return null;
            }
            TreeMap<String, byte[]> kept = new TreeMap<>();
            if (offsets != null) {
                try (Cursor c = src.cursor(offsets, KeyRange.all(), null)) {
                    while (c.next()) {
                        kept.put(new String(c.keyBytes(), StandardCharsets.UTF_8), c.valueBytes());
                    }
                }
            }
            byte[] status = kept.remove(new String(FerryStateStore.STATUS_KEY, StandardCharsets.UTF_8));
            if (eos && status != null && !Arrays.equals(status, CLOSED)) {
                LOG.info("Ferry store {}: Kafka's built-in store at {} was not closed: under exactly-once it may hold uncommitted "
                        + "writes, not imported, the store restores from the changelog", name, builtIn);
                return null;
            }
            Map<String, Long> carried = new TreeMap<>();
            kept.forEach((k, v) -> {
                if (!k.equals(new String(FerryStateStore.POSITION_KEY, StandardCharsets.UTF_8)) && v.length == Long.BYTES) {
                    carried.put(k, ByteBuffer.wrap(v).getLong());
                }
            });
            long[] counts = new long[2];
            try (Store dst = Store.open(temp, options)) {
                ColumnFamily data = dst.createColumnFamily(FerryStateStore.DATA_FAMILY);
                ColumnFamily offs = dst.createColumnFamily(FerryStateStore.OFFSETS_FAMILY);
                if (dst.engine() == Engine.ROCKSDB) {
                    copyTables(src, from, dst, data, temp.resolve(TABLES), RestoreBuffer.tableOptions(options), counts);
                } else {
                    copyAppend(src, from, dst, data, counts);
                }
                // after the entries: the offsets cover them (only the rename makes either visible)
                try (WriteBatch b = new WriteBatch()) {
                    for (Map.Entry<String, byte[]> e : kept.entrySet()) {
                        b.put(offs, e.getKey().getBytes(StandardCharsets.UTF_8), e.getValue());
                    }
                    b.put(offs, FerryStateStore.STATUS_KEY, CLOSED);
                    dst.write(b, SYNC);
                }
                dst.flush();
            }
            return new Result(counts[0], counts[1], carried, (System.nanoTime() - start) / 1_000_000);
        }
    }

    /** RocksDB: writes the entries, in key order, as table files of about {@link #TABLE_FILE_BYTES}, ingested in one step. */
    private static void copyTables(Store src, ColumnFamily from, Store dst, ColumnFamily data, Path tables, String tableOptions,
                                   long[] counts) throws IOException {
        Files.createDirectories(tables);
        List<Path> files = new ArrayList<>();
        SstFileWriter w = null;
        long inFile = 0;
        try (Cursor c = src.cursor(from, KeyRange.all(), null)) {
            while (c.next()) {
                if (w == null) {
                    Path f = tables.resolve(files.size() + ".sst");
                    files.add(f);
                    w = SstFileWriter.open(f, tableOptions, dst.binding());
                    inFile = 0;
                }
                byte[] k = c.keyBytes();
                byte[] v = c.valueBytes();
                w.put(k, v);
                counts[0]++;
                counts[1] += k.length + v.length;
                inFile += k.length + v.length;
                if (inFile >= TABLE_FILE_BYTES) {
                    w.finish();
                    w.close();
                    w = null;
                }
            }
            if (w != null) {
                w.finish();
                w.close();
                w = null;
            }
        } finally {
            if (w != null) {
                w.close();
            }
        }
        if (!files.isEmpty()) {
            dst.ingest(data, files, true);
        }
        deleteTree(tables);
    }

    /** LMDB: appends the entries, in key order, into the empty data family, in transactions of about 8 MiB. */
    private static void copyAppend(Store src, ColumnFamily from, Store dst, ColumnFamily data, long[] counts) {
        WriteBatch b = new WriteBatch();
        try (Cursor c = src.cursor(from, KeyRange.all(), null)) {
            while (c.next()) {
                byte[] k = c.keyBytes();
                byte[] v = c.valueBytes();
                b.put(data, k, v);
                counts[0]++;
                counts[1] += k.length + v.length;
                if (b.sizeInBytes() >= LMDB_TRANSACTION_BYTES) {
                    dst.write(b, APPEND);
                    b.close();
                    b = new WriteBatch();
                }
            }
            if (b.count() > 0) {
                dst.write(b, APPEND);
            }
        } finally {
            b.close();
        }
    }

    private static boolean isEmpty(Store s, ColumnFamily cf) {
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
