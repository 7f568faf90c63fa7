package dev.ferry.internal;

import static dev.ferry.internal.NativeCalls.align8;
import static dev.ferry.internal.NativeCalls.check;

import dev.ferry.FerryException;
import dev.ferry.spi.NativeBinding;
import java.nio.charset.StandardCharsets;

/**
 * The call layer's maintenance and administration calls, {@link NativeCalls#admin()}: a store's
 * flush, compaction, checkpoints, ingestion and properties, and RocksDB's backup engines, SST file
 * writers, block caches and write buffer managers. None is on a read, write or cursor path; the
 * conventions are {@link NativeCalls}'s (handles are {@code long}s, a failure throws the engine's
 * {@link FerryException}, no handle state is checked here).
 *
 * <p>Thread safety: thread-safe (scratch memory is per thread).
 */
public final class AdminCalls {
    private final NativeBinding b;

    AdminCalls(NativeBinding binding) {
        this.b = binding;
    }

    // ---- RocksDB services: the write-ahead log ----

    /**
     * {@code ferry_latest_sequence}.
     *
     * @param store the store
     * @return the sequence number of the store's latest write
     */
    public long latestSequence(long store) {
        Scratch s = Scratch.get(b);
        check(s, b.latestSequence(store, s.out(0), s.err()));
        return s.outLong(0);
    }

    /**
     * {@code ferry_cf_engine_id}.
     *
     * @param store the store
     * @param cf the family
     * @return RocksDB's id of the family
     */
    public int cfEngineId(long store, int cf) {
        Scratch s = Scratch.get(b);
        check(s, b.cfEngineId(store, cf, s.out(0), s.err()));
        return s.mem.buf.getInt(Scratch.OUT);
    }

    /**
     * {@code ferry_wal_open}.
     *
     * @param store the store
     * @param since the first sequence number wanted
     * @return the iterator's handle
     */
    public long walOpen(long store, long since) {
        Scratch s = Scratch.get(b);
        check(s, b.walOpen(store, since, s.out(0), s.err()));
        return s.outLong(0);
    }

    /**
     * {@code ferry_wal_next}: the next write batch, copied.
     *
     * @param wal the iterator
     * @param seqOut receives the batch's first sequence number at index 0
     * @return the batch's rep, or null at the end
     */
    public byte[] walNext(long wal, long[] seqOut) {
        Scratch s = Scratch.get(b);
        long cap = s.mem.cap - Scratch.DATA;
        int rc = b.walNext(wal, s.mem.addr + Scratch.DATA, cap, s.out(0), s.out(1), s.err());
        if (rc == Abi.ETOOSMALL) {
            long len = s.outLong(1);
            if (len > Integer.MAX_VALUE - Scratch.DATA - 8) {
                throw new IllegalStateException("write batch of " + len + " bytes: larger than a Java array");
            }
            s.ensure(Scratch.DATA + len, 0);
            rc = b.walNext(wal, s.mem.addr + Scratch.DATA, len, s.out(0), s.out(1), s.err());
        }
        if (rc == Abi.NOTFOUND) {
            return null;
        }
        check(s, rc);
        seqOut[0] = s.outLong(0);
        byte[] data = new byte[(int) s.outLong(1)];
        s.mem.buf.get(Scratch.DATA, data);
        return data;
    }

    /**
     * {@code ferry_wal_close}.
     *
     * @param wal the iterator
     */
    public void walClose(long wal) {
        b.walClose(wal);
    }

    // ---- RocksDB services: rate limiters and SST file managers ----

    /**
     * {@code ferry_rate_limiter_create}.
     *
     * @param bytesPerSecond the budget
     * @param refillPeriodMicros the refill period
     * @param fairness 1..100
     * @return the handle
     */
    public long rateLimiterCreate(long bytesPerSecond, long refillPeriodMicros, int fairness) {
        Scratch s = Scratch.get(b);
        check(s, b.rateLimiterCreate(bytesPerSecond, refillPeriodMicros, fairness, s.out(0), s.err()));
        return s.outLong(0);
    }

