package dev.ferry;

import dev.ferry.internal.NativeLibrary;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.lmdbjava.ByteArrayProxy;
import org.lmdbjava.CursorIterable;
import org.lmdbjava.Dbi;
import org.lmdbjava.Env;
import org.lmdbjava.Txn;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;

/**
 * One seeded run of the differential fuzzer: a random sequence of operations over every write
 * and read path of a Ferry store (puts, deletes and range deletes through every overload, write
 * batches across families, point reads, buffer reads, multiGet, cursors with every
 * {@link KeyRange} kind and {@link CursorOptions}, scans, snapshots held across writes and across
 * family create/drop, reopen), every answer compared with {@link TreeMap} models in unsigned
 * byte order. At the end the store is closed and every family is read back with the reference
 * library (RocksJava, lmdbjava) and compared with the model.
 *
 * <p>The sequence depends only on the seed, the {@link Config} and the models, never on the
 * store's answers, so {@code seed} and the op count replay a failure exactly. The first
 * disagreement stops the run with an {@link AssertionError} naming the seed, the op index, a
 * replay command and the tail of the op log (the whole log goes to a file).
 *
 * <p>Contracts encoded here beyond the plain model (issue 14): {@code deleteRange(begin, end)}
 * with {@code begin >= end} in unsigned order (including {@code end} empty) is a no-op, in a
 * store call and in a batch; a snapshot used with a family created after it throws
 * {@link IllegalArgumentException}, with a dropped family {@link IllegalStateException}; on LMDB
 * dropped families do not count toward {@link StoreOptions#maxColumnFamilies(int)}; LMDB rejects
 * empty keys and keys over 511 bytes with {@link ErrorCode#KEY_SIZE} before writing; in LMDB the
 * names of live families are keys of the default family (any value), {@code put} of such a key
 * fails, a range delete skips them, and a family cannot be created under the name of an existing
 * default-family key.
 *
 * <p>The code is in four classes, one object per run: the state, model, reporting and choices in
 * {@link DiffFuzzState}, the writes in {@link DiffFuzzWrites}, the reads in {@link DiffFuzzReads}, and here
 * the entry point, the dispatch, families, snapshots, reopen and the read-back.
 *
 * <p>Not thread-safe; one run uses one thread.
 */
public final class DifferentialFuzz extends DiffFuzzReads {
    static {
        // lmdbjava reads the store back with the liblmdb Ferry extracted (one liblmdb per process);
        // set before lmdbjava's classes initialise, as LmdbJavaDifferentialTest does
        if (System.getProperty("lmdbjava.native.lib") == null) {
            System.setProperty("lmdbjava.native.lib", NativeLibrary.lmdbPath().toString());
        }
    }

