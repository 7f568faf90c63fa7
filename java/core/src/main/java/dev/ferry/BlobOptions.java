package dev.ferry;

import java.util.Objects;

/**
 * RocksDB's integrated BlobDB settings for a column family ({@link ColumnFamilyOptions#blobFiles(BlobOptions)}):
 * values of at least {@link #minBlobSize()} bytes go to blob files ({@code *.blob} in the store's
 * directory) at flush, and the table files keep a small reference instead, so compactions rewrite
 * references rather than large values. Reads, cursors, snapshots and transactions see the values as
 * usual; a read of a value in a blob file costs one more file read (cursors of such a family copy their
 * pages: pointer pages stay off). RocksJava's {@code ColumnFamilyOptions.setEnableBlobFiles} and
 * neighbours set the same options.
 *
 * <p>Settings left unset keep RocksDB's defaults (minimum size 0: every value; blob files of 256 MiB;
 * no compression; no garbage collection, cutoff 0.25).
 *
 * <p>Thread safety: immutable; every setter returns a new instance.
 */
public final class BlobOptions {
    private static final BlobOptions DEFAULTS = new BlobOptions(-1, -1, null, null, -1);

    private final long minBlobSize;
    private final long blobFileSize;
    private final Compression compression;
    private final Boolean garbageCollection;
    private final double gcAgeCutoff;

    private BlobOptions(long minBlobSize, long blobFileSize, Compression compression, Boolean garbageCollection,
            double gcAgeCutoff) {
        this.minBlobSize = minBlobSize;
        this.blobFileSize = blobFileSize;
        this.compression = compression;
        this.garbageCollection = garbageCollection;
        this.gcAgeCutoff = gcAgeCutoff;
    }

    /** @return settings that turn blob files on with RocksDB's defaults */
    public static BlobOptions of() {
        return DEFAULTS;
    }

    /**
     * Values of at least this many bytes go to blob files ({@code min_blob_size}; default 0).
     *
     * @param bytes at least 0
     * @return a copy with it set
     * @throws IllegalArgumentException when negative
     */
    public BlobOptions minBlobSize(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("minBlobSize=" + bytes + " (at least 0)");
        }
        return new BlobOptions(bytes, blobFileSize, compression, garbageCollection, gcAgeCutoff);
    }

    /**
     * The size at which a blob file is closed and the next begun ({@code blob_file_size}; default 256 MiB).
     *
     * @param bytes at least 1
     * @return a copy with it set
     * @throws IllegalArgumentException when not positive
     */
    public BlobOptions blobFileSize(long bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("blobFileSize=" + bytes + " (at least 1)");
        }
        return new BlobOptions(minBlobSize, bytes, compression, garbageCollection, gcAgeCutoff);
    }

    /**
     * Compression of each value in the blob files ({@code blob_compression_type}; default none).
     *
     * @param c the compression
     * @return a copy with it set
     */
    public BlobOptions compression(Compression c) {
        return new BlobOptions(minBlobSize, blobFileSize, Objects.requireNonNull(c, "compression"), garbageCollection,
                gcAgeCutoff);
    }

    /**
     * Whether compactions move the live values out of the oldest blob files so those can be deleted
     * ({@code enable_blob_garbage_collection}; default false).
     *
     * @param on on or off
     * @return a copy with it set
     */
    public BlobOptions garbageCollection(boolean on) {
        return new BlobOptions(minBlobSize, blobFileSize, compression, on, gcAgeCutoff);
    }

    /**
     * The share of the oldest blob files that garbage collection relocates values from
     * ({@code blob_garbage_collection_age_cutoff}; default 0.25).
     *
     * @param cutoff 0.0 to 1.0
     * @return a copy with it set
     * @throws IllegalArgumentException outside 0..1
     */
    public BlobOptions garbageCollectionAgeCutoff(double cutoff) {
        if (!(cutoff >= 0.0 && cutoff <= 1.0)) {
            throw new IllegalArgumentException("garbageCollectionAgeCutoff=" + cutoff + " (0..1)");
        }
        return new BlobOptions(minBlobSize, blobFileSize, compression, garbageCollection, cutoff);
    }

    /** @return the minimum size set, or -1 for RocksDB's default */
    public long minBlobSize() {
        return minBlobSize;
    }

    /** @return the blob file size set, or -1 for RocksDB's default */
    public long blobFileSize() {
        return blobFileSize;
    }

    /** @return the compression set, or null for RocksDB's default (none) */
    public Compression compression() {
        return compression;
    }

    /** @return whether garbage collection was turned on (false when unset) */
    public boolean garbageCollection() {
        return Boolean.TRUE.equals(garbageCollection);
    }

    /** @return the cutoff set, or -1 for RocksDB's default */
    public double garbageCollectionAgeCutoff() {
        return gcAgeCutoff;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BlobOptions && BlobFiles.optionsString((BlobOptions) o).equals(BlobFiles.optionsString(this));
    }

    @Override
    public int hashCode() {
        return BlobFiles.optionsString(this).hashCode();
    }

    @Override
    public String toString() {
        return "BlobOptions{" + BlobFiles.optionsString(this) + "}";
    }
}
