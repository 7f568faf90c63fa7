package dev.ferry;

/**
 * Which transactions a RocksDB store offers ({@link StoreOptions#transactions(TransactionMode)}).
 * LMDB always has its one write transaction and ignores the choice.
 */
public enum TransactionMode {
    /** No transactions (the default): {@link Store#beginTransaction()} throws {@link FerryException.NotSupported}. */
    NONE,
    /**
     * RocksDB TransactionDB: writes and {@link Transaction#getForUpdate} lock their keys; a lock wait
     * longer than the lock timeout throws {@link FerryException.TimedOut}, a deadlock
     * {@link FerryException.Deadlock}. Plain writes of the store take the same locks.
     */
    PESSIMISTIC,
    /**
     * RocksDB OptimisticTransactionDB: nothing is locked; {@link Transaction#commit()} throws
     * {@link FerryException.Conflict} when a key the transaction wrote or read for update was written
     * by someone else after the transaction first touched it.
     */
    OPTIMISTIC
}