    /**
     * What one operation does, with its relative weight. Names can be given to
     * {@code -Dferry.diff.exclude} to leave a kind out (e.g. while a known defect is open);
     * {@link #FAMILY_LIMIT} and {@link #NAME_KEYS} are not operations: excluding the first gives
     * LMDB stores room for every family the run creates, so creation never reaches
     * {@code maxColumnFamilies}; excluding the second never writes a family's name as a key of
     * the default family.
     */
    public enum Kind {
        /** put through the array overloads */
        PUT(170),
        /** put of array slices */
        PUT_SLICE(40),
        /** put of heap and direct buffers */
        PUT_BUFFER(50),
        /** delete through every overload */
        DELETE(80),
        /** deleteRange with begin &lt; end: live keys, prefixes, empty begin, long bounds */
        DELETE_RANGE(30),
        /** deleteRange with begin &gt;= end (equal, inverted, empty end): a no-op */
        DELETE_RANGE_EMPTY(20),
        /** 50-400 keys with a common prefix and a counter, small values, one family: many pages for cursors */
        BULK(8),
        /** a write batch mixing every record kind across families, sometimes reused or written twice */
        BATCH(80),
        /** a batch that must fail as a whole: a family dropped after it was added, or (LMDB) a bad key */
        BATCH_REJECTED(10),
        /** get through every overload */
        GET(80),
        /** get into small heap and direct buffers */
        GET_INTO(40),
        /** multiGet of present, absent and repeated keys */
        MULTI_GET(40),
        /** a cursor over a random range with random options and 1-200 mixed moves */
        CURSOR(120),
        /** scan of a random range, sometimes stopped early */
        SCAN(30),
        /** split of a random range (store or snapshot): the sub-ranges, each scanned, give the range's entries once, in order */
        SPLIT(15),
        /** parallelScan (store or snapshot; on a snapshot beside a writer thread): every entry of the range once */
        PARALLEL_SCAN(15),
        /** take a snapshot (at most four live; the oldest is closed) */
        SNAPSHOT_OPEN(20),
        /** close a snapshot */
        SNAPSHOT_CLOSE(10),
        /** read through a snapshot: get, getInto, multiGet, cursor, scan; dropped family: IllegalStateException */
        SNAPSHOT_READ(70),
        /** read through a snapshot a family created after it: IllegalArgumentException */
        SNAPSHOT_LATER_FAMILY(10),
        /** create a family (a name used before, maybe dropped; a live one: AlreadyExists) */
        CREATE_FAMILY(25),
        /** drop a family */
        DROP_FAMILY(15),
        /** use a dropped family's handle: IllegalStateException */
        DROPPED_FAMILY_USE(10),
        /** LMDB: empty and oversized keys, and a live family's name as a default-family key */
        BAD_KEY(10),
        /** flush or compactRange */
        FLUSH(10),
        /** compare every live family with its model */
        CHECK(8),
        /** close and reopen the store */
        REOPEN(4),
        /** not an operation: see the class comment */
        FAMILY_LIMIT(0),
        /** not an operation: excluding it keeps family names out of the default family's keys */
        NAME_KEYS(0);

        final int weight;

        Kind(int weight) {
            this.weight = weight;
        }
    }

    /** What a run does: engine, binding, seed, length, and store options derived from the seed. */
    public static final class Config {
        final Engine engine;
        final String binding;
        final long seed;
        final int ops;
        final Set<Kind> excluded;
        final int storePageSize;
        final int maxFamilies;
        final EnumSet<LmdbFlag> lmdbFlags;
        final String rocksdbOptions;
        final long mapSize = 1L << 30;

        /**
         * @param engine the engine
         * @param binding "jni" or "ffm"
         * @param seed the seed; it also chooses the store options
         * @param ops how many operations
         * @param excluded kinds left out
         */
        public Config(Engine engine, String binding, long seed, int ops, Set<Kind> excluded) {
            this.engine = engine;
            this.binding = binding;
            this.seed = seed;
            this.ops = ops;
            this.excluded = excluded.isEmpty() ? EnumSet.noneOf(Kind.class) : EnumSet.copyOf(excluded);
            Random c = new Random(seed * 0x9E3779B97F4A7C15L + 0x14);
            int[] pages = {256, 1024, 4096, StoreOptions.DEFAULT_PAGE_SIZE};
            this.storePageSize = pages[c.nextInt(pages.length)];
            int[] maxes = {3, 5, 64};
            this.maxFamilies = this.excluded.contains(Kind.FAMILY_LIMIT) ? 1000 : maxes[c.nextInt(maxes.length)];
            List<EnumSet<LmdbFlag>> flags = List.of(EnumSet.of(LmdbFlag.NOSYNC), EnumSet.of(LmdbFlag.NOSYNC, LmdbFlag.WRITEMAP),
                    EnumSet.of(LmdbFlag.NOSYNC, LmdbFlag.NOTLS));
            this.lmdbFlags = flags.get(c.nextInt(flags.size()));
            // small memtables: flushes to SST files and compactions happen during the run
            this.rocksdbOptions = c.nextBoolean() ? null : "write_buffer_size=65536";
        }

