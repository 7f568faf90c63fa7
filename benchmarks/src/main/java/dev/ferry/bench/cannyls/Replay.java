package dev.ferry.bench.cannyls;

import dev.ferry.FerryException;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * Replays an ekvsb workload on a Ferry store and writes ekvsb's result JSON, so {@code ekvsb
 * summary} (and {@link Ekvsb#summarize}) reads Ferry's runs like ekvsb's own. Like ekvsb's runner,
 * a PUT's value is filled with random bytes before its clock starts, and each task is timed alone
 * (start and end read around the one store call). GETs read into one reused direct buffer
 * ({@code Store.get(key, ByteBuffer)}, the copy-once path docs/usage.md recommends for large values),
 * and report whether the key existed; PUT and DELETE do not say (as ekvsb's RocksDB backend).
 *
 * <p>Backends ({@link #options}): {@code ferry-rocksdb} (Ferry's RocksDB defaults), {@code
 * ferry-rocksdb-blob} (the same with RocksDB's integrated BlobDB: {@value #BLOB_OPTIONS}) and
 * {@code ferry-lmdb} (map grown on demand, commits not synced: {@code syncWrites(false)}, like
 * the others, which do not sync each write either).
 *
 * <p>Usage: {@code Replay --backend NAME --db DIR (--workload FILE --out FILE | --load) [--binding
 * jni|ffm] [--map-size BYTES] [--max-value BYTES, default 32 MiB]}. {@code --load} times {@code Store.open} of the existing store, after
 * a first open of a scratch store has loaded the engine library, and prints {@code LOAD <seconds>}.
 *
 * <p>Thread safety: one run per process.
 */
public final class Replay {
    /** RocksDB options string of the BlobDB backend: every value of 4 KiB or more goes to blob files. */
    public static final String BLOB_OPTIONS = "enable_blob_files=true;min_blob_size=4096;blob_file_size=268435456";
    /** The backends this class drives. */
    public static final List<String> BACKENDS = List.of("ferry-rocksdb", "ferry-rocksdb-blob", "ferry-lmdb");

    private Replay() {
    }

    /**
     * Runs one replay.
     *
     * @param args see the class comment
     * @throws Exception when the store cannot be opened or files cannot be read or written
     */
    public static void main(String[] args) throws Exception {
        String backend = null;
        String binding = null;
        Path db = null;
        Path workload = null;
        Path out = null;
        boolean load = false;
        long mapSize = 1L << 30;
        int maxValue = 32 << 20;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--backend" -> backend = args[++i];
                case "--binding" -> binding = args[++i];
                case "--db" -> db = Path.of(args[++i]);
                case "--workload" -> workload = Path.of(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--load" -> load = true;
                case "--map-size" -> mapSize = Long.parseLong(args[++i]);
                case "--max-value" -> maxValue = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("Replay: unknown argument " + a);
            }
        }
        if (backend == null || db == null || (!load && (workload == null || out == null))) {
            throw new IllegalArgumentException("Replay: --backend, --db and --workload with --out (or --load) are required");
        }
        StoreOptions o = options(backend, binding, mapSize);
        if (load) {
            System.out.printf(Locale.ROOT, "LOAD %.9f%n", timeOpen(db, o, backend, binding, mapSize));
            return;
        }
        List<Ekvsb.Task> tasks = Ekvsb.readWorkload(workload);
        List<Ekvsb.Result> results;
        try (Store s = Store.open(db, o)) {
            results = replay(s, tasks, maxValue);
        }
        Ekvsb.writeResults(out, results);
    }

    /**
     * The store options of a backend.
     *
     * @param backend one of {@link #BACKENDS}
     * @param binding "jni", "ffm" or null for Ferry's choice
     * @param mapSize LMDB's first map size (it grows on demand)
     * @return the options
     */
    public static StoreOptions options(String backend, String binding, long mapSize) {
        StoreOptions o = switch (backend) {
            case "ferry-rocksdb" -> StoreOptions.rocksdb();
            case "ferry-rocksdb-blob" -> StoreOptions.rocksdb().rocksdbOptions(BLOB_OPTIONS);
            case "ferry-lmdb" -> StoreOptions.lmdb().mapSize(mapSize).autoGrow(Math.max(mapSize / 2, 64L << 20)).syncWrites(false);
            default -> throw new IllegalArgumentException("unknown backend '" + backend + "' (known: " + BACKENDS + ")");
        };
        return binding == null ? o : o.binding(binding);
    }

    /**
     * Replays tasks on an open store.
     *
     * @param s the store
     * @param tasks the workload
     * @param maxValue bytes of the largest value a GET may find (a larger one is reported as the task's error)
     * @return one result per task, in order
     */
    public static List<Ekvsb.Result> replay(Store s, List<Ekvsb.Task> tasks, int maxValue) {
        for (Ekvsb.Task t : tasks) {
            maxValue = Math.max(maxValue, t.valueSize());
        }
        SplittableRandom rnd = new SplittableRandom();
        byte[] value = new byte[0];
        ByteBuffer into = ByteBuffer.allocateDirect(Math.max(maxValue, 1));
        List<Ekvsb.Result> results = new ArrayList<>(tasks.size());
        long t0 = System.nanoTime();
        for (int i = 0; i < tasks.size(); i++) {
            Ekvsb.Task t = tasks.get(i);
            byte[] key = t.key().getBytes(StandardCharsets.UTF_8);
            if (t.method() == Ekvsb.Method.PUT) {
                if (value.length != t.valueSize()) {
                    value = new byte[t.valueSize()];
                }
                rnd.nextBytes(value);
            }
            into.clear();
            Boolean exists = null;
            String error = null;
            long start = System.nanoTime();
            try {
                switch (t.method()) {
                    case PUT -> s.put(key, value);
                    case GET -> {
                        int n = s.get(key, into);
                        exists = n >= 0;
                        if (n > into.capacity()) {
                            error = "value of " + n + " bytes is larger than the read buffer (--max-value " + into.capacity() + ")";
                        }
                    }
                    case DELETE -> s.delete(key);
                    default -> throw new AssertionError(t.method());
                }
            } catch (FerryException e) {
                error = e.getMessage();
                exists = null;
            }
            long end = System.nanoTime();
            results.add(new Ekvsb.Result(i, t.key(), t.method(), (start - t0) / 1e9, (end - start) / 1e9, exists, error));
        }
        return results;
    }

    private static double timeOpen(Path db, StoreOptions o, String backend, String binding, long mapSize) throws IOException {
        Path scratch = Files.createTempDirectory("ferry-load-warm");
        try {
            try (Store warm = Store.open(scratch.resolve("db"), options(backend, binding, 1L << 26))) {
                warm.put(new byte[] {1}, new byte[] {1});
            }
        } finally {
            try (Stream<Path> w = Files.walk(scratch)) {
                for (Path p : w.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
        long start = System.nanoTime();
        Store s = Store.open(db, o);
        long end = System.nanoTime();
        s.close();
        return (end - start) / 1e9;
    }
}
