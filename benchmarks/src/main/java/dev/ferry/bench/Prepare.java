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
     * @param args entries, then value sizes
     */
    public static void main(String[] args) {
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