        StoreOptions storeOptions() {
            StoreOptions o = StoreOptions.of(engine).binding(binding).pageSize(storePageSize);
            if (engine == Engine.LMDB) {
                o.mapSize(mapSize).maxColumnFamilies(maxFamilies).lmdbFlags(lmdbFlags);
            } else if (rocksdbOptions != null) {
                o.rocksdbOptions(rocksdbOptions);
            }
            return o;
        }

        @Override
        public String toString() {
            return engine + "/" + binding + " seed=" + seed + " ops=" + ops + " pageSize=" + storePageSize
                    + (engine == Engine.LMDB ? " maxColumnFamilies=" + maxFamilies + " flags=" + lmdbFlags
                            : " rocksdbOptions=" + rocksdbOptions)
                    + (excluded.isEmpty() ? "" : " excluded=" + excluded);
        }
    }

    private DifferentialFuzz(Config cfg, Path dir, String replay) {
        super(cfg, dir, replay);
    }

    /**
     * Runs one configuration to the end.
     *
     * @param cfg what to run
     * @param dir an empty directory for the store and the log
     * @param replay the command that replays a run, with {@code {seed}} and {@code {ops}} placeholders
     * @return a one-line summary of what the run did
     * @throws AssertionError with the seed, op index, replay command and op log on the first disagreement
     */
    public static String run(Config cfg, Path dir, String replay) {
        DifferentialFuzz f = new DifferentialFuzz(cfg, dir, replay);
        f.execute();
        return f.summary();
    }

    /** @return what the run did: operations by kind, cursor moves, expected exceptions, final model size */
    private String summary() {
        StringBuilder sb = new StringBuilder(cfg.toString()).append(": ");
        for (Kind k : Kind.values()) {
            if (kindCounts[k.ordinal()] > 0) {
                sb.append(k.name().toLowerCase()).append('=').append(kindCounts[k.ordinal()]).append('/')
                        .append(kindNanos[k.ordinal()] / 1_000_000).append("ms ");
            }
        }
        long entries = 0;
        for (Fam f : live()) {
            entries += f.data.size();
        }
        return sb.append("| cursor moves on an entry ").append(movesOnEntry).append(", off ").append(movesOff)
                .append(" | expected exceptions ").append(expectedFailures).append(" | families ").append(fams.size())
                .append(" | entries at the end ").append(entries).toString();
    }

    private void execute() {
        try {
            store = Store.open(storeDir, cfg.storeOptions());
            fams.add(new Fam("default", famSerial++, store.defaultColumnFamily()));
            note("open " + cfg);
            for (op = 0; op < cfg.ops; op++) {
                Kind k = pick();
                kindCounts[k.ordinal()]++;
                long t = System.nanoTime();
                step(k);
                kindNanos[k.ordinal()] += System.nanoTime() - t;
            }
            op = cfg.ops;
            note("final check");
            checkAll("final");
            closeStore();
            note("reference read");
            if (lmdb) {
                readBackWithLmdbJava();
            } else {
                readBackWithRocksJava();
            }
        } catch (Throwable t) {
            throw failure(t);
        } finally {
            try {
                closeStore();
            } catch (RuntimeException ignored) {
                // the failure (if any) is already being reported
            }
        }
    }

    // ------------------------------------------------------------------ the operations

