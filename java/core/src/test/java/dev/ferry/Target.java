package dev.ferry;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The engine x binding x transaction-mode matrix, declared once. Every suite of the contract
 * (and of the differential, crash, power-cut and misuse tests) runs each {@link MatrixTest} once per
 * target of its {@link Slice}, named in reports as {@code testName()[rocksdb-jni-optimistic]}.
 *
 * <p>Which targets a test run takes (see {@link #underTest}):
 * <ul>
 * <li>the binding of the run: {@code ffm} when ferry-ffm is on the class path and Java is 22+ (java/ffm's
 * tests, the wine FFM run), else {@code jni} (java/core's tests on JDK 17, 21 and 25);
 * {@code -Dferry.test.bindings=jni,ffm} says otherwise;</li>
 * <li>the engines the platform binds: no RocksDB on Windows ({@code RocksDbOnWindowsTest} checks that
 * refusal), so tests/wine/run selects the same classes and runs their LMDB targets;</li>
 * <li>{@code -Dferry.test.targets=lmdb-jni,rocksdb-ffm} keeps only the targets named (to replay one).</li>
 * </ul>
 */
public enum Target {
    ROCKSDB_JNI(Engine.ROCKSDB, "jni", TransactionMode.NONE),
    ROCKSDB_JNI_PESSIMISTIC(Engine.ROCKSDB, "jni", TransactionMode.PESSIMISTIC),
    ROCKSDB_JNI_OPTIMISTIC(Engine.ROCKSDB, "jni", TransactionMode.OPTIMISTIC),
    LMDB_JNI(Engine.LMDB, "jni", TransactionMode.NONE),
    ROCKSDB_FFM(Engine.ROCKSDB, "ffm", TransactionMode.NONE),
    ROCKSDB_FFM_PESSIMISTIC(Engine.ROCKSDB, "ffm", TransactionMode.PESSIMISTIC),
    ROCKSDB_FFM_OPTIMISTIC(Engine.ROCKSDB, "ffm", TransactionMode.OPTIMISTIC),
    LMDB_FFM(Engine.LMDB, "ffm", TransactionMode.NONE);

    /** Which targets a suite runs on. */
    public enum Slice {
        /** Every target: the store contract holds on every engine, binding and transaction mode. */
        STORES(t -> true),
        /** The targets with write transactions: LMDB, and RocksDB opened pessimistic or optimistic. */
        TRANSACTIONS(t -> t.engine == Engine.LMDB || t.mode != TransactionMode.NONE),
        /** One target per engine x binding (no transaction mode): the fuzzers, crash and power-cut tests. */
        ENGINES(t -> t.mode == TransactionMode.NONE),
        /** RocksDB per binding: the RocksJava differential and interop tests. */
        ROCKSDB(t -> t.engine == Engine.ROCKSDB && t.mode == TransactionMode.NONE),
        /** LMDB per binding: the lmdbjava differential tests. */
        LMDB(t -> t.engine == Engine.LMDB);

        private final Predicate<Target> member;

        Slice(Predicate<Target> member) {
            this.member = member;
        }

        /** @return the slice's targets, in declaration order */
        public List<Target> targets() {
            return Arrays.stream(Target.values()).filter(member).collect(Collectors.toList());
        }
    }

    /** The engine. */
    public final Engine engine;
    /** The Ferry binding: {@code jni} or {@code ffm}. */
    public final String binding;
    /** The transaction mode the store is opened with (LMDB: always NONE, it has transactions anyway). */
    public final TransactionMode mode;

    Target(Engine engine, String binding, TransactionMode mode) {
        this.engine = engine;
        this.binding = binding;
        this.mode = mode;
    }

    /** @return the target's name in reports, e.g. {@code rocksdb-jni-optimistic} */
    public String id() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    @Override
    public String toString() {
        return id();
    }

    /** @return the store contract's options: engine, binding and transaction mode */
    public StoreOptions options() {
        if (engine == Engine.LMDB) {
            return StoreOptions.lmdb().binding(binding).mapSize(256L << 20).maxColumnFamilies(16);
        }
        StoreOptions o = StoreOptions.rocksdb().binding(binding);
        return mode == TransactionMode.NONE ? o : o.transactions(mode);
    }

    /**
     * @return the transaction contract's options: LMDB's map grows (its map-full test), RocksDB's
     *         pessimistic locks time out after 200 ms (its lock-timeout test)
     */
    public StoreOptions transactionOptions() {
        if (engine == Engine.LMDB) {
            return StoreOptions.lmdb().binding(binding).mapSize(256L << 20).autoGrow(64L << 20);
        }
        StoreOptions o = options();
        return mode == TransactionMode.PESSIMISTIC ? o.lockTimeout(200) : o;
    }

    /** @return the Maven modules ({@code -pl}) whose tests run this target */
    public String modules() {
        return binding.equals("ffm") ? "java/core,java/ffm" : "java/core";
    }

    /** @return whether this test run takes this target (binding of the run, platform, -Dferry.test.targets) */
    public boolean underTest() {
        if (!bindingsUnderTest().contains(binding)) {
            return false;
        }
        if (engine == Engine.ROCKSDB && System.getProperty("os.name", "").startsWith("Windows")) {
            return false;
        }
        String only = System.getProperty("ferry.test.targets", "").trim();
        return only.isEmpty() || Set.of(only.split("\\s*,\\s*")).contains(id());
    }

    private static Set<String> bindingsUnderTest() {
        String p = System.getProperty("ferry.test.bindings", "").trim();
        if (!p.isEmpty()) {
            return Set.of(p.split("\\s*,\\s*"));
        }
        return Set.of(ffmOnClassPath() ? "ffm" : "jni");
    }

    private static boolean ffmOnClassPath() {
        if (Runtime.version().feature() < 22) {
            return false;
        }
        try {
            Class.forName("dev.ferry.ffm.internal.FfmBinding", false, Target.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
