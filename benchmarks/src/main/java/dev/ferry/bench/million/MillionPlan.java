package dev.ferry.bench.million;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * What {@code ./ferry reproduce million} runs: the systems, the sizes, the order of the runs, and the
 * keys of "One in a Million" (Frans Lundberg, 2014): 1,000,000 entries, keys the ints 0..999,999 as 4
 * big-endian bytes inserted in random order, value = key; then 100,000 random GETs, three times, the
 * best average GET time reported. Every mode uses the published sizes; the modes differ in rounds
 * (each system's whole run, in its own JVM, once per round, the order rotated between rounds).
 *
 * <p>Thread safety: immutable.
 */
public final class MillionPlan {
    /** The post. */
    public static final String SOURCE = "http://blog.franslundberg.com/2014/01/one-in-million.html";
    /** Entries, as published. */
    public static final int ENTRIES = 1_000_000;
    /** GETs per repeat, as published. */
    public static final int GETS = 100_000;
    /** Repeats of the GETs per run; the best average counts, as published. */
    public static final int REPEATS = 3;
    /** Entries per write batch while loading (the post does not say how it loaded). */
    public static final int BATCH = 1_000;

    /** Run modes. */
    public enum Mode {
        /** One round of every system. */
        QUICK(1),
        /** Five rounds, the order rotated; the report gives medians and the spread. */
        FULL(5);

        private final int rounds;

        Mode(int rounds) {
            this.rounds = rounds;
        }

        /** @return rounds of this mode */
        public int rounds() {
            return rounds;
        }
    }

    /**
     * One row of the report.
     *
     * @param name the peer store's name ({@code dev.ferry.bench.store.Stores}), or the system's for rows not run
     * @param label the name in the report and chart
     * @param kind "ferry", "peer" (in-process), "server" (out of process), "not run"
     * @param published the published figure as the post gives it (text), or why none is quoted
     */
    public record System(String name, String label, String kind, String published) {
        /** @return true when this reproduction runs it */
        public boolean runs() {
            return !kind.equals("not run");
        }
    }

    /** The post gives its per-system GET times only in a chart image; the stored text of the page does not hold them. */
    public static final String IN_CHART = "in the post's chart only (figure not quoted)";

    /** Every row, in the report's order: the published systems, then Ferry's. */
    public static final List<System> SYSTEMS = List.of(
            new System("treemap", "TreeMap (synchronized)", "peer", IN_CHART),
            new System("prevayler", "Prevayler", "peer", IN_CHART),
            new System("je", "Berkeley DB JE", "peer", IN_CHART),
            new System("je-tx", "Berkeley DB JE (transactions)", "peer", IN_CHART),
            new System("mariadb", "MariaDB (JDBC; published: MySQL)", "server", IN_CHART + "; out of process: about 100x the in-process systems"),
            new System("bergdb", "BergDB", "not run", IN_CHART),
            new System("mongodb", "MongoDB", "not run", IN_CHART + "; out of process: about 100x the in-process systems"),
            new System("riak", "Riak", "not run", "\"a little more than 1 ms\""),
            new System("rocksjava", "RocksJava", "peer", "not in the post"),
            new System("lmdbjava", "lmdbjava", "peer", "not in the post"),
            new System("ferry-rocksdb-jni", "Ferry-RocksDB JNI", "ferry", "not in the post"),
            new System("ferry-rocksdb-ffm", "Ferry-RocksDB FFM", "ferry", "not in the post"),
            new System("ferry-lmdb-jni", "Ferry-LMDB JNI", "ferry", "not in the post"),
            new System("ferry-lmdb-ffm", "Ferry-LMDB FFM", "ferry", "not in the post"));

    /** Why the systems not run are not run. */
    public static final String NOT_RUN_WHY = "not obtainable here (BergDB is published nowhere reachable; MongoDB and Riak have no"
            + " Debian package on this machine)";

    private MillionPlan() {
    }

    /**
     * @param name a system's name
     * @return its row
     * @throws IllegalArgumentException when there is none
     */
    public static System system(String name) {
        for (System s : SYSTEMS) {
            if (s.name().equals(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown system " + name);
    }

    /** @return the names of the systems this reproduction runs, in the report's order */
    public static List<String> runnable() {
        return SYSTEMS.stream().filter(System::runs).map(System::name).toList();
    }

    /**
     * One run: a system in its own JVM.
     *
     * @param system the system's name
     * @param round the 1-based round
     * @param position the 1-based place in the round
     */
    public record Run(String system, int round, int position) {
    }

    /**
     * The runs in order: every system once per round; round r starts at the (r-1)-th system (mod n),
     * so over n rounds each system runs once in each place.
     *
     * @param systems the systems to run
     * @param rounds rounds, at least 1
     * @return the runs
     */
    public static List<Run> runs(List<String> systems, int rounds) {
        if (rounds < 1 || systems.isEmpty()) {
            throw new IllegalArgumentException("rounds must be at least 1 and systems not empty");
        }
        List<Run> out = new ArrayList<>();
        int n = systems.size();
        for (int r = 1; r <= rounds; r++) {
            for (int p = 0; p < n; p++) {
                out.add(new Run(systems.get((r - 1 + p) % n), r, p + 1));
            }
        }
        return out;
    }

    /**
     * @param k the key's int
     * @return the key: 4 bytes, big-endian
     */
    public static byte[] key(int k) {
        return ByteBuffer.allocate(4).putInt(k).array();
    }

    /**
     * The insertion order: 0..entries-1 shuffled (Fisher-Yates with {@code new Random(seed)}).
     *
     * @param entries entries
     * @param seed the seed
     * @return every int in [0, entries) once
     */
    public static int[] insertionOrder(int entries, long seed) {
        int[] a = new int[entries];
        for (int i = 0; i < entries; i++) {
            a[i] = i;
        }
        Random r = new Random(seed);
        for (int i = entries - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
        return a;
    }

    /**
     * The keys of one repeat's GETs: uniformly random existing keys (with repetition, as "selected
     * randomly" reads), the same for every system in a round and repeat.
     *
     * @param entries entries in the store
     * @param gets GETs
     * @param seed the run's seed
     * @param round the round
     * @param repeat the 1-based repeat
     * @return the ints to get
     */
    public static int[] getKeys(int entries, int gets, long seed, int round, int repeat) {
        Random r = new Random(seed * 1_000_003L + round * 31L + repeat);
        int[] a = new int[gets];
        for (int i = 0; i < gets; i++) {
            a[i] = r.nextInt(entries);
        }
        return a;
    }
}
