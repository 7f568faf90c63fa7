package dev.ferry.rocksjava;

import java.lang.ref.Reference;
import java.lang.reflect.Field;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.RocksObject;
import org.rocksdb.Snapshot;

/**
 * The RocksJava objects one interop call reads through, checked open, with their native handles.
 * Holding this object keeps them reachable; {@link #fence()} ends that after the native call.
 *
 * <p>RocksJava marks a closed object by {@code isOwningHandle() == false} (its
 * {@code getNativeHandle()} keeps the stale pointer). A database's default family handle never
 * owns its native object, so it counts as open while its database is. A Snapshot never owns its
 * native object either and is unchanged when {@code db.releaseSnapshot} frees it, so snapshots
 * cannot be checked: callers keep a snapshot unreleased while a call uses it (a cursor reads it
 * only when it opens).
 *
 * <p>Thread safety: immutable; the checks race with a concurrent RocksJava close (see
 * {@link RocksInterop}).
 */
final class Target {
    private static final Field CF_DB = field(ColumnFamilyHandle.class, "rocksDB_");
    private static final Field ITERATOR_PARENT = field(org.rocksdb.AbstractRocksIterator.class, "parent_");

    final RocksDB db;
    final ColumnFamilyHandle cf;
    final Snapshot snapshot;
    final long dbHandle;
    final long cfHandle;
    final long snapshotHandle;
    private final long defaultCf;

    private Target(RocksDB db, ColumnFamilyHandle cf, Snapshot snapshot) {
        this.db = db;
        this.cf = cf;
        this.snapshot = snapshot;
        this.dbHandle = db.getNativeHandle();
        this.cfHandle = cf.getNativeHandle();
        this.snapshotHandle = snapshot == null ? 0 : snapshot.getNativeHandle();
        this.defaultCf = db.getDefaultColumnFamily().getNativeHandle();
    }

    /**
     * Checks and captures a database, a family (null: the default one) and a snapshot (or null).
     *
     * @throws IllegalStateException when the database or family is closed
     * @throws IllegalArgumentException when the family belongs to another database
     */
    static Target of(RocksDB db, ColumnFamilyHandle cf, Snapshot snapshot) {
        if (db == null) {
            throw new NullPointerException("db");
        }
        requireOpen(db, "RocksDB");
        ColumnFamilyHandle family = cf == null ? db.getDefaultColumnFamily() : cf;
        RocksDB owner = (RocksDB) read(CF_DB, family);
        if (owner != null && owner != db) {
            throw new IllegalArgumentException("the ColumnFamilyHandle belongs to another RocksDB");
        }
        Target t = new Target(db, family, snapshot);
        t.check();
        return t;
    }

    /**
     * The database a RocksJava iterator reads, found through its package-private parent field.
     *
     * @throws UnsupportedOperationException when reflection on rocksdbjni is not allowed
     */
    static RocksObject parentOf(RocksIterator it) {
        if (ITERATOR_PARENT == null) {
            throw new UnsupportedOperationException("cannot find the RocksDB of a RocksIterator: reflection on "
                    + "org.rocksdb.AbstractRocksIterator.parent_ is not allowed (open package org.rocksdb to dev.ferry)");
        }
        return (RocksObject) read(ITERATOR_PARENT, it);
    }

    /**
     * Checks that the database and family are still open: before every native call.
     *
     * @throws IllegalStateException when one is closed
     */
    void check() {
        requireOpen(db, "RocksDB");
        if (!cf.isOwningHandle() && cfHandle != defaultCf) {
            throw new IllegalStateException("the ColumnFamilyHandle is closed");
        }
    }

    /** Keeps the RocksJava objects reachable up to here: call after the native call. */
    void fence() {
        Reference.reachabilityFence(db);
        Reference.reachabilityFence(cf);
        Reference.reachabilityFence(snapshot);
    }

    static void requireOpen(RocksObject o, String what) {
        if (!o.isOwningHandle()) {
            throw new IllegalStateException("the " + what + " is closed");
        }
    }

    private static Field field(Class<?> c, String name) {
        try {
            Field f = c.getDeclaredField(name);
            f.setAccessible(true);
            return f;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null; // checks that need it are skipped (family owner) or refused (wrap)
        }
    }

    private static Object read(Field f, Object o) {
        if (f == null) {
            return null;
        }
        try {
            return f.get(o);
        } catch (IllegalAccessException e) {
            return null;
        }
    }
}
