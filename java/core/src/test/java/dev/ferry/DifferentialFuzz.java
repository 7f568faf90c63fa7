package dev.ferry;

import dev.ferry.internal.NativeLibrary;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
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
 * <p>Not thread-safe; one run uses one thread.
 */
public final class DifferentialFuzz {
    static final Comparator<byte[]> UNSIGNED = Arrays::compareUnsigned;
    /** Family names the run creates, drops and re-creates; short ones also appear as keys. */
    static final List<String> NAMES = List.of("f0", "f1", "f2", "f3", "cf-\u00e9t\u00e9", "z");
    /** Key bytes most keys are made of: few enough to collide, with the edge bytes. */
    private static final byte[] ALPHABET = {0x00, 0x01, 0x02, 0x7F, (byte) 0x80, (byte) 0xFE, (byte) 0xFF, 'a', 'f'};
    /** Size of an LMDB named database's record in its parent (the value of a family-name key). */
    private static final int DB_RECORD = 48;
    private static final int LOG_TAIL = 60;

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

    /** A family of the model: its data and the handle in the current store. */
    private static final class Fam {
        final String name;
        final int serial;
        ColumnFamily cf;
        boolean dropped;
        final TreeMap<byte[], byte[]> data = new TreeMap<>(UNSIGNED);
        /** Keys written or deleted here: reused for writes and probes. */
        final List<byte[]> pool = new ArrayList<>();

        Fam(String name, int serial, ColumnFamily cf) {
            this.name = name;
            this.serial = serial;
            this.cf = cf;
        }

        boolean isDefault() {
            return serial == 0;
        }

        String ref() {
            return isDefault() ? "dflt" : "cf(\"" + name + "\"#" + serial + ")";
        }
    }

    /** A live snapshot and the model views of the families that existed when it was taken. */
    private static final class Snap {
        final Snapshot snapshot;
        final int serial;
        final Map<Fam, TreeMap<byte[], byte[]>> frozen = new IdentityHashMap<>();

        Snap(Snapshot snapshot, int serial) {
            this.snapshot = snapshot;
            this.serial = serial;
        }

        String ref() {
            return "snap" + serial;
        }
    }

    /** A KeyRange and an independent statement of which keys it holds. */
    private static final class RangeSpec {
        final String kind;
        final byte[] a;
        final byte[] b;
        final KeyRange range;

        RangeSpec(String kind, byte[] a, byte[] b) {
            this.kind = kind;
            this.a = a;
            this.b = b;
            switch (kind) {
                case "all": range = KeyRange.all(); break;
                case "atLeast": range = KeyRange.atLeast(a); break;
                case "greaterThan": range = KeyRange.greaterThan(a); break;
                case "atMost": range = KeyRange.atMost(a); break;
                case "lessThan": range = KeyRange.lessThan(a); break;
                case "closed": range = KeyRange.closed(a, b); break;
                case "closedOpen": range = KeyRange.closedOpen(a, b); break;
                case "openClosed": range = KeyRange.openClosed(a, b); break;
                case "open": range = KeyRange.open(a, b); break;
                case "prefix": range = KeyRange.prefix(a); break;
                default: throw new IllegalArgumentException(kind);
            }
        }

        boolean contains(byte[] k) {
            switch (kind) {
                case "all": return true;
                case "atLeast": return cmp(k, a) >= 0;
                case "greaterThan": return cmp(k, a) > 0;
                case "atMost": return cmp(k, a) <= 0;
                case "lessThan": return cmp(k, a) < 0;
                case "closed": return cmp(k, a) >= 0 && cmp(k, b) <= 0;
                case "closedOpen": return cmp(k, a) >= 0 && cmp(k, b) < 0;
                case "openClosed": return cmp(k, a) > 0 && cmp(k, b) <= 0;
                case "open": return cmp(k, a) > 0 && cmp(k, b) < 0;
                default: return k.length >= a.length && Arrays.equals(k, 0, a.length, a, 0, a.length);
            }
        }

        TreeMap<byte[], byte[]> filter(TreeMap<byte[], byte[]> m) {
            TreeMap<byte[], byte[]> r = new TreeMap<>(UNSIGNED);
            for (Map.Entry<byte[], byte[]> e : m.entrySet()) {
                if (contains(e.getKey())) {
                    r.put(e.getKey(), e.getValue());
                }
            }
            return r;
        }

        @Override
        public String toString() {
            return "KeyRange." + kind + "(" + (a == null ? "" : x(a)) + (b == null ? "" : ", " + x(b)) + ")";
        }
    }

    /** The model of a cursor over a frozen, range-filtered map: what each move must answer. */
    private static final class ModelCursor {
        final TreeMap<byte[], byte[]> m;
        byte[] pos;
        boolean fresh = true;

        ModelCursor(TreeMap<byte[], byte[]> m) {
            this.m = m;
        }

        boolean first() {
            fresh = false;
            pos = m.isEmpty() ? null : m.firstKey();
            return pos != null;
        }

        boolean last() {
            fresh = false;
            pos = m.isEmpty() ? null : m.lastKey();
            return pos != null;
        }

        boolean seek(byte[] t) {
            fresh = false;
            pos = m.ceilingKey(t);
            return pos != null;
        }

        boolean seekForPrev(byte[] t) {
            fresh = false;
            pos = m.floorKey(t);
            return pos != null;
        }

        boolean next() {
            if (pos != null) {
                pos = m.higherKey(pos);
                return pos != null;
            }
            return fresh && first();
        }

        boolean prev() {
            if (pos != null) {
                pos = m.lowerKey(pos);
                return pos != null;
            }
            return fresh && last();
        }
    }

    private final Config cfg;
    private final Path storeDir;
    private final Random r;
    private final boolean lmdb;
    private final String replay;
    private final List<String> log = new ArrayList<>();
    private final ArrayDeque<String> tail = new ArrayDeque<>();
    private final List<Fam> fams = new ArrayList<>();
    private final List<Snap> snaps = new ArrayList<>();
    private final int[] cumulative = new int[Kind.values().length];
    private Store store;
    private int op;
    private int famSerial;
    private int snapSerial;
    private WriteBatch reusable;
    private final int maxKey;
    private final int[] kindCounts = new int[Kind.values().length];
    private final long[] kindNanos = new long[Kind.values().length];
    private long movesOnEntry;
    private long movesOff;
    private long expectedFailures;

