package example.rocksdb;

import dev.ferry.Cursor;
import dev.ferry.KeyRange;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes, reads back and scans a RocksDB store through Ferry. With {@code -Dapp.expect.binding}
 * and {@code -Dapp.expect.modular} it also checks which binding Ferry chose and whether it runs
 * as a named module. Exits non-zero when a check fails.
 */
public final class Main {
    /**
     * Runs the checks.
     *
     * @param args unused
     * @throws Exception when the application fails (the JVM then exits non-zero)
     */
    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory("ferry-rocksdb-app-");
        try {
            String binding;
            try (Store store = Store.open(dir.resolve("db"), StoreOptions.rocksdb())) {
                for (int i = 0; i < 100; i++) {
                    store.put(bytes("key" + (1000 + i)), bytes("value" + i));
                }
                check("value42".equals(string(store.get(bytes("key1042")))), "read back key1042");
                int n = 0;
                try (Cursor c = store.cursor(KeyRange.prefix(bytes("key10")))) {
                    for (boolean ok = c.first(); ok; ok = c.next()) {
                        n++;
                    }
                }
                check(n == 100, "scan found " + n + " entries, expected 100");
                Checks.environment(store.binding());
                binding = store.binding();
            }
            // read-only, default family only: the engine's own read-only open where it has one
            try (Store store = Store.open(dir.resolve("db"), StoreOptions.rocksdb().readOnly(true))) {
                check("value7".equals(string(store.get(bytes("key1007")))), "read back key1007 read-only");
            }
            System.out.println("rocksdb app ok: rocksdbjni " + org.rocksdb.RocksDB.rocksdbVersion() + ", binding " + binding
                    + ", " + (Store.class.getModule().isNamed() ? "module path" : "class path") + ", Java " + Runtime.version().feature());
        } finally {
            Checks.delete(dir);
        }
    }

    static void check(boolean ok, String what) {
        Checks.check(ok, what);
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String string(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }
}
