package dev.ferry.bench.dbbench;

import java.util.Optional;

/**
 * Who drives the engine in a run: Ferry (JNI or FFM binding) or RocksJava, with the database open.
 * Writes go through the backend; reads through a {@link Reader} per thread.
 *
 * <p>Thread safety: the backend is thread-safe; a {@link Reader} is confined to its thread.
 */
public interface Backend extends AutoCloseable {
    /** @return the API name, as given to {@code --api} */
    String api();

    /**
     * Puts one entry with the write options of the flags ({@code --sync}, {@code --disable_wal}).
     *
     * @param key the key
     * @param value the array holding the value
     * @param off the value's offset
     * @param len the value's length
     */
    void put(byte[] key, byte[] value, int off, int len);

    /**
     * Writes entries in one atomic batch.
     *
     * @param keys the keys ({@code n} of them)
     * @param value the array holding the values
     * @param offs the values' offsets
     * @param len every value's length
     * @param n how many entries
     */
    void writeBatch(byte[][] keys, byte[] value, int[] offs, int len, int n);

    /** @return a reader for the calling thread; close it on that thread */
    Reader reader();

    /**
     * Reads a text property of the default column family.
     *
     * @param name e.g. "rocksdb.stats"
     * @return its value, or empty
     */
    Optional<String> property(String name);

    /** @return the statistics text (with {@code --statistics}), or empty */
    Optional<String> statistics();

    /** Closes the database. */
    @Override
    void close();

    /** One thread's reads. */
    interface Reader extends AutoCloseable {
        /**
         * Scans from the first (or last) entry, at most {@code limit} entries, counting each with
         * {@code stats.finishedOps(1, READ)}.
         *
         * @param reverse true for last-to-first
         * @param limit entries at most
         * @param stats the thread's stats
         * @return key plus value bytes read
         */
        long scan(boolean reverse, long limit, Stats stats);

        /**
         * Reads one key.
         *
         * @param key the key
         * @return the value's length, or -1 when absent
         */
        int get(byte[] key);

        /**
         * Reads keys in one multi-get.
         *
         * @param keys the keys (the first {@code n})
         * @param n how many
         * @param bytes {@code bytes[0]} grows by key plus value bytes of every key found
         * @return how many were found
         */
        int multiGet(byte[][] keys, int n, long[] bytes);

        /**
         * Opens a new iterator, seeks to {@code key}, then reads and steps {@code nexts} times.
         *
         * @param key the seek key
         * @param nexts steps after the seek
         * @param bytes {@code bytes[0]} grows by key plus value bytes of the entries read
         * @return true when the seek landed on {@code key} itself
         */
        boolean seek(byte[] key, int nexts, long[] bytes);

        @Override
        void close();
    }
}
