package dev.ferry.flink;

import dev.ferry.ColumnFamily;
import dev.ferry.Cursor;
import dev.ferry.CursorOptions;
import dev.ferry.KeyRange;
import dev.ferry.MergeOperator;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import dev.ferry.WriteBatch;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.CompositeKeySerializationUtils;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedBackendSerializationProxy;
import org.apache.flink.runtime.state.RegisteredStateMetaInfoBase;
import org.apache.flink.runtime.state.StateSerializerProvider;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;
import org.apache.flink.util.FileUtils;
import org.apache.flink.util.StateMigrationException;

/**
 * Restores the checkpoints of {@link FerryIncrementalSnapshots} (incremental and native full), as Flink's
 * RocksDB backend restores its own: the checkpoint with the most of this backend's key groups is
 * downloaded into the store's directory and opened as the store, its key groups outside the backend's
 * range removed by range deletes (rescaling); every other checkpoint with some of the backend's key
 * groups (rescaling to fewer backends) is downloaded and opened aside, and the entries of the backend's
 * key groups are copied in through cursors.
 *
 * <p>Thread safety: used once, by the task thread.
 */
final class FerryIncrementalRestore<K> {
    private static final int BATCH = 4096;
    /** Files copied at once in a restore (as Flink's RocksDB backend's default transfer threads). */
    static final int TRANSFER_THREADS = 4;

    private final Path root;
    private final Path db;
    private final StoreOptions options;
    private final String binding;
    private final KeyGroupRange range;
    private final int prefixBytes;
    private final int numberOfKeyGroups;
    private final ClassLoader classLoader;
    private final StateSerializerProvider<K> keySerializer;
    private final LinkedHashMap<String, FerryKeyedStateBackend.StateInfo> states;
    private boolean keyChecked;

    FerryIncrementalRestore(Path root, Path db, StoreOptions options, String binding, KeyGroupRange range,
            int numberOfKeyGroups, ClassLoader classLoader, StateSerializerProvider<K> keySerializer,
            LinkedHashMap<String, FerryKeyedStateBackend.StateInfo> states) {
        this.root = root;
        this.db = db;
        this.options = options;
        this.binding = binding;
        this.range = range;
        this.numberOfKeyGroups = numberOfKeyGroups;
        this.prefixBytes = CompositeKeySerializationUtils.computeRequiredBytesInKeyGroupPrefix(numberOfKeyGroups);
        this.classLoader = classLoader;
        this.keySerializer = keySerializer;
        this.states = states;
    }

    Store restore(List<IncrementalRemoteKeyedStateHandle> handles) throws Exception {
        // the base: the checkpoint with the most of this backend's key groups, opened as the store
        IncrementalRemoteKeyedStateHandle base = null;
        int most = 0;
        for (IncrementalRemoteKeyedStateHandle h : handles) {
            int n = h.getKeyGroupRange().getIntersection(range).getNumberOfKeyGroups();
            if (n > most) {
                most = n;
                base = h;
            }
        }
        if (base == null) {
            return Store.open(db, options);
        }
        return restore(handles, base);
    }

    private Store restore(List<IncrementalRemoteKeyedStateHandle> handles, IncrementalRemoteKeyedStateHandle base)
            throws Exception {
        download(base, db);
        List<StateMetaInfoSnapshot> metas = readMeta(base);
        Store store;
        try {
            store = Store.open(db, options);
        } catch (RuntimeException e) {
            throw new IllegalStateException("Cannot open the checkpoint " + base.getStateHandleId() + " ("
                    + e.getMessage() + ")" + NOT_OURS, e);
        }
        try {
            for (StateMetaInfoSnapshot m : metas) {
                ColumnFamily cf = FerryKeyedStateBackend.stateFamily(store, m.getName())
                        .orElseThrow(() -> noFamily(base, m.getName()));
                states.put(m.getName(), new FerryKeyedStateBackend.StateInfo(cf,
                        RegisteredStateMetaInfoBase.fromMetaInfoSnapshot(m)));
            }
            clip(store, base.getKeyGroupRange());
            // the others' entries of this backend's key groups are copied in
            int n = 0;
            for (IncrementalRemoteKeyedStateHandle h : handles) {
                if (h == base || h.getKeyGroupRange().getIntersection(range).getNumberOfKeyGroups() == 0) {
                    continue;
                }
                Path tmp = root.resolve("restore-" + (n++));
                try {
                    download(h, tmp);
                    copy(store, tmp, h, readMeta(h));
                } finally {
                    FileUtils.deleteDirectory(tmp.toFile());
                }
            }
            return store;
        } catch (Exception e) {
            store.close();
            throw e;
        }
    }

    /**
     * Deletes, by range deletes, the key groups of the base checkpoint that are outside this backend's
     * range (a rescaled restore), in every state's family.
     */
    private void clip(Store store, KeyGroupRange baseRange) throws IOException {
        boolean below = baseRange.getStartKeyGroup() < range.getStartKeyGroup();
        boolean above = baseRange.getEndKeyGroup() > range.getEndKeyGroup();
        if (!below && !above) {
            return;
        }
        try (WriteBatch batch = new WriteBatch()) {
            for (FerryKeyedStateBackend.StateInfo info : states.values()) {
                if (below) {
                    batch.deleteRange(info.cf, prefix(0), prefix(range.getStartKeyGroup()));
                }
                if (above) {
                    batch.deleteRange(info.cf, prefix(range.getEndKeyGroup() + 1), prefix(numberOfKeyGroups));
                }
            }
            store.write(batch);
        }
    }

