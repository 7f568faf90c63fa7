package dev.ferry.bench.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * Every embedded adapter ({@link Stores#EMBEDDED}) stores the same small data set and gives back the
 * same entries for the same gets and, in the same order, for a scan; MariaDB's adapter is checked the
 * same way by {@link MariaDbPeerTest}.
 */
class KvStoreTest {
    static final java.util.List<String> EMBEDDED = Stores.EMBEDDED;

    @ParameterizedTest
    @FieldSource("EMBEDDED")
    void everyStoreReturnsTheModelsEntriesInTheModelsOrder(String name, @TempDir Path dir) {
        PeerChecks d = new PeerChecks(18);
        KvStore s = Stores.open(name, dir.resolve("store"), Stores.Servers.NONE);
        try {
            assertEquals(name, s.name());
            d.fill(s);
            d.checkGets(s);
            d.checkScan(s);
        } finally {
            s.close();
        }
        s.close(); // idempotent
        PeerChecks.checkStorage(s, !name.equals("treemap"));
    }

    @Test
    void laterBatchesOverwriteEarlierValues(@TempDir Path dir) {
        for (String name : Stores.EMBEDDED) {
            if (name.equals("mariadb")) {
                continue;
            }
            try (KvStore s = Stores.open(name, dir.resolve(name), Stores.Servers.NONE)) {
                byte[] k = {0, 0, 0, 1};
                s.write(java.util.List.of(k), java.util.List.of(new byte[] {1}), 0, 1);
                s.write(java.util.List.of(k), java.util.List.of(new byte[] {2, 2}), 0, 1);
                org.junit.jupiter.api.Assertions.assertArrayEquals(new byte[] {2, 2}, s.get(k), name);
            }
        }
    }

    @Test
    void unknownNamesAndServerStoresWithoutServerAreRefused(@TempDir Path dir) {
        assertThrows(IllegalArgumentException.class, () -> Stores.open("bergdb", dir, Stores.Servers.NONE));
        assertThrows(IllegalArgumentException.class, () -> Stores.open("mariadb", dir, Stores.Servers.NONE));
    }
}
