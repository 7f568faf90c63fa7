package dev.ferry;

/**
 * Per-cursor settings. Defaults: the store's page size, fill the block cache, zero-copy pointer
 * pages where the engine supports them (LMDB).
 *
 * <p>Thread safety: not thread-safe; read when the cursor opens.
 */
public final class CursorOptions {
    int pageSize = -1;
    boolean fillCache = true;
    boolean pointers = true;

    /** @return new default options */
    public static CursorOptions defaults() {
        return new CursorOptions();
    }

    /**
     * Page size in bytes (minimum 256); entries larger than a page still come through whole.
     *
     * @param bytes the size
     * @return this
     */
    public CursorOptions pageSize(int bytes) {
        if (bytes < 256) {
            throw new IllegalArgumentException("pageSize=" + bytes + " (minimum 256)");
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
     * LMDB: pages of pointers into the map (zero-copy, default true) or copies.
     *
     * @param v the flag
     * @return this
     */
    public CursorOptions pointers(boolean v) {
        this.pointers = v;
        return this;
    }
}
