package dev.ferry.internal;

/**
 * The kinds of write the API hands to the call layer, one per record kind of an encoded batch
 * ({@code ferry_write}, {@code ferry_txn_write}): the call layer writes each one's
 * {@code FERRY_OP_*} code ({@link NativeCalls#batchRecord}, {@link NativeCalls#txnRecord}), which
 * the API does not see.
 *
 * <p>Thread safety: immutable.
 */
public enum WriteOp {
    /** Put a value. */
    PUT(Abi.OP_PUT),
    /** Delete a key. */
    DELETE(Abi.OP_DELETE),
    /** Delete a range of keys, begin included, end excluded. */
    DELETE_RANGE(Abi.OP_DELETE_RANGE),
    /** Delete one (key, value) pair of an LMDB DUPSORT family. */
    DELETE_VALUE(Abi.OP_DELETE_VALUE),
    /** Merge an operand (RocksDB stores with a merge operator). */
    MERGE(Abi.OP_MERGE);

    private final int code;

    WriteOp(int code) {
        this.code = code;
    }

    /** @return the {@code FERRY_OP_*} code */
    int code() {
        return code;
    }
}
