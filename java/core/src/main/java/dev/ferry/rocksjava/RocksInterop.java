package dev.ferry.rocksjava;

import dev.ferry.Cursor;
import dev.ferry.Engine;
import dev.ferry.KeyRange;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import dev.ferry.WriteBatch;
import dev.ferry.InternalAccess;
import dev.ferry.internal.binding.Bindings;
import dev.ferry.internal.Engines;
import dev.ferry.internal.NativeCalls;
import dev.ferry.internal.Once;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.RocksObject;
import org.rocksdb.Snapshot;

/**
 * Ferry's page-based cursors and point calls over the RocksJava ({@code org.rocksdb}) objects an
 * application already holds: keep your own open/close code and {@link RocksDB}, and scan through
 * a Ferry {@link Cursor} (one native call per page instead of four per entry).
 *
 * <pre>{@code
 * try (Cursor c = RocksInterop.cursor(db, cf, null, KeyRange.prefix(p))) {
 *     for (boolean ok = c.first(); ok; ok = c.next()) {
 *         use(c.key(), c.value());              // zero-copy views, valid until the next move
 *     }
 * }
 * it.seek(start);                               // or continue an existing RocksIterator
 * try (Cursor c = RocksInterop.wrap(it)) {
 *     while (c.next()) { ... }                  // starts at the entry `it` stands on
 * }                                             // `it` now stands on Ferry's last entry
 * }</pre>
 *
 * <p>Ferry reads with read options of its own (never RocksJava's {@code ReadOptions}, whose
 * native struct differs from the C API's): bounds from the {@link KeyRange}, the snapshot you
 * pass, defaults otherwise. Writes use default write options (WAL on, no sync). Key ranges assume
 * the family's comparator is RocksDB's default bytewise order.
 *
 * <p>Lifetimes: each Ferry object keeps the RocksJava objects it reads through reachable and
 * checks that they are still open before each native call; using a Ferry cursor after its
 * RocksDB, ColumnFamilyHandle or RocksIterator was closed throws {@link IllegalStateException}.
 * Entries of the page already fetched are Ferry's copies and stay readable. Close Ferry cursors
 * before the RocksDB (as with RocksIterators); a cursor found open after its DB closed leaks its
 * engine iterator instead of touching freed memory, as RocksJava does. What Ferry cannot check:
 * a RocksJava close on another thread <em>during</em> a Ferry call (as unsafe as it is between
 * two RocksJava calls), and snapshots: RocksJava's {@code Snapshot} shows no sign of
 * {@code db.releaseSnapshot}, so keep a snapshot unreleased while a call uses it (a cursor reads
 * its snapshot only when it opens; it may be released while the cursor stays open).
 *
 * <p>Thread safety: the static methods are thread-safe where RocksDB is (reads and writes from
 * many threads). A cursor is confined to the thread that opened it; a wrapped iterator must not
 * be used by RocksJava while the Ferry cursor drives it.
 */
public final class RocksInterop {
    /** Returned by {@link #get(RocksDB, ColumnFamilyHandle, byte[], ByteBuffer)} for an absent key: -1, as {@link Store#NOT_FOUND}. */
    public static final int NOT_FOUND = Store.NOT_FOUND;

    private static final int PAGE_SIZE = StoreOptions.DEFAULT_PAGE_SIZE;
    private static final InternalAccess ACCESS = InternalAccess.get();

    private RocksInterop() {
    }

    /**
     * Names the binding the interop calls go through (chosen as for stores: FFM on Java 22+
     * with ferry-ffm present, else JNI; {@code -Dferry.binding} overrides).
     *
     * @return {@code "jni"} or {@code "ffm"}
     */
    public static String binding() {
        return calls0().bindingName();
    }

    // ---- cursors ----

