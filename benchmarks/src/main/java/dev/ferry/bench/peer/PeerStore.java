package dev.ferry.bench.peer;

import dev.ferry.View;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One key-value store under test in a published comparison, behind the few operations every
 * comparison needs: write a batch, get a key, scan in key order, close, and the storage it used.
 * Adding a store to a comparison is one class implementing this (and one line in {@link Peers}).
 *
 * <p>Keys and values are byte strings; ordered stores order keys as unsigned bytes (memcmp), so
 * every ordered store scans the same entries in the same order. An unordered store (a hash map)
 * says so with {@link #ordered()} and throws {@link UnsupportedOperationException} from {@link #scan}.
 *
 * <p>Thread safety: a store is used by one thread at a time unless its class says otherwise.
 */
public interface PeerStore extends AutoCloseable {
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

    /** @return the store's name in reports, as {@link Peers#open} takes it */
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
     * Reads one key.
     *
     * @param key the key
     * @return a copy of the value, or null when the key is absent
     */
    byte[] get(byte[] key);

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
