package dev.ferry;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A store's maintenance and introspection, behind {@link Store}'s delegates: flush and
 * compaction, checkpoints, SST ingestion, properties and statistics. The Javadoc of each
 * operation is on its {@link Store} method.
 *
 * <p>Thread safety: thread-safe.
 */
final class StoreAdmin {
    private final StoreCore core;

    StoreAdmin(StoreCore core) {
        this.core = core;
    }

    long latestSequence() {
        core.guard.enter();
        try {
            return core.calls.admin().latestSequence(core.handle);
        } finally {
            core.guard.exit();
        }
    }

    WalIterator updatesSince(long since) {
        core.guard.enter();
        try {
            long h = core.calls.admin().walOpen(core.handle, since);
            return core.adopt(h, core.calls.admin()::walClose, release -> new WalIterator(core, h, release));
        } finally {
            core.guard.exit();
        }
    }

    void catchUp() {
        core.guard.enter();
        try {
            core.calls.admin().catchUp(core.handle);
        } finally {
            core.guard.exit();
        }
    }

    void ttlClock(long nowMillis) {
        core.guard.enter();
        try {
            core.calls.admin().ttlClock(core.handle, nowMillis);
        } finally {
            core.guard.exit();
        }
    }

    void flush(ColumnFamily cf) {
        int id = core.cfId(cf);
        core.guard.enter();
        try {
            core.calls.admin().flush(core.handle, id);
        } finally {
            core.guard.exit();
        }
    }

    void compactRange(ColumnFamily cf, byte[] begin, byte[] end) {
        int id = core.cfId(cf);
        core.guard.enter();
        try {
            core.calls.admin().compactRange(core.handle, id, begin, end);
        } finally {
            core.guard.exit();
        }
    }

    void checkpoint(Path dir, boolean compact, boolean sync) {
        Objects.requireNonNull(dir, "dir");
        if (compact && core.engine != Engine.LMDB) {
            throw new IllegalArgumentException("checkpoint compact=true is an LMDB option (MDB_CP_COMPACT); this store is "
                    + "RocksDB, whose checkpoints hard-link their table files and have nothing to compact");
        }
        Path target = dir.toAbsolutePath().normalize();
        byte[] p = target.toString().getBytes(StandardCharsets.UTF_8);
        core.guard.enter();
        try {
            StoreCore.createParents(target);
            core.calls.admin().checkpoint(core.handle, p, compact, sync);
        } finally {
            core.guard.exit();
        }
    }

    void ingest(ColumnFamily cf, List<Path> files, boolean move) {
        Objects.requireNonNull(files, "files");
        if (files.isEmpty()) {
            throw new IllegalArgumentException("no files to ingest");
        }
        ByteArrayOutputStream paths = new ByteArrayOutputStream();
        for (Path f : files) {
            byte[] p = Objects.requireNonNull(f, "file").toAbsolutePath().normalize().toString().getBytes(StandardCharsets.UTF_8);
            for (byte c : p) {
                if (c == 0) {
                    throw new IllegalArgumentException("NUL character in file name " + f);
                }
            }
            paths.write(p, 0, p.length);
            paths.write(0);
        }
        byte[] all = paths.toByteArray();
        int id = core.cfId(cf);
        core.guard.enter();
        try {
            core.calls.admin().ingest(core.handle, id, all, files.size(), move);
        } finally {
            core.guard.exit();
        }
    }

    Statistics statistics() {
        if (core.engine != Engine.ROCKSDB) {
            throw FerryException.of(ErrorCode.NOT_SUPPORTED, 0, "statistics() reads RocksDB's tickers and histograms; "
                    + "LMDB keeps none: use lmdbStats(cf) for its page and reader counts");
        }
        if (!core.statisticsOn) {
            core.guard.check(); // a closed store says so first
            throw new IllegalStateException("statistics are off: open the store with StoreOptions.statistics(true)");
        }
        String text = property(core.defaultFamily(), "rocksdb.options-statistics")
                .orElseThrow(() -> new IllegalStateException("RocksDB reports no statistics"));
        return Statistics.parse(text);
    }

    LmdbStats lmdbStats(ColumnFamily cf) {
        if (core.engine != Engine.LMDB) {
            throw FerryException.of(ErrorCode.NOT_SUPPORTED, 0, "lmdbStats reads LMDB's mdb_stat and mdb_env_info; "
                    + "for RocksDB use statistics() (with StoreOptions.statistics(true)) and property(...)");
        }
        String stat = property(cf, "lmdb.stat").orElseThrow(() -> new IllegalStateException("no lmdb.stat"));
        String info = property(cf, "lmdb.info").orElseThrow(() -> new IllegalStateException("no lmdb.info"));
        return LmdbStats.parse(stat, info);
    }

    Optional<String> property(ColumnFamily cf, String name) {
        byte[] n = Objects.requireNonNull(name, "name").getBytes(StandardCharsets.UTF_8);
        int id = core.cfId(cf);
        core.guard.enter();
        try {
            return Optional.ofNullable(core.calls.admin().property(core.handle, id, n));
        } finally {
            core.guard.exit();
        }
    }

    OptionalLong propertyLong(ColumnFamily cf, String name) {
        byte[] n = Objects.requireNonNull(name, "name").getBytes(StandardCharsets.UTF_8);
        int id = core.cfId(cf);
        core.guard.enter();
        try {
            Long v = core.calls.admin().propertyLong(core.handle, id, n);
            return v == null ? OptionalLong.empty() : OptionalLong.of(v);
        } finally {
            core.guard.exit();
        }
    }
}
