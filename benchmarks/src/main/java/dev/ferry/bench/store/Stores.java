package dev.ferry.bench.store;

import java.nio.file.Path;
import java.util.List;

/**
 * The peer stores by name: {@link #open} makes the adapter of one. Names: {@code treemap},
 * {@code prevayler}, {@code je}, {@code je-tx}, {@code mariadb}, {@code rocksjava}, {@code lmdbjava},
 * {@code ferry-rocksdb-jni}, {@code ferry-rocksdb-ffm}, {@code ferry-lmdb-jni}, {@code ferry-lmdb-ffm}, and the
 * LmdbJava suite's others: {@code lmdbjni}, {@code lwjgl-lmdb}, {@code leveldbjni}, {@code mapdb}, {@code mvstore},
 * {@code xodus}, {@code chronicle}.
 *
 * <p>A name may carry settings after a colon ({@link Settings}): {@code lmdbjava:nosync,writemap,map=1073741824}.
 *
 * <p>Thread safety: stateless.
 */
public final class Stores {
    /** Every embedded store (in-process, nothing to start first), in the reports' order. */
    public static final List<String> EMBEDDED = List.of("treemap", "prevayler", "je", "je-tx", "rocksjava", "lmdbjava",
            "ferry-rocksdb-jni", "ferry-rocksdb-ffm", "ferry-lmdb-jni", "ferry-lmdb-ffm");

    /** The LmdbJava suite's stores (docs/reproductions.md section A), in the reports' order. */
    public static final List<String> SUITE = List.of("lmdbjava", "lmdbjni", "lwjgl-lmdb", "leveldbjni", "rocksjava", "mapdb", "mvstore",
            "xodus", "chronicle", "ferry-lmdb-jni", "ferry-lmdb-ffm", "ferry-rocksdb-jni", "ferry-rocksdb-ffm");

    private Stores() {
    }

    /**
     * Where a server store lives; null fields for a run without servers.
     *
     * @param mariadbUrl JDBC URL of a MariaDB database the run may fill (its table {@code kv} is
     *     dropped and made anew), or null
     * @param mariadbUser the user
     * @param mariadbPassword the password
     */
    public record Servers(String mariadbUrl, String mariadbUser, String mariadbPassword) {
        /** No servers. */
        public static final Servers NONE = new Servers(null, null, null);
    }

    /**
     * Opens a new, empty store.
     *
     * @param name one of the class comment's names
     * @param dir an empty directory for the store's files (created when missing)
     * @param servers where server stores live
     * @return the open store
     * @throws IllegalArgumentException for an unknown name, or a server store without its server
     */
    public static KvStore open(String name, Path dir, Servers servers) {
        int colon = name.indexOf(':');
        Settings set = Settings.parse(colon < 0 ? "" : name.substring(colon + 1));
        name = colon < 0 ? name : name.substring(0, colon);
        return switch (name) {
            case "treemap" -> new TreeMapPeer();
            case "prevayler" -> new PrevaylerPeer(KvStore.createDir(dir));
            case "je" -> new JePeer(KvStore.createDir(dir), false);
            case "je-tx" -> new JePeer(KvStore.createDir(dir), true);
            case "rocksjava" -> RocksJavaPeer.open(KvStore.createDir(dir), set);
            case "lmdbjava" -> LmdbJavaPeer.open(KvStore.createDir(dir), set);
            case "lmdbjni" -> new LmdbJniPeer(KvStore.createDir(dir), set);
            case "lwjgl-lmdb" -> new LwjglLmdbPeer(KvStore.createDir(dir), set);
            case "leveldbjni" -> new LevelDbJniPeer(KvStore.createDir(dir));
            case "mapdb" -> new MapDbPeer(KvStore.createDir(dir), set);
            case "mvstore" -> new MvStorePeer(KvStore.createDir(dir));
            case "xodus" -> new XodusPeer(KvStore.createDir(dir));
            case "chronicle" -> new ChroniclePeer(KvStore.createDir(dir), set);
            case "ferry-rocksdb-jni", "ferry-rocksdb-ffm", "ferry-lmdb-jni", "ferry-lmdb-ffm" -> FerryPeer.open(name, KvStore.createDir(dir), set);
            case "mariadb" -> {
                if (servers.mariadbUrl() == null) {
                    throw new IllegalArgumentException("mariadb needs a server: no JDBC URL given");
                }
                yield new MariaDbPeer(servers.mariadbUrl(), servers.mariadbUser(), servers.mariadbPassword());
            }
            default -> throw new IllegalArgumentException("unknown peer store " + name + " (" + EMBEDDED + ", " + SUITE + ", mariadb)");
        };
    }
}