    private void step(Kind k) {
        switch (k) {
            case PUT: opPut(liveFam()); break;
            case PUT_SLICE: opPutSlice(liveFam()); break;
            case PUT_BUFFER: opPutBuffer(liveFam()); break;
            case DELETE: opDelete(liveFam()); break;
            case DELETE_RANGE: opDeleteRange(liveFam(), false); break;
            case DELETE_RANGE_EMPTY: opDeleteRange(liveFam(), true); break;
            case BULK: opBulk(liveFam()); break;
            case BATCH: opBatch(); break;
            case BATCH_REJECTED: opBatchRejected(); break;
            case GET: opGet(liveFam()); break;
            case GET_INTO: opGetInto(null, liveFam(), null); break;
            case MULTI_GET: opMultiGet(null, liveFam(), null); break;
            case CURSOR: {
                Fam f = liveFam();
                cursorSession(null, f, view(f));
                break;
            }
            case SCAN: {
                Fam f = liveFam();
                opScan(null, f, view(f));
                break;
            }
            case SPLIT:
            case PARALLEL_SCAN: {
                Snap s = null;
                Fam f = liveFam();
                if (!snaps.isEmpty() && r.nextBoolean()) {
                    Snap cand = snaps.get(r.nextInt(snaps.size()));
                    List<Fam> known = new ArrayList<>(cand.frozen.keySet());
                    known.sort(Comparator.comparingInt(ff -> ff.serial));
                    Fam kf = known.get(r.nextInt(known.size()));
                    if (!kf.dropped) {
                        s = cand;
                        f = kf;
                    }
                }
                TreeMap<byte[], byte[]> frozen = s == null ? view(f) : s.frozen.get(f);
                if (k == Kind.SPLIT) {
                    opSplit(s, f, frozen);
                } else {
                    opParallelScan(s, f, frozen);
                }
                break;
            }
            case SNAPSHOT_OPEN: opSnapshotOpen(); break;
            case SNAPSHOT_CLOSE: opSnapshotClose(); break;
            case SNAPSHOT_READ: opSnapshotRead(); break;
            case SNAPSHOT_LATER_FAMILY: opSnapshotLaterFamily(); break;
            case CREATE_FAMILY: opCreateFamily(); break;
            case DROP_FAMILY: opDropFamily(); break;
            case DROPPED_FAMILY_USE: opDroppedFamilyUse(); break;
            case BAD_KEY: opBadKey(); break;
            case FLUSH: opFlush(); break;
            case CHECK: checkAll("check"); break;
            case REOPEN: opReopen(); break;
            default: throw new AssertionError(k);
        }
    }

    private void opSnapshotOpen() {
        if (snaps.size() == 4) {
            Snap old = snaps.remove(0);
            note(old.ref() + ".close()");
            old.snapshot.close();
        }
        Snap s = new Snap(store.snapshot(), snapSerial++);
        for (Fam f : live()) {
            s.frozen.put(f, view(f));
        }
        snaps.add(s);
        note(s.ref() + " = store.snapshot()");
    }

    private void opSnapshotClose() {
        if (snaps.isEmpty()) {
            note("(no snapshot to close)");
            return;
        }
        Snap s = snaps.remove(r.nextInt(snaps.size()));
        note(s.ref() + ".close(); then get -> IllegalStateException");
        s.snapshot.close();
        check(s.snapshot.isClosed(), ctx("closed snapshot not closed"));
        expectThrows(IllegalStateException.class, () -> s.snapshot.get(fams.get(0).cf, new byte[] {1}), "get on a closed snapshot");
    }

    private void opSnapshotRead() {
        if (snaps.isEmpty()) {
            opSnapshotOpen();
            return;
        }
        Snap s = snaps.get(r.nextInt(snaps.size()));
        // families the snapshot knows, live or dropped since
        List<Fam> known = new ArrayList<>(s.frozen.keySet());
        known.sort(Comparator.comparingInt(ff -> ff.serial));
        Fam f = r.nextInt(3) == 0 ? known.get(0) : known.get(r.nextInt(known.size()));
        if (f.dropped) {
            note(s.ref() + ".get(" + f.ref() + " (dropped), ...) -> IllegalStateException");
            expectThrows(IllegalStateException.class, () -> s.snapshot.get(f.cf, new byte[] {1}), "snapshot get of a dropped family");
            expectThrows(IllegalStateException.class, () -> s.snapshot.cursor(f.cf, KeyRange.all(), null), "snapshot cursor of a dropped family");
            return;
        }
        TreeMap<byte[], byte[]> frozen = s.frozen.get(f);
        int c = r.nextInt(10);
        if (c < 3) {
            byte[] k = probe(f);
            note(s.ref() + ".get(" + f.ref() + ", " + x(k) + ")");
            byte[] got = s.snapshot.get(f.cf, k);
            checkValue(frozen.containsKey(k) && frozen.get(k) == null, frozen.get(k), got, "snapshot get " + x(k));
        } else if (c < 4) {
            opGetInto(s, f, frozen);
        } else if (c < 5) {
            opMultiGet(s, f, frozen);
        } else if (c < 6) {
            opScan(s, f, frozen);
        } else {
            cursorSession(s, f, frozen);
        }
    }