    /**
     * Opens a cursor over every key of the database's default family, on an implicit snapshot
     * taken now.
     *
     * @param db an open RocksJava database
     * @return the cursor; close it before the database
     */
    public static Cursor cursor(RocksDB db) {
        return cursor(db, null, null, KeyRange.all());
    }

    /**
     * Opens a cursor with Ferry's own iterator and read options.
     *
     * @param db an open RocksJava database
     * @param cf the family, or null for the default one
     * @param snapshot a snapshot of {@code db} to read, or null for an implicit snapshot taken now
     * @param range the keys to visit, enforced as RocksDB iterate bounds
     * @return the cursor; close it before the database
     * @throws IllegalStateException when {@code db} or {@code cf} is closed
     */
    public static Cursor cursor(RocksDB db, ColumnFamilyHandle cf, Snapshot snapshot, KeyRange range) {
        Objects.requireNonNull(range, "range");
        NativeCalls calls = calls0();
        Target t = Target.of(db, cf, snapshot);
        long h;
        try {
            h = calls.rjCursorOpen(t.dbHandle, t.cfHandle, t.snapshotHandle, range.lower(), range.upper());
        } finally {
            t.fence();
        }
        return adopt(RocksCursorHost.opened(calls, PAGE_SIZE, t), h, range, false);
    }

    /**
     * Wraps an existing RocksJava iterator in a Ferry cursor that drives it without owning it.
     * The first {@link Cursor#next()} (or {@link Cursor#prev()}) lands on the entry the iterator
     * stands on and continues forward (or in reverse); {@code first()}, {@code last()} and
     * {@code seek} move the iterator within its own read options. Closing the cursor on its
     * thread hands the iterator back standing on the cursor's current entry (or invalid when the
     * cursor ran off the end); RocksJava keeps using it and still closes it.
     *
     * @param iterator an open RocksJava iterator, positioned or not
     * @return the cursor
     * @throws IllegalStateException when the iterator or its database is closed
     */
    public static Cursor wrap(RocksIterator iterator) {
        Objects.requireNonNull(iterator, "iterator");
        NativeCalls calls = calls0();
        RocksObject db = Target.parentOf(iterator);
        RocksCursorHost host = RocksCursorHost.wrapped(calls, PAGE_SIZE, iterator, db);
        host.checkWrapped();
        return adopt(host, calls.rjCursorWrap(iterator.getNativeHandle()), KeyRange.all(), true);
    }

    // ---- reads ----

    /**
     * Reads a key.
     *
     * @param db an open RocksJava database
     * @param cf the family, or null for the default one
     * @param key the key
     * @return a copy of the value, or null when absent
     */
    public static byte[] get(RocksDB db, ColumnFamilyHandle cf, byte[] key) {
        return get(db, cf, null, key);
    }

    /**
     * Reads a key at a snapshot.
     *
     * @param db an open RocksJava database
     * @param cf the family, or null for the default one
     * @param snapshot a snapshot of {@code db}, or null for the latest state
     * @param key the key
     * @return a copy of the value, or null when absent
     */
    public static byte[] get(RocksDB db, ColumnFamilyHandle cf, Snapshot snapshot, byte[] key) {
        Objects.requireNonNull(key, "key");
        NativeCalls calls = calls0();
        Target t = Target.of(db, cf, snapshot);
        try {
            return calls.reads().rjGet(t.dbHandle, t.cfHandle, t.snapshotHandle, key);
        } finally {
            t.fence();
        }
    }

    /**
     * Reads a key into a buffer without allocating (the value is copied in through the buffer's own API).
     *
     * @param db an open RocksJava database
     * @param cf the family, or null for the default one
     * @param key the key
     * @param into receives up to {@code into.remaining()} bytes of the value at its position;
     *        the position advances by the bytes written
     * @return the value's full length (larger than the bytes written when {@code into} was too
     *         small), or {@link #NOT_FOUND}
     */
    public static int get(RocksDB db, ColumnFamilyHandle cf, byte[] key, ByteBuffer into) {
        Objects.requireNonNull(key, "key");
        NativeCalls calls = calls0();
        Target t = Target.of(db, cf, null);
        try {
            return calls.reads().rjGetInto(t.dbHandle, t.cfHandle, ByteBuffer.wrap(key), into);
        } finally {
            t.fence();
        }
    }

