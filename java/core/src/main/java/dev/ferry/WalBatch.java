package dev.ferry;

import java.util.Arrays;
import java.util.List;

/**
 * One write batch read back from a RocksDB store's write-ahead log ({@link Store#updatesSince(long)}):
 * its first sequence number and its operations in the order they were written. A batch of n
 * operations took the sequence numbers {@link #sequence()} to {@code sequence() + n - 1}, one per
 * operation ({@link Entry#sequence()}). A single put or delete is a batch of one.
 *
 * <p>Thread safety: immutable; safe to share.
 */
public final class WalBatch {
    /** What a WAL entry did. */
    public enum Kind {
        /** A put: {@link Entry#value()} is the value. */
        PUT,
        /** A delete of {@link Entry#key()}. */
        DELETE,
        /** A single delete (RocksDB's {@code SingleDelete}) of {@link Entry#key()}. */
        SINGLE_DELETE,
        /** A merge: {@link Entry#value()} is the operand. */
        MERGE,
        /** A range delete from {@link Entry#key()} (inclusive) to {@link Entry#value()} (exclusive). */
        DELETE_RANGE,
        /** A wide-column put (RocksDB's {@code PutEntity}): {@link Entry#value()} is RocksDB's serialized entity. */
        PUT_ENTITY
    }

    /**
     * One operation of a batch.
     *
     * <p>Thread safety: immutable; the arrays returned are copies.
     */
    public static final class Entry {
        private final Kind kind;
        private final long sequence;
        private final int engineFamilyId;
        private final ColumnFamily family;
        private final byte[] key;
        private final byte[] value;

        Entry(Kind kind, long sequence, int engineFamilyId, ColumnFamily family, byte[] key, byte[] value) {
            this.kind = kind;
            this.sequence = sequence;
            this.engineFamilyId = engineFamilyId;
            this.family = family;
            this.key = key;
            this.value = value;
        }

        /** @return what the operation did */
        public Kind kind() {
            return kind;
        }

        /** @return the operation's sequence number */
        public long sequence() {
            return sequence;
        }

        /** @return RocksDB's id of the operation's column family (0: the default family) */
        public int engineFamilyId() {
            return engineFamilyId;
        }

        /**
         * The operation's column family in the store that read the log.
         *
         * @return the family, or null when the store has no live family with {@link #engineFamilyId()}
         *         (dropped since, or not opened)
         */
        public ColumnFamily columnFamily() {
            return family;
        }

        /** @return the key (a range delete's start), a copy */
        public byte[] key() {
            return key.clone();
        }

        /** @return the value, merge operand or range delete's end (a copy), or null for deletes */
        public byte[] value() {
            return value == null ? null : value.clone();
        }

        @Override
        public String toString() {
            return kind + "@" + sequence + "(cf " + engineFamilyId + ", " + Arrays.toString(key)
                    + (value == null ? "" : ", " + Arrays.toString(value)) + ")";
        }
    }

    private final long sequence;
    private final List<Entry> entries;
    private final byte[] data;

    WalBatch(long sequence, List<Entry> entries, byte[] data) {
        this.sequence = sequence;
        this.entries = entries;
        this.data = data;
    }

    /** @return the batch's first sequence number */
    public long sequence() {
        return sequence;
    }

    /** @return the batch's operations, in write order */
    public List<Entry> entries() {
        return entries;
    }

    /** @return RocksDB's own encoding of the batch (its {@code WriteBatch::Data()}, a copy) */
    public byte[] data() {
        return data.clone();
    }

    @Override
    public String toString() {
        return "WalBatch{sequence=" + sequence + ", entries=" + entries + "}";
    }
}
