package dev.ferry;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Reads RocksDB's encoding of a write batch (its "rep", see ferry.h "RocksDB services") into a
 * {@link WalBatch}, for {@link WalIterator}.
 *
 * <p>Thread safety: stateless.
 */
final class WalReader {
    // RocksDB's record types in a write batch (db/dbformat.h ValueType)
    private static final int DELETION = 0x0;
    private static final int VALUE = 0x1;
    private static final int MERGE = 0x2;
    private static final int LOG_DATA = 0x3;
    private static final int CF_DELETION = 0x4;
    private static final int CF_VALUE = 0x5;
    private static final int CF_MERGE = 0x6;
    private static final int SINGLE_DELETION = 0x7;
    private static final int CF_SINGLE_DELETION = 0x8;
    private static final int BEGIN_PREPARE_XID = 0x9;
    private static final int END_PREPARE_XID = 0xA;
    private static final int COMMIT_XID = 0xB;
    private static final int ROLLBACK_XID = 0xC;
    private static final int NOOP = 0xD;
    private static final int CF_RANGE_DELETION = 0xE;
    private static final int RANGE_DELETION = 0xF;
    private static final int BEGIN_PERSISTED_PREPARE_XID = 0x12;
    private static final int BEGIN_UNPREPARE_XID = 0x13;
    private static final int COMMIT_XID_AND_TIMESTAMP = 0x15;
    private static final int WIDE_COLUMN_ENTITY = 0x16;
    private static final int CF_WIDE_COLUMN_ENTITY = 0x17;
    private static final int HEADER = 12;

    private WalReader() {
    }

    /**
     * Parses RocksDB's write batch rep (see ferry.h, "RocksDB services").
     *
     * @param sequence the batch's first sequence number
     * @param data the rep
     * @param families RocksDB family id to the store's family, or null
     */
    static WalBatch parse(long sequence, byte[] data, IntFunction<ColumnFamily> families) {
        if (data.length < HEADER) {
            throw new IllegalStateException("write batch of " + data.length + " bytes: shorter than its header");
        }
        int count = (data[8] & 0xff) | (data[9] & 0xff) << 8 | (data[10] & 0xff) << 16 | (data[11] & 0xff) << 24;
        List<WalBatch.Entry> list = new ArrayList<>(Math.max(0, Math.min(count, data.length / 3)));
        int[] pos = {HEADER};
        while (pos[0] < data.length) {
            int tag = data[pos[0]++] & 0xff;
            int cf = 0;
            switch (tag) {
                case CF_DELETION, CF_VALUE, CF_MERGE, CF_SINGLE_DELETION, CF_RANGE_DELETION, CF_WIDE_COLUMN_ENTITY:
                    cf = varint(data, pos);
                    break;
                default:
                    break;
            }
            WalBatch.Kind kind;
            switch (tag) {
                case VALUE, CF_VALUE -> kind = WalBatch.Kind.PUT;
                case DELETION, CF_DELETION -> kind = WalBatch.Kind.DELETE;
                case SINGLE_DELETION, CF_SINGLE_DELETION -> kind = WalBatch.Kind.SINGLE_DELETE;
                case MERGE, CF_MERGE -> kind = WalBatch.Kind.MERGE;
                case RANGE_DELETION, CF_RANGE_DELETION -> kind = WalBatch.Kind.DELETE_RANGE;
                case WIDE_COLUMN_ENTITY, CF_WIDE_COLUMN_ENTITY -> kind = WalBatch.Kind.PUT_ENTITY;
                case LOG_DATA, END_PREPARE_XID, COMMIT_XID, ROLLBACK_XID -> {
                    slice(data, pos); // a blob of the writer's or a transaction id: no operation
                    continue;
                }
                case COMMIT_XID_AND_TIMESTAMP -> {
                    slice(data, pos);
                    slice(data, pos);
                    continue;
                }
                case NOOP, BEGIN_PREPARE_XID, BEGIN_PERSISTED_PREPARE_XID, BEGIN_UNPREPARE_XID -> {
                    continue;
                }
                default -> throw new IllegalStateException("write batch record of type 0x" + Integer.toHexString(tag)
                        + " at byte " + (pos[0] - 1) + ": not one Ferry reads (a blob index of the legacy BlobDB, or a "
                        + "newer RocksDB's)");
            }
            byte[] key = slice(data, pos);
            byte[] value = kind == WalBatch.Kind.DELETE || kind == WalBatch.Kind.SINGLE_DELETE ? null : slice(data, pos);
            list.add(new WalBatch.Entry(kind, sequence + list.size(), cf, families == null ? null : families.apply(cf), key, value));
        }
        if (list.size() != count) {
            throw new IllegalStateException("write batch says " + count + " operations, holds " + list.size());
        }
        return new WalBatch(sequence, Collections.unmodifiableList(list), data);
    }

    private static int varint(byte[] d, int[] pos) {
        int v = 0;
        for (int shift = 0; shift <= 28; shift += 7) {
            if (pos[0] >= d.length) {
                break;
            }
            int b = d[pos[0]++] & 0xff;
            v |= (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
        throw new IllegalStateException("write batch: a length or family id runs past its end or 5 bytes");
    }

    private static byte[] slice(byte[] d, int[] pos) {
        int n = varint(d, pos);
        if (n < 0 || n > d.length - pos[0]) {
            throw new IllegalStateException("write batch: a slice of " + n + " bytes at byte " + pos[0] + " runs past its end");
        }
        byte[] out = Arrays.copyOfRange(d, pos[0], pos[0] + n);
        pos[0] += n;
        return out;
    }
}
