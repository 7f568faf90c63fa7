package dev.ferry;

import dev.ferry.internal.Codes;

/**
 * Per-cursor settings. Defaults: the store's page size, fill the block cache, zero-copy pointer
 * pages on LMDB and copy pages on RocksDB (see {@link #pointers}), LMDB leaf pages read directly.
 *
 * <p>Thread safety: not thread-safe; read when the cursor opens.
 */
public final class CursorOptions {
    int pageSize = -1;
    boolean fillCache = true;
    /** Set by {@link #pointers}; null: the engine's default (LMDB pointer pages, RocksDB {@link #ROCKSDB_POINTERS}). */
    Boolean pointers;
    boolean pageWalk = true;
    boolean verifyChecksums = true;
    boolean asyncIo;
    boolean autoPrefixMode;

    /** @return new default options */
    public static CursorOptions defaults() {
        return new CursorOptions();
    }

    /**
     * Page size in bytes (from 256 bytes to 1 GiB); entries larger than a page still come through whole.
     *
     * @param bytes the size
     * @return this
     */
    public CursorOptions pageSize(int bytes) {
        if (bytes < StoreOptions.MIN_PAGE_SIZE || bytes > StoreOptions.MAX_PAGE_SIZE) {
            throw new IllegalArgumentException("pageSize=" + bytes + " (from " + StoreOptions.MIN_PAGE_SIZE + " to "
                    + StoreOptions.MAX_PAGE_SIZE + " bytes)");
        }
        this.pageSize = bytes;
        return this;
    }

    /**
     * RocksDB: whether blocks read by this cursor enter the block cache (default true; turn off
     * for one-off bulk scans).
     *
     * @param v the flag
     * @return this
     */
    public CursorOptions fillCache(boolean v) {
        this.fillCache = v;
        return this;
    }

    /**
     * RocksDB: whether the cursor verifies the checksum of every table block it reads (default
     * true, RocksDB's default). Off saves the checksum computation on scans of trusted data; a
     * corrupt block may then go unnoticed. LMDB keeps no checksums: no effect.
     *
     * @param v the flag
     * @return this
     */
    public CursorOptions verifyChecksums(boolean v) {
        this.verifyChecksums = v;
        return this;
    }

    /**
     * RocksDB: let the cursor prefetch table blocks asynchronously ({@code ReadOptions.async_io},
     * default false), which overlaps the reads of a long scan over files that are not cached. A
     * RocksDB without it (rocksdbjni 7.x) makes the cursor's open throw
     * {@link FerryException.NotSupported}. LMDB reads through its memory map: no effect.
     *
     * @param v the flag
     * @return this
     */
    public CursorOptions asyncIo(boolean v) {
        this.asyncIo = v;
        return this;
    }

    /**
     * RocksDB: let seeks use the family's prefix bloom filters ({@code ReadOptions.auto_prefix_mode},
     * default false) on a family with a prefix extractor ({@link ColumnFamilyOptions#prefixLength}).
     * The answers stay those of a total-order scan: RocksDB takes the prefix path only for seeks whose
     * range cannot leave the seek key's prefix (a {@link KeyRange#prefix} range at least as long as the
     * extractor's prefix, or bounds of the same prefix), and there a filter that rules the prefix out
     * skips the table file. Without it (the default), every seek reads in total order and filters serve
     * point gets only. A RocksDB whose C API lacks the option (rocksdbjni 10.1.3 does; 11.8.1 has it) makes the cursor's open throw
     * {@link FerryException.NotSupported}. LMDB: no effect.
     *
     * @param v the flag
     * @return this
     */
    public CursorOptions autoPrefixMode(boolean v) {
        this.autoPrefixMode = v;
        return this;
    }

    /**
     * Pages of pointers or copies. LMDB: pointers into the map (the default). RocksDB: values are
     * read where the cursor's iterator keeps the blocks and memtable entries it read pinned
     * ({@code ReadOptions.pin_data}), keys are copied into the page; a cursor opens a fresh
     * iterator at its position once it has read 4 MiB, so it pins about that much of the block
     * cache at most. RocksDB's default is copies ({@code -Dferry.rocksdb.pointers=true} makes pointer
     * pages its default: docs/benchmarks.md has the instruction counts), and it fills copy pages,
     * whatever this says, for families with a merge operator or blob files and for transactions.
     * Either way a view is valid until the cursor's next move.
     *
     * @param v the flag
     * @return this
     */
    public CursorOptions pointers(boolean v) {
        this.pointers = v;
        return this;
    }

    /**
     * LMDB: whether a fill reads the rest of a leaf page straight from the map (default true) or
     * steps through every entry with {@code mdb_cursor_get}. Both give the same entries; the walk
     * checks each page against LMDB's answer and LMDB's data file format (version 1, every LMDB
     * 0.9 release) and leaves any page that does not pass to LMDB (docs/design.md, "Direct
     * leaf-page walk"). Turn it off to measure it, or if a page ever reads wrong.
     *
     * @param v the flag
     * @return this
     */
    public CursorOptions pageWalk(boolean v) {
        this.pageWalk = v;
        return this;
    }

    /** {@code -Dferry.rocksdb.pointers=true}: RocksDB cursors fill pointer pages unless told otherwise (the tests run both). */
    static final boolean ROCKSDB_POINTERS = Boolean.getBoolean("ferry.rocksdb.pointers");

    /**
     * @param engine the store's engine
     * @return the {@code FERRY_CURSOR_*} flags of these options
     */
    int nativeFlags(Engine engine) {
        boolean ptr = pointers != null ? pointers : engine != Engine.ROCKSDB || ROCKSDB_POINTERS;
        return Codes.cursorFlags(ptr, fillCache, pageWalk, verifyChecksums, asyncIo, autoPrefixMode);
    }
}
