package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A RocksDB store open in another process: the second process's open fails with
 * {@link FerryException.Busy} saying another process holds the lock, in the words the in-process
 * case uses (that one is in {@code LifecycleContractTest.secondOpenOfAnOpenStoreFailsCleanly}).
 */
class RocksDbLockTest {
    @TempDir
    Path dir;

    @Test
    void storeOpenInAnotherProcessIsBusyNamingTheOtherProcess() throws Exception {
        Path db = dir.resolve("db");
        Path work = Files.createDirectories(dir.resolve("child"));
        try (Store held = Store.open(db, StoreOptions.rocksdb())) {
            held.put(new byte[] {1}, new byte[] {2});
            ChildJvm.Result r = ChildJvm.run(work, 120, List.of(), OpenAndReport.class, db.toString());
            assertEquals(0, r.exit(), r.describe());
            String out = r.output();
            assertTrue(out.contains("BUSY ") && out.contains(db + " is already open: another process holds its lock"), r.describe());
            assertTrue(out.contains("code=" + ErrorCode.BUSY), r.describe());
        }
        // once this process closed it, the other process opens it
        ChildJvm.Result r = ChildJvm.run(work, 120, List.of(), OpenAndReport.class, db.toString());
        assertEquals(0, r.exit(), r.describe());
        assertTrue(r.output().contains("OPENED"), r.describe());
    }

    /** The child: opens the store named by args[0] and prints what happened. */
    public static final class OpenAndReport {
        private OpenAndReport() {
        }

        /**
         * Opens the store and prints OPENED, or BUSY and the message.
         *
         * @param args the store directory
         */
        public static void main(String[] args) {
            try (Store s = Store.open(Path.of(args[0]), StoreOptions.rocksdb().createIfMissing(false))) {
                System.out.println("OPENED " + s.path());
            } catch (FerryException.Busy e) {
                System.out.println("BUSY " + e.getMessage() + " code=" + e.code());
            }
        }
    }
}