    private void opSnapshotLaterFamily() {
        for (Snap s : snaps) {
            for (Fam f : live()) {
                if (!s.frozen.containsKey(f)) {
                    byte[] k = f.pool.isEmpty() ? new byte[] {1} : poolKey(f);
                    note(s.ref() + ".get(" + f.ref() + ", " + x(k) + ") -> IllegalArgumentException: the family is newer than the snapshot");
                    int c = r.nextInt(4);
                    String what = "snapshot " + (c == 0 ? "get" : c == 1 ? "multiGet" : c == 2 ? "cursor" : "get into a buffer")
                            + " of a family created after the snapshot";
                    Object got;
                    try {
                        if (c == 0) {
                            got = s.snapshot.get(f.cf, k);
                        } else if (c == 1) {
                            got = s.snapshot.multiGet(f.cf, List.of(k)).get(0);
                        } else if (c == 2) {
                            try (Cursor cur = s.snapshot.cursor(f.cf, KeyRange.all(), null)) {
                                got = cur.first() ? "a cursor on " + x(cur.keyBytes()) : "a cursor over nothing";
                            }
                        } else {
                            got = "length " + s.snapshot.get(f.cf, ByteBuffer.wrap(k), ByteBuffer.allocate(8));
                        }
                    } catch (IllegalArgumentException expected) {
                        expectedFailures++;
                        return;
                    } catch (RuntimeException e) {
                        throw new AssertionError(ctx(what + ": expected IllegalArgumentException but got " + e), e);
                    }
                    throw new AssertionError(ctx(what + ": expected IllegalArgumentException but the call returned "
                            + (got instanceof byte[] ? describe((byte[]) got) + " (the model of " + f.ref() + " has "
                                    + describe(f.data.get(k)) + ")" : String.valueOf(got))));
                }
            }
        }
        note("(no snapshot older than a live family)");
    }

    private int liveNamed() {
        return live().size() - 1;
    }

    private void opCreateFamily() {
        List<String> free = new ArrayList<>();
        for (String n : NAMES) {
            boolean isLive = false;
            for (Fam f : live()) {
                isLive |= f.name.equals(n);
            }
            if (!isLive) {
                free.add(n);
            }
        }
        if (free.isEmpty() || r.nextInt(10) == 0) {
            Fam f = liveFam();
            if (!f.isDefault()) {
                note("store.createColumnFamily(\"" + f.name + "\") -> AlreadyExists");
                expectThrows(FerryException.AlreadyExists.class, () -> store.createColumnFamily(f.name), "create of a live family's name");
                return;
            }
            if (free.isEmpty()) {
                return;
            }
        }
        String name = free.get(r.nextInt(free.size()));
        byte[] nb = name.getBytes(StandardCharsets.UTF_8);
        if (lmdb && fams.get(0).data.containsKey(nb)) {
            boolean full = liveNamed() >= cfg.maxFamilies;
            note("store.createColumnFamily(\"" + name + "\") -> AlreadyExists: a default-family key has that name"
                    + (full ? " (or the family limit, reached as well)" : ""));
            FerryException e = expectThrows(FerryException.class, () -> store.createColumnFamily(name),
                    "create of a family named like a default-family key");
            // both conditions hold when the limit is reached too: either error is right
            check(e instanceof FerryException.AlreadyExists || (full && e.code() == ErrorCode.TOO_MANY_COLUMN_FAMILIES),
                    ctx("create of a family named like a default-family key: expected AlreadyExists"
                            + (full ? " or TOO_MANY_COLUMN_FAMILIES" : "") + " but got " + e));
            return;
        }
        if (lmdb && liveNamed() >= cfg.maxFamilies) {
            note("store.createColumnFamily(\"" + name + "\") -> FerryException: " + liveNamed() + " live families, maxColumnFamilies "
                    + cfg.maxFamilies);
            expectThrows(FerryException.class, () -> store.createColumnFamily(name), "create beyond maxColumnFamilies");
            return;
        }
        Fam f = new Fam(name, famSerial++, null);
        note(f.ref() + " = store.createColumnFamily(\"" + name + "\")  // " + liveNamed() + " named families live");
        f.cf = store.createColumnFamily(name);
        fams.add(f);
        check(f.cf.name().equals(name) && !f.cf.isDropped(), ctx("new family " + f.cf));
        check(store.columnFamily(name).orElse(null) == f.cf, ctx("columnFamily(\"" + name + "\") does not find the new family"));
    }

