package dev.ferry.kafka;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.apache.kafka.streams.KeyValue;

/**
 * LMDB key-value stores: restored records spilled to files as sorted runs, then merged into the
 * store in key order (docs/kafka-streams.md, "Restoration"). Each full restore buffer becomes one run:
 * its records sorted by key, the last record of each key only, in a file beside the store's directory
 * ({@code <store>.restore-<n>.run}). The next drain merges every run with what is still buffered,
 * newest record of each key first, and writes the result in key order: every leaf page of the tree is
 * then written once per drain, instead of once per buffer (an LMDB write transaction copies each page
 * it touches, and a buffer of random keys touches most of them).
 *
 * <p>A merge reads at most {@link #MAX_FAN_IN} runs at once: with more runs waiting (many small
 * buffers, e.g. while other stores hold the JVM's restore buffer total), it first merges the oldest
 * runs in groups of up to that many into bigger runs, until no more than that many are left.
 *
 * <p>The files hold nothing the store needs after a crash: no offset covering their records is
 * committed before they are merged, so a crash leaves the records to restore again, and
 * {@link FerryStateStore#init} deletes the files. Format of a run: per record a 4-byte key length,
 * a 4-byte value length (-1: a delete), the key and the value; the record count is kept in memory.
 *
 * <p>Thread safety: guarded by the store's restore buffer lock.
 */
final class RestoreRuns {
    /** Suffix of run files (the store's restored table files end in {@code .sst}). */
    static final String SUFFIX = ".run";
    private static final int WRITE_BUFFER = 1 << 20;
    private static final int MIN_READ_BUFFER = 64 << 10;
    private static final int MAX_READ_BUFFER = 1 << 20;
    /** The most runs a merge reads at once (open files, and read buffers of 64 KiB each). */
    static final int MAX_FAN_IN = 64;

    private final String prefix;
    private final int fanIn;
    /** The runs waiting to be merged, oldest first. */
    private List<Run> runs = new ArrayList<>();
    private int next;
    /** Run files open for reading now, and the most at once so far (tests). */
    private int openReaders;
    private int mostOpenReaders;

    /** A run file and how many records it holds. */
    private record Run(Path file, int count) {
    }

    /**
     * @param prefix the files' path up to the run number: {@code <store directory>.restore-}
     */
    RestoreRuns(Path prefix) {
        this(prefix, MAX_FAN_IN);
    }

    /**
     * @param prefix as {@link #RestoreRuns(Path)}
     * @param fanIn the most runs a merge reads at once, at least 2 (tests use small ones)
     */
    RestoreRuns(Path prefix, int fanIn) {
        if (fanIn < 2) {
            throw new IllegalArgumentException("fan-in must be at least 2, got " + fanIn);
        }
        this.prefix = prefix.toString();
        this.fanIn = fanIn;
    }

    /** @return how many runs wait to be merged (tests) */
    int runs() {
        return runs.size();
    }

    /** @return the most run files open for reading at once so far (tests) */
    int mostOpenReaders() {
        return mostOpenReaders;
    }

    /** @return true when no run is waiting to be merged */
    boolean isEmpty() {
        return runs.isEmpty();
    }

    /**
     * Writes one run.
     *
     * @param sorted the records by index, sorted by key as unsigned bytes, each key once
     * @param n how many
     * @throws UncheckedIOException when the file cannot be written (nothing is kept of it)
     */
    void spill(IntFunction<KeyValue<byte[], byte[]>> sorted, int n) {
        Path f = Path.of(prefix + (next++) + SUFFIX);
        try (RunWriter w = new RunWriter(f)) {
            for (int i = 0; i < n; i++) {
                w.write(sorted.apply(i));
            }
            w.finish();
        } catch (IOException e) {
            deleteQuietly(f);
            throw new UncheckedIOException("writing restored records to " + f, e);
        }
        runs.add(new Run(f, n));
    }

    /** Writes one run file, record by record. */
    private static final class RunWriter implements AutoCloseable {
        private final FileChannel ch;
        private final ByteBuffer b = ByteBuffer.allocate(WRITE_BUFFER);
        private int count;

        RunWriter(Path f) throws IOException {
            ch = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
        }