    private DifferentialFuzz(Config cfg, Path dir, String replay) {
        this.cfg = cfg;
        this.storeDir = dir.resolve("db");
        this.r = new Random(cfg.seed);
        this.lmdb = cfg.engine == Engine.LMDB;
        this.replay = replay;
        this.maxKey = lmdb ? 511 : 1500;
        int sum = 0;
        for (Kind k : Kind.values()) {
            boolean off = cfg.excluded.contains(k) || (k == Kind.BAD_KEY && !lmdb);
            sum += off ? 0 : k.weight;
            cumulative[k.ordinal()] = sum;
        }
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

    // ------------------------------------------------------------------ reporting

    private void note(String s) {
        String line = "#" + op + " " + s;
        log.add(line);
        tail.addLast(line);
        if (tail.size() > LOG_TAIL) {
            tail.removeFirst();
        }
    }

    private AssertionError failure(Throwable t) {
        Path file = null;
        try {
            Path logDir = Paths.get(System.getProperty("ferry.diff.logdir", "target/ferry-diff"));
            Files.createDirectories(logDir);
            file = logDir.resolve(cfg.engine.name().toLowerCase() + "-" + cfg.binding + "-seed" + cfg.seed + ".log");
            Files.write(file, log, StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            t.addSuppressed(e);
        }
        StringBuilder sb = new StringBuilder();
        sb.append("differential fuzz failed: ").append(cfg).append('\n');
        sb.append("  at op #").append(op).append(" of ").append(cfg.ops).append(": ").append(t).append('\n');
        sb.append("  replay: ").append(replay.replace("{seed}", Long.toString(cfg.seed))
                .replace("{ops}", Integer.toString(Math.min(cfg.ops, op + 1)))).append('\n');
        sb.append("  full op log: ").append(file == null ? "(not written)" : file.toAbsolutePath()).append('\n');
        sb.append("  last ").append(tail.size()).append(" log lines:\n");
        for (String l : tail) {
            sb.append("    ").append(l).append('\n');
        }
        AssertionError e = new AssertionError(sb.toString(), t);
        return e;
    }

    private String ctx(String what) {
        return "op #" + op + " " + what;
    }

    private static void check(boolean ok, String msg) {
        if (!ok) {
            throw new AssertionError(msg);
        }
    }

    private void checkBytes(byte[] want, byte[] got, String what) {
        if (!Arrays.equals(want, got)) {
            throw new AssertionError(ctx(what) + ": expected " + describe(want) + " but was " + describe(got));
        }
    }

    /** Compares a value read with the model's answer; {@code any} accepts every non-null value. */
    private void checkValue(boolean any, byte[] want, byte[] got, String what) {
        if (any) {
            check(got != null, ctx(what) + ": expected a family record but was null");
        } else {
            checkBytes(want, got, what);
        }
    }

    private <T extends Throwable> T expectThrows(Class<T> type, Runnable call, String what) {
        try {
            call.run();
        } catch (Throwable t) {
            if (type.isInstance(t)) {
                expectedFailures++;
                return type.cast(t);
            }
            throw new AssertionError(ctx(what) + ": expected " + type.getSimpleName() + " but got " + t, t);
        }
        throw new AssertionError(ctx(what) + ": expected " + type.getSimpleName() + " but the call returned");
    }

    static int cmp(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b);
    }

    /** @return Java-like source for bytes: {@code x("00ff")}, long ones shortened with their length */
    static String x(byte[] b) {
        if (b == null) {
            return "null";
        }
        int n = Math.min(b.length, 40);
        StringBuilder sb = new StringBuilder("x(\"");
        for (int i = 0; i < n; i++) {
            sb.append(Character.forDigit((b[i] >> 4) & 0xF, 16)).append(Character.forDigit(b[i] & 0xF, 16));
        }
        sb.append('"');
        if (n < b.length) {
            sb.append(" ... ").append(b.length).append(" bytes, hash ").append(Integer.toHexString(Arrays.hashCode(b)));
        }
        return sb.append(')').toString();
    }

    private static String describe(byte[] b) {
        return b == null ? "null" : b.length + " bytes " + x(b);
    }

    // ------------------------------------------------------------------ choices

    private Kind pick() {
        int total = cumulative[cumulative.length - 1];
        int v = r.nextInt(total);
        for (Kind k : Kind.values()) {
            if (v < cumulative[k.ordinal()]) {
                return k;
            }
        }
        throw new AssertionError();
    }

    private boolean allowed(Kind k) {
        return !cfg.excluded.contains(k);
    }

    private List<Fam> live() {
        List<Fam> l = new ArrayList<>();
        for (Fam f : fams) {
            if (!f.dropped) {
                l.add(f);
            }
        }
        return l;
    }

    private Fam liveFam() {
        List<Fam> l = live();
        // the default family a third of the time, so families with few writes still fill up
        return r.nextInt(3) == 0 ? l.get(0) : l.get(r.nextInt(l.size()));
    }

    private boolean isLiveName(byte[] k) {
        for (Fam f : fams) {
            if (!f.dropped && !f.isDefault() && Arrays.equals(f.name.getBytes(StandardCharsets.UTF_8), k)) {
                return true;
            }
        }
        return false;
    }

    /** @return whether a key is one the engine stores in this family (LMDB: 1..511 bytes, not a live family's name) */
    private boolean writable(Fam f, byte[] k) {
        if (lmdb && (k.length == 0 || k.length > 511)) {
            return false;
        }
        if (f.isDefault() && !allowed(Kind.NAME_KEYS) && NAMES.contains(new String(k, StandardCharsets.UTF_8))) {
            return false;
        }
        return !(lmdb && f.isDefault() && isLiveName(k));
    }

    private byte[] alphabetKey(int len) {
        byte[] k = new byte[len];
        for (int i = 0; i < len; i++) {
            k[i] = r.nextInt(3) == 0 ? (byte) r.nextInt(256) : ALPHABET[r.nextInt(ALPHABET.length)];
        }
        return k;
    }

    private byte[] poolKey(Fam f) {
        return f.pool.get(r.nextInt(f.pool.size()));
    }

    private byte[] freshKey(Fam f) {
        int c = r.nextInt(100);
        if (c < 60) {
            return alphabetKey(1 + r.nextInt(3));
        }
        if (c < 78) {
            return alphabetKey(4 + r.nextInt(13));
        }
        if (c < 88 && !f.pool.isEmpty()) {
            byte[] base = poolKey(f);
            byte[] tailBytes = alphabetKey(1 + r.nextInt(8));
            byte[] k = Arrays.copyOf(base, base.length + tailBytes.length);
            System.arraycopy(tailBytes, 0, k, base.length, tailBytes.length);
            return k;
        }
        if (c < 93) {
            // the longest keys: 511 and just under on LMDB
            int len = lmdb ? 511 - r.nextInt(3) : 300 + r.nextInt(maxKey - 300);
            byte[] k = alphabetKey(len);
            if (!f.pool.isEmpty() && r.nextBoolean()) {
                byte[] base = poolKey(f);
                System.arraycopy(base, 0, k, 0, Math.min(base.length, len));
            }
            return k;
        }
        if (c < 97) {
            return NAMES.get(r.nextInt(NAMES.size())).getBytes(StandardCharsets.UTF_8);
        }
        return lmdb ? alphabetKey(1) : new byte[0];
    }

    /** A key to write: reused half the time, always one the engine stores here. */
    private byte[] writeKey(Fam f) {
        for (;;) {
            byte[] k = !f.pool.isEmpty() && r.nextBoolean() ? poolKey(f) : freshKey(f);
            if (writable(f, k)) {
                return k;
            }
        }
    }

    private void remember(Fam f, byte[] k) {
        if (f.pool.size() < 3000) {
            f.pool.add(k);
        } else {
            f.pool.set(r.nextInt(f.pool.size()), k);
        }
    }

    /** A key to read, seek to or bound a range with: any bytes, also empty and longer than LMDB stores. */
    private byte[] probe(Fam f) {
        int c = r.nextInt(100);
        if (c < 45 && !f.pool.isEmpty()) {
            return poolKey(f);
        }
        if (c < 70 && !f.pool.isEmpty()) {
            byte[] k = poolKey(f);
            switch (r.nextInt(5)) {
                case 0: return Arrays.copyOf(k, k.length + 1);
                case 1: {
                    byte[] e = Arrays.copyOf(k, k.length + 1);
                    e[k.length] = (byte) 0xFF;
                    return e;
                }
                case 2: return Arrays.copyOf(k, r.nextInt(k.length + 1));
                case 3: {
                    byte[] e = k.clone();
                    if (e.length > 0) {
                        e[e.length - 1]++;
                    }
                    return e;
                }
                default: {
                    byte[] e = k.clone();
                    if (e.length > 0) {
                        e[e.length - 1]--;
                    }
                    return e;
                }
            }
        }
        if (c < 75) {
            return new byte[0];
        }
        if (c < 80) {
            // longer than any LMDB key, longer than a cursor's inline seek-key room
            byte[] k = alphabetKey(512 + r.nextInt(700));
            if (!f.pool.isEmpty()) {
                byte[] base = poolKey(f);
                System.arraycopy(base, 0, k, 0, Math.min(base.length, k.length));
            }
            return k;
        }
        if (c < 85) {
            byte[] k = new byte[1 + r.nextInt(4)];
            Arrays.fill(k, (byte) 0xFF);
            return k;
        }
        return freshKey(f);
    }

    private byte[] value() {
        int c = r.nextInt(1000);
        int len;
        if (c < 100) {
            len = 0;
        } else if (c < 750) {
            len = 1 + r.nextInt(100);
        } else if (c < 900) {
            len = 101 + r.nextInt(4000);
        } else if (c < 950) {
            len = DB_RECORD;
        } else if (c < 992) {
            len = 4097 + r.nextInt(66000);
        } else {
            len = 70000 + r.nextInt(200000);
        }
        byte[] v = new byte[len];
        r.nextBytes(v);
        return v;
    }

    private RangeSpec randomRange(Fam f) {
        String[] kinds = {"all", "atLeast", "greaterThan", "atMost", "lessThan", "closed", "closedOpen", "openClosed", "open", "prefix"};
        String kind = kinds[r.nextInt(kinds.length)];
        switch (kind) {
            case "all": return new RangeSpec(kind, null, null);
            case "atLeast": case "greaterThan": case "atMost": case "lessThan": return new RangeSpec(kind, probe(f), null);
            case "prefix": {
                byte[] p;
                int c = r.nextInt(10);
                if (c < 6 && !f.pool.isEmpty()) {
                    byte[] k = poolKey(f);
                    p = Arrays.copyOf(k, r.nextInt(Math.min(k.length, 4) + 1));
                } else if (c < 8) {
                    p = new byte[1 + r.nextInt(2)];
                    Arrays.fill(p, (byte) 0xFF);
                } else {
                    p = probe(f);
                }
                return new RangeSpec(kind, p, null);
            }
            default: {
                byte[] a = probe(f);
                byte[] b = probe(f);
                if (r.nextInt(5) != 0 && cmp(a, b) > 0) {
                    byte[] t = a;
                    a = b;
                    b = t;
                }
                return new RangeSpec(kind, a, b);
            }
        }
    }

    private CursorOptions randomCursorOptions() {
        if (r.nextInt(4) == 0) {
            return null;
        }
        CursorOptions o = CursorOptions.defaults();
        int c = r.nextInt(4);
        if (c == 0) {
            o.pageSize(256 + r.nextInt(64));
        } else if (c == 1) {
            o.pageSize(256 + r.nextInt(8192));
        } else if (c == 2) {
            o.pageSize(256 + r.nextInt(200000));
        }
        o.pointers(r.nextBoolean()).pageWalk(r.nextBoolean()).fillCache(r.nextBoolean());
        return o;
    }

    private String cursorOptionsText(CursorOptions o) {
        if (o == null) {
            return "null";
        }
        return "CursorOptions.defaults()" + (o.pageSize > 0 ? ".pageSize(" + o.pageSize + ")" : "") + ".pointers(" + o.pointers
                + ").pageWalk(" + o.pageWalk + ").fillCache(" + o.fillCache + ")";
    }

    /** The model view of a family as the engine shows it: on LMDB the default family also holds the live families' names (any value). */
    private TreeMap<byte[], byte[]> view(Fam f) {
        TreeMap<byte[], byte[]> m = new TreeMap<>(f.data);
        if (lmdb && f.isDefault()) {
            for (Fam o : fams) {
                if (!o.dropped && !o.isDefault()) {
                    m.put(o.name.getBytes(StandardCharsets.UTF_8), null);
                }
            }
        }
        return m;
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

    private void opPut(Fam f) {
        byte[] k = writeKey(f);
        byte[] v = value();
        if (f.isDefault() && r.nextBoolean()) {
            note("store.put(" + x(k) + ", " + x(v) + ")");
            store.put(k, v);
        } else {
            note("store.put(" + f.ref() + ", " + x(k) + ", " + x(v) + ")");
            store.put(f.cf, k, v);
        }
        f.data.put(k, v);
        remember(f, k);
    }

    private void opPutSlice(Fam f) {
        byte[] k = writeKey(f);
        byte[] v = value();
        int ko = r.nextInt(5);
        int vo = r.nextInt(5);
        byte[] ka = new byte[ko + k.length + r.nextInt(5)];
        byte[] va = new byte[vo + v.length + r.nextInt(5)];
        Arrays.fill(ka, (byte) 0xA5);
        Arrays.fill(va, (byte) 0x5A);
        System.arraycopy(k, 0, ka, ko, k.length);
        System.arraycopy(v, 0, va, vo, v.length);
        note("store.put(" + f.ref() + ", slice " + ko + "+" + k.length + " of " + x(k) + ", slice " + vo + "+" + v.length + " of " + x(v) + ")");
        store.put(f.cf, ka, ko, k.length, va, vo, v.length);
        f.data.put(k, v);
        remember(f, k);
    }

    private ByteBuffer buffer(byte[] content, boolean direct) {
        int pad = r.nextInt(9);
        ByteBuffer b = direct ? ByteBuffer.allocateDirect(pad + content.length + 3) : ByteBuffer.allocate(pad + content.length + 3);
        for (int i = 0; i < b.capacity(); i++) {
            b.put(i, (byte) 0xC3);
        }
        b.position(pad);
        b.put(content);
        b.position(pad).limit(pad + content.length);
        return b;
    }

    private void opPutBuffer(Fam f) {
        byte[] k = writeKey(f);
        byte[] v = r.nextInt(4) == 0 ? new byte[16384 + r.nextInt(70000)] : value(); // large direct values go by address
        if (v.length >= 16384) {
            r.nextBytes(v);
        }
        boolean kd = r.nextBoolean();
        boolean vd = r.nextBoolean();
        ByteBuffer kb = buffer(k, kd);
        ByteBuffer vb = buffer(v, vd);
        int kp = kb.position();
        int vp = vb.position();
        note("store.put(" + f.ref() + ", " + (kd ? "direct " : "heap ") + x(k) + ", " + (vd ? "direct " : "heap ") + x(v) + ")");
        store.put(f.cf, kb, vb);
        check(kb.position() == kp && vb.position() == vp, ctx("put(ByteBuffer) moved a buffer's position"));
        f.data.put(k, v);
        remember(f, k);
    }

    private void opDelete(Fam f) {
        byte[] k = writeKey(f);
        int c = r.nextInt(4);
        if (c == 0 && f.isDefault()) {
            note("store.delete(" + x(k) + ")");
            store.delete(k);
        } else if (c == 1) {
            int off = r.nextInt(4);
            byte[] a = new byte[off + k.length + r.nextInt(4)];
            Arrays.fill(a, (byte) 0xEE);
            System.arraycopy(k, 0, a, off, k.length);
            note("store.delete(" + f.ref() + ", slice " + off + "+" + k.length + " of " + x(k) + ")");
            store.delete(f.cf, a, off, k.length);
        } else if (c == 2) {
            boolean d = r.nextBoolean();
            ByteBuffer kb = buffer(k, d);
            int p = kb.position();
            note("store.delete(" + f.ref() + ", " + (d ? "direct " : "heap ") + x(k) + ")");
            store.delete(f.cf, kb);
            check(kb.position() == p, ctx("delete(ByteBuffer) moved the buffer's position"));
        } else {
            note("store.delete(" + f.ref() + ", " + x(k) + ")");
            store.delete(f.cf, k);
        }
        f.data.remove(k);
        remember(f, k);
    }

    /** A range with begin &lt; end (ordered) or begin &gt;= end (degenerate). */
    private byte[][] rangeBounds(Fam f, boolean degenerate) {
        if (degenerate) {
            byte[] k = probe(f);
            switch (r.nextInt(4)) {
                case 0: return new byte[][] {k, k.clone()};
                case 1: return new byte[][] {k, new byte[0]};
                case 2: {
                    byte[] o = probe(f);
                    return cmp(k, o) >= 0 ? new byte[][] {k, o} : new byte[][] {o, k};
                }
                default: {
                    // end a proper prefix of begin, or begin = end + 00
                    return r.nextBoolean() ? new byte[][] {Arrays.copyOf(k, k.length + 1), k}
                            : new byte[][] {k, Arrays.copyOf(k, r.nextInt(k.length + 1))};
                }
            }
        }
        for (;;) {
            byte[] lo;
            byte[] hi;
            int c = r.nextInt(100);
            if (c < 65 && !f.data.isEmpty()) {
                // from a key over the next few live keys
                lo = r.nextInt(4) == 0 ? probe(f) : poolKey(f);
                hi = null;
                int skip = 1 + r.nextInt(8);
                Iterator<byte[]> it = f.data.tailMap(lo, false).keySet().iterator();
                while (it.hasNext() && skip-- > 0) {
                    hi = it.next();
                }
                if (hi == null) {
                    hi = Arrays.copyOf(lo, lo.length + 1);
                }
            } else if (c < 80) {
                // a prefix: [p, successor(p))
                byte[] k = f.pool.isEmpty() ? probe(f) : poolKey(f);
                lo = Arrays.copyOf(k, Math.min(k.length, 2 + r.nextInt(3)));
                hi = prefixEnd(lo);
                if (hi == null) {
                    hi = new byte[lo.length + 1];
                    Arrays.fill(hi, (byte) 0xFF);
                }
            } else if (c < 83) {
                lo = new byte[0];
                hi = probe(f);
            } else {
                lo = probe(f);
                hi = probe(f);
                if (cmp(lo, hi) > 0) {
                    byte[] t = lo;
                    lo = hi;
                    hi = t;
                }
            }
            if (cmp(lo, hi) < 0) {
                return new byte[][] {lo, hi};
            }
        }
    }

    static byte[] prefixEnd(byte[] p) {
        for (int i = p.length - 1; i >= 0; i--) {
            if (p[i] != (byte) 0xFF) {
                byte[] e = Arrays.copyOf(p, i + 1);
                e[i]++;
                return e;
            }
        }
        return null;
    }

    /** Applies deleteRange to a model: [begin, end) when begin &lt; end, else nothing. */
    private static void modelDeleteRange(Fam f, byte[] begin, byte[] end) {
        if (cmp(begin, end) < 0) {
            f.data.subMap(begin, true, end, false).clear();
        }
    }

    private void opDeleteRange(Fam f, boolean degenerate) {
        byte[][] be = rangeBounds(f, degenerate);
        if (f.isDefault() && r.nextBoolean()) {
            note("store.deleteRange(" + x(be[0]) + ", " + x(be[1]) + ")");
            store.deleteRange(be[0], be[1]);
        } else {
            note("store.deleteRange(" + f.ref() + ", " + x(be[0]) + ", " + x(be[1]) + ")");
            store.deleteRange(f.cf, be[0], be[1]);
        }
        modelDeleteRange(f, be[0], be[1]);
    }

    /** Adds random records to a batch and applies them to the models in order. */
    private void fillBatch(WriteBatch wb, List<Runnable> model, StringBuilder text, int n) {
        List<Fam> l = live();
        for (int i = 0; i < n; i++) {
            Fam f = l.get(r.nextInt(l.size()));
            boolean dflt = f.isDefault() && r.nextBoolean();
            int c = r.nextInt(100);
            if (c < 65) {
                byte[] k = writeKey(f);
                byte[] v = value();
                if (dflt) {
                    wb.put(k, v);
                } else {
                    wb.put(f.cf, k, v);
                }
                remember(f, k);
                model.add(() -> f.data.put(k, v));
                text.append("\n      .put(").append(dflt ? "" : f.ref() + ", ").append(x(k)).append(", ").append(x(v)).append(')');
            } else if (c < 92) {
                byte[] k = writeKey(f);
                if (dflt) {
                    wb.delete(k);
                } else {
                    wb.delete(f.cf, k);
                }
                remember(f, k);
                model.add(() -> f.data.remove(k));
                text.append("\n      .delete(").append(dflt ? "" : f.ref() + ", ").append(x(k)).append(')');
            } else {
                boolean degenerate = c >= 97 && allowed(Kind.DELETE_RANGE_EMPTY);
                byte[][] be = rangeBounds(f, degenerate);
                if (dflt) {
                    wb.deleteRange(be[0], be[1]);
                } else {
                    wb.deleteRange(f.cf, be[0], be[1]);
                }
                model.add(() -> modelDeleteRange(f, be[0], be[1]));
                text.append("\n      .deleteRange(").append(dflt ? "" : f.ref() + ", ").append(x(be[0])).append(", ")
                        .append(x(be[1])).append(')');
            }
        }
    }

    private void opBatch() {
        WriteBatch wb;
        boolean reuse = reusable != null && r.nextInt(3) == 0;
        if (reuse) {
            wb = reusable;
            wb.clear();
            check(wb.count() == 0 && wb.sizeInBytes() == 0, ctx("a cleared batch is not empty"));
        } else {
            if (reusable != null) {
                reusable.close();
            }
            wb = new WriteBatch();
            reusable = wb;
        }
        List<Runnable> model = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        int n = r.nextInt(10) == 0 ? 50 + r.nextInt(150) : 1 + r.nextInt(20);
        fillBatch(wb, model, text, n);
        check(wb.count() == n, ctx("batch count " + wb.count() + " != " + n));
        int times = r.nextInt(8) == 0 ? 2 : 1;
        note("store.write(" + (reuse ? "cleared batch" : "new WriteBatch()") + text + ")" + (times == 2 ? " twice" : ""));
        for (int t = 0; t < times; t++) {
            store.write(wb);
            for (Runnable m : model) {
                m.run();
            }
        }
    }

    private void opBulk(Fam f) {
        byte[] prefix = alphabetKey(1 + r.nextInt(3));
        int n = 50 + r.nextInt(350);
        int start = r.nextInt(1000);
        int vmax = r.nextInt(4) == 0 ? 2000 : 40;
        boolean batch = r.nextBoolean();
        note((batch ? "one batch" : "puts") + " into " + f.ref() + ": " + n + " keys " + x(prefix) + " + int32 from " + start
                + ", values of up to " + vmax + " bytes");
        try (WriteBatch wb = batch ? new WriteBatch() : null) {
            for (int i = 0; i < n; i++) {
                byte[] k = ByteBuffer.allocate(prefix.length + 4).put(prefix).putInt(start + i).array();
                if (!writable(f, k)) {
                    continue;
                }
                byte[] v = new byte[r.nextInt(vmax + 1)];
                r.nextBytes(v);
                if (batch) {
                    wb.put(f.cf, k, v);
                } else {
                    store.put(f.cf, k, v);
                }
                f.data.put(k, v);
                remember(f, k);
            }
            if (batch) {
                store.write(wb);
            }
        }
    }

    private void opBatchRejected() {
        List<Fam> named = new ArrayList<>(live());
        named.remove(0);
        boolean dropCase = !named.isEmpty() && (!lmdb || r.nextBoolean()) && allowed(Kind.DROP_FAMILY);
        try (WriteBatch wb = new WriteBatch()) {
            List<Runnable> ignored = new ArrayList<>();
            StringBuilder text = new StringBuilder();
            fillBatch(wb, ignored, text, r.nextInt(6));
            if (dropCase) {
                Fam victim = named.get(r.nextInt(named.size()));
                byte[] k = writeKey(victim);
                wb.put(victim.cf, k, value());
                text.append("\n      .put(").append(victim.ref()).append(", ").append(x(k)).append(", ...)");
                fillBatch(wb, ignored, text, r.nextInt(6));
                note("wb = new WriteBatch()" + text);
                dropFamily(victim);
                note("store.write(wb) -> must fail: " + victim.ref() + " was dropped after it was added");
                RuntimeException e = expectThrows(RuntimeException.class, () -> store.write(wb), "write of a batch naming a dropped family");
                check(e instanceof FerryException || e instanceof IllegalStateException,
                        ctx("a batch naming a dropped family threw " + e));
            } else if (lmdb) {
                byte[] bad = r.nextBoolean() ? new byte[0] : alphabetKey(512 + r.nextInt(100));
                Fam f = liveFam();
                if (r.nextBoolean()) {
                    wb.put(f.cf, bad, value());
                    text.append("\n      .put(").append(f.ref()).append(", ").append(x(bad)).append(", ...)");
                } else {
                    wb.delete(f.cf, bad);
                    text.append("\n      .delete(").append(f.ref()).append(", ").append(x(bad)).append(')');
                }
                fillBatch(wb, ignored, text, r.nextInt(6));
                note("store.write(new WriteBatch()" + text + ") -> must fail with KEY_SIZE and write nothing");
                FerryException e = expectThrows(FerryException.class, () -> store.write(wb), "batch with a bad key");
                check(e.code() == ErrorCode.KEY_SIZE, ctx("batch with a bad key: code " + e.code() + ", expected KEY_SIZE"));
            } else {
                note("(no family to drop: nothing to reject)");
            }
        }
    }

    private void opGet(Fam f) {
        byte[] k = probe(f);
        boolean any = lmdb && f.isDefault() && isLiveName(k);
        byte[] want = f.data.get(k);
        int c = r.nextInt(4);
        byte[] got;
        if (c == 0 && f.isDefault()) {
            note("store.get(" + x(k) + ")");
            got = store.get(k);
        } else if (c == 1) {
            int off = r.nextInt(4);
            byte[] a = new byte[off + k.length + r.nextInt(4)];
            Arrays.fill(a, (byte) 0x77);
            System.arraycopy(k, 0, a, off, k.length);
            note("store.get(" + f.ref() + ", slice " + off + "+" + k.length + " of " + x(k) + ")");
            got = store.get(f.cf, a, off, k.length);
        } else if (c == 2) {
            boolean d = r.nextBoolean();
            ByteBuffer kb = buffer(k, d);
            int p = kb.position();
            note("store.get(" + f.ref() + ", " + (d ? "direct " : "heap ") + x(k) + ")");
            got = store.get(f.cf, kb);
            check(kb.position() == p, ctx("get(ByteBuffer) moved the key buffer's position"));
        } else {
            note("store.get(" + f.ref() + ", " + x(k) + ")");
            got = store.get(f.cf, k);
        }
        checkValue(any, want, got, "get " + x(k));
    }

    /** get into a buffer, through the store or a snapshot, against a model map. */
    private void opGetInto(Snap s, Fam f, TreeMap<byte[], byte[]> frozen) {
        byte[] k = probe(f);
        boolean any;
        byte[] want;
        if (frozen == null) {
            any = lmdb && f.isDefault() && isLiveName(k);
            want = f.data.get(k);
        } else {
            any = frozen.containsKey(k) && frozen.get(k) == null;
            want = frozen.get(k);
        }
        boolean direct = r.nextBoolean();
        int vlen = any ? DB_RECORD : want == null ? 0 : want.length;
        int cap = r.nextInt(3) == 0 ? vlen + r.nextInt(8) : r.nextInt(Math.max(1, Math.min(vlen, 64)) + 1);
        int pos = r.nextInt(6);
        int total = pos + cap + 4;
        ByteBuffer into = direct ? ByteBuffer.allocateDirect(total) : ByteBuffer.allocate(total);
        for (int i = 0; i < total; i++) {
            into.put(i, (byte) 0x3C);
        }
        into.position(pos).limit(pos + cap);
        ByteBuffer kb = buffer(k, r.nextBoolean());
        String src = s == null ? "store" : s.ref();
        note(src + ".get(" + f.ref() + ", " + x(k) + ", " + (direct ? "direct" : "heap") + " buffer pos " + pos + " remaining " + cap + ")");
        int n;
        if (s == null && f.isDefault() && r.nextBoolean()) {
            n = store.get(k, into);
        } else if (s == null) {
            n = store.get(f.cf, kb, into);
        } else {
            n = s.snapshot.get(f.cf, kb, into);
        }
        if (want == null && !any) {
            check(n == Store.NOT_FOUND, ctx("get into buffer of absent " + x(k) + " returned " + n));
            check(into.position() == pos, ctx("get into buffer of an absent key moved the position to " + into.position()));
        } else {
            if (any) {
                check(n > 0, ctx("get into buffer of a family record returned " + n));
                return;
            }
            check(n == want.length, ctx("get into buffer of " + x(k) + " returned length " + n + ", expected " + want.length));
            int w = Math.min(cap, want.length);
            check(into.position() == pos + w, ctx("get into buffer: position " + into.position() + ", expected " + (pos + w)));
            for (int i = 0; i < w; i++) {
                if (into.get(pos + i) != want[i]) {
                    throw new AssertionError(ctx("get into buffer of " + x(k) + ": byte " + i + " differs"));
                }
            }
        }
        ByteBuffer whole = into.duplicate();
        whole.limit(whole.capacity());
        for (int i = 0; i < total; i++) {
            boolean written = i >= pos && i < into.position();
            if (!written && whole.get(i) != (byte) 0x3C) {
                throw new AssertionError(ctx("get into buffer wrote outside position..position+length at index " + i));
            }
        }
    }

    private void opMultiGet(Snap s, Fam f, TreeMap<byte[], byte[]> frozen) {
        int n = r.nextInt(8) == 0 ? 100 + r.nextInt(200) : r.nextInt(40);
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            keys.add(i > 0 && r.nextInt(10) == 0 ? keys.get(r.nextInt(i)) : probe(f));
        }
        String src = s == null ? "store" : s.ref();
        note(src + ".multiGet(" + f.ref() + ", " + n + " keys)");
        List<byte[]> got;
        if (s == null && f.isDefault() && r.nextBoolean()) {
            got = store.multiGet(keys);
        } else if (s == null) {
            got = store.multiGet(f.cf, keys);
        } else {
            got = s.snapshot.multiGet(f.cf, keys);
        }
        check(got.size() == n, ctx("multiGet returned " + got.size() + " values for " + n + " keys"));
        for (int i = 0; i < n; i++) {
            byte[] k = keys.get(i);
            boolean any = frozen == null ? lmdb && f.isDefault() && isLiveName(k) : frozen.containsKey(k) && frozen.get(k) == null;
            byte[] want = frozen == null ? f.data.get(k) : frozen.get(k);
            checkValue(any, want, got.get(i), "multiGet #" + i + " " + x(k));
        }
    }

    private void opScan(Snap s, Fam f, TreeMap<byte[], byte[]> frozenView) {
        RangeSpec rs = randomRange(f);
        int stop = r.nextInt(3) == 0 ? 1 + r.nextInt(10) : Integer.MAX_VALUE;
        String src = s == null ? "store" : s.ref();
        note(src + ".scan(" + f.ref() + ", " + rs + ", stop after " + (stop == Integer.MAX_VALUE ? "none" : stop) + ")");
        List<byte[][]> got = new ArrayList<>();
        EntryVisitor v = (k, val) -> {
            got.add(new byte[][] {k.toByteArray(), val.toByteArray()});
            return got.size() < stop;
        };
        long n = s == null ? store.scan(f.cf, rs.range, v) : s.snapshot.scan(f.cf, rs.range, v);
        List<Map.Entry<byte[], byte[]>> want = new ArrayList<>(rs.filter(frozenView).entrySet());
        int expect = Math.min(stop, want.size());
        check(got.size() == expect, ctx("scan visited " + got.size() + " entries, expected " + expect + " of " + want.size()));
        check(n == expect, ctx("scan returned " + n + ", expected " + expect));
        for (int i = 0; i < expect; i++) {
            checkBytes(want.get(i).getKey(), got.get(i)[0], "scan key #" + i);
            checkValue(want.get(i).getValue() == null, want.get(i).getValue(), got.get(i)[1], "scan value #" + i + " " + x(got.get(i)[0]));
        }
    }

    /**
     * Splits a random range and scans each sub-range through the same source: the concatenation must
     * be the range's entries in the model, each once, in order; the sub-ranges are at most n, contiguous,
     * and span exactly the range.
     */
    private void opSplit(Snap s, Fam f, TreeMap<byte[], byte[]> frozenView) {
        RangeSpec rs = randomRange(f);
        int n = 1 + r.nextInt(r.nextInt(4) == 0 ? 100 : 8);
        String src = s == null ? "store" : s.ref();
        note("parts = " + src + ".split(" + f.ref() + ", " + rs + ", " + n + ")");
        List<KeyRange> parts = s == null ? store.split(f.cf, rs.range, n) : s.snapshot.split(f.cf, rs.range, n);
        check(!parts.isEmpty() && parts.size() <= n, ctx("split gave " + parts.size() + " sub-ranges for n=" + n));
        checkBytes(rs.range.lower(), parts.get(0).lower(), "split: the first sub-range's lower bound");
        checkBytes(rs.range.upper(), parts.get(parts.size() - 1).upper(), "split: the last sub-range's upper bound");
        for (int i = 1; i < parts.size(); i++) {
            checkBytes(parts.get(i - 1).upper(), parts.get(i).lower(), "split: sub-ranges " + (i - 1) + " and " + i + " meet");
            check(!parts.get(i).isEmpty(), ctx("split: sub-range " + i + " of " + parts.size() + " is empty: " + parts.get(i)));
        }
        List<Map.Entry<byte[], byte[]>> want = new ArrayList<>(rs.filter(frozenView).entrySet());
        List<byte[][]> got = new ArrayList<>();
        for (KeyRange p : parts) {
            EntryVisitor v = (k, val) -> got.add(new byte[][] {k.toByteArray(), val.toByteArray()});
            if (s == null) {
                store.scan(f.cf, p, v);
            } else {
                s.snapshot.scan(f.cf, p, v);
            }
        }
        check(got.size() == want.size(), ctx("the " + parts.size() + " sub-ranges hold " + got.size() + " entries, the range " + want.size()));
        for (int i = 0; i < want.size(); i++) {
            checkBytes(want.get(i).getKey(), got.get(i)[0], "split: entry #" + i + " of the sub-ranges' scans");
            checkValue(want.get(i).getValue() == null, want.get(i).getValue(), got.get(i)[1], "split: value #" + i);
        }
    }

    /**
     * A parallel scan of a random range on 1-4 threads, each sub-range's entries collected by its own
     * visitor: together they must be the range's entries, each once, and in key order within each
     * visitor. On a snapshot, a writer thread puts and deletes keys of the family meanwhile (decided
     * here, so the sequence stays the seed's): the snapshot must not see them; the model takes them
     * once the writer is done.
     */
    private void opParallelScan(Snap s, Fam f, TreeMap<byte[], byte[]> frozenView) {
        RangeSpec rs = randomRange(f);
        int threads = 1 + r.nextInt(4);
        String src = s == null ? "store" : s.ref();
        List<byte[][]> writes = new ArrayList<>();
        if (s != null && r.nextBoolean()) {
            int w = 1 + r.nextInt(40);
            for (int i = 0; i < w; i++) {
                byte[] k = writeKey(f);
                writes.add(new byte[][] {k, r.nextInt(4) == 0 ? null : value()});
            }
        }
        boolean onExecutor = r.nextInt(3) == 0;
        note(src + ".parallelScan(" + f.ref() + ", " + rs + ", " + threads + (onExecutor ? ", ForkJoinPool.commonPool()" : "") + ", collect)"
                + (writes.isEmpty() ? "" : "  // beside a writer of " + writes.size() + " puts and deletes on " + f.ref()));
        java.util.concurrent.ConcurrentLinkedQueue<List<byte[][]>> lists = new java.util.concurrent.ConcurrentLinkedQueue<>();
        java.util.concurrent.atomic.AtomicReference<Throwable> writerFailed = new java.util.concurrent.atomic.AtomicReference<>();
        Thread writer = null;
        if (!writes.isEmpty()) {
            writer = new Thread(() -> {
                try {
                    for (byte[][] kv : writes) {
                        if (kv[1] == null) {
                            store.delete(f.cf, kv[0]);
                        } else {
                            store.put(f.cf, kv[0], kv[1]);
                        }
                    }
                } catch (Throwable t) {
                    writerFailed.set(t);
                }
            }, "diff-writer");
            writer.start();
        }
        long n;
        try {
            java.util.function.Supplier<EntryVisitor> visitors = () -> {
                List<byte[][]> mine = new ArrayList<>();
                lists.add(mine);
                return (k, val) -> mine.add(new byte[][] {k.toByteArray(), val.toByteArray()});
            };
            if (onExecutor) {
                java.util.concurrent.Executor ex = java.util.concurrent.ForkJoinPool.commonPool();
                n = s == null ? store.parallelScan(f.cf, rs.range, threads, ex, visitors)
                        : s.snapshot.parallelScan(f.cf, rs.range, threads, ex, visitors);
            } else {
                n = s == null ? store.parallelScan(f.cf, rs.range, threads, visitors) : s.snapshot.parallelScan(f.cf, rs.range, threads, visitors);
            }
        } finally {
            if (writer != null) {
                try {
                    writer.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted while the writer beside a parallel scan ran", e);
                }
            }
        }
        check(writerFailed.get() == null, ctx("the writer beside the parallel scan failed: " + writerFailed.get()));
        List<byte[][]> got = new ArrayList<>();
        for (List<byte[][]> l : lists) {
            for (int i = 1; i < l.size(); i++) {
                check(Arrays.compareUnsigned(l.get(i - 1)[0], l.get(i)[0]) < 0,
                        ctx("a parallel scan's visitor saw " + x(l.get(i - 1)[0]) + " then " + x(l.get(i)[0])));
            }
            got.addAll(l);
        }
        got.sort((a, b) -> Arrays.compareUnsigned(a[0], b[0]));
        List<Map.Entry<byte[], byte[]>> want = new ArrayList<>(rs.filter(frozenView).entrySet());
        check(n == want.size(), ctx("parallelScan returned " + n + ", the range holds " + want.size()));
        check(got.size() == want.size(), ctx("parallelScan's visitors saw " + got.size() + " entries, the range holds " + want.size()));
        for (int i = 0; i < want.size(); i++) {
            checkBytes(want.get(i).getKey(), got.get(i)[0], "parallelScan: entry #" + i + " in key order");
            checkValue(want.get(i).getValue() == null, want.get(i).getValue(), got.get(i)[1], "parallelScan: value #" + i);
        }
        for (byte[][] kv : writes) {
            note(kv[1] == null ? "  (writer) store.delete(" + f.ref() + ", " + x(kv[0]) + ")"
                    : "  (writer) store.put(" + f.ref() + ", " + x(kv[0]) + ", " + x(kv[1]) + ")");
            if (kv[1] == null) {
                f.data.remove(kv[0]);
            } else {
                f.data.put(kv[0], kv[1]);
            }
            remember(f, kv[0]);
        }
    }

    /** A cursor over a random range with random options and mixed moves; {@code frozenView} is what it must see. */
    private void cursorSession(Snap s, Fam f, TreeMap<byte[], byte[]> frozenView) {
        RangeSpec rs = randomRange(f);
        CursorOptions o = randomCursorOptions();
        TreeMap<byte[], byte[]> exp = rs.filter(frozenView);
        String src = s == null ? "store" : s.ref();
        note("c = " + src + ".cursor(" + f.ref() + ", " + rs + ", " + cursorOptionsText(o) + ")  // " + exp.size() + " entries in range");
        Cursor c = s == null ? (f.isDefault() && o == null && r.nextInt(4) == 0 ? store.cursor(rs.range) : store.cursor(f.cf, rs.range, o))
                : s.snapshot.cursor(f.cf, rs.range, o);
        ModelCursor m = new ModelCursor(exp);
        try {
            int moves = r.nextInt(4) == 0 ? 1 + r.nextInt(200) : 1 + r.nextInt(30);
            for (int i = 0; i < moves; i++) {
                int w = r.nextInt(100);
                String what;
                boolean got;
                boolean want;
                if (w < 33) {
                    what = "c.next()";
                    got = c.next();
                    want = m.next();
                } else if (w < 58) {
                    what = "c.prev()";
                    got = c.prev();
                    want = m.prev();
                } else if (w < 64) {
                    what = "c.first()";
                    got = c.first();
                    want = m.first();
                } else if (w < 70) {
                    what = "c.last()";
                    got = c.last();
                    want = m.last();
                } else if (w < 80) {
                    byte[] t = probe(f);
                    what = "c.seek(" + x(t) + ")";
                    got = c.seek(t);
                    want = m.seek(t);
                } else if (w < 90) {
                    byte[] t = probe(f);
                    what = "c.seekForPrev(" + x(t) + ")";
                    got = c.seekForPrev(t);
                    want = m.seekForPrev(t);
                } else if (w < 94) {
                    // writes while the cursor is open must not show through it
                    interleavedWrite();
                    continue;
                } else {
                    // walk in one direction to the end
                    boolean fwd = r.nextBoolean();
                    note("  walk " + (fwd ? "next" : "prev") + " to the end");
                    int steps = 0;
                    do {
                        got = fwd ? c.next() : c.prev();
                        want = fwd ? m.next() : m.prev();
                        compareCursor(c, m, got, want, (fwd ? "c.next()" : "c.prev()") + " step " + steps, false);
                    } while (want && ++steps < 100000);
                    continue;
                }
                note("  " + what + " -> " + want + (want ? " " + x(m.pos) : ""));
                compareCursor(c, m, got, want, what, r.nextInt(5) == 0);
            }
            if (r.nextInt(10) == 0) {
                note("  c.close(); c.next() -> IllegalStateException");
                c.close();
                check(c.isClosed(), ctx("closed cursor not closed"));
                expectThrows(IllegalStateException.class, c::next, "next() on a closed cursor");
                expectThrows(IllegalStateException.class, c::key, "key() on a closed cursor");
            }
        } finally {
            c.close();
        }
    }

    private void compareCursor(Cursor c, ModelCursor m, boolean got, boolean want, String what, boolean views) {
        if (got != want) {
            throw new AssertionError(ctx("cursor " + what + " returned " + got + ", expected " + want
                    + (want ? " on " + x(m.pos) : "") + (got ? " but stands on " + x(c.keyBytes()) : "")));
        }
        check(c.isValid() == want, ctx("cursor " + what + ": isValid() " + c.isValid()));
        if (want) {
            movesOnEntry++;
        } else {
            movesOff++;
        }
        if (!want) {
            if (views) {
                expectThrows(IllegalStateException.class, c::key, what + " then key() off an entry");
            }
            return;
        }
        byte[] k = c.keyBytes();
        checkBytes(m.pos, k, "cursor " + what + " key");
        byte[] wantValue = m.m.get(m.pos);
        byte[] v = c.valueBytes();
        checkValue(wantValue == null, wantValue, v, "cursor " + what + " value of " + x(k));
        if (views) {
            checkView(c.key(), m.pos, "key view");
            if (wantValue != null) {
                checkView(c.value(), wantValue, "value view");
            }
        }
    }

    /** Every accessor of a view against the bytes it must hold. */
    private void checkView(View v, byte[] want, String what) {
        check(v.length() == want.length, ctx(what + " length " + v.length() + ", expected " + want.length));
        check(v.contentEquals(want), ctx(what + " contentEquals false"));
        check(v.compareTo(want) == 0, ctx(what + " compareTo itself != 0"));
        byte[] other = want.length > 0 && r.nextBoolean() ? Arrays.copyOf(want, want.length - 1) : Arrays.copyOf(want, want.length + 1);
        check(Integer.signum(v.compareTo(other)) == Integer.signum(cmp(want, other)), ctx(what + " compareTo sign"));
        ByteBuffer bb = v.asByteBuffer();
        check(bb.remaining() == want.length, ctx(what + " asByteBuffer remaining " + bb.remaining()));
        byte[] fromBuffer = new byte[bb.remaining()];
        bb.duplicate().get(fromBuffer);
        checkBytes(want, fromBuffer, what + " asByteBuffer");
        ByteBuffer dst = r.nextBoolean() ? ByteBuffer.allocateDirect(want.length + 7) : ByteBuffer.allocate(want.length + 7);
        dst.position(3);
        v.copyTo(dst);
        check(dst.position() == 3 + want.length, ctx(what + " copyTo position " + dst.position()));
        byte[] copied = new byte[want.length];
        dst.get(3, copied);
        checkBytes(want, copied, what + " copyTo");
        if (want.length > 0) {
            int i = r.nextInt(want.length);
            check(v.getByte(i) == want[i], ctx(what + " getByte(" + i + ")"));
            int len = r.nextInt(want.length - i + 1);
            byte[] part = new byte[len + 2];
            v.getBytes(i, part, 1, len);
            checkBytes(Arrays.copyOfRange(want, i, i + len), Arrays.copyOfRange(part, 1, 1 + len), what + " getBytes(" + i + ", " + len + ")");
        }
        if (want.length >= 8) {
            int i = r.nextInt(want.length - 7);
            ByteBuffer w = ByteBuffer.wrap(want);
            check(v.getLong(i, ByteOrder.BIG_ENDIAN) == w.order(ByteOrder.BIG_ENDIAN).getLong(i), ctx(what + " getLong(" + i + ", BIG_ENDIAN)"));
            check(v.getLong(i, ByteOrder.LITTLE_ENDIAN) == w.order(ByteOrder.LITTLE_ENDIAN).getLong(i), ctx(what + " getLong(" + i + ", LITTLE_ENDIAN)"));
            // without an order: big-endian, as ByteBuffer
            check(v.getLong(i) == w.order(ByteOrder.BIG_ENDIAN).getLong(i), ctx(what + " getLong(" + i + ")"));
            check(v.getInt(i) == w.order(ByteOrder.BIG_ENDIAN).getInt(i), ctx(what + " getInt(" + i + ")"));
            check(v.getShort(i) == w.order(ByteOrder.BIG_ENDIAN).getShort(i), ctx(what + " getShort(" + i + ")"));
            check(v.getShort(i, ByteOrder.LITTLE_ENDIAN) == w.order(ByteOrder.LITTLE_ENDIAN).getShort(i), ctx(what + " getShort(" + i + ", LITTLE_ENDIAN)"));
        }
        expectThrows(IndexOutOfBoundsException.class, () -> v.getByte(want.length), what + " getByte(length)");
    }

    private void interleavedWrite() {
        Fam f = liveFam();
        int c = r.nextInt(10);
        if (c < 6) {
            opPut(f);
        } else if (c < 9) {
            opDelete(f);
        } else {
            opDeleteRange(f, false);
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

    private void dropFamily(Fam f) {
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
