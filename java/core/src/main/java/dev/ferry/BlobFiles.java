package dev.ferry;

/**
 * RocksDB's options-string form of {@link BlobOptions}, for {@link ColumnFamilyOptions}' family string.
 *
 * <p>Thread safety: stateless.
 */
final class BlobFiles {
    private BlobFiles() {
    }

    /** @return the settings as RocksDB option pairs, {@code enable_blob_files=true} first */
    static String optionsString(BlobOptions o) {
        StringBuilder b = new StringBuilder("enable_blob_files=true;");
        if (o.minBlobSize() >= 0) {
            b.append("min_blob_size=").append(o.minBlobSize()).append(';');
        }
        if (o.blobFileSize() >= 0) {
            b.append("blob_file_size=").append(o.blobFileSize()).append(';');
        }
        if (o.compression() != null) {
            b.append("blob_compression_type=").append(switch (o.compression()) {
                case NONE -> "kNoCompression";
                case SNAPPY -> "kSnappyCompression";
                case LZ4 -> "kLZ4Compression";
                case ZSTD -> "kZSTD";
            }).append(';');
        }
        // unset and false are the same: RocksDB's default is off
        b.append("enable_blob_garbage_collection=").append(o.garbageCollection()).append(';');
        if (o.garbageCollectionAgeCutoff() >= 0) {
            b.append("blob_garbage_collection_age_cutoff=").append(o.garbageCollectionAgeCutoff()).append(';');
        }
        return b.substring(0, b.length() - 1);
    }
}