        void write(KeyValue<byte[], byte[]> r) throws IOException {
            if (b.remaining() < 8) {
                drain(ch, b);
            }
            b.putInt(r.key.length).putInt(r.value == null ? -1 : r.value.length);
            put(ch, b, r.key);
            if (r.value != null) {
                put(ch, b, r.value);
            }
            count++;
        }

        /** @return how many records were written */
        int finish() throws IOException {
            drain(ch, b);
            return count;
        }

        @Override
        public void close() throws IOException {
            ch.close();
        }
    }

    /** Adds bytes to the write buffer, writing it out when full (a large array straight to the file). */
    private static void put(FileChannel ch, ByteBuffer b, byte[] a) throws IOException {
        if (a.length <= b.remaining()) {
            b.put(a);
            return;
        }
        drain(ch, b);
        if (a.length <= b.capacity()) {
            b.put(a);
        } else {
            ByteBuffer w = ByteBuffer.wrap(a);
            while (w.hasRemaining()) {
                ch.write(w);
            }
        }
    }

    private static void drain(FileChannel ch, ByteBuffer b) throws IOException {
        b.flip();
        while (b.hasRemaining()) {
            ch.write(b);
        }
        b.clear();
    }

    /**
     * Merges the runs and the newest records (still in memory) and hands each key's newest record to
     * {@code sink}, in key order; deletes included. The runs stay until {@link #clear()}.
     *
     * @param newest records newer than every run's, sorted by key, each key once
     * @param n how many
     * @param sink takes the records
     * @throws UncheckedIOException when a run cannot be read
     */
    void merge(IntFunction<KeyValue<byte[], byte[]>> newest, int n, Consumer<KeyValue<byte[], byte[]>> sink) {
        while (runs.size() > fanIn) {
            mergeOldest();
        }
        try {
            merge(runs, new Memory(newest, n, runs.size()), sink);
        } catch (IOException e) {
            throw new UncheckedIOException("reading restored records from " + prefix + "*" + SUFFIX, e);
        }
    }