    @Override
    void dropFamily(Fam f) {
        note("store.dropColumnFamily(" + f.ref() + ")");
        store.dropColumnFamily(f.cf);
        f.dropped = true;
        check(f.cf.isDropped(), ctx("dropped family not marked dropped"));
        check(store.columnFamily(f.name).isEmpty(), ctx("columnFamily(\"" + f.name + "\") still finds a dropped family"));
    }

    private void opDropFamily() {
        List<Fam> named = new ArrayList<>(live());
        named.remove(0);
        if (named.isEmpty()) {
            note("(no family to drop)");
            return;
        }
        dropFamily(named.get(r.nextInt(named.size())));
    }

    private void opDroppedFamilyUse() {
        Fam d = null;
        for (Fam f : fams) {
            if (f.dropped && (d == null || r.nextBoolean())) {
                d = f;
            }
        }
        if (d == null) {
            note("(no dropped family)");
            return;
        }
        ColumnFamily cf = d.cf;
        int c = r.nextInt(8);
        note("use of dropped " + d.ref() + " (call " + c + ") -> IllegalStateException");
        Runnable call;
        switch (c) {
            case 0: call = () -> store.put(cf, new byte[] {1}, new byte[] {2}); break;
            case 1: call = () -> store.get(cf, new byte[] {1}); break;
            case 2: call = () -> store.delete(cf, new byte[] {1}); break;
            case 3: call = () -> store.deleteRange(cf, new byte[] {1}, new byte[] {2}); break;
            case 4: call = () -> store.cursor(cf, KeyRange.all(), null).close(); break;
            case 5: call = () -> store.multiGet(cf, List.of(new byte[] {1})); break;
            case 6: call = () -> store.dropColumnFamily(cf); break;
            default: call = () -> {
                try (WriteBatch wb = new WriteBatch()) {
                    wb.put(cf, new byte[] {1}, new byte[] {2});
                }
            };
        }
        expectThrows(IllegalStateException.class, call, "use of a dropped family");
    }

    private void opBadKey() {
        Fam f = liveFam();
        List<Fam> named = new ArrayList<>(live());
        named.remove(0);
        if (!named.isEmpty() && r.nextInt(3) == 0) {
            Fam n = named.get(r.nextInt(named.size()));
            byte[] k = n.name.getBytes(StandardCharsets.UTF_8);
            note("store.put(dflt, " + x(k) + " (the name of " + n.ref() + "), ...) -> FerryException");
            expectThrows(FerryException.class, () -> store.put(fams.get(0).cf, k, value()), "put of a family's name into the default family");
            return;
        }
        byte[] bad = r.nextBoolean() ? new byte[0] : alphabetKey(512 + r.nextInt(300));
        int c = r.nextInt(4);
        note("bad key " + x(bad) + " in " + f.ref() + " (call " + c + ")");
        if (c == 0) {
            FerryException e = expectThrows(FerryException.class, () -> store.put(f.cf, bad, value()), "put of a bad key");
            check(e.code() == ErrorCode.KEY_SIZE, ctx("put of a bad key: code " + e.code()));
        } else if (c == 1) {
            FerryException e = expectThrows(FerryException.class, () -> store.delete(f.cf, bad), "delete of a bad key");
            check(e.code() == ErrorCode.KEY_SIZE, ctx("delete of a bad key: code " + e.code()));
        } else if (c == 2) {
            check(store.get(f.cf, bad) == null, ctx("get of a key LMDB cannot hold found a value"));
        } else {
            List<byte[]> got = store.multiGet(f.cf, List.of(bad, bad));
            check(got.get(0) == null && got.get(1) == null, ctx("multiGet of a key LMDB cannot hold found a value"));
        }
    }