    /**
     * {@code ferry_rate_limiter_usage}.
     *
     * @param limiter the handle
     * @return holding stores
     */
    public long[] rateLimiterUsage(long limiter) {
        Scratch s = Scratch.get(b);
        s.mem.buf.putLong(Scratch.OUT, 0);
        check(s, b.rateLimiterUsage(limiter, s.out(0), s.err()));
        return new long[] {s.mem.buf.getInt(Scratch.OUT) & 0xffffffffL};
    }

    /**
     * {@code ferry_rate_limiter_close}.
     *
     * @param limiter the handle
     * @throws FerryException (Busy) while stores hold it
     */
    public void rateLimiterClose(long limiter) {
        Scratch s = Scratch.get(b);
        check(s, b.rateLimiterClose(limiter, s.err()));
    }

    /**
     * {@code ferry_sst_manager_create}.
     *
     * @param maxAllowedSpace bytes, 0 for no limit
     * @param deleteRate bytes per second, 0 for at once
     * @return the handle
     */
    public long sstManagerCreate(long maxAllowedSpace, long deleteRate) {
        Scratch s = Scratch.get(b);
        check(s, b.sstManagerCreate(maxAllowedSpace, deleteRate, s.out(0), s.err()));
        return s.outLong(0);
    }

    /**
     * {@code ferry_sst_manager_usage}.
     *
     * @param manager the handle
     * @return total size, 1 when the maximum is reached (else 0), holding stores
     */
    public long[] sstManagerUsage(long manager) {
        Scratch s = Scratch.get(b);
        s.mem.buf.putLong(Scratch.OUT + 8, 0).putLong(Scratch.OUT + 16, 0);
        check(s, b.sstManagerUsage(manager, s.out(0), s.out(1), s.out(2), s.err()));
        return new long[] {s.outLong(0), s.mem.buf.getInt(Scratch.OUT + 8) & 0xffffffffL,
            s.mem.buf.getInt(Scratch.OUT + 16) & 0xffffffffL};
    }

    /**
     * {@code ferry_sst_manager_close}.
     *
     * @param manager the handle
     * @throws FerryException (Busy) while stores hold it
     */
    public void sstManagerClose(long manager) {
        Scratch s = Scratch.get(b);
        check(s, b.sstManagerClose(manager, s.err()));
    }

    // ---- RocksDB services: PerfContext (the calling thread's) ----

    /**
     * {@code ferry_perf_level}.
     *
     * @param level FERRY_PERF_*
     */
    public void perfLevel(int level) {
        Scratch s = Scratch.get(b);
        check(s, b.perfLevel(level, s.err()));
    }

    /** {@code ferry_perf_reset}. */
    public void perfReset() {
        Scratch s = Scratch.get(b);
        check(s, b.perfReset(s.err()));
    }

    /**
     * {@code ferry_perf_report}.
     *
     * @return RocksDB's report of the calling thread's counters
     */
    public String perfReport() {
        Scratch s = Scratch.get(b);
        int rc = b.perfReport(s.mem.addr + Scratch.DATA, s.mem.cap - Scratch.DATA, s.out(0), s.err());
        if (rc == Abi.ETOOSMALL) {
            long len = s.outLong(0);
            s.ensure(Scratch.DATA + len, 0);
            rc = b.perfReport(s.mem.addr + Scratch.DATA, len, s.out(0), s.err());
        }
        check(s, rc);
        byte[] text = new byte[(int) s.outLong(0)];
        s.mem.buf.get(Scratch.DATA, text);
        return new String(text, StandardCharsets.ISO_8859_1);
    }

    // ---- maintenance ----

    /**
     * {@code ferry_catch_up}.
     *
     * @param store the store
     */
    public void catchUp(long store) {
        Scratch s = Scratch.get(b);
        check(s, b.catchUp(store, s.err()));
    }