    /**
     * One stage of a merge with more than {@link #fanIn} runs: merges the oldest runs, in groups of up to
     * {@link #fanIn}, each into one bigger run in its place (deletes kept: they may delete entries of
     * the store), until {@link #fanIn} runs are left or every group was merged. On a failure the runs
     * stay as they were.
     */
    private void mergeOldest() {
        List<Run> out = new ArrayList<>();
        List<Run> merged = new ArrayList<>(); // replaced by a bigger run: deleted once the stage is done
        int excess = runs.size() - fanIn;
        try {
            int i = 0;
            while (i < runs.size()) {
                int g = Math.min(fanIn, Math.min(excess + 1, runs.size() - i));
                if (g <= 1) {
                    out.add(runs.get(i++));
                    continue;
                }
                List<Run> group = runs.subList(i, i + g);
                Path f = Path.of(prefix + (next++) + SUFFIX);
                out.add(new Run(f, 0)); // deleted with the others of this stage if the write fails
                int count;
                try (RunWriter w = new RunWriter(f)) {
                    merge(group, null, r -> {
                        try {
                            w.write(r);
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    });
                    count = w.finish();
                }
                out.set(out.size() - 1, new Run(f, count));
                merged.addAll(group);
                excess -= g - 1;
                i += g;
            }
        } catch (IOException | UncheckedIOException e) {
            for (Run r : out) {
                if (!runs.contains(r)) {
                    deleteQuietly(r.file());
                }
            }
            throw new UncheckedIOException("merging restored records of " + prefix + "*" + SUFFIX,
                    e instanceof IOException io ? io : ((UncheckedIOException) e).getCause());
        }
        runs = out;
        for (Run r : merged) {
            deleteQuietly(r.file());
        }
    }

    /**
     * Merges runs, oldest first, and perhaps records newer than all of them, handing each key's newest
     * record to {@code sink} in key order (deletes included). Opens one reader per run.
     */
    private void merge(List<Run> group, Memory memory, Consumer<KeyValue<byte[], byte[]>> sink) throws IOException {
        PriorityQueue<Source> queue = new PriorityQueue<>(group.size() + 1);
        List<Reader> readers = new ArrayList<>(group.size());
        int buffer = Math.max(MIN_READ_BUFFER, Math.min(MAX_READ_BUFFER, WRITE_BUFFER * 4 / (group.size() + 1)));
        try {
            for (int i = 0; i < group.size(); i++) {
                Reader r = new Reader(group.get(i).file(), group.get(i).count(), i, buffer);
                readers.add(r);
                openReaders++;
                mostOpenReaders = Math.max(mostOpenReaders, openReaders);
                if (r.advance()) {
                    queue.add(r);
                }
            }
            if (memory != null && memory.advance()) {
                queue.add(memory);
            }
            byte[] last = null;
            while (!queue.isEmpty()) {
                Source s = queue.poll();
                KeyValue<byte[], byte[]> r = s.current;
                if (last == null || !Arrays.equals(last, r.key)) { // else an older record of the key just handed over
                    sink.accept(r);
                    last = r.key;
                }
                if (s.advance()) {
                    queue.add(s);
                }
            }
        } finally {
            for (Reader r : readers) {
                r.close();
                openReaders--;
            }
        }
    }

    /** Deletes every run (merged, or given up). */
    void clear() {
        for (Run r : runs) {
            deleteQuietly(r.file());
        }
        runs = new ArrayList<>();
    }

    private static void deleteQuietly(Path f) {
        try {
            Files.deleteIfExists(f);
        } catch (IOException ignored) {
            // left for the next init, which deletes run files
        }
    }

    /** A sorted source of the merge: the current record, ordered by key, then newest source first. */
    private abstract static class Source implements Comparable<Source> {
        final int age; // higher = newer
        KeyValue<byte[], byte[]> current;

        Source(int age) {
            this.age = age;
        }

        /** @return false at the end (current then stale) */
        abstract boolean advance() throws IOException;

        @Override
        public int compareTo(Source o) {
            int c = Arrays.compareUnsigned(current.key, o.current.key);
            return c != 0 ? c : Integer.compare(o.age, age);
        }
    }

    private static final class Memory extends Source {
        private final IntFunction<KeyValue<byte[], byte[]>> records;
        private final int n;
        private int i;

        Memory(IntFunction<KeyValue<byte[], byte[]>> records, int n, int age) {
            super(age);
            this.records = records;
            this.n = n;
        }

        @Override
        boolean advance() {
            if (i == n) {
                return false;
            }
            current = records.apply(i++);
            return true;
        }
    }

    private static final class Reader extends Source {
        private final Path file;
        private final FileChannel ch;
        private final ByteBuffer b;
        private int left;

        Reader(Path file, int count, int age, int buffer) throws IOException {
            super(age);
            this.file = file;
            this.ch = FileChannel.open(file, StandardOpenOption.READ);
            this.b = ByteBuffer.allocate(buffer);
            this.b.limit(0);
            this.left = count;
        }

        @Override
        boolean advance() throws IOException {
            if (left == 0) {
                return false;
            }
            need(8);
            int kl = b.getInt();
            int vl = b.getInt();
            if (kl < 0 || vl < -1) {
                throw new IOException("corrupt run " + file + ": key length " + kl + ", value length " + vl);
            }
            byte[] k = read(new byte[kl]);
            byte[] v = vl < 0 ? null : read(new byte[vl]);
            current = new KeyValue<>(k, v);
            left--;
            return true;
        }

        /** Makes at least {@code n} (at most the buffer's capacity) bytes readable. */
        private void need(int n) throws IOException {
            if (b.remaining() >= n) {
                return;
            }
            b.compact();
            while (b.position() < n) {
                if (ch.read(b) < 0) {
                    throw new EOFException("run " + file + " ends " + left + " records early");
                }
            }
            b.flip();
        }

        private byte[] read(byte[] a) throws IOException {
            int at = 0;
            while (at < a.length) {
                if (!b.hasRemaining()) {
                    need(1);
                }
                int c = Math.min(b.remaining(), a.length - at);
                b.get(a, at, c);
                at += c;
            }
            return a;
        }

        void close() {
            try {
                ch.close();
            } catch (IOException ignored) {
                // read only
            }
        }
    }
}
