package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * On Windows a RocksDB store is refused with the reason: rocksdbjni's Windows library exports no
 * RocksDB C API. Runs on Windows only (tests/wine/run runs it under wine on each JDK and binding);
 * it never opens a RocksJava database (RocksJava's close hangs under wine).
 */
@EnabledOnOs(OS.WINDOWS)
class RocksDbOnWindowsTest {
    @TempDir
    Path dir;

    @Test
    void openingARocksDbStoreThrowsNotSupportedSayingWhy() {
        Path db = dir.resolve("db");
        FerryException.NotSupported e = assertThrows(FerryException.NotSupported.class, () -> Store.open(db, StoreOptions.rocksdb()));
        assertEquals(ErrorCode.NOT_SUPPORTED, e.code());
        String m = e.getMessage();
        assertTrue(m.contains("rocksdbjni library") && m.contains("exports no RocksDB C API"), m);
        assertTrue(m.contains("on Windows use LMDB"), m);
        assertFalse(Files.exists(db), "nothing was created");
        // the same again: the refusal is not a one-time state
        assertThrows(FerryException.NotSupported.class, () -> Store.open(db, StoreOptions.rocksdb()));
    }

    @Test
    void theSstWriterAndTheBackupEngineAreRefusedToo() {
        for (String binding : new String[] {null, "jni"}) {
            FerryException.NotSupported sst = assertThrows(FerryException.NotSupported.class,
                    () -> SstFileWriter.open(dir.resolve("x.sst"), null, binding));
            assertTrue(sst.getMessage().contains("exports no RocksDB C API"), sst.getMessage());
            FerryException.NotSupported backups = assertThrows(FerryException.NotSupported.class,
                    () -> Backups.open(dir.resolve("backups"), binding));
            assertTrue(backups.getMessage().contains("exports no RocksDB C API"), backups.getMessage());
        }
        assertFalse(Files.exists(dir.resolve("x.sst")));
    }

    @Test
    void lmdbStillOpensAfterTheRocksDbRefusal() {
        assertThrows(FerryException.NotSupported.class, () -> Store.open(dir.resolve("r"), StoreOptions.rocksdb()));
        try (Store s = Store.open(dir.resolve("l"), StoreOptions.lmdb().mapSize(16L << 20))) {
            s.put(new byte[] {1}, new byte[] {2});
            assertEquals(2, s.get(new byte[] {1})[0]);
        }
    }
}
