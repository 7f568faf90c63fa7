package dev.ferry;

import dev.ferry.internal.Abi;

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
    public static final ReadOptions DEFAULT = new ReadOptions(0);

    private final int flags;

    private ReadOptions(int flags) {
        this.flags = flags;
    }

    /**
     * @param fill whether the blocks read enter the block cache (default true)
     * @return options with it set
     */
    public ReadOptions fillCache(boolean fill) {
        return new ReadOptions(fill ? flags & ~Abi.CURSOR_NO_FILL_CACHE : flags | Abi.CURSOR_NO_FILL_CACHE);
    }

    /**
     * @param verify whether the checksums of the blocks read are verified (default true)
     * @return options with it set
     */
    public ReadOptions verifyChecksums(boolean verify) {
        return new ReadOptions(verify ? flags & ~Abi.CURSOR_NO_VERIFY_CHECKSUMS : flags | Abi.CURSOR_NO_VERIFY_CHECKSUMS);
    }

    /** @return whether the blocks read enter the block cache */
    public boolean fillCache() {
        return (flags & Abi.CURSOR_NO_FILL_CACHE) == 0;
    }

    /** @return whether block checksums are verified */
    public boolean verifyChecksums() {
        return (flags & Abi.CURSOR_NO_VERIFY_CHECKSUMS) == 0;
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
