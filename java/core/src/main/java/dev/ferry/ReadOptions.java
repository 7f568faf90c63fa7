package dev.ferry;

import dev.ferry.internal.Codes;

/**
 * Options of one point read ({@link Store#get(ColumnFamily, byte[], ReadOptions)},
 * {@link Store#multiGet(ColumnFamily, java.util.List, ReadOptions)} and the same on a {@link Snapshot}),
 * the point-read counterpart of {@link CursorOptions#fillCache(boolean)} and
 * {@link CursorOptions#verifyChecksums(boolean)}:
 *
 * <pre>{@code
 * byte[] v = store.get(cf, key, ReadOptions.DEFAULT.fillCache(false));
 * }</pre>
 *
 * <ul>
 * <li>RocksDB: {@code fillCache(false)} keeps the blocks the read loads out of the block cache (a
 *     one-off lookup that should not evict hot blocks); {@code verifyChecksums(false)} skips verifying
 *     their checksums.</li>
 * <li>LMDB has neither a block cache nor checksums: the options have no effect there.</li>
 * <li>Reads through a {@link Transaction} have no such overload; its reads use the defaults.</li>
 * </ul>
 * The results are the same with any options.
 *
 * <p>Thread safety: immutable.
 */
public final class ReadOptions {
    /** The defaults: fill the cache, verify checksums. */
    public static final ReadOptions DEFAULT = new ReadOptions(true, true);

    private final boolean fillCache;
    private final boolean verifyChecksums;
    /** The FERRY_CURSOR_* flags of these options, from the call layer. */
    private final int flags;

    private ReadOptions(boolean fillCache, boolean verifyChecksums) {
        this.fillCache = fillCache;
        this.verifyChecksums = verifyChecksums;
        this.flags = Codes.readFlags(fillCache, verifyChecksums);
    }

    /**
     * @param fill whether the blocks read enter the block cache (default true)
     * @return options with it set
     */
    public ReadOptions fillCache(boolean fill) {
        return new ReadOptions(fill, verifyChecksums);
    }

    /**
     * @param verify whether the checksums of the blocks read are verified (default true)
     * @return options with it set
     */
    public ReadOptions verifyChecksums(boolean verify) {
        return new ReadOptions(fillCache, verify);
    }

    /** @return whether the blocks read enter the block cache */
    public boolean fillCache() {
        return fillCache;
    }

    /** @return whether block checksums are verified */
    public boolean verifyChecksums() {
        return verifyChecksums;
    }

    /** @return the FERRY_CURSOR_* read flags of ferry_get and ferry_multi_get */
    int flags() {
        return flags;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ReadOptions && ((ReadOptions) o).flags == flags;
    }

    @Override
    public int hashCode() {
        return flags;
    }

    @Override
    public String toString() {
        return "ReadOptions{fillCache=" + fillCache() + ", verifyChecksums=" + verifyChecksums() + "}";
    }
}
