package dev.ferry;

import dev.ferry.internal.Abi;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * RocksDB options of one column family, overriding the store's: block compression, bloom filter
 * bits per key, table block size, a fixed-length prefix extractor, the merge operator, the key
 * order ({@link KeyOrder}) and a time to live ({@link #ttl(long, int)}). A setting
 * left unset is the store's ({@link StoreOptions}).
 *
 * <pre>{@code
 * ColumnFamilyOptions events = ColumnFamilyOptions.of().compression(Compression.LZ4)
 *         .bloomBitsPerKey(10).fixedPrefixLength(8).mergeOperator(MergeOperator.UINT64_ADD);
 * ColumnFamily cf = store.createColumnFamily("events", events);
 * // at every later open of the store:
 * Store.open(path, StoreOptions.rocksdb().columnFamily("events", events));
 * }</pre>
 *
 * <p>RocksDB does not take a family's options from its files: an application gives them again at
 * every open ({@link StoreOptions#columnFamily(String, ColumnFamilyOptions)}), as a RocksJava one
 * gives its {@code ColumnFamilyDescriptor}s. A family opened without them has the store's options;
 * table files written with another compression, block size or filter stay readable, but an open that
 * would leave a family without the merge operator its last open had fails with
 * {@link FerryException.InvalidArgument} (its merge operands would be unreadable).
 *
 * <p>LMDB has none of these settings: creating or opening a family with any of them set throws
 * {@link FerryException.NotSupported}; options with nothing set ({@link #of()}) are accepted and
 * change nothing. LMDB families take {@link ColumnFamilyFlag}s instead.
 *
 * <p>Thread safety: immutable; every setter returns a new instance.
 */
public final class ColumnFamilyOptions {
    private static final ColumnFamilyOptions EMPTY = new ColumnFamilyOptions(null, -1, -1, -1, null, null, -1, -1);

    private final Compression compression;
    private final int bloomBitsPerKey;
    private final int blockSize;
    private final int prefixLength;
    private final MergeOperator mergeOperator;
    private final KeyOrder keyOrder;
    private final long ttlMillis;
    private final int ttlOffset;

    private ColumnFamilyOptions(Compression compression, int bloomBitsPerKey, int blockSize, int prefixLength,
            MergeOperator mergeOperator, KeyOrder keyOrder, long ttlMillis, int ttlOffset) {
        this.compression = compression;
        this.bloomBitsPerKey = bloomBitsPerKey;
        this.blockSize = blockSize;
        this.prefixLength = prefixLength;
        this.mergeOperator = mergeOperator;
        this.keyOrder = keyOrder == KeyOrder.BYTEWISE ? null : keyOrder;
        this.ttlMillis = ttlMillis;
        this.ttlOffset = ttlOffset;
    }

    /** @return options with nothing set: the family has the store's options */
    public static ColumnFamilyOptions of() {
        return EMPTY;
    }

    /**
     * Block compression of the family's table files.
     *
     * @param c the compression
     * @return a copy with it set
     */
    public ColumnFamilyOptions compression(Compression c) {
        Objects.requireNonNull(c, "compression");
        return new ColumnFamilyOptions(c, bloomBitsPerKey, blockSize, prefixLength, mergeOperator, keyOrder, ttlMillis, ttlOffset);
    }

    /**
     * Bloom filter bits per key (0: no filter, even when the store has one). With a
     * {@link #fixedPrefixLength(int) prefix extractor} the filter also holds the prefixes.
     *
     * @param bits 0 to 100
     * @return a copy with it set
     * @throws IllegalArgumentException outside 0..100
     */
    public ColumnFamilyOptions bloomBitsPerKey(int bits) {
        if (bits < 0 || bits > Abi.CFOPT_MAX_BLOOM_BITS) {
            throw new IllegalArgumentException("bloomBitsPerKey=" + bits + ", must be 0.." + Abi.CFOPT_MAX_BLOOM_BITS);
        }
        return new ColumnFamilyOptions(compression, bits, blockSize, prefixLength, mergeOperator, keyOrder, ttlMillis, ttlOffset);
    }

    /**
     * Size of the family's table blocks before compression (RocksDB's default 4096 bytes).
     *
     * @param bytes 1 to 2^30
     * @return a copy with it set
     * @throws IllegalArgumentException outside 1..2^30
     */
    public ColumnFamilyOptions blockSize(int bytes) {
        if (bytes < 1 || bytes > Abi.CFOPT_MAX_BLOCK_SIZE) {
            throw new IllegalArgumentException("blockSize=" + bytes + ", must be 1.." + Abi.CFOPT_MAX_BLOCK_SIZE);
        }
        return new ColumnFamilyOptions(compression, bloomBitsPerKey, bytes, prefixLength, mergeOperator, keyOrder, ttlMillis, ttlOffset);
    }

    /**
     * A fixed-length prefix extractor ({@code rocksdb.FixedPrefix.n}): the first {@code bytes} bytes
     * of a key are its prefix (shorter keys have none), so bloom filters answer prefix lookups.
     * Ferry's cursors still seek in total order, so ranges stay exact with it.
     *
     * @param bytes 1 to 4096, or 0 for no prefix extractor (even when the store's options string sets one)
     * @return a copy with it set
     * @throws IllegalArgumentException outside 0..4096
     */
    public ColumnFamilyOptions fixedPrefixLength(int bytes) {
        if (bytes < 0 || bytes > Abi.CFOPT_MAX_PREFIX_LEN) {
            throw new IllegalArgumentException("fixedPrefixLength=" + bytes + ", must be 0.." + Abi.CFOPT_MAX_PREFIX_LEN);
        }
        return new ColumnFamilyOptions(compression, bloomBitsPerKey, blockSize, bytes, mergeOperator, keyOrder, ttlMillis, ttlOffset);
    }

    /**
     * The family's merge operator, which {@link Store#merge(ColumnFamily, byte[], byte[])} into it needs
     * when the store has none (or another one).
     *
     * @param op the operator
     * @return a copy with it set
     */
    public ColumnFamilyOptions mergeOperator(MergeOperator op) {
        Objects.requireNonNull(op, "mergeOperator");
        return new ColumnFamilyOptions(compression, bloomBitsPerKey, blockSize, prefixLength, op, keyOrder, ttlMillis, ttlOffset);
    }

    /**
     * The order of the family's keys (see {@link KeyOrder}): set when the family is created and given
     * again at every open. {@link KeyOrder#BYTEWISE}, every family's order, is the same as not setting it.
     *
     * @param order the order
     * @return a copy with it set
     */
    public ColumnFamilyOptions keyOrder(KeyOrder order) {
        Objects.requireNonNull(order, "keyOrder");
        return new ColumnFamilyOptions(compression, bloomBitsPerKey, blockSize, prefixLength, mergeOperator, order, ttlMillis, ttlOffset);
    }

    /**
     * A time to live for the family's values, enforced natively (a compaction filter of Ferry's library
     * and a check on reads; no Java runs per key). Each value carries its write time: a big-endian
     * {@code long} of milliseconds since the epoch at byte {@code timestampOffset} of the value, which
     * the writer puts there (Apache Flink's TTL state keeps it at offset 0 for value state, 1 for map
     * state). A value is expired once {@code timestamp + ttlMillis <= now}: reads no longer find it
     * (gets, multiGets, cursors, transactions) and compactions drop it. A value shorter than
     * {@code timestampOffset + 8} bytes never expires. "Now" is the wall clock, or
     * {@link Store#setTtlClock(long)}'s time. Given again at every open, like every family option.
     *
     * @param ttlMillis the time to live in milliseconds, at least 1
     * @param timestampOffset the timestamp's byte offset in each value, 0 to 65536
     * @return a copy with it set
     * @throws IllegalArgumentException outside those ranges
     */
    public ColumnFamilyOptions ttl(long ttlMillis, int timestampOffset) {
        if (ttlMillis < 1) {
            throw new IllegalArgumentException("ttlMillis=" + ttlMillis + ", must be at least 1");
        }
        if (timestampOffset < 0 || timestampOffset > Abi.CFOPT_MAX_TTL_OFFSET) {
            throw new IllegalArgumentException("timestampOffset=" + timestampOffset + ", must be 0.." + Abi.CFOPT_MAX_TTL_OFFSET);
        }
        return new ColumnFamilyOptions(compression, bloomBitsPerKey, blockSize, prefixLength, mergeOperator, keyOrder,
                ttlMillis, timestampOffset);
    }

    /** @return the time to live in milliseconds, if set */
    public OptionalLong ttlMillis() {
        return ttlMillis < 0 ? OptionalLong.empty() : OptionalLong.of(ttlMillis);
    }

    /** @return the byte offset of the values' timestamps, if a TTL is set */
    public OptionalInt ttlTimestampOffset() {
        return ttlOffset < 0 ? OptionalInt.empty() : OptionalInt.of(ttlOffset);
    }

    /** @return the key order ({@link KeyOrder#BYTEWISE} when not set) */
    public KeyOrder keyOrder() {
        return keyOrder == null ? KeyOrder.BYTEWISE : keyOrder;
    }

    /** @return the compression, if set */
    public Optional<Compression> compression() {
        return Optional.ofNullable(compression);
    }

    /** @return the bloom filter bits per key, if set */
    public OptionalInt bloomBitsPerKey() {
        return bloomBitsPerKey < 0 ? OptionalInt.empty() : OptionalInt.of(bloomBitsPerKey);
    }

    /** @return the block size, if set */
    public OptionalInt blockSize() {
        return blockSize < 0 ? OptionalInt.empty() : OptionalInt.of(blockSize);
    }

    /** @return the fixed prefix length (0: none), if set */
    public OptionalInt fixedPrefixLength() {
        return prefixLength < 0 ? OptionalInt.empty() : OptionalInt.of(prefixLength);
    }

    /** @return the merge operator, if set */
    public Optional<MergeOperator> mergeOperator() {
        return Optional.ofNullable(mergeOperator);
    }

    /** @return whether nothing is set (the family has the store's options) */
    public boolean isEmpty() {
        return equals(EMPTY);
    }

    /** @return the FERRY_CFOPT_* array (-1 = unset) */
    long[] toNative() {
        long[] o = new long[Abi.CFOPT_COUNT];
        Arrays.fill(o, -1);
        o[Abi.CFOPT_COMPRESSION] = compression == null ? -1 : compression.value();
        o[Abi.CFOPT_BLOOM_BITS] = bloomBitsPerKey;
        o[Abi.CFOPT_BLOCK_SIZE] = blockSize;
        o[Abi.CFOPT_PREFIX_LEN] = prefixLength;
        o[Abi.CFOPT_KEY_ORDER] = keyOrder == null ? -1 : keyOrder.value();
        o[Abi.CFOPT_TTL_MS] = ttlMillis;
        o[Abi.CFOPT_TTL_OFFSET] = ttlOffset;
        return o;
    }

    /** @return the family's options string for the shim, or null */
    String nativeOptionsString() {
        return mergeOperator == null ? null : "merge_operator=" + mergeOperator.engineName();
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ColumnFamilyOptions)) {
            return false;
        }
        ColumnFamilyOptions x = (ColumnFamilyOptions) o;
        return compression == x.compression && bloomBitsPerKey == x.bloomBitsPerKey && blockSize == x.blockSize
                && prefixLength == x.prefixLength && mergeOperator == x.mergeOperator && keyOrder == x.keyOrder
                && ttlMillis == x.ttlMillis && ttlOffset == x.ttlOffset;
    }

    @Override
    public int hashCode() {
        return Objects.hash(compression, bloomBitsPerKey, blockSize, prefixLength, mergeOperator, keyOrder, ttlMillis, ttlOffset);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("ColumnFamilyOptions{");
        String sep = "";
        if (compression != null) {
            b.append("compression=").append(compression);
            sep = ", ";
        }
        if (bloomBitsPerKey >= 0) {
            b.append(sep).append("bloomBitsPerKey=").append(bloomBitsPerKey);
            sep = ", ";
        }
        if (blockSize >= 0) {
            b.append(sep).append("blockSize=").append(blockSize);
            sep = ", ";
        }
        if (prefixLength >= 0) {
            b.append(sep).append("fixedPrefixLength=").append(prefixLength);
            sep = ", ";
        }
        if (mergeOperator != null) {
            b.append(sep).append("mergeOperator=").append(mergeOperator);
            sep = ", ";
        }
        if (keyOrder != null) {
            b.append(sep).append("keyOrder=").append(keyOrder);
            sep = ", ";
        }
        if (ttlMillis >= 0) {
            b.append(sep).append("ttl=").append(ttlMillis).append("ms@").append(ttlOffset);
        }
        return b.append('}').toString();
    }
}