    /** @return the failure of a checkpoint without a state's family: not one of Ferry's (the built-in backend's?) */
    private static IllegalStateException noFamily(IncrementalRemoteKeyedStateHandle h, String state) {
        return new IllegalStateException("The checkpoint " + h.getStateHandleId() + " has no column family for state "
                + state + NOT_OURS);
    }

    /** What a restore of another backend's checkpoint says. */
    private static final String NOT_OURS = ": Ferry's backend restores its own checkpoints and canonical savepoints "
            + "(a checkpoint of Flink's RocksDB backend is not one: take a canonical savepoint with that backend and "
            + "restore from it)";

    /** Copies the entries of this backend's key groups from a downloaded checkpoint into the store. */
    private void copy(Store store, Path dir, IncrementalRemoteKeyedStateHandle h, List<StateMetaInfoSnapshot> metas)
            throws IOException {
        StoreOptions aside = StoreOptions.rocksdb().wal(false).mergeOperator(MergeOperator.STRING_APPEND);
        if (binding != null) {
            aside.binding(binding);
        }
        KeyRange keys = KeyRange.closedOpen(prefix(range.getStartKeyGroup()), prefix(range.getEndKeyGroup() + 1));
        try (Store source = Store.open(dir, aside)) {
            for (StateMetaInfoSnapshot m : metas) {
                String family = FerryKeyedStateBackend.familyName(m.getName());
                ColumnFamily from = FerryKeyedStateBackend.stateFamily(source, m.getName()).orElseThrow(
                        () -> noFamily(h, m.getName()));
                FerryKeyedStateBackend.StateInfo info = states.get(m.getName());
                if (info == null) {
                    info = new FerryKeyedStateBackend.StateInfo(store.createColumnFamily(family),
                            RegisteredStateMetaInfoBase.fromMetaInfoSnapshot(m));
                    states.put(m.getName(), info);
                }
                try (Cursor c = source.cursor(from, keys, CursorOptions.defaults().fillCache(false));
                        WriteBatch batch = new WriteBatch()) {
                    while (c.next()) {
                        batch.put(info.cf, c.keyBytes(), c.valueBytes());
                        if (batch.count() >= BATCH) {
                            store.write(batch);
                            batch.clear();
                        }
                    }
                    if (batch.count() > 0) {
                        store.write(batch);
                    }
                }
            }
        }
    }

    private byte[] prefix(int keyGroup) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(4);
        CompositeKeySerializationUtils.writeKeyGroup(keyGroup, prefixBytes, out);
        return out.getCopyOfBuffer();
    }

    /**
     * Copies a checkpoint's files into a directory, {@link #TRANSFER_THREADS} at a time (largest first), as
     * Flink's RocksDB backend downloads its own.
     */
    private static void download(IncrementalRemoteKeyedStateHandle h, Path dir) throws IOException {
        Files.createDirectories(dir);
        List<HandleAndLocalPath> files = new ArrayList<>(h.getSharedState());
        files.addAll(h.getPrivateState());
        files.sort(Comparator.comparingLong((HandleAndLocalPath f) -> f.getHandle().getStateSize()).reversed());
        if (files.size() <= 1) {
            for (HandleAndLocalPath f : files) {
                copy(f, dir);
            }
            return;
        }
        AtomicInteger n = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(TRANSFER_THREADS, files.size()), r -> {
            Thread t = new Thread(r, "ferry-restore-transfer-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<?>> copies = new ArrayList<>();
            for (HandleAndLocalPath f : files) {
                copies.add(pool.submit(() -> {
                    copy(f, dir);
                    return null;
                }));
            }
            for (Future<?> c : copies) {
                c.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Interrupted while copying the checkpoint's files");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException) {
                throw (IOException) e.getCause();
            }
            throw new IOException("Cannot copy the checkpoint's files", e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    private static void copy(HandleAndLocalPath f, Path dir) throws IOException {
        try (InputStream in = f.getHandle().openInputStream()) {
            Files.copy(in, dir.resolve(f.getLocalPath()));
        }
    }

    private List<StateMetaInfoSnapshot> readMeta(IncrementalRemoteKeyedStateHandle h) throws IOException,
            StateMigrationException {
        KeyedBackendSerializationProxy<K> proxy = new KeyedBackendSerializationProxy<>(classLoader);
        try (InputStream in = h.getMetaDataStateHandle().openInputStream()) {
            proxy.read(new DataInputViewStreamWrapper(in));
        }
        if (!keyChecked) {
            TypeSerializerSchemaCompatibility<K> compat =
                    keySerializer.setPreviousSerializerSnapshotForRestoredState(proxy.getKeySerializerSnapshot());
            if (compat.isCompatibleAfterMigration() || compat.isIncompatible()) {
                throw new StateMigrationException("The new key serializer must be compatible with the previous "
                        + "key serializer (" + proxy.getKeySerializerSnapshot() + ").");
            }
            keyChecked = true;
        }
        return proxy.getStateMetaInfoSnapshots();
    }
}
