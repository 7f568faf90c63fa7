package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.internal.AdminCalls;
import dev.ferry.internal.Engines;
import dev.ferry.internal.NativeCalls;
import dev.ferry.internal.binding.Bindings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shared block caches and write buffer managers (issue 33.1), on every engine x binding: RocksDB stores
 * share them, their lifetime is counted (closing one in use is refused with a count), misuse ends in a
 * Java exception; LMDB stores take none.
 */
@Matrix(Target.Slice.ENGINES)
class SharedMemoryContractTest {
    @TempDir
    Path dir;
    Target target;
    /** Closed after each test, stores first. */
    final List<AutoCloseable> open = new ArrayList<>();

    @BeforeEach
    void setUp(Target t) {
        target = t;
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private <T extends AutoCloseable> T keep(T c) {
        open.add(c);
        return c;
    }

    private BlockCache cache(long bytes) {
        return keep(BlockCache.builder(bytes).binding(target.binding).build());
    }

    private WriteBufferManager wbm(long bytes, BlockCache c) {
        return keep(WriteBufferManager.create(bytes, c, false, target.binding));
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void fill(Store s, int n, int vlen) {
        byte[] v = new byte[vlen];
        WriteBatch batch = new WriteBatch();
        for (int i = 0; i < n; i++) {
            v[0] = (byte) i;
            batch.put(b(String.format("k%08d", i)), v);
            if (batch.count() == 500) {
                s.write(batch);
                batch = new WriteBatch();
            }
        }
        if (batch.count() > 0) {
            s.write(batch);
        }
    }

    @MatrixTest
    void storesShareOneCacheAndManagerAndClosingThemInUseIsRefusedWithTheCount() {
        if (target.engine != Engine.ROCKSDB) {
            return;
        }
        BlockCache c = cache(64L << 20);
        WriteBufferManager w = wbm(16L << 20, c);
        Store a = Store.open(dir.resolve("a"), target.options().blockCache(c).writeBufferManager(w).cacheIndexAndFilterBlocks(true)
                .bloomBitsPerKey(10));
        Store s2 = Store.open(dir.resolve("b"), target.options().blockCache(c).writeBufferManager(w));
        assertEquals(2, c.openStores());
        assertEquals(2, w.openStores());
        fill(a, 5000, 100);
        fill(s2, 5000, 100);
        assertTrue(w.memoryUsage() > 0, "the manager counts the memtables: " + w.memoryUsage());
        assertTrue(c.usage() > 0, "the memtables are charged to the cache: " + c.usage());
        a.flush();
        assertArrayEquals(new byte[100], zeroFirst(a.get(b("k00000000"))));
        assertEquals(5000, count(a));
        assertEquals(5000, count(s2));

        FerryException.Busy busy = assertThrows(FerryException.Busy.class, c::close);
        assertTrue(busy.getMessage().contains("2 open stores") && busy.getMessage().contains("1 write buffer manager"),
                busy.getMessage());
        busy = assertThrows(FerryException.Busy.class, w::close);
        assertTrue(busy.getMessage().contains("2 open stores"), busy.getMessage());
        assertFalse(c.isClosed());
        assertFalse(w.isClosed());

        a.close();
        assertEquals(1, c.openStores());
        busy = assertThrows(FerryException.Busy.class, c::close);
        assertTrue(busy.getMessage().contains("1 open store "), busy.getMessage());
        s2.close();
        assertEquals(0, w.openStores());
        busy = assertThrows(FerryException.Busy.class, c::close);
        assertTrue(busy.getMessage().contains("0 open stores and 1 write buffer manager"), busy.getMessage());
        w.close();
        w.close();   // idempotent
        c.close();
        c.close();
        assertThrows(IllegalStateException.class, c::usage);
        assertThrows(IllegalStateException.class, c::openStores);
        assertThrows(IllegalStateException.class, w::memoryUsage);
    }

    /**
     * RocksDB pointer pages: a cursor's iterator pins the blocks it read, and opens a fresh one at its
     * position after 4 MiB of keys and values, so the cache's pinned usage, read back while a cursor walks
     * 9.6 MB of values, stays near that (the blocks' own overhead on top), and drops once it closes.
     * Every value reads right where its view points. A copy-page cursor pins a block at a time.
     */
    @MatrixTest
    void aPointerPageCursorPinsAtMostAboutFourMiBOfTheCacheAndNothingOnceClosed() {
        if (target.engine != Engine.ROCKSDB) {
            return;
        }
        BlockCache c = cache(256L << 20);
        Store s = keep(Store.open(dir.resolve("pins"), target.options().blockCache(c).compression(Compression.NONE)));
        int n = 16_000;
        byte[] v = new byte[600];
        WriteBatch batch = new WriteBatch();
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < v.length; j++) {
                v[j] = (byte) (i * 31 + j);
            }
            batch.put(b(String.format("k%08d", i)), v);
            if (batch.count() == 500) {
                s.write(batch);
                batch = new WriteBatch();
            }
        }
        s.flush();
        long pointers = walkPinned(s, c, n, true);
        assertTrue(pointers <= 5L << 20, "a pointer-page cursor pinned " + pointers + " bytes of the cache");
        assertTrue(pointers >= 2L << 20, "a pointer-page cursor pinned only " + pointers + " bytes");
        assertTrue(c.pinnedUsage() < 1L << 20, c.pinnedUsage() + " bytes still pinned after the cursor closed");
        long copies = walkPinned(s, c, n, false);
        assertTrue(copies < 1L << 20, "a copy-page cursor pinned " + copies + " bytes");
    }

