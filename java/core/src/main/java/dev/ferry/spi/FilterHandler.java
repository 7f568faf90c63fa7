package dev.ferry.spi;

/**
 * Where a binding hands the calls that RocksDB makes of a compaction filter written in Java (see
 * {@code ferry_compaction_filter_create} in ferry.h): ferry-core implements it once and gives it to
 * {@link NativeBinding#filterCallback(FilterHandler)}; the binding's callback copies RocksDB's bytes (valid
 * during the call only) into arrays and calls it.
 *
 * <p>Thread safety: called from RocksDB's compaction threads, concurrently.
 */
public interface FilterHandler {

    /**
     * Handles one call. Never throws: a failure is reported by the implementation and answered with 0.
     *
     * @param token the filter's token, as registered
     * @param kind {@code FERRY_FILTER_BEGIN}, {@code _ENTRY} or {@code _END}
     * @param arg BEGIN: the {@code FERRY_FILTER_FULL} / {@code _MANUAL} bits; ENTRY, END: the compaction's id
     * @param level ENTRY: the level
     * @param key ENTRY: the key, else null
     * @param value ENTRY: the value, else null
     * @param out ENTRY: one slot, where a change puts the new value, else null
     * @return BEGIN: the compaction's id (0: keep every entry); ENTRY: {@code FERRY_FILTER_KEEP}, {@code _REMOVE}
     *         or {@code _CHANGE}; END: 0
     */
    long filter(long token, int kind, long arg, int level, byte[] key, byte[] value, byte[][] out);
}
