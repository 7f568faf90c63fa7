package dev.ferry.bench;

import dev.ferry.Engine;

/**
 * Creates the data sets before a run (so JMH forks only open them) and prints one line per
 * data set: {@code <engine> <valueSize> <entries> <dir> <checksum>}.
 *
 * <p>Usage: {@code java -cp benchmarks.jar dev.ferry.bench.Prepare <entries> <valueSize>...}
 */
public final class Prepare {
    private Prepare() {
    }

    /**
     * Waits until no other JMH run on this machine holds JMH's lock file (benchmarks of other
     * users of a shared machine), so that runs do not overlap where it can be avoided.
     *
     * @param seconds how long to wait
     * @return true when the lock was free
     */
    static boolean waitForJmhLock(int seconds) {
        java.nio.file.Path lock = java.nio.file.Path.of(System.getProperty("java.io.tmpdir"), "jmh.lock");
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        boolean said = false;
        for (;;) {
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(lock, java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.WRITE); java.nio.channels.FileLock l = ch.tryLock()) {
                if (l != null) {
                    return true;
                }
            } catch (java.io.IOException | java.nio.channels.OverlappingFileLockException e) {
                return false;
            }
            if (System.nanoTime() > end) {
                return false;
            }
            if (!said) {
                System.err.println("waiting (up to " + seconds + " s) for another JMH run on this machine to finish...");
                said = true;
            }
            try {
                Thread.sleep(2000);
            } catch (InterruptedException e) {
                return false;
            }
        }
    }

    /**
     * @param args entries, then value sizes; or --versions; or --wait-jmh-lock seconds
     */
    public static void main(String[] args) {
        if (args.length == 2 && args[0].equals("--wait-jmh-lock")) {
            System.exit(waitForJmhLock(Integer.parseInt(args[1])) ? 0 : 1);
        }
        if (args.length == 1 && args[0].equals("--versions")) {
            org.rocksdb.RocksDB.loadLibrary();
            org.rocksdb.RocksDB.Version v = org.rocksdb.RocksDB.rocksdbVersion();
            System.out.println("rocksdb (loaded by rocksdbjni): " + v.getMajor() + "." + v.getMinor() + "." + v.getPatch());
            System.out.println("ferry engines: rocksdb=" + NativeFloor.attach(Engine.ROCKSDB, "jni") + " lmdb="
                    + NativeFloor.attach(Engine.LMDB, "jni"));
            System.exit(0);
        }
        if (args.length < 2) {
            System.err.println("usage: Prepare <entries> <valueSize>...");
            System.exit(2);
        }
        int entries = Integer.parseInt(args[0]);
        for (Engine e : Engine.values()) {
            for (int i = 1; i < args.length; i++) {
                int vs = Integer.parseInt(args[i]);
                long t0 = System.nanoTime();
                BenchData.Dataset d = BenchData.dataset(e, entries, vs);
                System.err.printf("data %s %d x %d B ready in %.1f s%n", e, entries, vs, (System.nanoTime() - t0) / 1e9);
                System.out.println(e.name().toLowerCase() + " " + vs + " " + d.entries + " " + d.dir.toAbsolutePath() + " " + d.checksum);
            }
        }
        System.exit(0);
    }
}
