package dev.ferry;

import dev.ferry.DifferentialFuzz.Config;
import dev.ferry.DifferentialFuzz.Kind;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * The state of one {@link DifferentialFuzz} run and what every group of operations uses: the
 * {@link java.util.TreeMap} models of the families and snapshots ({@code Fam}, {@code Snap}), key ranges
 * with their own statement of which keys they hold ({@code RangeSpec}), the cursor model
 * ({@code ModelCursor}), the op log and its failure report, and the seeded choices of keys, values,
 * ranges and options. The operations are in the subclasses: {@link DiffFuzzWrites}, {@link DiffFuzzReads},
 * {@link DifferentialFuzz} (families, snapshots, reopen, the final read-back); one run is one object.
 *
 * <p>Not thread-safe; one run uses one thread.
 */
abstract class DiffFuzzState {
    static final Comparator<byte[]> UNSIGNED = Arrays::compareUnsigned;
    /** Family names the run creates, drops and re-creates; short ones also appear as keys. */
    static final List<String> NAMES = List.of("f0", "f1", "f2", "f3", "cf-\u00e9t\u00e9", "z");
    /** Key bytes most keys are made of: few enough to collide, with the edge bytes. */
    static final byte[] ALPHABET = {0x00, 0x01, 0x02, 0x7F, (byte) 0x80, (byte) 0xFE, (byte) 0xFF, 'a', 'f'};
    /** Size of an LMDB named database's record in its parent (the value of a family-name key). */
    static final int DB_RECORD = 48;
    static final int LOG_TAIL = 60;

    /** A family of the model: its data and the handle in the current store. */
    static final class Fam {
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
    static final class Snap {
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
    static final class RangeSpec {
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
    static final class ModelCursor {
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

    final Config cfg;
    final Path storeDir;
    final Random r;
    final boolean lmdb;
    final String replay;
    final List<String> log = new ArrayList<>();
    final ArrayDeque<String> tail = new ArrayDeque<>();
    final List<Fam> fams = new ArrayList<>();
    final List<Snap> snaps = new ArrayList<>();
    final int[] cumulative = new int[Kind.values().length];
    Store store;
    int op;
    int famSerial;
    int snapSerial;
    WriteBatch reusable;
    final int maxKey;
    final int[] kindCounts = new int[Kind.values().length];
    final long[] kindNanos = new long[Kind.values().length];
    long movesOnEntry;
    long movesOff;
    long expectedFailures;

    DiffFuzzState(Config cfg, Path dir, String replay) {
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

    // ------------------------------------------------------------------ reporting

    void note(String s) {
        String line = "#" + op + " " + s;
        log.add(line);
        tail.addLast(line);
        if (tail.size() > LOG_TAIL) {
            tail.removeFirst();
        }
    }

    AssertionError failure(Throwable t) {
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

    String ctx(String what) {
        return "op #" + op + " " + what;
    }

    static void check(boolean ok, String msg) {
        if (!ok) {
            throw new AssertionError(msg);
        }
    }

    void checkBytes(byte[] want, byte[] got, String what) {
        if (!Arrays.equals(want, got)) {
            throw new AssertionError(ctx(what) + ": expected " + describe(want) + " but was " + describe(got));
        }
    }

    /** Compares a value read with the model's answer; {@code any} accepts every non-null value. */
    void checkValue(boolean any, byte[] want, byte[] got, String what) {
        if (any) {
            check(got != null, ctx(what) + ": expected a family record but was null");
        } else {
            checkBytes(want, got, what);
        }
    }

    <T extends Throwable> T expectThrows(Class<T> type, Runnable call, String what) {
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

    static String describe(byte[] b) {
        return b == null ? "null" : b.length + " bytes " + x(b);
    }

    // ------------------------------------------------------------------ choices

    Kind pick() {
        int total = cumulative[cumulative.length - 1];
        int v = r.nextInt(total);
        for (Kind k : Kind.values()) {
            if (v < cumulative[k.ordinal()]) {
                return k;
            }
        }
        throw new AssertionError();
    }

    boolean allowed(Kind k) {
        return !cfg.excluded.contains(k);
    }

    List<Fam> live() {
        List<Fam> l = new ArrayList<>();
        for (Fam f : fams) {
            if (!f.dropped) {
                l.add(f);
            }
        }
        return l;
    }

    Fam liveFam() {
        List<Fam> l = live();
        // the default family a third of the time, so families with few writes still fill up
        return r.nextInt(3) == 0 ? l.get(0) : l.get(r.nextInt(l.size()));
    }

    boolean isLiveName(byte[] k) {
        for (Fam f : fams) {
            if (!f.dropped && !f.isDefault() && Arrays.equals(f.name.getBytes(StandardCharsets.UTF_8), k)) {
                return true;
            }
        }
        return false;
    }

    /** @return whether a key is one the engine stores in this family (LMDB: 1..511 bytes, not a live family's name) */
    boolean writable(Fam f, byte[] k) {
        if (lmdb && (k.length == 0 || k.length > 511)) {
            return false;
        }
        if (f.isDefault() && !allowed(Kind.NAME_KEYS) && NAMES.contains(new String(k, StandardCharsets.UTF_8))) {
            return false;
        }
        return !(lmdb && f.isDefault() && isLiveName(k));
    }

    byte[] alphabetKey(int len) {
        byte[] k = new byte[len];
        for (int i = 0; i < len; i++) {
            k[i] = r.nextInt(3) == 0 ? (byte) r.nextInt(256) : ALPHABET[r.nextInt(ALPHABET.length)];
        }
        return k;
    }

    byte[] poolKey(Fam f) {
        return f.pool.get(r.nextInt(f.pool.size()));
    }

    byte[] freshKey(Fam f) {
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
    byte[] writeKey(Fam f) {
        for (;;) {
            byte[] k = !f.pool.isEmpty() && r.nextBoolean() ? poolKey(f) : freshKey(f);
            if (writable(f, k)) {
                return k;
            }
        }
    }

    void remember(Fam f, byte[] k) {
        if (f.pool.size() < 3000) {
            f.pool.add(k);
        } else {
            f.pool.set(r.nextInt(f.pool.size()), k);
        }
    }

    /** A key to read, seek to or bound a range with: any bytes, also empty and longer than LMDB stores. */
    byte[] probe(Fam f) {
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

    byte[] value() {
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

    RangeSpec randomRange(Fam f) {
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

    CursorOptions randomCursorOptions() {
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

    String cursorOptionsText(CursorOptions o) {
        if (o == null) {
            return "null";
        }
        return "CursorOptions.defaults()" + (o.pageSize > 0 ? ".pageSize(" + o.pageSize + ")" : "")
                + (o.pointers != null ? ".pointers(" + o.pointers + ")" : "") + ".pageWalk(" + o.pageWalk + ").fillCache(" + o.fillCache + ")";
    }

    /** The model view of a family as the engine shows it: on LMDB the default family also holds the live families' names (any value). */
    TreeMap<byte[], byte[]> view(Fam f) {
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


    // ------------------------------------------------------------------ in DifferentialFuzz

    /** Drops a family from the store and marks it dropped in the model. */
    abstract void dropFamily(Fam f);
}