    private void opFlush() {
        Fam f = liveFam();
        if (r.nextBoolean()) {
            note("store.flush(" + f.ref() + ")");
            store.flush(f.cf);
        } else {
            byte[] lo = r.nextBoolean() ? null : probe(f);
            byte[] hi = r.nextBoolean() ? null : probe(f);
            note("store.compactRange(" + f.ref() + ", " + x(lo) + ", " + x(hi) + ")");
            store.compactRange(f.cf, lo, hi);
        }
    }

    private void closeSnapshots() {
        for (Snap s : snaps) {
            s.snapshot.close();
        }
        snaps.clear();
    }

    private void closeStore() {
        if (reusable != null) {
            reusable.close();
            reusable = null;
        }
        if (store != null) {
            closeSnapshots();
            store.close();
            store = null;
        }
    }

    private void opReopen() {
        Snap any = snaps.isEmpty() ? null : snaps.get(0);
        note("store.close(); store = Store.open(...)" + (any == null ? "" : "; " + any.ref() + " is closed with it"));
        snaps.clear();
        if (reusable != null) {
            reusable.close();
            reusable = null;
        }
        store.close();
        if (any != null) {
            check(any.snapshot.isClosed(), ctx("closing the store left a snapshot open"));
            expectThrows(IllegalStateException.class, () -> any.snapshot.get(new byte[] {1}), "get on a snapshot of a closed store");
        }
        store = Store.open(storeDir, cfg.storeOptions());
        fams.removeIf(f -> f.dropped);
        TreeSet<String> want = new TreeSet<>();
        for (Fam f : fams) {
            want.add(f.name);
            f.cf = f.isDefault() ? store.defaultColumnFamily() : store.columnFamily(f.name).orElse(null);
            check(f.cf != null, ctx("family '" + f.name + "' missing after reopen"));
        }
        TreeSet<String> have = new TreeSet<>();
        store.columnFamilies().forEach(cf -> have.add(cf.name()));
        check(want.equals(have), ctx("families after reopen " + have + ", expected " + want));
        checkAll("after reopen");
    }

    /** Every live family read whole through Ferry (forward with the store's page size, reverse with a small page) against the model. */
    private void checkAll(String what) {
        for (Fam f : live()) {
            TreeMap<byte[], byte[]> exp = view(f);
            List<Map.Entry<byte[], byte[]>> want = new ArrayList<>(exp.entrySet());
            int i = 0;
            try (Cursor c = store.cursor(f.cf, KeyRange.all(), null)) {
                for (boolean ok = c.first(); ok; ok = c.next(), i++) {
                    check(i < want.size(), ctx(what + " " + f.ref() + ": more entries than the model's " + want.size() + ", extra "
                            + x(c.keyBytes())));
                    checkBytes(want.get(i).getKey(), c.keyBytes(), what + " " + f.ref() + " forward key #" + i);
                    checkValue(want.get(i).getValue() == null, want.get(i).getValue(), c.valueBytes(),
                            what + " " + f.ref() + " forward value of " + x(want.get(i).getKey()));
                }
            }
            check(i == want.size(), ctx(what + " " + f.ref() + ": " + i + " entries, model has " + want.size()
                    + (i < want.size() ? "; first missing " + x(want.get(i).getKey()) : "")));
            i = want.size() - 1;
            try (Cursor c = store.cursor(f.cf, KeyRange.all(), CursorOptions.defaults().pageSize(256).pointers(false))) {
                for (boolean ok = c.last(); ok; ok = c.prev(), i--) {
                    check(i >= 0, ctx(what + " " + f.ref() + ": reverse has more entries than the model"));
                    checkBytes(want.get(i).getKey(), c.keyBytes(), what + " " + f.ref() + " reverse key #" + i);
                }
            }
            check(i == -1, ctx(what + " " + f.ref() + ": reverse stopped at model entry " + i));
        }
    }

