package example.noengine;

import dev.ferry.FerryException;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Opens a store of each engine without its jar and checks that Ferry says which artifact to
 * add, in a {@link FerryException.EngineLoad} (not a NoClassDefFoundError). Exits non-zero
 * when a check fails.
 */
public final class Main {
    /**
     * Runs the checks.
     *
     * @param args unused
     * @throws Exception when the application fails (the JVM then exits non-zero)
     */
    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory("ferry-no-engine-app-");
        try {
            String rocks = openFails(dir.resolve("rocks"), StoreOptions.rocksdb());
            Checks.check(rocks.contains("org.rocksdb:rocksdbjni"), "the RocksDB message names org.rocksdb:rocksdbjni: " + rocks);
            Checks.check(rocks.contains("11.8.1"), "the RocksDB message gives the tested versions: " + rocks);
            String lmdb = openFails(dir.resolve("lmdb"), StoreOptions.lmdb());
            Checks.check(lmdb.contains("org.lmdbjava:native"), "the LMDB message names org.lmdbjava:native: " + lmdb);
            Checks.check(lmdb.contains("0.9.33-5"), "the LMDB message gives the tested version: " + lmdb);
            System.out.println("no-engine app ok, " + (Store.class.getModule().isNamed() ? "module path" : "class path")
                    + ", Java " + Runtime.version().feature() + ":\n  " + rocks + "\n  " + lmdb);
        } finally {
            Checks.delete(dir);
        }
    }

    private static String openFails(Path path, StoreOptions options) {
        try (Store s = Store.open(path, options)) {
            Checks.check(false, "opened a store without its engine jar");
            return null;
        } catch (FerryException.EngineLoad e) {
            return e.getMessage();
        }
    }
}
