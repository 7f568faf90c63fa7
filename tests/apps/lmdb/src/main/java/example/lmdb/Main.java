package example.lmdb;

import dev.ferry.Cursor;
import dev.ferry.KeyRange;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes, reads back and scans an LMDB store through Ferry, and checks that RocksJava is nowhere:
 * not loadable, not in the module graph. Exits non-zero when a check fails.
 */
public final class Main {
    /**
     * Runs the checks.
     *
     * @param args unused
     * @throws Exception when the application fails (the JVM then exits non-zero)
     */
    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory("ferry-lmdb-app-");
        try (Store store = Store.open(dir.resolve("db"), StoreOptions.lmdb().mapSize(64L << 20))) {
            for (int i = 0; i < 100; i++) {
                store.put(bytes("key" + (1000 + i)), bytes("value" + i));
            }
            Checks.check("value42".equals(string(store.get(bytes("key1042")))), "read back key1042");
            int n = 0;
            try (Cursor c = store.cursor(KeyRange.prefix(bytes("key10")))) {
                for (boolean ok = c.first(); ok; ok = c.next()) {
                    n++;
                }
            }
            Checks.check(n == 100, "scan found " + n + " entries, expected 100");
            Checks.environment(store.binding());
            Checks.check(!loadable("org.rocksdb.RocksDB"), "RocksJava is loadable, but this application does not ship rocksdbjni");
            Checks.check(ModuleLayer.boot().findModule("rocksdbjni").isEmpty(), "module rocksdbjni is in the boot layer");
            System.out.println("lmdb app ok (no rocksdbjni): binding " + store.binding() + ", "
                    + (Store.class.getModule().isNamed() ? "module path" : "class path") + ", Java " + Runtime.version().feature());
        } finally {
            Checks.delete(dir);
        }
    }

    private static boolean loadable(String name) {
        try {
            Class.forName(name, false, ClassLoader.getSystemClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String string(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }
}