    // ------------------------------------------------------------------ reference libraries

    private void readBackWithRocksJava() throws Exception {
        RocksDB.loadLibrary();
        String path = storeDir.toString();
        TreeSet<String> listed = new TreeSet<>();
        List<byte[]> rawNames;
        try (Options o = new Options()) {
            rawNames = RocksDB.listColumnFamilies(o, path);
        }
        for (byte[] n : rawNames) {
            listed.add(new String(n, StandardCharsets.UTF_8));
        }
        TreeSet<String> want = new TreeSet<>();
        for (Fam f : live()) {
            want.add(f.name);
        }
        check(listed.equals(want), ctx("RocksJava lists families " + listed + ", expected " + want));
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (ColumnFamilyOptions cfo = new ColumnFamilyOptions(); DBOptions dbo = new DBOptions()) {
            List<ColumnFamilyDescriptor> ds = new ArrayList<>();
            List<Fam> order = live();
            for (Fam f : order) {
                ds.add(new ColumnFamilyDescriptor(f.name.getBytes(StandardCharsets.UTF_8), cfo));
            }
            try (RocksDB db = RocksDB.openReadOnly(dbo, path, ds, handles)) {
                for (int i = 0; i < order.size(); i++) {
                    Fam f = order.get(i);
                    ColumnFamilyHandle h = handles.get(i);
                    List<Map.Entry<byte[], byte[]>> exp = new ArrayList<>(f.data.entrySet());
                    int n = 0;
                    try (RocksIterator it = db.newIterator(h)) {
                        for (it.seekToFirst(); it.isValid(); it.next(), n++) {
                            check(n < exp.size(), ctx("RocksJava " + f.ref() + ": more entries than the model's " + exp.size()
                                    + ", extra " + x(it.key())));
                            checkBytes(exp.get(n).getKey(), it.key(), "RocksJava " + f.ref() + " key #" + n);
                            checkBytes(exp.get(n).getValue(), it.value(), "RocksJava " + f.ref() + " value of " + x(it.key()));
                        }
                        it.status();
                    }
                    check(n == exp.size(), ctx("RocksJava " + f.ref() + ": " + n + " entries, model has " + exp.size()));
                }
            } finally {
                for (ColumnFamilyHandle h : handles) {
                    h.close();
                }
            }
        }
    }

    private void readBackWithLmdbJava() throws Exception {
        try (Env<byte[]> env = Env.create(ByteArrayProxy.PROXY_BA).setMapSize(cfg.mapSize).setMaxDbs(Math.max(cfg.maxFamilies, 8))
                .open(storeDir.toFile())) {
            for (Fam f : live()) {
                Dbi<byte[]> dbi = f.isDefault() ? env.openDbi((String) null) : env.openDbi(f.name);
                List<Map.Entry<byte[], byte[]>> exp = new ArrayList<>(view(f).entrySet());
                int n = 0;
                try (Txn<byte[]> txn = env.txnRead(); CursorIterable<byte[]> it = dbi.iterate(txn)) {
                    for (CursorIterable.KeyVal<byte[]> kv : it) {
                        check(n < exp.size(), ctx("lmdbjava " + f.ref() + ": more entries than the model's " + exp.size()
                                + ", extra " + x(kv.key())));
                        checkBytes(exp.get(n).getKey(), kv.key(), "lmdbjava " + f.ref() + " key #" + n);
                        checkValue(exp.get(n).getValue() == null, exp.get(n).getValue(), kv.val(),
                                "lmdbjava " + f.ref() + " value of " + x(kv.key()));
                        n++;
                    }
                }
                check(n == exp.size(), ctx("lmdbjava " + f.ref() + ": " + n + " entries, model has " + exp.size()));
            }
        }
    }

}
