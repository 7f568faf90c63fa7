package dev.ferry;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;

/**
 * A {@link MatrixTest} that needs RocksDB next to the engine under test (a RocksDB store as the
 * other engine, the SST writer, the backup engine): each of its runs is disabled on Windows, where
 * the LMDB targets run (tests/wine/run) but Ferry cannot bind RocksDB; RocksDbOnWindowsTest checks
 * that refusal. (JUnit's {@code @DisabledOnOs} would disable the whole test template there, whose runs
 * would then not be counted as skipped tests.)
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@java.lang.annotation.Target(ElementType.METHOD)
public @interface NeedsRocksDb {
    /** Why such a run is disabled on Windows. */
    String REASON = "needs RocksDB, which Ferry cannot bind on Windows: rocksdbjni's Windows library exports"
            + " no RocksDB C API (RocksDbOnWindowsTest checks the refusal)";
}
