package dev.ferry;

import dev.ferry.internal.Codes;

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
    public static final WriteOptions DEFAULT = new WriteOptions(false, false, false, false, false);

    private final boolean sync;
    private final boolean disableWal;
    private final boolean noOverwrite;
    private final boolean noDupData;
    private final boolean append;
    /** The FERRY_WRITE_* flags of these options, from the call layer. */
    private final int flags;

    private WriteOptions(boolean sync, boolean disableWal, boolean noOverwrite, boolean noDupData, boolean append) {
        this.sync = sync;
        this.disableWal = disableWal;
        this.noOverwrite = noOverwrite;
        this.noDupData = noDupData;
        this.append = append;
        this.flags = Codes.writeFlags(sync, disableWal, noOverwrite, noDupData, append);
    }

    /**
     * Syncs this write to disk before it returns (it then survives an OS crash or power loss),
     * whatever {@link StoreOptions#syncWrites(boolean) syncWrites} says.
     *
     * @param on true to sync
     * @return options with the change
     */
    public WriteOptions sync(boolean on) {
        return new WriteOptions(on, disableWal, noOverwrite, noDupData, append);
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
        return new WriteOptions(sync, on, noOverwrite, noDupData, append);
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
        return new WriteOptions(sync, disableWal, on, noDupData, append);
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
        return new WriteOptions(sync, disableWal, noOverwrite, on, append);
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
        return new WriteOptions(sync, disableWal, noOverwrite, noDupData, on);
    }

    /** @return true when {@link #sync(boolean)} is on */
    public boolean sync() {
        return sync;
    }

    /** @return true when {@link #disableWal(boolean)} is on */
    public boolean disableWal() {
        return disableWal;
    }

    /** @return true when {@link #noOverwrite(boolean)} is on */
    public boolean noOverwrite() {
        return noOverwrite;
    }

    /** @return true when {@link #noDupData(boolean)} is on */
    public boolean noDupData() {
        return noDupData;
    }

    /** @return true when {@link #append(boolean)} is on */
    public boolean append() {
        return append;
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
