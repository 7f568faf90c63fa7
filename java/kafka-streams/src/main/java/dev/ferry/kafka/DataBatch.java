package dev.ferry.kafka;

import dev.ferry.ColumnFamily;
import dev.ferry.WriteBatch;
import java.util.ArrayList;
import java.util.List;

/**
 * The writes of one store operation to the {@code data} family (puts, deletes, range deletes), kept
 * in order until {@link FerryStateStore#writeData} sends them to the family in one atomic write or,
 * in a transactional store, to its {@link Uncommitted} overlay. Not thread-safe: one operation's.
 */
final class DataBatch {
    /** Where a batch's operations go. */
    interface Target {
        /**
         * @param key the key
         * @param value the value, or null to delete the key
         */
        void put(byte[] key, byte[] value);

        /**
         * @param begin the first key deleted
         * @param end the end, exclusive
         */
        void deleteRange(byte[] begin, byte[] end);
    }

    private static final byte PUT = 0;
    private static final byte RANGE = 1;
    private final List<byte[]> firsts = new ArrayList<>();
    private final List<byte[]> seconds = new ArrayList<>();
    private final List<Byte> kinds = new ArrayList<>();

    /**
     * @param key the key
     * @param value the value
     * @return this batch
     */
    DataBatch put(byte[] key, byte[] value) {
        return add(PUT, key, value);
    }

    /**
     * @param key the key to delete
     * @return this batch
     */
    DataBatch delete(byte[] key) {
        return add(PUT, key, null);
    }

    /**
     * @param begin the first key to delete
     * @param end the end, exclusive
     * @return this batch
     */
    DataBatch deleteRange(byte[] begin, byte[] end) {
        return add(RANGE, begin, end);
    }

    private DataBatch add(byte kind, byte[] a, byte[] b) {
        kinds.add(kind);
        firsts.add(a);
        seconds.add(b);
        return this;
    }

    /** @return the number of operations */
    int count() {
        return kinds.size();
    }

    /**
     * Hands the operations to a target, in order.
     *
     * @param target the target
     */
    void forEach(Target target) {
        for (int i = 0; i < kinds.size(); i++) {
            if (kinds.get(i) == RANGE) {
                target.deleteRange(firsts.get(i), seconds.get(i));
            } else {
                target.put(firsts.get(i), seconds.get(i));
            }
        }
    }

    /**
     * Adds the operations to a Ferry batch on one family.
     *
     * @param batch the batch
     * @param data the family
     */
    void addTo(WriteBatch batch, ColumnFamily data) {
        forEach(new Target() {
            @Override
            public void put(byte[] key, byte[] value) {
                if (value == null) {
                    batch.delete(data, key);
                } else {
                    batch.put(data, key, value);
                }
            }

            @Override
            public void deleteRange(byte[] begin, byte[] end) {
                batch.deleteRange(data, begin, end);
            }
        });
    }
}
