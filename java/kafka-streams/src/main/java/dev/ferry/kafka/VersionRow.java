package dev.ferry.kafka;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The record versions of one key in one segment of a {@link FerryVersionedKeyValueStore}: the
 * {@code validTo} of the newest version ({@code nextTimestamp}) and the versions, newest first, each a
 * {@code validFrom} timestamp and a value (null for a tombstone). Version {@code i} is valid from its
 * own timestamp to the timestamp of version {@code i - 1} (or {@code nextTimestamp} for the newest).
 *
 * <p>A row whose only version is a tombstone with {@code validFrom == nextTimestamp} is "degenerate":
 * it records a deletion of a key that had no earlier version in reach, as Kafka's versioned store
 * records it. The operations below give exactly the built-in store's row semantics (which its put
 * procedure depends on), on a layout of Ferry's own:
 * {@code [nextTimestamp 8][count 4] count x ([validFrom 8][length 4, -1 = tombstone][value])}.
 *
 * <p>Not thread-safe: one row is read, changed and written back within one locked put.
 */
final class VersionRow {
    /** validFrom of each version, newest first. */
    private final List<Long> from = new ArrayList<>();
    /** value of each version (null = tombstone), newest first. */
    private final List<byte[]> values = new ArrayList<>();
    private long nextTimestamp;

    private VersionRow() {
    }

    /** @return a row holding one version, valid from {@code validFrom} to {@code validTo} */
    static VersionRow of(byte[] value, long validFrom, long validTo) {
        VersionRow r = new VersionRow();
        r.reset(value, validFrom, validTo);
        return r;
    }

    /**
     * @return a row of the given versions, newest first (at least one; a tombstone is a null value), the newest
     *         valid until {@code nextTimestamp}
     */
    static VersionRow of(long nextTimestamp, List<Long> validFrom, List<byte[]> values) {
        if (validFrom.isEmpty() || validFrom.size() != values.size()) {
            throw new IllegalArgumentException(validFrom.size() + " timestamps for " + values.size() + " values");
        }
        VersionRow r = new VersionRow();
        r.from.addAll(validFrom);
        r.values.addAll(values);
        r.nextTimestamp = nextTimestamp;
        return r;
    }

    /** @return the row a stored value encodes */
    static VersionRow parse(byte[] raw) {
        ByteBuffer b = ByteBuffer.wrap(raw);
        VersionRow r = new VersionRow();
        r.nextTimestamp = b.getLong();
        int n = b.getInt();
        if (n < 1) {
            throw new IllegalStateException("corrupt versioned store row: " + n + " versions");
        }
        for (int i = 0; i < n; i++) {
            r.from.add(b.getLong());
            int len = b.getInt();
            if (len < 0) {
                r.values.add(null);
            } else {
                byte[] v = new byte[len];
                b.get(v);
                r.values.add(v);
            }
        }
        return r;
    }

    /** @return the stored form of the row */
    byte[] encode() {
        int size = Long.BYTES + Integer.BYTES;
        for (byte[] v : values) {
            size += Long.BYTES + Integer.BYTES + (v == null ? 0 : v.length);
        }
        ByteBuffer b = ByteBuffer.allocate(size).putLong(nextTimestamp).putInt(from.size());
        for (int i = 0; i < from.size(); i++) {
            byte[] v = values.get(i);
            b.putLong(from.get(i)).putInt(v == null ? -1 : v.length);
            if (v != null) {
                b.put(v);
            }
        }
        return b.array();
    }

    /** @return the validTo of the newest version of a stored row, without parsing the rest */
    static long nextTimestamp(byte[] raw) {
        return ByteBuffer.wrap(raw).getLong(0);
    }

    long nextTimestamp() {
        return nextTimestamp;
    }

    /** @return the validFrom of the oldest version */
    long minTimestamp() {
        return from.get(from.size() - 1);
    }

    private boolean degenerate() {
        return nextTimestamp == minTimestamp();
    }

    private void reset(byte[] value, long validFrom, long validTo) {
        from.clear();
        values.clear();
        from.add(validFrom);
        values.add(value);
        nextTimestamp = validTo;
    }

    /**
     * The version valid at {@code timestamp}; requires {@code minTimestamp() <= timestamp < nextTimestamp()}.
     *
     * @return its index (0 = newest)
     */
    int find(long timestamp) {
        if (timestamp < minTimestamp() || timestamp >= nextTimestamp) {
            throw new IllegalArgumentException("timestamp " + timestamp + " outside the row's [" + minTimestamp() + ", "
                    + nextTimestamp + ")");
        }
        for (int i = 0; i < from.size(); i++) {
            if (from.get(i) <= timestamp) {
                return i;
            }
        }
        throw new IllegalStateException("no version found for " + timestamp);
    }

    /** @return the number of versions */
    int size() {
        return from.size();
    }

    long validFrom(int index) {
        return from.get(index);
    }

    long validTo(int index) {
        return index == 0 ? nextTimestamp : from.get(index - 1);
    }

    byte[] value(int index) {
        return values.get(index);
    }

    /** Replaces version {@code index} with {@code value} valid from {@code timestamp}. */
    void update(int index, long timestamp, byte[] value) {
        from.set(index, timestamp);
        values.set(index, value);
    }

    /** Inserts a version at {@code index} (0 = newest). */
    void insert(int index, long timestamp, byte[] value) {
        from.add(index, timestamp);
        values.add(index, value);
    }

    /** Adds a version older than every other (replacing a degenerate row's tombstone). */
    void insertAsEarliest(long timestamp, byte[] value) {
        if (degenerate()) {
            reset(value, timestamp, nextTimestamp);
        } else {
            insert(from.size(), timestamp, value);
        }
    }

    /**
     * Adds a version valid from {@code validFrom} to {@code validTo} on top of the row. If the row
     * ends after {@code validFrom} (a put that updated two rows was cut in half), the versions from
     * {@code validFrom} on are dropped first; if it ends before, the gap becomes a tombstone.
     */
    void insertAsLatest(long validFrom, long validTo, byte[] value) {
        if (validFrom < nextTimestamp) {
            truncate(validFrom);
        }
        if (nextTimestamp == validFrom) {
            if (degenerate()) {
                reset(value, validFrom, validTo);
            } else {
                insert(0, validFrom, value);
            }
        } else {
            if (degenerate()) {
                reset(null, nextTimestamp, validFrom);
            } else {
                insert(0, nextTimestamp, null);
            }
            insert(0, validFrom, value);
        }
        nextTimestamp = validTo;
    }

    /** Drops what the row says from {@code timestamp} on: afterwards it ends at {@code timestamp}. */
    private void truncate(long timestamp) {
        if (timestamp <= minTimestamp()) {
            reset(null, timestamp, timestamp);
            return;
        }
        int i = find(timestamp);
        int drop = from.get(i) == timestamp ? i + 1 : i;
        from.subList(0, drop).clear();
        values.subList(0, drop).clear();
        nextTimestamp = timestamp;
    }
}