    /** Walks all n entries, checking each; returns the most the cache had pinned, read every 50 entries. */
    private static long walkPinned(Store s, BlockCache c, int n, boolean pointers) {
        long max = 0;
        int seen = 0;
        try (Cursor cur = s.cursor(s.defaultColumnFamily(), KeyRange.all(), CursorOptions.defaults().pointers(pointers))) {
            while (cur.next()) {
                View val = cur.value();
                assertEquals(600, val.length());
                assertEquals((byte) (seen * 31), val.getByte(0), "value " + seen);
                assertEquals((byte) (seen * 31 + 599), val.getByte(599), "value " + seen);
                assertTrue(cur.key().contentEquals(b(String.format("k%08d", seen))), "key " + seen);
                if (seen % 50 == 0) {
                    max = Math.max(max, c.pinnedUsage());
                }
                seen++;
            }
        }
        assertEquals(n, seen);
        return max;
    }

    private static byte[] zeroFirst(byte[] v) {
        v[0] = 0;
        return v;
    }

    private static int count(Store s) {
        return (int) s.scan(s.defaultColumnFamily(), KeyRange.all(), (k, v) -> true);
    }

    @MatrixTest
    void aStoreKeepsWorkingOnItsCacheAcrossReopenAndTheCacheServesReads() {
        if (target.engine != Engine.ROCKSDB) {
            return;
        }
        BlockCache c = keep(BlockCache.builder(8L << 20).highPriorityPoolRatio(0.2).strictCapacityLimit(false)
                .binding(target.binding).build());
        assertEquals(0.2, c.highPriorityPoolRatio());
        StoreOptions o = target.options().blockCache(c).cacheIndexAndFilterBlocks(true).bloomBitsPerKey(10);
        try (Store s = Store.open(dir.resolve("a"), o)) {
            fill(s, 3000, 200);
            s.flush();
        }
        assertEquals(0, c.openStores());
        try (Store s = Store.open(dir.resolve("a"), o)) {
            assertEquals(1, c.openStores());
            assertEquals(3000, count(s));
            assertTrue(c.usage() > 0, "table blocks were read into the shared cache");
        }
        BlockCache strict = keep(BlockCache.builder(4L << 20).strictCapacityLimit(true).binding(target.binding).build());
        assertTrue(strict.strictCapacityLimit());
        try (Store s = Store.open(dir.resolve("b"), target.options().blockCache(strict))) {
            fill(s, 100, 10);
            assertEquals(100, count(s));
        }
    }

