package dev.ferry;

import java.util.Set;

/**
 * A column family: a separate key space in a store (RocksDB column family, LMDB named
 * database). Obtained from {@link Store#columnFamilies()}, {@link Store#columnFamily(String)} or
 * {@link Store#createColumnFamily(String)}; valid until dropped or the store closes.
 *
 * <p>Thread safety: immutable apart from the dropped flag; safe to share.
 */
public final class ColumnFamily {
    /** The store it belongs to. */
    final StoreCore owner;
    final int id;
    private final String name;
    /** FERRY_CF_* bits. */
    final int flags;
    /** Read from {@link #flags} once: a cursor's open asks for both. */
    private final KeyOrder keyOrder;
    private final boolean duplicates;
    volatile boolean dropped;

    ColumnFamily(StoreCore owner, int id, String name, int flags) {
        this.owner = owner;
        this.id = id;
        this.name = name;
        this.flags = flags;
        this.keyOrder = KeyOrder.ofFlags(flags);
        this.duplicates = ColumnFamilyFlag.of(flags).contains(ColumnFamilyFlag.DUPSORT);
    }

    /**
     * The flags the family was created with (read from the store when it was opened).
     *
     * @return a copy: empty for RocksDB families, the default family and plain LMDB ones
     */
    public Set<ColumnFamilyFlag> flags() {
        return ColumnFamilyFlag.of(flags);
    }

    /**
     * The order of the family's keys, as the engine reports it ({@link ColumnFamilyOptions#keyOrder(KeyOrder)}).
     *
     * @return the order; {@link KeyOrder#BYTEWISE} unless the family was created with another
     */
    public KeyOrder keyOrder() {
        return keyOrder;
    }

    /** @return true when the family keeps several values per key ({@link ColumnFamilyFlag#DUPSORT}) */
    public boolean hasDuplicates() {
        return duplicates;
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
