package dev.ferry;

import dev.ferry.internal.binding.Bindings;
import dev.ferry.internal.Engines;
import dev.ferry.internal.NativeCalls;
import dev.ferry.internal.Once;
import java.lang.ref.Cleaner;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A RocksDB backup directory, driven by RocksDB's backup engine: incremental backups of RocksDB
 * stores (table files are shared between backups, so each backup copies only what is new),
 * listed, restored and purged by id.
 *
 * <pre>{@code
 * try (Backups backups = Backups.open(backupDir)) {
 *     int id = backups.create(store);          // flushes, then backs up every column family
 *     backups.purgeOldBackups(3);              // keep the newest three
 *     backups.restoreLatest(restoreDir);       // a new directory; open it with Store.open
 * }
 * }</pre>
 *
 * <p>RocksDB only: LMDB has no backup engine, and {@link #create(Store)} of an LMDB store throws
 * {@link FerryException.NotSupported}; copy an LMDB store with {@link Store#checkpoint(Path, boolean)}.
 * A RocksDB library built without its utilities also throws {@link FerryException.NotSupported}.
 *
 * <p>Closing releases the backup engine (the backups stay on disk); every call on a closed
 * {@code Backups} throws {@link IllegalStateException}. One left unclosed is released by a
 * cleaner once unreachable.
 *
 * <p>Thread safety: thread-safe; calls run one at a time.
 */
public final class Backups implements AutoCloseable {
    private final NativeCalls calls;
    private final Path path;
    private final long handle;
    private final Cleaner.Cleanable cleanable;
    private boolean closed;

    private Backups(NativeCalls calls, Path path, long handle) {
        this.calls = calls;
        this.path = path;
        this.handle = handle;
        // the release captures the parameters, not this (a cleaner action must not reach its object)
        this.cleanable = StoreCore.CLEANER.register(this, new Once(() -> calls.admin().backupsClose(handle)));
    }

    /**
     * Opens a backup directory with the process's default binding, creating it when missing.
     *
     * @param backupDir the directory (keep it apart from the stores' own directories)
     * @return the open backup directory
     * @throws FerryException.EngineLoad when RocksDB cannot be loaded
     */
    public static Backups open(Path backupDir) {
        return open(backupDir, null);
    }

    /**
     * Opens a backup directory, creating it when missing.
     *
     * @param backupDir the directory (keep it apart from the stores' own directories)
     * @param binding {@code "jni"} or {@code "ffm"}, or null for the process default (as
     *        {@link StoreOptions#binding(String)})
     * @return the open backup directory
     * @throws IllegalArgumentException for an unknown binding name
     * @throws FerryException.EngineLoad when RocksDB cannot be loaded
     */
    public static Backups open(Path backupDir, String binding) {
        Objects.requireNonNull(backupDir, "backupDir");
        NativeCalls calls = new NativeCalls(binding == null ? Bindings.defaultBinding() : Bindings.byName(binding));
        Engines.attach(calls, Engine.ROCKSDB);
        Path dir = backupDir.toAbsolutePath().normalize();
        StoreCore.createParents(dir);
        long h = calls.admin().backupsOpen(dir.toString().getBytes(StandardCharsets.UTF_8));
        try {
            return new Backups(calls, dir, h);
        } catch (RuntimeException | Error e) {
            calls.admin().backupsClose(h);
            throw e;
        }
    }

    /** @return the backup directory */
    public Path path() {
        return path;
    }

    /**
     * Backs up a RocksDB store as a new backup: its memtables are flushed first, then every
     * column family is backed up as of one point in time (with the write-ahead log on). Files an
     * earlier backup already holds are shared, not copied again.
     *
     * @param store an open RocksDB store
     * @return the new backup's id
     * @throws IllegalStateException when this or the store is closed
     * @throws FerryException.NotSupported for an LMDB store (use {@link Store#checkpoint(Path, boolean)})
     */
    public synchronized int create(Store store) {
        check();
        Objects.requireNonNull(store, "store");
        if (store.isClosed()) {
            throw new IllegalStateException(store + " is closed");
        }
        if (store.engine() != Engine.ROCKSDB) {
            throw FerryException.of(ErrorCode.NOT_SUPPORTED, 0, "LMDB has no backup engine: copy the store with "
                    + "Store.checkpoint(dir) or checkpoint(dir, true) (compacting) instead");
        }
        return StoreCore.of(store).withHandle(h -> calls.admin().backupsCreate(handle, h));
    }

    /**
     * Lists the backups, oldest first.
     *
     * @return the backups (an unmodifiable list)
     * @throws IllegalStateException when closed
     */
    public synchronized List<BackupInfo> list() {
        check();
        List<BackupInfo> r = new ArrayList<>();
        for (long[] i : calls.admin().backupsList(handle)) {
            r.add(new BackupInfo((int) i[0], Instant.ofEpochSecond(i[1]), i[2], (int) i[3]));
        }
        return Collections.unmodifiableList(r);
    }

    /**
     * Restores the latest backup into a new database directory, which then opens with
     * {@link Store#open(Path, StoreOptions)} ({@link StoreOptions#rocksdb()}) with every column family.
     *
     * @param dbDir the directory to restore into: missing or empty (missing parents are created);
     *        never the directory of an open store
     * @throws IllegalStateException when closed
     * @throws FerryException.AlreadyExists when {@code dbDir} holds files
     * @throws FerryException.NotFound when there is no backup
     */
    public synchronized void restoreLatest(Path dbDir) {
        restoreImpl(0, dbDir);
    }

    /**
     * Restores one backup into a new database directory, as {@link #restoreLatest(Path)}.
     *
     * @param id the backup's id (see {@link #list()})
     * @param dbDir the directory to restore into: missing or empty (missing parents are created)
     * @throws IllegalStateException when closed
     * @throws IllegalArgumentException when {@code id} is not positive
     * @throws FerryException.AlreadyExists when {@code dbDir} holds files
     * @throws FerryException.NotFound when there is no backup with that id
     */
    public synchronized void restore(int id, Path dbDir) {
        if (id <= 0) {
            check();
            throw new IllegalArgumentException("backup id must be positive, got " + id);
        }
        restoreImpl(id, dbDir);
    }

    /**
     * Deletes all backups but the newest {@code keep} (their files, unless a kept backup shares them).
     *
     * @param keep the number of backups to keep (0 deletes every backup)
     * @throws IllegalStateException when closed
     * @throws IllegalArgumentException when {@code keep} is negative
     */
    public synchronized void purgeOldBackups(int keep) {
        check();
        if (keep < 0) {
            throw new IllegalArgumentException("keep must be >= 0, got " + keep);
        }
        calls.admin().backupsPurge(handle, keep);
    }

    /** @return true once closed */
    public synchronized boolean isClosed() {
        return closed;
    }

    /** Releases the backup engine (waiting for a call in flight); the backups stay on disk. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        cleanable.clean();
    }

    @Override
    public String toString() {
        return "Backups[" + path + ", " + calls.bindingName() + (isClosed() ? ", closed" : "") + "]";
    }

    private void restoreImpl(int id, Path dbDir) {
        check();
        Objects.requireNonNull(dbDir, "dbDir");
        Path dir = dbDir.toAbsolutePath().normalize();
        StoreCore.createParents(dir);
        calls.admin().backupsRestore(handle, id, dir.toString().getBytes(StandardCharsets.UTF_8));
    }

    private void check() {
        if (closed) {
            throw new IllegalStateException("backups " + path + " is closed");
        }
    }
}
