package dev.ferry.bench.lmdbjava;

import dev.ferry.bench.store.Stores;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What {@code ./ferry reproduce lmdbjava} runs: the LmdbJava suite's tests 1, 2, 4 and 5 (2016), scaled to
 * this machine, as cases (one store, one key type and order, one entry count and value size, the workloads),
 * each run in its own JVM ({@link LmdbRun}).
 * <ul>
 * <li>Test 1, LMDB settings: the LMDB stores, sync or MDB_NOSYNC x MDB_WRITEMAP on or off, sequential int keys,
 *     100-byte values, the write workload.</li>
 * <li>Test 2, value sizes around LMDB's page boundaries: LevelDB, RocksDB and LMDB (the published native
 *     stores: lmdbjava, leveldbjni, rocksjava) plus Ferry's, random int keys, values of 2,026/2,027/4,080/4,081
 *     (quick) and 8,176/8,177/16,368/16,369 bytes (full); write and readKey and the storage.</li>
 * <li>Test 4, 100-byte values: every store, int and string keys, sequential and random, all six workloads
 *     (Chronicle Map write and readKey).</li>
 * <li>Test 5, 2,026-byte values: every store, int keys, sequential and random, write, readKey, readSeq.</li>
 * </ul>
 * Settings as the suite (and each store's documentation for speed): LMDB with MDB_NOSYNC and MDB_WRITEMAP
 * (test 1 chose them), a map of 3.2 x the data, MDB_APPEND for sequential inserts where the library has it;
 * compression off for RocksDB and LevelDB; batches of every entry (the suite's 1M).
 *
 * <p>Thread safety: immutable.
 */
public final class LmdbPlan {
    /** Seed of the random keys. */
    static final long SEED = 20160710L;

    private LmdbPlan() {
    }

    /** Run modes. */
    public enum Mode {
        /** About 10-15 minutes on 2 cores: 100k entries in test 4, 50k in test 5, one write round. */
        QUICK(100_000, 50_000, 20_000, 100_000, 2, 2),
        /** A few hours: 1M entries in tests 1 and 4 (as published), 1M in test 5 (published 10M), 100k in test 2 (published 1M). */
        FULL(1_000_000, 1_000_000, 100_000, 1_000_000, 3, 3);

        final int test4;
        final int test5;
        final int test2;
        final int test1;
        final int rounds;
        final int reads;

        Mode(int test4, int test5, int test2, int test1, int rounds, int reads) {
            this.test4 = test4;
            this.test5 = test5;
            this.test2 = test2;
            this.test1 = test1;
            this.rounds = rounds;
            this.reads = reads;
        }

        /** @return rounds (fresh store, write, reads) per case */
        public int rounds() {
            return rounds;
        }

        /** @return timed repetitions of each read workload per round */
        public int reads() {
            return reads;
        }
    }

    /**
     * LMDB's settings for a case.
     *
     * @param sync fsync on commit (else MDB_NOSYNC)
     * @param writeMap MDB_WRITEMAP
     */
    public record Lmdb(boolean sync, boolean writeMap) {
        /** What the suite settled on in test 1 and used after. */
        public static final Lmdb PUBLISHED = new Lmdb(false, true);

        /** @return e.g. "nosync, writemap" */
        public String label() {
            return (sync ? "sync" : "nosync") + ", " + (writeMap ? "writemap" : "no writemap");
        }
    }

    /**
     * One JVM's work.
     *
     * @param test "1", "2", "4" or "5"
     * @param store the store's name ({@link Stores})
     * @param intKey int keys, else strings
     * @param sequential sequential insertion, else random
     * @param num entries
     * @param valSize bytes per value
     * @param workloads the workloads, in order ("write" first)
     * @param lmdb LMDB settings
     */
    public record Case(String test, String store, boolean intKey, boolean sequential, int num, int valSize, List<String> workloads,
            Lmdb lmdb) {
        /** @return the chart group: e.g. "4-intKey-seq", "2-size-2026", "1-nosync-wm" */
        public String group() {
            return switch (test) {
                case "1" -> "1-" + (lmdb.sync() ? "sync" : "nosync") + "-" + (lmdb.writeMap() ? "wm" : "nowm");
                case "2" -> "2-size-" + valSize;
                default -> test + "-" + (intKey ? "intKey" : "strKey") + "-" + (sequential ? "seq" : "rnd");
            };
        }

        /** @return the data of this case */
        public SuiteData data() {
            return new SuiteData(num, intKey, sequential, valSize, false, SEED);
        }

        /** @return the store's name with its settings, as {@link Stores#open} takes it */
        public String spec() {
            return LmdbPlan.spec(store, data(), sequential, lmdb);
        }
    }

    /**
     * A store's name with the settings the suite runs it with.
     *
     * @param store the store
     * @param d the data (sizes the LMDB map, MapDB's file, Chronicle Map)
     * @param sequential sequential inserts (MDB_APPEND)
     * @param lmdb LMDB settings
     * @return e.g. {@code lmdbjava:nosync,writemap,append,map=335544320}
     */
    public static String spec(String store, SuiteData d, boolean sequential, Lmdb lmdb) {
        long data = (long) d.size() * (d.keySize() + d.valSize());
        long map = Math.max(64L << 20, data * 32 / 10 + (16L << 20));
        return switch (store) {
            case "lmdbjava", "lmdbjni", "lwjgl-lmdb", "ferry-lmdb-jni", "ferry-lmdb-ffm" -> store + ":" + (lmdb.sync() ? "sync" : "nosync")
                    + (lmdb.writeMap() ? ",writemap" : "") + (sequential ? ",append" : "") + ",map=" + map;
            case "rocksjava", "ferry-rocksdb-jni", "ferry-rocksdb-ffm" -> store + ":nocompression";
            case "mapdb" -> store + ":size=" + Math.max(1L << 20, (long) d.size() * d.valSize());
            case "chronicle" -> store + ":entries=" + Math.max(1000, d.size()) + ",key=" + d.keySize() + ",value=" + d.valSize();
            default -> store;
        };
    }

    /** The LMDB stores (test 1). */
    public static final List<String> LMDB = List.of("lmdbjava", "lmdbjni", "lwjgl-lmdb", "ferry-lmdb-jni", "ferry-lmdb-ffm");
    /** Test 2's stores: the published native ones (LevelDB, LMDB, RocksDB) and Ferry's. */
    public static final List<String> NATIVE = List.of("leveldbjni", "lmdbjava", "rocksjava", "ferry-lmdb-jni", "ferry-rocksdb-jni");

    /**
     * The cases of a run.
     *
     * @param mode the mode
     * @param tests the tests to run ("1", "2", "4", "5")
     * @param stores the stores to run (others are left out of every test)
     * @param entries 0, or entries for every test instead of the mode's
     * @return the cases, test by test
     */
    public static List<Case> cases(Mode mode, List<String> tests, List<String> stores, int entries) {
        List<Case> out = new ArrayList<>();
        for (String t : tests) {
            switch (t) {
                case "4" -> {
                    for (boolean intKey : new boolean[] {true, false}) {
                        for (boolean seq : new boolean[] {true, false}) {
                            for (String s : stores) {
                                out.add(new Case("4", s, intKey, seq, n(entries, mode.test4), 100,
                                        s.equals("chronicle") ? Workloads.UNORDERED : Workloads.ALL, Lmdb.PUBLISHED));
                            }
                        }
                    }
                }
                case "5" -> {
                    for (boolean seq : new boolean[] {true, false}) {
                        for (String s : stores) {
                            out.add(new Case("5", s, true, seq, n(entries, mode.test5), 2026,
                                    s.equals("chronicle") ? Workloads.UNORDERED : List.of("write", "readKey", "readSeq"), Lmdb.PUBLISHED));
                        }
                    }
                }
                case "2" -> {
                    List<Integer> sizes = mode == Mode.QUICK ? List.of(2026, 2027, 4080, 4081)
                            : List.of(2026, 2027, 4080, 4081, 8176, 8177, 16368, 16369);
                    for (int size : sizes) {
                        for (String s : NATIVE) {
                            if (stores.contains(s)) {
                                out.add(new Case("2", s, true, false, n(entries, mode.test2), size, List.of("write", "readKey"), Lmdb.PUBLISHED));
                            }
                        }
                    }
                }
                case "1" -> {
                    for (boolean sync : new boolean[] {true, false}) {
                        for (boolean wm : new boolean[] {true, false}) {
                            for (String s : LMDB) {
                                if (stores.contains(s)) {
                                    out.add(new Case("1", s, true, true, n(entries, mode.test1), 100, List.of("write", "readSeq"), new Lmdb(sync, wm)));
                                }
                            }
                        }
                    }
                }
                default -> throw new IllegalArgumentException("unknown test " + t + " (1, 2, 4, 5)");
            }
        }
        return out;
    }

    private static int n(int entries, int mode) {
        return entries > 0 ? entries : mode;
    }

    /**
     * @param c a case
     * @return its line in progress output
     */
    static String describe(Case c) {
        return String.format(Locale.ROOT, "test %s %s %s: %,d x %,d B", c.test(), c.group(), c.store(), c.num(), c.valSize());
    }
}
