package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rate limiters and SST file managers shared across stores ({@link RateLimiter}, {@link SstFileManager},
 * {@link StoreOptions#rateLimiter(RateLimiter)}, {@link StoreOptions#sstFileManager(SstFileManager)}) on every
 * engine x binding: stores hold them while open (their close is refused, counted, and leaves them usable),
 * a closed one is refused by a store open, the limiter paces flushes (RocksDB counts its drains), the
 * manager counts the stores' table files and stops them at its maximum; LMDB options refuse both.
 */
@Matrix(Target.Slice.ENGINES)
class SharedServicesContractTest {
    @TempDir
    Path dir;
    Target target;

    @BeforeEach
    void setUp(Target t) {
        target = t;
    }

    /** Writes about {@code bytes} of incompressible values and flushes them into a table file. */
    private static void fill(Store s, int bytes, long seed) {
        Random r = new Random(seed);
        for (int i = 0; i < bytes / 1000; i++) {
            byte[] v = new byte[1000];
            r.nextBytes(v);
            s.put(String.format("k%06d", i).getBytes(), v);
        }
        s.flush();
    }

    private static long sstBytes(Path... dirs) throws IOException {
        long n = 0;
        for (Path d : dirs) {
            try (Stream<Path> files = Files.list(d)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    if (f.getFileName().toString().endsWith(".sst")) {
                        n += Files.size(f);
                    }
                }
            }
        }
        return n;
    }

    @MatrixTest
    void lmdbOptionsRefuseThem() {
        if (target.engine != Engine.LMDB) {
            return;
        }
        try (RateLimiter l = RateLimiter.create(1 << 20, 100_000, 10, target.binding)) {
            assertThrows(IllegalArgumentException.class, () -> target.options().rateLimiter(l));
        }
        assertThrows(IllegalArgumentException.class, () -> StoreOptions.lmdb().sstFileManager(null));
    }

    @MatrixTest
    void aRateLimiterIsSharedHeldAndPacesFlushes() {
        if (target.engine != Engine.ROCKSDB) {
            return;
        }
        assertThrows(IllegalArgumentException.class, () -> RateLimiter.create(0));
        assertThrows(IllegalArgumentException.class, () -> RateLimiter.create(1, 1, 101, null));
        RateLimiter l = RateLimiter.create(256 << 10, 10_000, 10, target.binding);
        assertEquals(256 << 10, l.bytesPerSecond());
        assertEquals(10_000, l.refillPeriodMicros());
        assertEquals(10, l.fairness());
        try (Store a = Store.open(dir.resolve("a"), target.options().rateLimiter(l).statistics(true).compression(Compression.NONE));
                Store b = Store.open(dir.resolve("b"), target.options().rateLimiter(l))) {
            assertEquals(2, l.openStores());
            FerryException busy = assertThrows(FerryException.Busy.class, l::close);
            assertTrue(busy.getMessage().contains("2 open store"), busy.getMessage());
            assertFalse(l.isClosed());
            fill(a, 400_000, 1);
            fill(b, 20_000, 2);
            assertTrue(a.statistics().ticker("rocksdb.number.rate_limiter.drains") > 0,
                    "a flush of 400 KB at 256 KB/s waited for the limiter");
            assertEquals(1000, a.get("k000399".getBytes()).length);
        }
        assertEquals(0, l.openStores());
        l.close();
        l.close();
        assertTrue(l.isClosed());
        assertThrows(IllegalStateException.class, l::openStores);
        assertThrows(IllegalStateException.class, () -> Store.open(dir.resolve("c"), target.options().rateLimiter(l)));
    }

    @MatrixTest
    void anSstFileManagerCountsTheStoresFilesAndStopsThemAtItsMaximum() throws IOException {
        if (target.engine != Engine.ROCKSDB) {
            return;
        }
        assertThrows(IllegalArgumentException.class, () -> SstFileManager.create(-1, 0, null));
        SstFileManager m = SstFileManager.create(0, 0, target.binding);
        assertEquals(0, m.maxAllowedSpace());
        assertEquals(0, m.deleteRateBytesPerSecond());
        try (Store a = Store.open(dir.resolve("a"), target.options().sstFileManager(m));
                Store b = Store.open(dir.resolve("b"), target.options().sstFileManager(m))) {
            assertEquals(2, m.openStores());
            assertThrows(FerryException.Busy.class, m::close);
            fill(a, 50_000, 1);
            fill(b, 30_000, 2);
            assertEquals(sstBytes(dir.resolve("a"), dir.resolve("b")), m.totalSize());
            assertFalse(m.isMaxAllowedSpaceReached());
        }
        m.close();
        assertThrows(IllegalStateException.class, m::totalSize);
        assertThrows(IllegalStateException.class, () -> Store.open(dir.resolve("c"), target.options().sstFileManager(m)));
        try (SstFileManager tiny = SstFileManager.create(1, 0, target.binding)) {
            try (Store s = Store.open(dir.resolve("d"), target.options().sstFileManager(tiny))) {
                s.put("k".getBytes(), new byte[1000]);
                assertThrows(FerryException.class, s::flush); // the table file passes the limit: RocksDB stops
                assertTrue(tiny.isMaxAllowedSpaceReached());
            }
        }
    }
}