    /**
     * {@code ferry_ttl_clock}.
     *
     * @param store the store
     * @param nowMillis the TTL clock's time, or negative for the wall clock
     */
    public void ttlClock(long store, long nowMillis) {
        Scratch s = Scratch.get(b);
        check(s, b.ttlClock(store, nowMillis, s.err()));
    }

    /**
     * {@code ferry_flush}.
     *
     * @param store the store
     * @param cf the family
     */
    public void flush(long store, int cf) {
        Scratch s = Scratch.get(b);
        NativeCalls.checkStore(s, b.flush(store, cf, s.err()), store);
    }

    /**
     * {@code ferry_compact_range}.
     *
     * @param store the store
     * @param cf the family
     * @param begin inclusive bound, or null
     * @param end exclusive bound, or null
     */
    public void compactRange(long store, int cf, byte[] begin, byte[] end) {
        Scratch s = Scratch.get(b);
        int eoff = s.putTwo(begin, end);
        long a = s.mem.addr;
        NativeCalls.checkStore(s, b.compactRange(store, cf, begin == null ? 0 : a + Scratch.DATA, begin == null ? 0 : begin.length,
                end == null ? 0 : a + eoff, end == null ? 0 : end.length, s.err()), store);
    }

    /**
     * {@code ferry_checkpoint}.
     *
     * @param store the store
     * @param dir the target directory (UTF-8)
     * @param compact LMDB: a compacting copy ({@code FERRY_CHECKPOINT_COMPACT})
     * @param sync fsync the copy before returning (else {@code FERRY_CHECKPOINT_NO_SYNC})
     */
    public void checkpoint(long store, byte[] dir, boolean compact, boolean sync) {
        Scratch s = Scratch.get(b);
        check(s, b.checkpoint(store, s.cString(dir), Codes.checkpointFlags(compact, sync), s.err()));
    }

    /**
     * {@code ferry_ingest}.
     *
     * @param store the store
     * @param cf the family
     * @param paths the files' paths, each followed by a NUL
     * @param n how many
     * @param move hard-link the files instead of copying them ({@code FERRY_INGEST_MOVE})
     */
    public void ingest(long store, int cf, byte[] paths, int n, boolean move) {
        int flags = Codes.ingestFlags(move);
        Scratch s = Scratch.get(b);
        NativeBuffer m = s.ensure(Scratch.DATA + (long) paths.length, 0);
        m.buf.put(Scratch.DATA, paths);
        check(s, b.ingest(store, cf, m.addr + Scratch.DATA, paths.length, n, flags, s.err()));
    }

    /**
     * {@code ferry_property}.
     *
     * @param store the store
     * @param cf the family
     * @param name the property (UTF-8)
     * @return its value, or null when the engine does not know it
     */
    public String property(long store, int cf, byte[] name) {
        Scratch s = Scratch.get(b);
        int cap = 64 * 1024;
        for (;;) {
            int dst = align8(Scratch.DATA + name.length + 1);
            NativeBuffer m = s.ensure((long) dst + cap, 0);
            m.putCString(Scratch.DATA, name);
            int rc = b.property(store, cf, m.addr + Scratch.DATA, m.addr + dst, cap, s.out(0), s.err());
            if (rc == Abi.NOTFOUND) {
                return null;
            }
            check(s, rc);
            long len = s.outLong(0);
            if (len < cap) {
                return new String(m.bytes(dst, (int) len), StandardCharsets.UTF_8);
            }
            cap = (int) Math.min(Integer.MAX_VALUE - dst - 16, len + 1);
        }
    }

    /**
     * {@code ferry_property_int}.
     *
     * @param store the store
     * @param cf the family
     * @param name the property (UTF-8)
     * @return its value, or null when the engine does not know it
     */
    public Long propertyLong(long store, int cf, byte[] name) {
        Scratch s = Scratch.get(b);
        int rc = b.propertyInt(store, cf, s.cString(name), s.out(0), s.err());
        if (rc == Abi.NOTFOUND) {
            return null;
        }
        check(s, rc);
        return s.outLong(0);
    }

    // ---- backups ----

