package dev.ferry;

import java.util.Arrays;

/**
 * LMDB's statistics of one column family (its B+tree: {@code mdb_stat}) and of the environment
 * ({@code mdb_env_info}), read at one moment by {@link Store#lmdbStats(ColumnFamily)}. The default
 * family's tree also holds the records naming the other families.
 *
 * <p>Thread safety: immutable.
 */
public final class LmdbStats {
    private final long pageSize;
    private final long depth;
    private final long branchPages;
    private final long leafPages;
    private final long overflowPages;
    private final long entries;
    private final long mapSize;
    private final long lastPage;
    private final long lastTxnId;
    private final long maxReaders;
    private final long readers;

    private LmdbStats(long[] v) {
        this.pageSize = v[0];
        this.depth = v[1];
        this.branchPages = v[2];
        this.leafPages = v[3];
        this.overflowPages = v[4];
        this.entries = v[5];
        this.mapSize = v[6];
        this.lastPage = v[7];
        this.lastTxnId = v[8];
        this.maxReaders = v[9];
        this.readers = v[10];
    }

    private static final String[] KEYS = {"page_size", "depth", "branch_pages", "leaf_pages", "overflow_pages", "entries",
        "map_size", "last_pgno", "last_txnid", "max_readers", "num_readers"};

    /** Parses the shim's {@code lmdb.stat} and {@code lmdb.info} texts ({@code key=value ...}). */
    static LmdbStats parse(String stat, String info) {
        long[] v = new long[KEYS.length];
        Arrays.fill(v, -1);
        for (String pair : (stat + " " + info).trim().split("\\s+")) {
            int eq = pair.indexOf('=');
            if (eq < 0) {
                continue;
            }
            String k = pair.substring(0, eq);
            for (int i = 0; i < KEYS.length; i++) {
                if (KEYS[i].equals(k)) {
                    v[i] = Long.parseLong(pair.substring(eq + 1));
                }
            }
        }
        for (int i = 0; i < KEYS.length; i++) {
            if (v[i] < 0) {
                throw new IllegalStateException("LMDB statistics without " + KEYS[i] + ": " + stat + " / " + info);
            }
        }
        return new LmdbStats(v);
    }

    /** @return the page size in bytes */
    public long pageSize() {
        return pageSize;
    }

    /** @return the depth of the family's B+tree (0 when empty) */
    public long depth() {
        return depth;
    }

    /** @return the family's internal (branch) pages */
    public long branchPages() {
        return branchPages;
    }

    /** @return the family's leaf pages */
    public long leafPages() {
        return leafPages;
    }

    /** @return the family's overflow pages (values too large for a leaf page) */
    public long overflowPages() {
        return overflowPages;
    }

    /** @return the family's entries */
    public long entries() {
        return entries;
    }

    /** @return the environment's map size in bytes */
    public long mapSize() {
        return mapSize;
    }

    /** @return the last page number in use in the environment */
    public long lastPage() {
        return lastPage;
    }

    /** @return the last committed transaction id */
    public long lastTxnId() {
        return lastTxnId;
    }

    /** @return the size of the reader table */
    public long maxReaders() {
        return maxReaders;
    }

    /** @return reader slots in use */
    public long readers() {
        return readers;
    }

    @Override
    public String toString() {
        return "LmdbStats[pageSize=" + pageSize + " depth=" + depth + " branchPages=" + branchPages + " leafPages="
                + leafPages + " overflowPages=" + overflowPages + " entries=" + entries + " mapSize=" + mapSize
                + " lastPage=" + lastPage + " lastTxnId=" + lastTxnId + " maxReaders=" + maxReaders + " readers="
                + readers + "]";
    }
}