    /**
     * The call layer under {@link BlockCache#usage()} and {@link WriteBufferManager#memoryUsage()}: a handle
     * that is not open (NULL, or closed) reaches native code only past the Java state check, and then gives
     * an InvalidArgument exception carrying the native message (before ABI 6 these calls took no error
     * struct and the message was the bare code's).
     */
    @MatrixTest
    void usageOfAHandleNotOpenThrowsWithTheNativeMessage() {
        NativeCalls calls = new NativeCalls(Bindings.byName(target.binding));
        AdminCalls admin = calls.admin();
        FerryException e = assertThrows(FerryException.class, () -> admin.cacheUsage(0));
        assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("block cache is NULL"), e.getMessage());
        e = assertThrows(FerryException.class, () -> admin.wbmUsage(0));
        assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("write buffer manager is NULL"), e.getMessage());
        if (target.engine != Engine.ROCKSDB) {
            return;
        }
        Engines.attach(calls, Engine.ROCKSDB);
        long h = admin.cacheCreate(1 << 20, false, -1);
        admin.cacheClose(h);
        // the native side looks the handle up in its registry, never dereferences it
        e = assertThrows(FerryException.class, () -> admin.cacheUsage(h));
        assertTrue(e.getMessage().contains("not an open block cache"), e.getMessage());
        long w = admin.wbmCreate(0, 1 << 20, false);
        admin.wbmClose(w);
        e = assertThrows(FerryException.class, () -> admin.wbmUsage(w));
        assertTrue(e.getMessage().contains("not an open write buffer manager"), e.getMessage());
    }

    @MatrixTest
    void misuseEndsInJavaExceptions() throws Exception {
        if (target.engine == Engine.LMDB) {
            // LMDB has no block cache or memtables: its options refuse them
            assertThrows(IllegalArgumentException.class, () -> target.options().blockCache(null));
            assertThrows(IllegalArgumentException.class, () -> target.options().writeBufferManager(null));
            assertThrows(IllegalArgumentException.class, () -> target.options().cacheIndexAndFilterBlocks(true));
            return;
        }
        assertThrows(IllegalArgumentException.class, () -> BlockCache.builder(0));
        assertThrows(IllegalArgumentException.class, () -> BlockCache.builder(-5));
        assertThrows(IllegalArgumentException.class, () -> BlockCache.builder(1 << 20).highPriorityPoolRatio(1.5));
        assertThrows(IllegalArgumentException.class, () -> BlockCache.builder(1 << 20).highPriorityPoolRatio(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> BlockCache.builder(1 << 20).highPriorityPoolRatio(-0.1));
        assertThrows(IllegalArgumentException.class, () -> WriteBufferManager.create(0, null, false, target.binding));
        assertThrows(IllegalArgumentException.class, () -> WriteBufferManager.create(-1, null, false, target.binding));

        BlockCache c = cache(1 << 20);
        assertThrows(IllegalArgumentException.class, () -> target.options().blockCacheSize(1 << 20).blockCache(c));
        assertThrows(IllegalArgumentException.class, () -> target.options().blockCache(c).blockCacheSize(1 << 20));

        // closed objects: refused at open and at manager creation, before any native call
        BlockCache closed = BlockCache.builder(1 << 20).binding(target.binding).build();
        closed.close();
        assertThrows(IllegalStateException.class, () -> Store.open(dir.resolve("x"), target.options().blockCache(closed)));
        assertThrows(IllegalStateException.class, () -> WriteBufferManager.create(1 << 20, closed, false, target.binding));
        WriteBufferManager closedW = WriteBufferManager.create(1 << 20, null, true, target.binding);
        closedW.close();
        assertThrows(IllegalStateException.class,
                () -> Store.open(dir.resolve("y"), target.options().writeBufferManager(closedW)));

        // another thread: reads state, and its close of a cache in use is refused like this thread's
        Store s = keep(Store.open(dir.resolve("z"), target.options().blockCache(c)));
        s.put(b("k"), b("v"));
        CompletableFuture<Throwable> f = CompletableFuture.supplyAsync(() -> {
            try {
                assertEquals(1, c.openStores());
                c.close();
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        Throwable t = f.get();
        assertTrue(t instanceof FerryException.Busy, String.valueOf(t));
        assertArrayEquals(b("v"), s.get(b("k")));
    }

    @MatrixTest
    void manyStoresOpenAndCloseConcurrentlyOnOneCacheAndTheCountReturnsToZero() throws Exception {
        if (target.engine != Engine.ROCKSDB) {
            return;
        }
        BlockCache c = cache(16L << 20);
        WriteBufferManager w = wbm(8L << 20, c);
        List<CompletableFuture<Void>> fs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Path p = dir.resolve("s" + i);
            fs.add(CompletableFuture.runAsync(() -> {
                for (int round = 0; round < 3; round++) {
                    try (Store s = Store.open(p, target.options().blockCache(c).writeBufferManager(w))) {
                        fill(s, 200, 50);
                    }
                }
            }));
        }
        for (CompletableFuture<Void> f : fs) {
            try {
                f.get();
            } catch (ExecutionException e) {
                throw new AssertionError(e.getCause());
            }
        }
        assertEquals(0, c.openStores());
        assertEquals(0, w.openStores());
    }
}
