package dev.ferry.bench.store;

import dev.ferry.View;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One key-value store under test, the benchmarks' one peer abstraction: the published comparisons
 * (the LmdbJava suite, One in a Million), Java db_bench ({@code dbbench}, and so the flash reproduction)
 * and the JMH and interleaved peers' setup all reach Ferry (each engine x binding), RocksJava, lmdbjava
 * and the other stores through it. (The CannyLS replay drives Ferry alone, timing each ekvsb task around
 * one store call, and keeps its own loop.)
 * {@link Stores#open} makes the adapter of a store by name; db_bench and JMH use the adapters' own
 * factories for their options. The operations every user needs: write a batch, put, get, scan in key
 * order, close, and the storage used. The capabilities only some adapters have default to
 * {@link UnsupportedOperationException} or empty: {@link #reader()} (db_bench's per-thread reads: Ferry and
 * RocksJava), {@link #property}, {@link #statistics()}, {@link #scanReverse}.
 *
 * <p>JMH measures the libraries' own calls, not this interface: its state classes open and close through
 * the adapters ({@code RocksJavaPeer.openDataset}, {@code LmdbJavaPeer.openDataset}) and their hot loops
 * call the library's handles ({@code db()}, {@code env()}, {@code dbi()}) directly. The reproductions'
 * and db_bench's loops do call through this interface: each measured store runs in a JVM of its own
 * (MillionRun, LmdbRun and the flash runs start one process per store; db_bench takes one {@code --api}),
 * so the JIT sees one implementation, a final class, at each call site and inlines it.
 *
 * <p>Keys and values are byte strings; ordered stores order keys as unsigned bytes (memcmp), so
 * every ordered store scans the same entries in the same order. An unordered store (a hash map)
 * says so with {@link #ordered()} and throws {@link UnsupportedOperationException} from {@link #scan}.
 *
 * <p>Thread safety: a store is used by one thread at a time unless its class says otherwise; a
 * {@link Reader} is confined to the thread that made it.
 */
public interface KvStore extends AutoCloseable {
    /**
     * Receives the entries of a {@link #scan}.
     */
    @FunctionalInterface
    interface Visitor {
        /**
         * Receives one entry; the buffers are read-only views valid only during this call
         * (position 0, limit = length).
         *
         * @param key the entry's key
         * @param value the entry's value
         * @return true to go on, false to stop the scan
         */
        boolean visit(ByteBuffer key, ByteBuffer value);

        /**
         * Receives one entry as Ferry's zero-copy views (valid only during this call), for the Ferry
         * adapters: a visitor that reads the views through their own accessors does not make a
         * scoped {@link ByteBuffer} per entry ({@link View#asByteBuffer()}, several allocations). The
         * default hands {@code asByteBuffer()}s to {@link #visit(ByteBuffer, ByteBuffer)}.
         *
         * @param key the entry's key
         * @param value the entry's value
         * @return true to go on, false to stop the scan
         */
        default boolean visit(View key, View value) {
            return visit(key.asByteBuffer(), value.asByteBuffer());
        }
    }

    /** @return the store's name in reports, as {@link Stores#open} takes it */
    String name();

    /** @return true when {@link #scan} visits the entries in unsigned-byte key order */
    boolean ordered();

    /**
     * Writes the entries {@code from} (inclusive) to {@code to} (exclusive) of the two lists as one
     * batch: in one transaction where the store has them, else one call per entry.
     *
     * @param keys the keys
     * @param values the values, one per key
     * @param from the first entry to write
     * @param to one past the last entry to write
     */
    void write(List<byte[]> keys, List<byte[]> values, int from, int to);

    /**
     * Puts one entry (db_bench's fill workloads), with the store's write options. The default writes a
     * batch of one entry through {@link #write}.
     *
     * @param key the key
     * @param value the array holding the value
     * @param off the value's offset
     * @param len the value's length
     */
    default void put(byte[] key, byte[] value, int off, int len) {
        write(List.of(key), List.of(java.util.Arrays.copyOfRange(value, off, off + len)), 0, 1);
    }

    /**
     * Reads one key.
     *
     * @param key the key
     * @return a copy of the value, or null when the key is absent
     */
    byte[] get(byte[] key);

    /**
     * A reader for the calling thread (db_bench's read workloads); close it on that thread.
     *
     * @return the reader
     * @throws UnsupportedOperationException when the adapter has none (only Ferry and RocksJava have)
     */
    default Reader reader() {
        throw new UnsupportedOperationException(name() + " has no per-thread reader");
    }

    /**
     * Reads a text property of the default column family (RocksDB stores).
     *
     * @param name e.g. "rocksdb.stats"
     * @return its value, or empty (always empty by default)
     */
    default Optional<String> property(String name) {
        return Optional.empty();
    }

    /** @return the statistics text where the store was opened with statistics, or empty (the default) */
    default Optional<String> statistics() {
        return Optional.empty();
    }

    /**
     * Visits every entry in key order, from the smallest key.
     *
     * @param visitor receives the entries
     * @return the number of entries visited
     * @throws UnsupportedOperationException when the store is not {@link #ordered()}
     */
    long scan(Visitor visitor);

    /**
     * Says a run of reads follows and no write comes before {@link #readsEnd()} (the LmdbJava suite's
     * read workloads). Adapters of transactional stores may hold one read transaction over the run,
     * as the published suite did; the default does nothing.
     */
    default void readsBegin() {
    }

    /** Ends the run of reads {@link #readsBegin()} began (idempotent); the default does nothing. */
    default void readsEnd() {
    }

    /**
     * Visits every entry in reverse key order, from the largest key (the LmdbJava suite's readRev).
     *
     * @param visitor receives the entries
     * @return the number of entries visited
     * @throws UnsupportedOperationException when the store is not {@link #ordered()} or its adapter has no reverse scan
     */
    default long scanReverse(Visitor visitor) {
        throw new UnsupportedOperationException(name() + " has no reverse scan");
    }

    /**
     * Bytes of storage the store uses: after {@link #close()} for stores that keep files (POSIX
     * allocated bytes of their directory, not the apparent size), or the server's own figure.
     *
     * @return the bytes, or -1 when the store keeps nothing on disk
     */
    long storageBytes();

    /** Counts the entries a {@link Reader#scan} reads (db_bench's per-thread stats). */
    @FunctionalInterface
    interface EntryCounter {
        /** One entry was read. */
        void entryRead();
    }

    /** One thread's reads, as db_bench does them. */
    interface Reader extends AutoCloseable {
        /**
         * Scans from the first (or last) entry, at most {@code limit} entries, counting each.
         *
         * @param reverse true for last-to-first
         * @param limit entries at most
         * @param counter told of each entry read
         * @return key plus value bytes read
         */
        long scan(boolean reverse, long limit, EntryCounter counter);

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

    /** Closes the store (idempotent). */
    @Override
    void close();

    /**
     * Allocated bytes of a directory tree (what {@code du -s -B1} reports: blocks, not apparent size).
     *
     * @param dir the directory
     * @return the allocated bytes
     */
    static long allocatedBytes(Path dir) {
        try {
            Process p = new ProcessBuilder("du", "-s", "-B1", dir.toString()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException("du -s -B1 " + dir + " failed: " + out);
            }
            return Long.parseLong(out.split("\\s+")[0]);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Creates a directory (and its parents) for a store.
     *
     * @param dir the directory
     * @return dir
     */
    static Path createDir(Path dir) {
        try {
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
