package dev.ferry;

import dev.ferry.internal.Abi;

/**
 * Options of one write ({@link Store#put(ColumnFamily, byte[], byte[], WriteOptions)},
 * {@link Store#write(WriteBatch, WriteOptions)}), on top of the store's
 * {@link StoreOptions#syncWrites(boolean) syncWrites} and {@link StoreOptions#wal(boolean) wal}.
 * Immutable: each setter returns a new instance, so constants can be shared.
 *
 * <pre>{@code
 * static final WriteOptions INSERT = WriteOptions.DEFAULT.noOverwrite(true);
 * boolean inserted = store.put(cf, key, value, INSERT);
 * }</pre>
 *
 * <table>
 * <caption>What each option does per engine</caption>
 * <tr><th>option</th><th>RocksDB</th><th>LMDB</th></tr>
 * <tr><td>sync</td><td>{@code WriteOptions.sync}</td><td>the commit is followed by an fsync of the map</td></tr>
 * <tr><td>disableWal</td><td>{@code WriteOptions.disableWAL} (with sync: {@link FerryException.InvalidArgument})</td>
 *     <td>ignored: LMDB has no log</td></tr>
 * <tr><td>noOverwrite</td><td>{@link FerryException.NotSupported} (use a transaction)</td>
 *     <td>{@code MDB_NOOVERWRITE}</td></tr>
 * <tr><td>noDupData</td><td>{@link FerryException.NotSupported}</td>
 *     <td>{@code MDB_NODUPDATA}, {@link ColumnFamilyFlag#DUPSORT} families only</td></tr>
 * <tr><td>append</td><td>{@link FerryException.NotSupported}</td>
 *     <td>{@code MDB_APPEND} ({@code MDB_APPENDDUP} in a DUPSORT family)</td></tr>
 * </table>
 *
 * <p>Thread safety: immutable.
 */
public final class WriteOptions {
    /** No option: the store's defaults. */
    public static final WriteOptions DEFAULT = new WriteOptions(0);

    private final int flags;

    private WriteOptions(int flags) {
        this.flags = flags;
    }

    private WriteOptions with(int bit, boolean on) {
        return new WriteOptions(on ? flags | bit : flags & ~bit);
    }

    /**
     * Syncs this write to disk before it returns (it then survives an OS crash or power loss),
     * whatever {@link StoreOptions#syncWrites(boolean) syncWrites} says.
     *
     * @param on true to sync
     * @return options with the change
     */
    public WriteOptions sync(boolean on) {
        return with(Abi.WRITE_SYNC, on);
    }

    /**
     * RocksDB: leaves this write out of the write-ahead log (a crash loses it until its memtable is
     * flushed). Cannot be combined with {@link #sync(boolean)} on RocksDB. LMDB writes in place
     * and has no log: ignored.
     *
     * @param on true to skip the log
     * @return options with the change
     */
    public WriteOptions disableWal(boolean on) {
        return with(Abi.WRITE_NO_WAL, on);
    }

    /**
     * LMDB: writes a key only when it is absent (in a {@link ColumnFamilyFlag#DUPSORT} family: has
     * no value at all). A put then returns {@code false} when the key exists; a batch throws
     * {@link FerryException.KeyExists} and writes nothing. RocksDB has no such write: the call
     * throws {@link FerryException.NotSupported}.
     *
     * @param on true to refuse existing keys
     * @return options with the change
     */
    public WriteOptions noOverwrite(boolean on) {
        return with(Abi.WRITE_NO_OVERWRITE, on);
    }

    /**
     * LMDB {@link ColumnFamilyFlag#DUPSORT} families: adds a value only when the (key, value) pair
     * is absent. A put then returns {@code false} when the pair exists; a batch throws
     * {@link FerryException.KeyExists}. On another family: {@link FerryException.InvalidArgument};
     * on RocksDB: {@link FerryException.NotSupported}.
     *
     * @param on true to refuse existing pairs
     * @return options with the change
     */
    public WriteOptions noDupData(boolean on) {
        return with(Abi.WRITE_NO_DUP_DATA, on);
    }

    /**
     * LMDB: the caller writes keys in ascending order past the family's last key (in a
     * {@link ColumnFamilyFlag#DUPSORT} family: values in ascending order past the key's last
     * value), and LMDB appends them to the last page instead of searching, which makes bulk
     * loads faster and pages full. A key that does not sort after the last throws
     * {@link FerryException.InvalidArgument} and is not written. RocksDB:
     * {@link FerryException.NotSupported}.
     *
     * @param on true to append
     * @return options with the change
     */
    public WriteOptions append(boolean on) {
        return with(Abi.WRITE_APPEND, on);
    }

    /** @return true when {@link #sync(boolean)} is on */
    public boolean sync() {
        return (flags & Abi.WRITE_SYNC) != 0;
    }

    /** @return true when {@link #disableWal(boolean)} is on */
    public boolean disableWal() {
        return (flags & Abi.WRITE_NO_WAL) != 0;
    }

    /** @return true when {@link #noOverwrite(boolean)} is on */
    public boolean noOverwrite() {
        return (flags & Abi.WRITE_NO_OVERWRITE) != 0;
    }

    /** @return true when {@link #noDupData(boolean)} is on */
    public boolean noDupData() {
        return (flags & Abi.WRITE_NO_DUP_DATA) != 0;
    }

    /** @return true when {@link #append(boolean)} is on */
    public boolean append() {
        return (flags & Abi.WRITE_APPEND) != 0;
    }

    int flags() {
        return flags;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WriteOptions && ((WriteOptions) o).flags == flags;
    }

    @Override
    public int hashCode() {
        return flags;
    }

    @Override
    public String toString() {
        return "WriteOptions[sync=" + sync() + ", disableWal=" + disableWal() + ", noOverwrite=" + noOverwrite()
                + ", noDupData=" + noDupData() + ", append=" + append() + "]";
    }
}
