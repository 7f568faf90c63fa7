package dev.ferry;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * The differential fuzzer ({@link DifferentialFuzz}) as a test, run on each engine x
 * binding. By default it runs a fixed, short budget so CI stays deterministic; system properties
 * make it longer or replay a failure:
 * <ul>
 * <li>{@code ferry.diff.seed}: the first seed (default 14), or {@code random};</li>
 * <li>{@code ferry.diff.runs}: how many seeds, {@code seed, seed+1, ...} (default 2 on RocksDB, 3 on LMDB);</li>
 * <li>{@code ferry.diff.ops}: operations per seed (default 1200 on RocksDB, 3000 on LMDB, whose
 * operations cost about a tenth: a few seconds per engine x binding either way);</li>
 * <li>{@code ferry.diff.seconds}: keep running further seeds until this many seconds have passed;</li>
 * <li>{@code ferry.diff.exclude}: comma-separated {@link DifferentialFuzz.Kind} names to leave out;</li>
 * <li>{@code ferry.diff.logdir}: where a failing run's op log goes (default {@code target/ferry-diff}).</li>
 * </ul>
 * A failure prints the exact replay command (seed, op count, exclusions).
 */
@Matrix(Target.Slice.ENGINES)
class DifferentialFuzzTest {
    @TempDir
    Path dir;

    Target target;

    @BeforeEach
    void target(Target t) {
        target = t;
    }

    /** @return the engine under test */
    Engine engine() {
        return target.engine;
    }

    /** @return the binding under test: "jni" or "ffm" */
    String binding() {
        return target.binding;
    }

    @MatrixTest
    void randomOperationsAgreeWithTreeMapModelsAndTheReferenceLibrary() throws IOException {
        String seedText = System.getProperty("ferry.diff.seed", "14").trim();
        long base = seedText.equalsIgnoreCase("random") ? new SecureRandom().nextLong() : Long.parseLong(seedText);
        boolean rocks = engine() == Engine.ROCKSDB;
        int runs = Integer.getInteger("ferry.diff.runs", rocks ? 2 : 3);
        int ops = Integer.getInteger("ferry.diff.ops", rocks ? 1200 : 3000);
        long seconds = Long.getLong("ferry.diff.seconds", 0L);
        EnumSet<DifferentialFuzz.Kind> excluded = EnumSet.noneOf(DifferentialFuzz.Kind.class);
        String ex = System.getProperty("ferry.diff.exclude", "").trim();
        for (String k : ex.isEmpty() ? new String[0] : ex.split(",")) {
            excluded.add(DifferentialFuzz.Kind.valueOf(k.trim().toUpperCase(Locale.ROOT)));
        }
        String replay = "mvn -B -o -pl " + target.modules() + " -am verify -Dsurefire.failIfNoSpecifiedTests=false -Dtest="
                + getClass().getSimpleName() + " -Dferry.test.targets=" + target.id() + " -Dferry.diff.seed={seed} -Dferry.diff.runs=1 -Dferry.diff.ops={ops}"
                + (excluded.isEmpty() ? "" : " -Dferry.diff.exclude=" + ex);
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        long t0 = System.nanoTime();
        int run = 0;
        while (run < runs || System.nanoTime() < deadline) {
            long seed = base + run;
            Path runDir = dir.resolve("run" + run);
            Files.createDirectories(runDir);
            System.out.println(DifferentialFuzz.run(new DifferentialFuzz.Config(engine(), binding(), seed, ops, excluded), runDir, replay));
            deleteTree(runDir);
            run++;
        }
        System.out.printf(Locale.ROOT, "differential fuzz %s/%s: %d seed(s) from %d, %d ops each, %.1f s%n", engine(), binding(), run, base, ops,
                (System.nanoTime() - t0) / 1e9);
    }

    private static void deleteTree(Path p) throws IOException {
        try (Stream<Path> s = Files.walk(p)) {
            for (Path q : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(q);
            }
        }
    }
}
