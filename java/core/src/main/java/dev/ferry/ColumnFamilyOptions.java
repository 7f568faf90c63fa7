package dev.ferry;

import dev.ferry.internal.Codes;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * RocksDB options of one column family, overriding the store's: block compression, bloom filter
 * bits per key, table block size, a fixed-length prefix extractor, the merge operator, a compaction
 * filter written in Java ({@link JavaCompactionFilter}), the key order ({@link KeyOrder}, or one written in
 * Java: {@link JavaComparator}), a time to live ({@link #ttl(long, int)}) and BlobDB's blob files
 * ({@link #blobFiles(BlobOptions)}). A setting
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
 * <p>LMDB has none of these settings but the {@link #keyOrder(KeyOrder) key order} and the
 * {@link #javaComparator(JavaComparator) Java comparator}: creating or opening a family with any other set
 * throws {@link FerryException.NotSupported}; options with nothing set
 * ({@link #of()}) are accepted and change nothing. LMDB families take {@link ColumnFamilyFlag}s too.
 *
 * <p>Thread safety: immutable; every setter returns a new instance.
 */
public final class ColumnFamilyOptions {
    private static final ColumnFamilyOptions EMPTY = new ColumnFamilyOptions(null, -1, -1, -1, null, null, null, null, -1, -1,
            null, null);

    private final Compression compression;
    private final int bloomBitsPerKey;
    private final int blockSize;
    private final int prefixLength;
    private final MergeOperator mergeOperator;
    private final JavaMergeOperator javaMergeOperator;
    private final JavaCompactionFilter.Factory javaCompactionFilter;
    private final KeyOrder keyOrder;
    private final long ttlMillis;
    private final int ttlOffset;
    private final JavaComparator javaComparator;
    /** BlobDB settings ({@link #blobFiles(BlobOptions)}), or null. */
    private final BlobOptions blob;

    private ColumnFamilyOptions(Compression compression, int bloomBitsPerKey, int blockSize, int prefixLength,
            MergeOperator mergeOperator, JavaMergeOperator javaMergeOperator, JavaCompactionFilter.Factory javaCompactionFilter,
            KeyOrder keyOrder, long ttlMillis, int ttlOffset, JavaComparator javaComparator, BlobOptions blob) {
        this.javaComparator = javaComparator;
        this.blob = blob;
        this.compression = compression;
        this.bloomBitsPerKey = bloomBitsPerKey;
        this.blockSize = blockSize;
        this.prefixLength = prefixLength;
        this.mergeOperator = mergeOperator;
        this.javaMergeOperator = javaMergeOperator;
        this.javaCompactionFilter = javaCompactionFilter;
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
        return new ColumnFamilyOptions(c, bloomBitsPerKey, blockSize, prefixLength, mergeOperator, javaMergeOperator, javaCompactionFilter, keyOrder,
                ttlMillis, ttlOffset, javaComparator, blob);
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
        if (bits < 0 || bits > Codes.maxBloomBits()) {
            throw new IllegalArgumentException("bloomBitsPerKey=" + bits + ", must be 0.." + Codes.maxBloomBits());
        }
        return new ColumnFamilyOptions(compression, bits, blockSize, prefixLength, mergeOperator, javaMergeOperator, javaCompactionFilter, keyOrder,
                ttlMillis, ttlOffset, javaComparator, blob);
    }

    /**
     * Size of the family's table blocks before compression (RocksDB's default 4096 bytes).
     *
     * @param bytes 1 to 2^30
     * @return a copy with it set
     * @throws IllegalArgumentException outside 1..2^30
     */
    public ColumnFamilyOptions blockSize(int bytes) {
        if (bytes < 1 || bytes > Codes.maxBlockSize()) {
            throw new IllegalArgumentException("blockSize=" + bytes + ", must be 1.." + Codes.maxBlockSize());
        }
        return new ColumnFamilyOptions(compression, bloomBitsPerKey, bytes, prefixLength, mergeOperator, javaMergeOperator, javaCompactionFilter, keyOrder,
                ttlMillis, ttlOffset, javaComparator, blob);
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
        if (bytes < 0 || bytes > Codes.maxPrefixLength()) {
            throw new IllegalArgumentException("fixedPrefixLength=" + bytes + ", must be 0.." + Codes.maxPrefixLength());
        }
        return new ColumnFamilyOptions(compression, bloomBitsPerKey, blockSize, bytes, mergeOperator, javaMergeOperator, javaCompactionFilter, keyOrder,
                ttlMillis, ttlOffset, javaComparator, blob);
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
        return new ColumnFamilyOptions(compression, bloomBitsPerKey, blockSize, prefixLength, op, null, javaCompactionFilter, keyOrder, ttlMillis,
                ttlOffset, javaComparator, blob);
    }

    /**
     * The family's merge operator written in Java (replaces a built-in one set with
     * {@link #mergeOperator(MergeOperator)}); see {@link JavaMergeOperator}.
     *
     * @param op the operator
     * @return a copy with it set
     * @throws IllegalArgumentException when its {@link JavaMergeOperator#name() name} breaks the rules
     */
    public ColumnFamilyOptions javaMergeOperator(JavaMergeOperator op) {
        JavaCallbacks.checkName(op);
        return new ColumnFamilyOptions(compression, bloomBitsPerKey, blockSize, prefixLength, null, op, javaCompactionFilter, keyOrder, ttlMillis,
                ttlOffset, javaComparator, blob);
    }

    /**
     * The family's compaction filter written in Java; see {@link JavaCompactionFilter}.
     *
     * @param factory the filter's factory
     * @return a copy with it set
     * @throws IllegalArgumentException when its {@link JavaCompactionFilter.Factory#name() name} breaks the rules
     */
    public ColumnFamilyOptions javaCompactionFilter(JavaCompactionFilter.Factory factory) {
        JavaCallbacks.checkName(factory);
        if (ttlMillis >= 0) {
            throw new IllegalArgumentException("a family has one compaction filter: this one has a time to live (ttl),"
                    + " whose filter is Ferry's native one");
        }
        return new ColumnFamilyOptions(compression, bloomBitsPerKey, blockSize, prefixLength, mergeOperator,
                javaMergeOperator, factory, keyOrder, ttlMillis, ttlOffset, javaComparator, blob);
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
        if (order == KeyOrder.JAVA) {
            throw new IllegalArgumentException("KeyOrder.JAVA is reported, not set: give the family its comparator with "
                    + "javaComparator(JavaComparator)");
        }
        return new ColumnFamilyOptions(compression, bloomBitsPerKey, blockSize, prefixLength, mergeOperator,
                javaMergeOperator, javaCompactionFilter, order, ttlMillis, ttlOffset, null, blob);
    }

    /**
     * The family's key order written in Java (replaces a {@link #keyOrder(KeyOrder)}); see
     * {@link JavaComparator}. Set when the family is created and given again at every open. RocksDB only.
     *
     * @param comparator the comparator
     * @return a copy with it set
     * @throws IllegalArgumentException when its {@link JavaComparator#name() name} breaks the rules
     */
    public ColumnFamilyOptions javaComparator(JavaComparator comparator) {
        JavaCallbacks.checkName(comparator);
        return new ColumnFamilyOptions(compression, bloomBitsPerKey, blockSize, prefixLength, mergeOperator,
                javaMergeOperator, javaCompactionFilter, null, ttlMillis, ttlOffset, comparator, blob);
    }

    /** @return the key order written in Java, if set */
    public Optional<JavaComparator> javaComparator() {
        return Optional.ofNullable(javaComparator);
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
     * A family has one compaction filter, so this excludes {@link #javaCompactionFilter}.
     *
     * @param ttlMillis the time to live in milliseconds, at least 1
     * @param timestampOffset the timestamp's byte offset in each value, 0 to 65536
     * @return a copy with it set
     * @throws IllegalArgumentException outside those ranges, or with a compaction filter written in Java set
     */
    public ColumnFamilyOptions ttl(long ttlMillis, int timestampOffset) {
        if (ttlMillis < 1) {
            throw new IllegalArgumentException("ttlMillis=" + ttlMillis + ", must be at least 1");
        }
        if (timestampOffset < 0 || timestampOffset > Codes.maxTtlOffset()) {
            throw new IllegalArgumentException("timestampOffset=" + timestampOffset + ", must be 0.." + Codes.maxTtlOffset());
        }
        if (javaCompactionFilter != null) {
            throw new IllegalArgumentException("a family has one compaction filter: this one has a compaction filter"
                    + " written in Java, and a time to live needs Ferry's native one");
        }
        return new ColumnFamilyOptions(compression, bloomBitsPerKey, blockSize, prefixLength, mergeOperator,
                javaMergeOperator, javaCompactionFilter, keyOrder, ttlMillis, timestampOffset, javaComparator, blob);
    }

    /**
     * RocksDB's integrated BlobDB for this family: large values go to blob files (see {@link BlobOptions}).
     *
     * @param blobs the settings
     * @return a copy with them set
     */
    public ColumnFamilyOptions blobFiles(BlobOptions blobs) {
        Objects.requireNonNull(blobs, "blobs");
        return new ColumnFamilyOptions(compression, bloomBitsPerKey, blockSize, prefixLength, mergeOperator,
                javaMergeOperator, javaCompactionFilter, keyOrder, ttlMillis, ttlOffset, javaComparator, blobs);
    }

    /** @return the family's BlobDB settings, if set */
    public Optional<BlobOptions> blobFiles() {
        return Optional.ofNullable(blob);
    }

    /** @return the time to live in milliseconds, if set */
    public OptionalLong ttlMillis() {
        return ttlMillis < 0 ? OptionalLong.empty() : OptionalLong.of(ttlMillis);
    }

    /** @return the byte offset of the values' timestamps, if a TTL is set */
    public OptionalInt ttlTimestampOffset() {
        return ttlOffset < 0 ? OptionalInt.empty() : OptionalInt.of(ttlOffset);
    }

    /** @return the key order ({@link KeyOrder#JAVA} with a {@link #javaComparator}, {@link KeyOrder#BYTEWISE} when not set) */
    public KeyOrder keyOrder() {
        return javaComparator != null ? KeyOrder.JAVA : keyOrder == null ? KeyOrder.BYTEWISE : keyOrder;
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

    /** @return the merge operator written in Java, if set */
    public Optional<JavaMergeOperator> javaMergeOperator() {
        return Optional.ofNullable(javaMergeOperator);
    }

    /** @return the compaction filter written in Java, if set */
    public Optional<JavaCompactionFilter.Factory> javaCompactionFilter() {
        return Optional.ofNullable(javaCompactionFilter);
    }

    /** @return whether nothing is set (the family has the store's options) */
    public boolean isEmpty() {
        return equals(EMPTY);
    }

    /** @return the FERRY_CFOPT_* array (-1 = unset) */
    long[] toNative() {
        return new Codes.FamilyRecord()
                .compression(compression == null ? -1 : compression.value())
                .bloomBits(bloomBitsPerKey)
                .blockSize(blockSize)
                .prefixLength(prefixLength)
                .keyOrder(keyOrder == null ? -1 : keyOrder.value())
                .ttl(ttlMillis, ttlOffset)
                .array();
    }

    /**
     * The family's options string for the shim.
     *
     * @param callbacks the registry of the store being opened, for callbacks written in Java
     * @return the string, or null
     */
    String nativeOptionsString(JavaCallbacks callbacks) {
        StringBuilder b = new StringBuilder();
        if (javaMergeOperator != null) {
            b.append("merge_operator=").append(callbacks.value(javaMergeOperator)).append(';');
        } else if (mergeOperator != null) {
            b.append("merge_operator=").append(mergeOperator.engineName()).append(';');
        }
        if (javaCompactionFilter != null) {
            b.append("compaction_filter_factory=").append(callbacks.value(javaCompactionFilter)).append(';');
        }
        if (javaComparator != null) {
            b.append("comparator=").append(callbacks.value(javaComparator)).append(';');
        }
        if (blob != null) {
            b.append(BlobFiles.optionsString(blob)).append(';');
        }
        return b.length() == 0 ? null : b.substring(0, b.length() - 1);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ColumnFamilyOptions)) {
            return false;
        }
        ColumnFamilyOptions x = (ColumnFamilyOptions) o;
        return compression == x.compression && bloomBitsPerKey == x.bloomBitsPerKey && blockSize == x.blockSize
                && prefixLength == x.prefixLength && mergeOperator == x.mergeOperator
                && javaMergeOperator == x.javaMergeOperator && javaCompactionFilter == x.javaCompactionFilter
                && keyOrder == x.keyOrder && ttlMillis == x.ttlMillis && ttlOffset == x.ttlOffset
                && javaComparator == x.javaComparator && Objects.equals(blob, x.blob);
    }

    @Override
    public int hashCode() {
        return Objects.hash(compression, bloomBitsPerKey, blockSize, prefixLength, mergeOperator,
                System.identityHashCode(javaMergeOperator), System.identityHashCode(javaCompactionFilter), keyOrder, ttlMillis,
                ttlOffset, System.identityHashCode(javaComparator), blob);
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
        if (javaMergeOperator != null) {
            b.append(sep).append("mergeOperator=").append(javaMergeOperator.name());
            sep = ", ";
        }
        if (javaCompactionFilter != null) {
            b.append(sep).append("compactionFilter=").append(javaCompactionFilter.name());
            sep = ", ";
        }
        if (keyOrder != null) {
            b.append(sep).append("keyOrder=").append(keyOrder);
            sep = ", ";
        }
        if (javaComparator != null) {
            b.append(sep).append("comparator=").append(javaComparator.name());
            sep = ", ";
        }
        if (ttlMillis >= 0) {
            b.append(sep).append("ttl=").append(ttlMillis).append("ms@").append(ttlOffset);
            sep = ", ";
        }
        if (blob != null) {
            b.append(sep).append("blobFiles=").append(blob);
        }
        return b.append('}').toString();
    }
}
