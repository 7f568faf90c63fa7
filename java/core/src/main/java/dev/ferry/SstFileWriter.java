package dev.ferry;

import dev.ferry.internal.binding.Bindings;
import dev.ferry.internal.Engines;
import dev.ferry.internal.NativeCalls;
import dev.ferry.internal.Once;
import java.lang.ref.Cleaner;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Writes one sorted RocksDB table (SST) file, to be added to a store as a whole with
 * {@link Store#ingest(ColumnFamily, java.util.List, boolean)}: a bulk load that skips the memtable
 * and the write-ahead log. RocksDB's {@code SstFileWriter}.
 *
 * <pre>{@code
 * try (SstFileWriter w = SstFileWriter.open(dir.resolve("batch-1.sst"))) {
 *     for (...)                       // keys in strictly increasing unsigned byte order
 *         w.put(key, value);
 *     w.finish();
 * }
 * store.ingest(store.defaultColumnFamily(), List.of(dir.resolve("batch-1.sst")), true);
 * }</pre>
 *
 * <p>Entries ({@link #put}, {@link #merge}, {@link #delete}) must come in strictly increasing
 * unsigned byte order of their keys, each key once; a key that is not greater than the previous
 * one throws {@link FerryException.InvalidArgument} (checked by Ferry before RocksDB sees it) and
 * the writer stays usable. {@link #finish()} writes the file's index and closes it; a writer
 * without entries cannot finish (RocksDB writes no empty table). The file is readable by RocksJava
 * ({@code RocksDB.ingestExternalFile}) and RocksDB tools as any SST file. LMDB has no table files:
 * ingesting into an LMDB store throws {@link FerryException.NotSupported}.
 *
 * <p>Closing releases the writer; an unfinished file is left on disk incomplete (delete it).
 * Every call on a closed writer throws {@link IllegalStateException}. One left unclosed is
 * released by a cleaner once unreachable.
 *
 * <p>Thread safety: thread-safe; calls run one at a time (entries from several threads still
 * have to come in key order).
 */
public final class SstFileWriter implements AutoCloseable {
    private final NativeCalls calls;
    private final Path path;
    private final long handle;
    private final Cleaner.Cleanable cleanable;
    private long entries;
    private boolean finished;
    private boolean closed;

    private SstFileWriter(NativeCalls calls, Path path, long handle) {
        this.calls = calls;
        this.path = path;
        this.handle = handle;
        this.cleanable = StoreCore.CLEANER.register(this, new Once(() -> calls.admin().sstClose(handle)));
    }

    /**
     * Creates a writer for a new SST file with RocksDB's default table options and the process's
     * default binding. An existing file at the path is replaced.
     *
     * @param file the file to write
     * @return the writer
     * @throws FerryException.EngineLoad when RocksDB cannot be loaded
     */
    public static SstFileWriter open(Path file) {
        return open(file, null, null);
    }

    /**
     * Creates a writer for a new SST file. An existing file at the path is replaced.
     *
     * @param file the file to write
     * @param rocksdbOptions a RocksDB options string for the table (e.g. {@code "compression=kLZ4Compression"}),
     *        or null; refused as by {@link StoreOptions#rocksdbOptions(String)}
     * @param binding {@code "jni"} or {@code "ffm"}, or null for the process default
     * @return the writer
     * @throws FerryException.InvalidArgument for an options string Ferry or RocksDB refuses
     * @throws FerryException.EngineLoad when RocksDB cannot be loaded
     */
    public static SstFileWriter open(Path file, String rocksdbOptions, String binding) {
        Objects.requireNonNull(file, "file");
        NativeCalls calls = new NativeCalls(binding == null ? Bindings.defaultBinding() : Bindings.byName(binding));
        Engines.attach(calls, Engine.ROCKSDB);
        Path p = file.toAbsolutePath().normalize();
        byte[] pb = p.toString().getBytes(StandardCharsets.UTF_8);
        byte[] eb = rocksdbOptions == null ? null : rocksdbOptions.getBytes(StandardCharsets.UTF_8);
        for (byte[] x : new byte[][] {pb, eb}) {
            if (x != null && indexOfNul(x) >= 0) {
                throw new IllegalArgumentException("NUL character in " + (x == pb ? "file name" : "options string"));
            }
        }
        long h = calls.admin().sstOpen(pb, eb);
        try {
            return new SstFileWriter(calls, p, h);
        } catch (RuntimeException | Error e) {
            calls.admin().sstClose(h);
            throw e;
        }
    }

    private static int indexOfNul(byte[] b) {
        for (int i = 0; i < b.length; i++) {
            if (b[i] == 0) {
                return i;
            }
        }
        return -1;
    }

    /** @return the file being written */
    public Path path() {
        return path;
    }

    /**
     * @return the entries added so far
     * @throws IllegalStateException when closed
     */
    public synchronized long entries() {
        check();
        return entries;
    }

    /**
     * Adds a key and value.
     *
     * @param key the key, greater than the previous entry's
     * @param value the value
     * @return this
     * @throws FerryException.InvalidArgument when the key is not greater than the previous one, or
     *         the writer is finished
     * @throws IllegalStateException when closed
     */
    public synchronized SstFileWriter put(byte[] key, byte[] value) {
        Objects.requireNonNull(value, "value");
        return add(0, key, value);
    }

    /**
     * Adds a merge operand; the store that ingests the file needs a merge operator
     * ({@link StoreOptions#mergeOperator(MergeOperator)}) to read the key.
     *
     * @param key the key, greater than the previous entry's
     * @param operand the operand
     * @return this
     * @throws FerryException.InvalidArgument as {@link #put}
     * @throws IllegalStateException when closed
     */
    public synchronized SstFileWriter merge(byte[] key, byte[] operand) {
        Objects.requireNonNull(operand, "operand");
        return add(1, key, operand);
    }

    /**
     * Adds a deletion: once ingested, the key's older versions in the store are hidden.
     *
     * @param key the key, greater than the previous entry's
     * @return this
     * @throws FerryException.InvalidArgument as {@link #put}
     * @throws IllegalStateException when closed
     */
    public synchronized SstFileWriter delete(byte[] key) {
        return add(2, key, null);
    }

    private SstFileWriter add(int op, byte[] key, byte[] value) {
        Objects.requireNonNull(key, "key");
        check();
        calls.admin().sstAdd(handle, op, key, value);
        entries++;
        return this;
    }

    /**
     * Finishes the file: writes its index and footer and closes it. The writer takes no entry after.
     *
     * @return the file's size in bytes
     * @throws FerryException.InvalidArgument when already finished, or no entry was added
     * @throws IllegalStateException when closed
     */
    public synchronized long finish() {
        check();
        long size = calls.admin().sstFinish(handle);
        finished = true;
        return size;
    }

    /** @return whether {@link #finish()} succeeded */
    public synchronized boolean isFinished() {
        return finished;
    }

    /** @return whether {@link #close()} was called */
    public synchronized boolean isClosed() {
        return closed;
    }

    /** Releases the writer (idempotent); an unfinished file stays on disk incomplete. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            cleanable.clean();
        }
    }

    private void check() {
        if (closed) {
            throw new IllegalStateException("SST file writer for " + path + " is closed");
        }
    }

    @Override
    public String toString() {
        return "SstFileWriter[" + path + "]";
    }
}