    /**
     * Reads many keys in as few native calls as the value sizes allow.
     *
     * @param db an open RocksJava database
     * @param cf the family, or null for the default one
     * @param keys the keys
     * @return values in key order, null for absent keys
     */
    public static List<byte[]> multiGet(RocksDB db, ColumnFamilyHandle cf, List<byte[]> keys) {
        return multiGet(db, cf, null, keys);
    }

    /**
     * Reads many keys at a snapshot in as few native calls as the value sizes allow.
     *
     * @param db an open RocksJava database
     * @param cf the family, or null for the default one
     * @param snapshot a snapshot of {@code db}, or null for the latest state
     * @param keys the keys
     * @return values in key order, null for absent keys
     */
    public static List<byte[]> multiGet(RocksDB db, ColumnFamilyHandle cf, Snapshot snapshot, List<byte[]> keys) {
        NativeCalls calls = calls0();
        Target t = Target.of(db, cf, snapshot);
        try {
            return calls.reads().rjMultiGet(t.dbHandle, t.cfHandle, t.snapshotHandle, keys);
        } finally {
            t.fence();
        }
    }

    // ---- writes ----

    /**
     * Writes a key.
     *
     * @param db an open RocksJava database
     * @param cf the family, or null for the default one
     * @param key the key
     * @param value the value
     */
    public static void put(RocksDB db, ColumnFamilyHandle cf, byte[] key, byte[] value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        NativeCalls calls = calls0();
        Target t = Target.of(db, cf, null);
        try {
            calls.rjPut(t.dbHandle, t.cfHandle, key, value);
        } finally {
            t.fence();
        }
    }

    /**
     * Applies a Ferry batch atomically to the database's default family.
     *
     * @param db an open RocksJava database
     * @param batch puts, deletes and range deletes on the default family
     */
    public static void write(RocksDB db, WriteBatch batch) {
        write(db, null, batch);
    }

    /**
     * Applies a Ferry batch atomically to one family. The batch names no Ferry
     * {@link dev.ferry.ColumnFamily}: its records go to {@code cf}.
     *
     * @param db an open RocksJava database
     * @param cf the family, or null for the default one
     * @param batch the records
     * @throws IllegalArgumentException when the batch names a Ferry store's column families
     */
    public static void write(RocksDB db, ColumnFamilyHandle cf, WriteBatch batch) {
        Objects.requireNonNull(batch, "batch");
        if (ACCESS.namesFamilies(batch)) {
            throw new IllegalArgumentException("the batch names column families of a Ferry store: build it with the "
                    + "default-family methods and pass the ColumnFamilyHandle here");
        }
        ByteBuffer enc = ACCESS.encoded(batch);
        NativeCalls calls = calls0();
        Target t = Target.of(db, cf, null);
        try {
            calls.rjWrite(t.dbHandle, t.cfHandle, enc, batch.count());
        } finally {
            t.fence();
        }
    }

    // ---- internals ----

    private static NativeCalls calls0() {
        NativeCalls calls = new NativeCalls(Bindings.defaultBinding());
        Engines.attach(calls, Engine.ROCKSDB);
        return calls;
    }

    /** Wraps a native cursor; frees it when the Java cursor cannot be built. */
    private static Cursor adopt(RocksCursorHost host, long handle, KeyRange range, boolean armed) {
        Once release = new Once(host.release(handle));
        try {
            return ACCESS.newCursor(host, handle, release, range, PAGE_SIZE, armed);
        } catch (RuntimeException | Error e) {
            release.run();
            throw e;
        }
    }
}
