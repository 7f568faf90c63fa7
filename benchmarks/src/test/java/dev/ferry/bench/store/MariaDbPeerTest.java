package dev.ferry.bench.store;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MariaDB's adapter on a private server this test starts ({@link MariaDbServer}) and stops. The test
 * never installs anything: without Debian's {@code mariadb-server} on the machine it is skipped, and the
 * skip says why (CI's {@code .ci/run} installs the package, so CI runs it).
 */
class MariaDbPeerTest {
    @TempDir
    static Path dir;
    static MariaDbServer server;

    @BeforeAll
    static void start() throws IOException {
        String missing = MariaDbServer.missing();
        Assumptions.assumeTrue(missing == null, () -> "skipped: " + missing);
        server = MariaDbServer.start(dir.resolve("mariadb"));
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void mariadbReturnsTheModelsEntriesInTheModelsOrder() {
        PeerChecks d = new PeerChecks(18);
        KvStore s = Stores.open("mariadb", dir.resolve("unused"), server.servers());
        try {
            d.fill(s);
            d.checkGets(s);
            d.checkScan(s);
        } finally {
            s.close();
        }
        PeerChecks.checkStorage(s, true);
    }
}
