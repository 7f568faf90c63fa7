package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** RocksDB open options reach the engine and take effect. */
class RocksDbOptionsTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Compression.class)
    void everyCompressionWritesReadableFiles(Compression c) throws Exception {
        try (Store s = Store.open(dir.resolve(c.name()), StoreOptions.rocksdb().binding("jni").compression(c)
                .bloomBitsPerKey(10).blockCacheSize(8 << 20).maxOpenFiles(64))) {
            for (int i = 0; i < 2000; i++) {
                s.put(("key" + i).getBytes(), ("value value value " + i).getBytes());
            }
            s.flush();
            assertArrayEquals("value value value 1999".getBytes(), s.get("key1999".getBytes()));
            String opts = optionsFile(dir.resolve(c.name()));
            String expect = c == Compression.NONE ? "kNoCompression" : c == Compression.SNAPPY ? "kSnappyCompression"
                    : c == Compression.LZ4 ? "kLZ4Compression" : "kZSTD";
            assertTrue(opts.contains("compression=" + expect), "OPTIONS file names " + expect);
            assertTrue(opts.contains("max_open_files=64"));
            assertTrue(opts.contains("bloomfilter"), "bloom filter configured");
        }
    }

    @Test
    void walOffAndSyncWritesOpen() {
        try (Store s = Store.open(dir.resolve("nowal"), StoreOptions.rocksdb().binding("jni").wal(false))) {
            s.put(new byte[] {1}, new byte[] {2});
            s.flush();
        }
        try (Store s = Store.open(dir.resolve("nowal"), StoreOptions.rocksdb().binding("jni").syncWrites(true))) {
            assertArrayEquals(new byte[] {2}, s.get(new byte[] {1}), "flushed before close");
            s.put(new byte[] {3}, new byte[] {4});
        }
    }

    @Test
    void optionsStringIsAppliedAndBadOnesAreRejected() throws Exception {
        try (Store s = Store.open(dir.resolve("str"), StoreOptions.rocksdb().binding("jni")
                .rocksdbOptions("write_buffer_size=1048576;max_write_buffer_number=5"))) {
            s.put(new byte[] {1}, new byte[] {2});
            s.flush();
            String opts = optionsFile(dir.resolve("str"));
            assertTrue(opts.contains("write_buffer_size=1048576"));
            assertTrue(opts.contains("max_write_buffer_number=5"));
        }
        FerryException e = assertThrows(FerryException.InvalidArgument.class,
                () -> Store.open(dir.resolve("bad"), StoreOptions.rocksdb().binding("jni").rocksdbOptions("no_such_option=1")));
        assertEquals(ErrorCode.ENGINE_INVALID_ARGUMENT, e.code());
        assertEquals(4, e.engineCode(), "RocksDB Status::kInvalidArgument");
    }

    private static String optionsFile(Path db) throws Exception {
        try (Stream<Path> files = Files.list(db)) {
            Path latest = files.filter(p -> p.getFileName().toString().startsWith("OPTIONS-")).sorted().reduce((a, b) -> b).orElseThrow();
            return Files.readString(latest);
        }
    }
}
