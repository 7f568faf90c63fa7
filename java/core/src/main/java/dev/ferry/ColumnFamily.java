package dev.ferry;

/**
 * A column family: a separate key space in a store (RocksDB column family, LMDB named
 * database). Obtained from {@link Store#columnFamilies()}, {@link Store#columnFamily(String)} or
 * {@link Store#createColumnFamily(String)}; valid until dropped or the store closes.
 *
 * <p>Thread safety: immutable apart from the dropped flag; safe to share.
 */
public final class ColumnFamily {
    final Store store;
    final int id;
    private final String name;
    volatile boolean dropped;

    ColumnFamily(Store store, int id, String name) {
        this.store = store;
        this.id = id;
        this.name = name;
    }

    /** @return the family's name ({@code "default"} for the default family) */
    public String name() {
        return name;
    }

    /** @return true once dropped */
    public boolean isDropped() {
        return dropped;
    }

    @Override
    public String toString() {
        return "ColumnFamily[" + name + (dropped ? ", dropped" : "") + "]";
    }
}
