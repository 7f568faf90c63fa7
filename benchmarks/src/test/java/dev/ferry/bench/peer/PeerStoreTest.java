package dev.ferry.bench.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * Every embedded adapter ({@link Peers#EMBEDDED}) stores the same small data set and gives back the
 * same entries for the same gets and, in the same order, for a scan; MariaDB's adapter is checked the
 * same way by {@link MariaDbPeerTest}.
 */
class PeerStoreTest {
    static final java.util.List<String> EMBEDDED = Peers.EMBEDDED;

    @ParameterizedTest
    @FieldSource("EMBEDDED")
    void everyStoreReturnsTheModelsEntriesInTheModelsOrder(String name, @TempDir Path dir) {
        PeerChecks d = new PeerChecks(18);
        PeerStore s = Peers.open(name, dir.resolve("store"), Peers.Servers.NONE);
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
        for (String name : Peers.EMBEDDED) {
            if (name.equals("mariadb")) {
                continue;
            }
            try (PeerStore s = Peers.open(name, dir.resolve(name), Peers.Servers.NONE)) {
                byte[] k = {0, 0, 0, 1};
                s.write(java.util.List.of(k), java.util.List.of(new byte[] {1}), 0, 1);
                s.write(java.util.List.of(k), java.util.List.of(new byte[] {2, 2}), 0, 1);
                org.junit.jupiter.api.Assertions.assertArrayEquals(new byte[] {2, 2}, s.get(k), name);
            }
        }
    }

    @Test
    void unknownNamesAndServerStoresWithoutServerAreRefused(@TempDir Path dir) {
        assertThrows(IllegalArgumentException.class, () -> Peers.open("bergdb", dir, Peers.Servers.NONE));
        assertThrows(IllegalArgumentException.class, () -> Peers.open("mariadb", dir, Peers.Servers.NONE));
    }
}