    /**
     * {@code ferry_backups_open}.
     *
     * @param dir the backup directory (UTF-8)
     * @return the handle
     */
    public long backupsOpen(byte[] dir) {
        Scratch s = Scratch.get(b);
        check(s, b.backupsOpen(s.cString(dir), s.out(0), s.err()));
        return s.outLong(0);
    }

    /**
     * {@code ferry_backups_close}.
     *
     * @param backups the handle
     */
    public void backupsClose(long backups) {
        b.backupsClose(backups);
    }

    /**
     * {@code ferry_backups_create}.
     *
     * @param backups the handle
     * @param store the store to back up
     * @return the new backup's id
     */
    public int backupsCreate(long backups, long store) {
        Scratch s = Scratch.get(b);
        check(s, b.backupsCreate(backups, store, s.out(0), s.err()));
        return (int) s.outLong(0);
    }

    /**
     * {@code ferry_backups_list}: the records ({@code Abi.BACKUP_INFO_SIZE} bytes each) as longs.
     *
     * @param backups the handle
     * @return per backup {id, epoch seconds, size, files}
     */
    public long[][] backupsList(long backups) {
        Scratch s = Scratch.get(b);
        int room = 16;
        for (;;) {
            NativeBuffer m = s.ensure(Scratch.DATA + (long) room * Abi.BACKUP_INFO_SIZE, 0);
            check(s, b.backupsList(backups, m.addr + Scratch.DATA, (long) room * Abi.BACKUP_INFO_SIZE, s.out(0), s.err()));
            int n = (int) s.outLong(0);
            if (n > room) { // more backups than room: ask again with enough
                room = n;
                continue;
            }
            long[][] r = new long[n][];
            for (int i = 0; i < n; i++) {
                int off = Scratch.DATA + i * Abi.BACKUP_INFO_SIZE;
                r[i] = new long[] {m.buf.getInt(off), m.buf.getLong(off + 8), m.buf.getLong(off + 16), m.buf.getInt(off + 4)};
            }
            return r;
        }
    }

    /**
     * {@code ferry_backups_restore}.
     *
     * @param backups the handle
     * @param id the backup (0: the latest)
     * @param dbDir the target directory (UTF-8)
     */
    public void backupsRestore(long backups, int id, byte[] dbDir) {
        Scratch s = Scratch.get(b);
        check(s, b.backupsRestore(backups, id, s.cString(dbDir), s.err()));
    }

    /**
     * {@code ferry_backups_purge}.
     *
     * @param backups the handle
     * @param keep how many to keep
     */
    public void backupsPurge(long backups, int keep) {
        Scratch s = Scratch.get(b);
        check(s, b.backupsPurge(backups, keep, s.err()));
    }

    // ---- SST files ----

    /**
     * {@code ferry_sst_open}.
     *
     * @param path the file (UTF-8)
     * @param extra RocksDB options string, or null
     * @return the handle
     */
    public long sstOpen(byte[] path, byte[] extra) {
        Scratch s = Scratch.get(b);
        NativeBuffer m = s.ensure(Scratch.DATA + path.length + 1L + (extra == null ? 0 : extra.length + 1L), 0);
        int eoff = m.putCString(Scratch.DATA, path);
        if (extra != null) {
            m.putCString(eoff, extra);
        }
        check(s, b.sstOpen(m.addr + Scratch.DATA, extra == null ? 0 : m.addr + eoff, s.out(0), s.err()));
        return s.outLong(0);
    }

    /**
     * {@code ferry_sst_put}, {@code ferry_sst_merge} or {@code ferry_sst_delete}.
     *
     * @param writer the handle
     * @param kind 0 put, 1 merge, 2 delete
     * @param key the key
     * @param value the value or operand (null for a delete)
     */
    public void sstAdd(long writer, int kind, byte[] key, byte[] value) {
        Scratch s = Scratch.get(b);
        int voff = s.putTwo(key, value);
        long k = s.mem.addr + Scratch.DATA;
        long v = s.mem.addr + voff;
        int vlen = value == null ? 0 : value.length;
        int rc;
        switch (kind) {
            case 0: rc = b.sstPut(writer, k, key.length, v, vlen, s.err()); break;
            case 1: rc = b.sstMerge(writer, k, key.length, v, vlen, s.err()); break;
            default: rc = b.sstDelete(writer, k, key.length, s.err()); break;
        }
        check(s, rc);
    }

