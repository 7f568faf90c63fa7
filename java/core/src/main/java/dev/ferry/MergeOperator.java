package dev.ferry;

/**
 * RocksDB's built-in merge operators that a Ferry store accepts
 * ({@link StoreOptions#mergeOperator(MergeOperator)}); each combines the operands given to
 * {@link Store#merge(ColumnFamily, byte[], byte[])} or {@link WriteBatch#merge(ColumnFamily, byte[], byte[])}
 * with the key's existing value inside the engine, at read or compaction time.
 *
 * <p>Not offered: RocksDB's {@code sortlist} (it parses operands with {@code std::stoi} and aborts
 * the process on one that is not a comma-separated list of integers). Merge operators written in
 * Java: {@link JavaMergeOperator}.
 *
 * <p>Thread safety: immutable.
 */
public enum MergeOperator {
    /**
     * {@code uint64add}: the value and every operand are 8-byte little-endian unsigned integers,
     * and a merge adds them (wrapping around at 2^64). A counter: {@code merge(key, 1L as 8 LE bytes)}.
     * An operand of another length is counted as 0 (RocksDB logs it).
     */
    UINT64_ADD("uint64add"),
    /** {@code stringappend}: operands are appended to the value, separated by a comma. */
    STRING_APPEND("stringappend"),
    /** {@code max}: the value becomes the largest of the value and the operands, in unsigned byte order. */
    MAX("max"),
    /** {@code put}: the value becomes the last operand (a merge behaves like a put). */
    PUT("put"),
    /** {@code bytesxor}: the value becomes the byte-wise XOR of the value and the operands (the shorter padded with zeros). */
    BYTES_XOR("bytesxor");

    private final String engineName;

    MergeOperator(String engineName) {
        this.engineName = engineName;
    }

    /** @return RocksDB's name of the operator, as its options string takes it ({@code merge_operator=<name>}) */
    public String engineName() {
        return engineName;
    }
}
