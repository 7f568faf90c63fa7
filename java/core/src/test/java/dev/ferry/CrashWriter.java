package dev.ferry;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * The child process of {@link CrashDurabilityTest}: opens a store with
 * {@link StoreOptions#syncWrites(boolean) syncWrites(true)}, or {@code syncWrites(false)} for a
 * variant ending in {@code "-nosync"}, and applies operations
 * {@code first, first+1, ...} of one deterministic sequence, printing {@code A <id>} on stdout
 * (flushed) after each call returns, until it is killed. The parent replays the same sequence
 * into a model ({@link #applyToModel}) to know what every prefix of it leaves in the store.
 *
 * <p>Operation {@code id} is either a put of key {@code "p" + id} or a write batch whose put
 * records carry the batch id in their keys: puts of {@code "b" + id + i} for {@code i < n}, an
 * overwrite of key {@code "L"} with the id, then deletes: of every put at least 3 ops and every
 * batch's records at least 30 ops older that no earlier batch deleted (so the store stays small
 * however long the run). About one batch in ten holds hundreds of records (a longer window for a kill in the
 * middle). Values (0 bytes to 360 KiB) start with the op id and record index when long enough.
 *
 * <p>Usage: {@code CrashWriter <ROCKSDB|LMDB> <dir> <first id> <variant> <max ops>}. The binding is
 * the process default ({@code -Dferry.binding}). Exits when stdin closes (the parent went away).
 */
public final class CrashWriter {
    /** Key of the value every batch overwrites with its id. */
    static final byte[] LAST = {'L'};
    /** With a variant holding "cp", a checkpoint follows every op whose id + 1 is a multiple of this. */
    static final int CHECKPOINT_EVERY = 100;

    private CrashWriter() {
    }

    /**
     * Runs the writer.
     *
     * @param args engine, directory, first op id, variant, max ops
     * @throws Exception on any failure (the parent reports the exit and stderr)
     */
    public static void main(String[] args) throws Exception {
        try {
            run(args);
        } catch (Throwable t) {
            // exit now: a thread the store started must not keep a failed writer alive
            t.printStackTrace();
            System.err.flush();
            Runtime.getRuntime().halt(5);
        }
    }

    private static void run(String[] args) throws Exception {
        Engine engine = Engine.valueOf(args[0]);
        Path dir = Paths.get(args[1]);
        long first = Long.parseLong(args[2]);
        String variant = args[3];
        long max = Long.parseLong(args[4]);
        Thread watchdog = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // the parent keeps stdin open while it lives
                }
            } catch (IOException ignored) {
                // same as end of input
            }
            Runtime.getRuntime().halt(3);
        }, "parent-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        PrintStream out = System.out;
        try (Store store = Store.open(dir, options(engine, variant))) {
            out.println("READY " + first + " " + store.binding());
            out.flush();
            boolean txn = variant.contains("txn");
            boolean cp = variant.contains("cp");
            // RocksDB: backups (BackupEngine) in a directory beside the store
            Backups backups = variant.contains("bk") ? Backups.open(dir.resolveSibling("backups")) : null;
            for (long id = first; id < first + max; id++) {
                apply(store, id, txn);
                out.println("A " + id);
                out.flush();
                if (cp && (id + 1) % CHECKPOINT_EVERY == 0) {
                    // a checkpoint of the state after op id, in a directory of its own beside the store
                    String name = "cp-" + id + "-" + System.nanoTime();
                    store.checkpoint(dir.resolveSibling(name));
                    out.println("C " + id + " " + name);
                    out.flush();
                }
                if (backups != null && (id + 1) % CHECKPOINT_EVERY == CHECKPOINT_EVERY / 2) {
                    int backupId = backups.create(store);
                    out.println("K " + id + " " + backupId);
                    out.flush();
                }
                if (out.checkError()) {
                    // PrintStream swallows write errors: an ack that did not reach the pipe must stop the writer
                    System.err.println("acknowledgement of op " + id + " could not be written to stdout");
                    Runtime.getRuntime().halt(4);
                }
            }
        }
        out.println("DONE");
        out.flush();
    }

    /**
     * Store options of a variant: sync writes unless the variant ends in {@code "-nosync"} (a
     * process kill must lose no acknowledged write either way); RocksDB "smallmem" flushes
     * memtables often, LMDB "writemap" writes through a writable map.
     *
     * @param engine the engine
     * @param variant "plain", "smallmem" (RocksDB), "writemap" or "grow" (LMDB: a 4 MiB map grown by
     *     4 MiB steps), optionally with "+txn" (batches as transactions;
     *     RocksDB: a pessimistic TransactionDB, "+otxn" an optimistic one), "+cp" (checkpoints, see
     *     {@link #CHECKPOINT_EVERY}), "+bk" (RocksDB: a backup every {@link #CHECKPOINT_EVERY} ops too) and a final "-nosync"
     * @return the options (the process-default binding)
     */
    static StoreOptions options(Engine engine, String variant) {
        boolean sync = !variant.endsWith("-nosync");
        StoreOptions o = StoreOptions.of(engine).syncWrites(sync);
        if (engine == Engine.LMDB) {
            if (variant.contains("grow")) {
                o.mapSize(4L << 20).autoGrow(4L << 20); // remaps while the writer runs
            } else {
                o.mapSize(1L << 30);
            }
            if (variant.contains("writemap")) {
                o.lmdbFlags(EnumSet.of(LmdbFlag.WRITEMAP));
            }
        } else {
            if (variant.contains("smallmem")) {
                o.rocksdbOptions("write_buffer_size=262144"); // flushes, and compactions of their files
            }
            if (variant.contains("otxn")) {
                o.transactions(TransactionMode.OPTIMISTIC);
            } else if (variant.contains("txn")) {
                o.transactions(TransactionMode.PESSIMISTIC);
            }
        }
        return o;
    }

    static byte[] putKey(long id) {
        return ByteBuffer.allocate(9).put((byte) 'p').putLong(id).array();
    }

    static byte[] batchKey(long id, int i) {
        return ByteBuffer.allocate(13).put((byte) 'b').putLong(id).putInt(i).array();
    }

    /** @return whether op {@code id} is a batch */
    static boolean isBatch(long id) {
        return new SplittableRandom(id * 0x9E3779B97F4A7C15L).nextInt(3) == 0;
    }

    /** @return the number of put records of batch {@code id} (besides the "L" put and the delete) */
    static int batchSize(long id) {
        SplittableRandom r = new SplittableRandom(id * 0x9E3779B97F4A7C15L + 1);
        return r.nextInt(10) == 0 ? 100 + r.nextInt(400) : 2 + r.nextInt(10);
    }

    /** @return the value of record {@code i} of op {@code id} (0 for a put): id and index first, then random bytes */
    static byte[] value(long id, int i) {
        SplittableRandom r = new SplittableRandom(id * 1_000_003L + i);
        int c = r.nextInt(1000);
        int len = c < 50 ? 0 : c < 800 ? r.nextInt(200) : c < 990 ? r.nextInt(8000) : 65536 + r.nextInt(300000);
        byte[] v = new byte[len];
        r.nextBytes(v);
        if (len >= 12) {
            ByteBuffer.wrap(v).putLong(id).putInt(i);
        }
        return v;
    }

    /**
     * The records of operation {@code id}: one put, or a batch's puts and deletes in order.
     *
     * @param id the op id
     * @return pairs of key and value; a null value is a delete
     */
    static List<byte[][]> records(long id) {
        List<byte[][]> out = new ArrayList<>();
        if (!isBatch(id)) {
            out.add(new byte[][] {putKey(id), value(id, 0)});
            return out;
        }
        int n = batchSize(id);
        for (int i = 0; i < n; i++) {
            out.add(new byte[][] {batchKey(id, i), value(id, i + 1)});
        }
        out.add(new byte[][] {LAST, ByteBuffer.allocate(8).putLong(id).array()});
        // Deletes keep the store to a few dozen ops' worth of data however long the run: the first
        // batch at least 3 ops after a put deletes it, the first at least 30 ops after a batch
        // deletes that batch's records.
        long prev = previousBatch(id);
        for (long j = Math.max(0, prev - 2); j <= id - 3; j++) {
            if (!isBatch(j)) {
                out.add(new byte[][] {putKey(j), null});
            }
        }
        for (long old = Math.max(0, prev - 29); old <= id - 30; old++) {
            if (isBatch(old)) {
                for (int i = 0; i < batchSize(old); i++) {
                    out.add(new byte[][] {batchKey(old, i), null});
                }
            }
        }
        return out;
    }

    /** @return the last batch op before {@code id}, or -1 */
    private static long previousBatch(long id) {
        for (long j = id - 1; j >= 0; j--) {
            if (isBatch(j)) {
                return j;
            }
        }
        return -1;
    }

    /**
     * Applies operation {@code id} to a store: one put, or all its records in one write batch.
     *
     * @param store the store
     * @param id the op id
     */
    static void apply(Store store, long id) {
        apply(store, id, false);
    }

    /**
     * Applies operation {@code id} to a store: one put, or all its records in one write batch or,
     * with {@code txn}, one transaction committed by {@link Store#inTransaction}.
     *
     * @param store the store
     * @param id the op id
     * @param txn whether a batch goes through {@link Store#beginTransaction()}
     */
    static void apply(Store store, long id, boolean txn) {
        List<byte[][]> recs = records(id);
        if (!isBatch(id)) {
            store.put(recs.get(0)[0], recs.get(0)[1]);
            return;
        }
        if (txn) {
            // inTransaction runs the body again after a MapFull (LMDB grows the map when the failed
            // transaction closes) or a conflict
            store.inTransaction(t -> {
                for (byte[][] kv : recs) {
                    if (kv[1] == null) {
                        t.delete(kv[0]);
                    } else {
                        t.put(kv[0], kv[1]);
                    }
                }
                return null;
            });
            return;
        }
        try (WriteBatch wb = new WriteBatch()) {
            for (byte[][] kv : recs) {
                if (kv[1] == null) {
                    wb.delete(kv[0]);
                } else {
                    wb.put(kv[0], kv[1]);
                }
            }
            store.write(wb);
        }
    }

    /**
     * Applies operation {@code id} to a model.
     *
     * @param m the model (unsigned key order)
     * @param id the op id
     */
    static void applyToModel(TreeMap<byte[], byte[]> m, long id) {
        for (byte[][] kv : records(id)) {
            if (kv[1] == null) {
                m.remove(kv[0]);
            } else {
                m.put(kv[0], kv[1]);
            }
        }
    }

    /** @return a short description of a key of the sequence, for messages */
    static String describeKey(byte[] k) {
        if (k.length == 9 && k[0] == 'p') {
            return "put of op " + ByteBuffer.wrap(k, 1, 8).getLong();
        }
        if (k.length == 13 && k[0] == 'b') {
            ByteBuffer b = ByteBuffer.wrap(k, 1, 12);
            return "record " + b.getInt(9) + " of batch op " + b.getLong(1);
        }
        return Arrays.equals(k, LAST) ? "key L" : "unknown key " + Arrays.toString(k);
    }

    /** @return whether two stores (or models) hold the same entries */
    static boolean sameEntries(TreeMap<byte[], byte[]> a, TreeMap<byte[], byte[]> b) {
        if (a.size() != b.size()) {
            return false;
        }
        var ia = a.entrySet().iterator();
        var ib = b.entrySet().iterator();
        while (ia.hasNext()) {
            Map.Entry<byte[], byte[]> ea = ia.next();
            Map.Entry<byte[], byte[]> eb = ib.next();
            if (!Arrays.equals(ea.getKey(), eb.getKey()) || !Arrays.equals(ea.getValue(), eb.getValue())) {
                return false;
            }
        }
        return true;
    }

    /** Describes how the store differs from the model: missing, extra and changed keys (first few of each). */
    static String firstDifference(TreeMap<byte[], byte[]> want, TreeMap<byte[], byte[]> got) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<byte[], byte[]> e : want.entrySet()) {
            byte[] g = got.get(e.getKey());
            if (g == null) {
                out.add("missing: " + describeKey(e.getKey()));
            } else if (!Arrays.equals(g, e.getValue())) {
                out.add("wrong value (" + g.length + " bytes, expected " + e.getValue().length + "): " + describeKey(e.getKey()));
            }
            if (out.size() > 12) {
                break;
            }
        }
        for (byte[] k : got.keySet()) {
            if (!want.containsKey(k) && out.size() < 25) {
                out.add("extra: " + describeKey(k));
            }
        }
        return "model " + want.size() + " entries, store " + got.size() + ": " + String.join("; ", out);
    }
}