    /**
     * {@code ferry_sst_finish}.
     *
     * @param writer the handle
     * @return the file's size
     */
    public long sstFinish(long writer) {
        Scratch s = Scratch.get(b);
        check(s, b.sstFinish(writer, s.out(0), s.err()));
        return s.outLong(0);
    }

    /**
     * {@code ferry_sst_close}.
     *
     * @param writer the handle
     */
    public void sstClose(long writer) {
        b.sstClose(writer);
    }

    // ---- shared memory (RocksDB) ----

    /**
     * {@code ferry_cache_create}.
     *
     * @param capacity bytes
     * @param strict a strict capacity limit ({@code FERRY_CACHE_STRICT_CAPACITY})
     * @param highPriPpm high-priority share in parts per million, -1 for RocksDB's default
     * @return the handle
     */
    public long cacheCreate(long capacity, boolean strict, long highPriPpm) {
        Scratch s = Scratch.get(b);
        check(s, b.cacheCreate(capacity, Codes.cacheFlags(strict), highPriPpm, s.out(0), s.err()));
        return s.outLong(0);
    }

    /**
     * {@code ferry_cache_usage}.
     *
     * @param cache the handle
     * @return usage bytes, pinned bytes, holding stores, holding write buffer managers
     * @throws FerryException (InvalidArgument, with the native message) for a handle that is not an open cache
     */
    public long[] cacheUsage(long cache) {
        Scratch s = Scratch.get(b);
        s.mem.buf.putLong(Scratch.OUT + 16, 0).putLong(Scratch.OUT + 24, 0);
        check(s, b.cacheUsage(cache, s.out(0), s.out(1), s.out(2), s.out(3), s.err()));
        return new long[] {s.outLong(0), s.outLong(1), s.mem.buf.getInt(Scratch.OUT + 16) & 0xffffffffL,
            s.mem.buf.getInt(Scratch.OUT + 24) & 0xffffffffL};
    }

    /**
     * {@code ferry_cache_close}.
     *
     * @param cache the handle
     * @throws FerryException (Busy) while stores or write buffer managers hold it
     */
    public void cacheClose(long cache) {
        Scratch s = Scratch.get(b);
        check(s, b.cacheClose(cache, s.err()));
    }

    /**
     * {@code ferry_wbm_create}.
     *
     * @param cache cache handle or 0
     * @param bufferSize bytes
     * @param allowStall stall writes over the buffer size ({@code FERRY_WBM_ALLOW_STALL})
     * @return the handle
     */
    public long wbmCreate(long cache, long bufferSize, boolean allowStall) {
        Scratch s = Scratch.get(b);
        check(s, b.wbmCreate(cache, bufferSize, Codes.wbmFlags(allowStall), s.out(0), s.err()));
        return s.outLong(0);
    }

    /**
     * {@code ferry_wbm_usage}.
     *
     * @param wbm the handle
     * @return memtable bytes counted, holding stores
     * @throws FerryException (InvalidArgument, with the native message) for a handle that is not an open manager
     */
    public long[] wbmUsage(long wbm) {
        Scratch s = Scratch.get(b);
        s.mem.buf.putLong(Scratch.OUT + 8, 0);
        check(s, b.wbmUsage(wbm, s.out(0), s.out(1), s.err()));
        return new long[] {s.outLong(0), s.mem.buf.getInt(Scratch.OUT + 8) & 0xffffffffL};
    }

    /**
     * {@code ferry_wbm_close}.
     *
     * @param wbm the handle
     * @throws FerryException (Busy) while stores hold it
     */
    public void wbmClose(long wbm) {
        Scratch s = Scratch.get(b);
        check(s, b.wbmClose(wbm, s.err()));
    }
}
