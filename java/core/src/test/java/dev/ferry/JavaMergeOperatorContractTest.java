package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;

/**
 * Merge operators written in Java ({@link JavaMergeOperator}), per engine x binding: the same results as
 * RocksDB's built-in operators on the same workload, through gets, multi-gets and cursors, after flushes
 * and compactions; partial merges; a throwing operator (the read fails with its exception as the cause,
 * the store stays usable, a compaction does not crash); an operator calling its own store; close while
 * other threads merge; reopening without the operator or with another name. LMDB: refused.
 */
@Matrix(Target.Slice.ENGINES)
class JavaMergeOperatorContractTest extends StoreContract {

    /** uint64add in Java: 8-byte little-endian counters. */
    static final class Counter implements JavaMergeOperator {
        final AtomicInteger partials = new AtomicInteger();

        @Override public String name() {
            return "test.Counter";
        }

        @Override public byte[] fullMerge(byte[] key, byte[] existing, List<byte[]> operands) {
            long v = existing == null ? 0 : le64(existing);
            for (byte[] o : operands) {
                v += le64(o);
            }
            return le64(v);
        }

        @Override public byte[] partialMerge(byte[] key, byte[] left, byte[] right) {
            partials.incrementAndGet();
            return le64(le64(left) + le64(right));
        }
    }

    /** stringappend in Java: joined with ','. */
    static final class Append implements JavaMergeOperator {
        @Override public String name() {
            return "test.Append";
        }

        @Override public byte[] fullMerge(byte[] key, byte[] existing, List<byte[]> operands) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            boolean first = existing == null;
            if (existing != null) {
                out.writeBytes(existing);
            }
            for (byte[] o : operands) {
                if (!first) {
                    out.write(',');
                }
                first = false;
                out.writeBytes(o);
            }
            return out.toByteArray();
        }
    }

    /** Throws on the operand "bad". */
    static final class Picky implements JavaMergeOperator {
        static final IllegalStateException BOOM = new IllegalStateException("bad operand");

        @Override public String name() {
            return "test.Picky";
        }

        @Override public byte[] fullMerge(byte[] key, byte[] existing, List<byte[]> operands) {
            for (byte[] o : operands) {
                if (s(o).equals("bad")) {
                    throw BOOM;
                }
            }
            return operands.get(operands.size() - 1);
        }
    }

    /** Picky's name, fixed: joins the value and the operands with '+'. */
    static final class Fixed implements JavaMergeOperator {
        @Override public String name() {
            return "test.Picky";
        }

        @Override public byte[] fullMerge(byte[] key, byte[] existing, List<byte[]> operands) {
            StringBuilder v = new StringBuilder(existing == null ? "" : s(existing));
            for (byte[] o : operands) {
                v.append('+').append(s(o));
            }
            return b(v.toString());
        }
    }

    @Override
    @BeforeEach
    void openStore(Target t) {
        target = t;
        store = Store.open(dir.resolve("db"), lmdb() ? options() : options().javaMergeOperator(new Counter()));
    }

    private Store reopen(Path path, StoreOptions o) {
        store.close();
        store = Store.open(path, o);
        return store;
    }

    @MatrixTest
    void javaOperatorsGiveTheBuiltInsResultsOnTheSameWorkload() {
        if (lmdb()) {
            assertThrows(IllegalArgumentException.class, () -> options().javaMergeOperator(new Counter()));
            FerryException.NotSupported e = assertThrows(FerryException.NotSupported.class,
                    () -> store.createColumnFamily("s", ColumnFamilyOptions.of().javaMergeOperator(new Append())));
            assertTrue(e.getMessage().contains("LMDB"), e.getMessage());
            return;
        }
        Store java = reopen(dir.resolve("java"), options().javaMergeOperator(new Counter())
                .columnFamily("s", ColumnFamilyOptions.of().javaMergeOperator(new Append())));
        try (Store builtIn = Store.open(dir.resolve("builtin"), options().mergeOperator(MergeOperator.UINT64_ADD)
                .columnFamily("s", ColumnFamilyOptions.of().mergeOperator(MergeOperator.STRING_APPEND)))) {
            ColumnFamily js = java.createColumnFamily("s", ColumnFamilyOptions.of().javaMergeOperator(new Append()));
            ColumnFamily bs = builtIn.createColumnFamily("s", ColumnFamilyOptions.of().mergeOperator(MergeOperator.STRING_APPEND));
            Random r = new Random(44);
            List<byte[]> keys = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                keys.add(b(String.format("k%02d", i)));
            }
            for (int step = 0; step < 3000; step++) {
                byte[] k = keys.get(r.nextInt(keys.size()));
                int op = r.nextInt(20);
                long n = r.nextInt(1000);
                String word = "w" + r.nextInt(100);
                for (Store st : List.of(java, builtIn)) {
                    ColumnFamily cf = st == java ? js : bs;
                    if (op == 0) {
                        st.put(k, le64(n));
                        st.put(cf, k, b(word));
                    } else if (op == 1) {
                        st.delete(k);
                        st.delete(cf, k);
                    } else {
                        st.merge(k, le64(n));
                        try (WriteBatch w = new WriteBatch()) {
                            st.write(w.merge(cf, k, b(word)));
                        }
                    }
                    if (step == 1000) {
                        st.flush();
                        st.flush(cf);
                    }
                    if (step == 2000) {
                        st.compactRange();
                        st.compactRange(cf, null, null);
                    }
                }
            }
            for (byte[] k : keys) {
                assertArrayEquals(builtIn.get(k), java.get(k), s(k));
                assertArrayEquals(builtIn.get(bs, k), java.get(js, k), s(k));
            }
            List<byte[]> jm = java.multiGet(js, keys), bm = builtIn.multiGet(bs, keys);
            for (int i = 0; i < keys.size(); i++) {
                assertArrayEquals(bm.get(i), jm.get(i));
            }
            assertEquals(entries(builtIn, null), entries(java, null));
            assertEquals(entries(builtIn, bs), entries(java, js));
            java.compactRange();
            java.compactRange(js, null, null);
            assertEquals(entries(builtIn, bs), entries(java, js));
        }
    }

    private static List<String> entries(Store st, ColumnFamily cf) {
        List<String> out = new ArrayList<>();
        try (Cursor c = cf == null ? st.cursor() : st.cursor(cf, KeyRange.all(), CursorOptions.defaults())) {
            for (boolean ok = c.first(); ok; ok = c.next()) {
                out.add(s(c.keyBytes()) + "=" + Arrays.toString(c.valueBytes()));
            }
        }
        return out;
    }

    @MatrixTest
    void partialMergesCombineOperandsWithoutTheValue() {
        if (lmdb()) {
            return;
        }
        Counter c = new Counter();
        reopen(dir.resolve("partial"), options().javaMergeOperator(c));
        for (int i = 1; i <= 100; i++) {
            store.merge(b("n"), le64(i));
        }
        store.flush();
        store.compactRange();
        assertEquals(5050, le64(store.get(b("n"))));
        assertTrue(c.partials.get() > 0, "RocksDB combined operands of a key without a value during flush or compaction");
    }

    @MatrixTest
    void aThrowingOperatorFailsTheReadWithItsCauseAndTheStoreStaysUsable() {
        if (lmdb()) {
            return;
        }
        reopen(dir.resolve("picky"), options().javaMergeOperator(new Picky()));
        store.put(b("a"), b("x"));
        store.merge(b("a"), b("good"));
        store.merge(b("b"), b("bad"));
        assertEquals("good", s(store.get(b("a"))));
        FerryException.Corruption e = assertThrows(FerryException.Corruption.class, () -> store.get(b("b")));
        assertSame(Picky.BOOM, e.getCause());
        FerryException m = assertThrows(FerryException.class, () -> store.multiGet(List.of(b("a"), b("b"))));
        assertSame(Picky.BOOM, m.getCause());
        try (Cursor c = store.cursor()) {
            FerryException ce = assertThrows(FerryException.class, c::first);
            assertSame(Picky.BOOM, ce.getCause());
        }
        // the store stays usable: other keys read and write, the bad key can be overwritten
        store.put(b("c"), b("y"));
        assertEquals("y", s(store.get(b("c"))));
        // a flush or compaction that meets the failing merge fails or keeps the operands; the process lives
        try {
            store.flush();
            store.compactRange();
        } catch (FerryException expected) {
            assertNotNull(expected.getMessage());
        }
        store.close();
        store = Store.open(dir.resolve("picky"), options().javaMergeOperator(new Picky()));
        assertEquals("good", s(store.get(b("a"))));
        store.put(b("b"), b("fixed"));
        assertEquals("fixed", s(store.get(b("b"))));
    }

    /**
     * A full merge that fails in a flush fails the flush, and RocksDB then refuses writes (its background
     * error) with the same cause until the store is reopened; reads go on, and nothing is lost: the reopened
     * store, given an operator that merges, has every write.
     */
    @MatrixTest
    void aThrowingOperatorInAFlushFailsItWithItsCauseAndLosesNothing() {
        if (lmdb()) {
            return;
        }
        Path path = dir.resolve("picky-flush");
        reopen(path, options().javaMergeOperator(new Picky()));
        store.put(b("a"), b("x"));
        store.merge(b("a"), b("bad"));
        store.put(b("c"), b("y"));
        FerryException f = assertThrows(FerryException.class, store::flush);
        assertSame(Picky.BOOM, f.getCause(), f.toString());
        assertEquals("y", s(store.get(b("c"))), "reads go on");
        FerryException w = assertThrows(FerryException.class, () -> store.put(b("d"), b("z")));
        assertSame(Picky.BOOM, w.getCause(), w.toString());
        store.close();
        store = Store.open(path, options().javaMergeOperator(new Fixed()));
        assertEquals("x+bad", s(store.get(b("a"))), "the operand was kept: the fixed operator merges it");
        assertEquals("y", s(store.get(b("c"))));
        assertEquals(null, store.get(b("d")), "the refused write was not made");
        store.put(b("d"), b("z"));
        store.flush();
        store.compactRange();
        assertEquals("x+bad", s(store.get(b("a"))));
        assertEquals("z", s(store.get(b("d"))));
    }

    /**
     * A full merge that fails in a compaction keeps the key's value and operands as they were (RocksDB 11:
     * the compaction succeeds; where it fails instead, it fails with the operator's exception as the cause):
     * reads of the key fail with that cause, writes go on, and a fixed operator merges the kept operands.
     */
    @MatrixTest
    void aThrowingOperatorInACompactionKeepsTheOperandsAndTheStoreWritable() {
        if (lmdb()) {
            return;
        }
        Path path = dir.resolve("picky-compaction");
        reopen(path, options().javaMergeOperator(new Picky()));
        store.put(b("a"), b("x"));
        store.flush();
        store.merge(b("a"), b("bad"));
        store.flush();
        try {
            store.compactRange();
        } catch (FerryException f) {
            assertSame(Picky.BOOM, f.getCause(), f.toString());
        }
        FerryException g = assertThrows(FerryException.class, () -> store.get(b("a")));
        assertSame(Picky.BOOM, g.getCause());
        store.put(b("d"), b("z"));
        assertEquals("z", s(store.get(b("d"))));
        store.close();
        store = Store.open(path, options().javaMergeOperator(new Fixed()));
        assertEquals("x+bad", s(store.get(b("a"))));
        store.compactRange();
        assertEquals("x+bad", s(store.get(b("a"))));
        assertEquals("z", s(store.get(b("d"))));
    }

    @MatrixTest
    void anOperatorCallingItsOwnStoreGetsIllegalStateException() {
        if (lmdb()) {
            return;
        }
        AtomicReference<Store> self = new AtomicReference<>();
        AtomicReference<Throwable> seen = new AtomicReference<>();
        JavaMergeOperator reentrant = new JavaMergeOperator() {
            @Override public String name() {
                return "test.Reentrant";
            }

            @Override public byte[] fullMerge(byte[] key, byte[] existing, List<byte[]> operands) {
                try {
                    self.get().get(b("other"));
                } catch (RuntimeException e) {
                    seen.set(e);
                }
                try {
                    self.get().close();
                } catch (RuntimeException e) {
                    seen.compareAndSet(null, e);
                }
                return operands.get(0);
            }
        };
        self.set(reopen(dir.resolve("reentrant"), options().javaMergeOperator(reentrant)));
        store.merge(b("k"), b("v"));
        assertEquals("v", s(store.get(b("k"))));
        IllegalStateException e = assertInstanceOf(IllegalStateException.class, seen.get());
        assertTrue(e.getMessage().contains("must not use its own store"), e.getMessage());
        assertEquals("v", s(store.get(b("k"))), "the store is still open");
    }

    @MatrixTest
    void closeWaitsForMergesInFlightOnOtherThreads() throws Exception {
        if (lmdb()) {
            return;
        }
        AtomicInteger running = new AtomicInteger();
        CountDownLatch started = new CountDownLatch(1);
        JavaMergeOperator slow = new JavaMergeOperator() {
            @Override public String name() {
                return "test.Slow";
            }

            @Override public byte[] fullMerge(byte[] key, byte[] existing, List<byte[]> operands) {
                running.incrementAndGet();
                try {
                    started.countDown();
                    Thread.sleep(1);
                    return operands.get(operands.size() - 1);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                } finally {
                    running.decrementAndGet();
                }
            }
        };
        Store s = reopen(dir.resolve("slow"), options().javaMergeOperator(slow));
        for (int i = 0; i < 50; i++) {
            s.merge(b("k" + i), b("v" + i));
        }
        List<Thread> readers = new ArrayList<>();
        AtomicReference<Throwable> unexpected = new AtomicReference<>();
        for (int t = 0; t < 3; t++) {
            Thread th = new Thread(() -> {
                try {
                    for (int round = 0; ; round++) {
                        s.get(b("k" + round % 50));
                    }
                } catch (IllegalStateException closed) {
                    // the store closed under this thread: expected
                } catch (Throwable x) {
                    unexpected.set(x);
                }
            });
            th.start();
            readers.add(th);
        }
        started.await();
        s.close();
        assertEquals(0, running.get(), "no merge runs once close returned");
        for (Thread th : readers) {
            th.join();
        }
        assertEquals(null, unexpected.get());
        store = Store.open(dir.resolve("slow"), options().javaMergeOperator(slow));
        assertEquals("v7", s(store.get(b("k7"))));
    }

    @MatrixTest
    void reopeningWithoutTheOperatorOrWithAnotherNameFails() {
        if (lmdb()) {
            return;
        }
        store.merge(b("n"), le64(2));
        store.close();
        FerryException.InvalidArgument none = assertThrows(FerryException.InvalidArgument.class,
                () -> Store.open(dir.resolve("db"), options()));
        assertTrue(none.getMessage().contains("test.Counter"), none.getMessage());
        FerryException.InvalidArgument other = assertThrows(FerryException.InvalidArgument.class,
                () -> Store.open(dir.resolve("db"), options().javaMergeOperator(new Append())));
        assertTrue(other.getMessage().contains("test.Counter") && other.getMessage().contains("test.Append"),
                other.getMessage());
        FerryException.InvalidArgument builtIn = assertThrows(FerryException.InvalidArgument.class,
                () -> Store.open(dir.resolve("db"), options().mergeOperator(MergeOperator.UINT64_ADD)));
        assertTrue(builtIn.getMessage().contains("test.Counter"), builtIn.getMessage());
        store = Store.open(dir.resolve("db"), options().javaMergeOperator(new Counter()));
        store.merge(b("n"), le64(3));
        assertEquals(5, le64(store.get(b("n"))));
    }

    /**
     * A program that leaves its store open after RocksDB's flush and compaction threads ran Java merges exits by
     * itself, from main and by System.exit (on FFM the JVM's exit hung: the JDK detached its upcall threads while
     * RocksDB joined them at exit). Child JVMs; once per binding (no transaction mode).
     */
    @MatrixTest
    void aProgramThatLeavesTheStoreOpenExits() throws Exception {
        if (lmdb() || target.mode != TransactionMode.NONE) {
            return;
        }
        for (String how : List.of("return", "exit")) {
            Path work = java.nio.file.Files.createDirectories(dir.resolve("child-" + how));
            ChildJvm.Result r = ChildJvm.run(work, 120, List.of(), UnclosedMergeStoreProgram.class,
                    dir.resolve("unclosed-" + how).toString(), options().binding, how);
            assertFalse(r.timedOut(), () -> how + ": the JVM did not exit: " + r.describe());
            assertEquals(0, r.exit(), () -> how + ": " + r.describe());
            assertTrue(r.hsErr().isEmpty(), () -> how + ": " + r.describe());
            Matcher m = Pattern.compile("background merges (\\d+)").matcher(r.output());
            assertTrue(m.find() && Integer.parseInt(m.group(1)) > 0,
                    () -> how + ": RocksDB's threads ran no merge: " + r.output());
        }
    }

    @MatrixTest
    void badNamesAreRefusedBeforeAnyNativeCall() {
        if (lmdb()) {
            return;
        }
        for (String name : new String[] {"", "ferry.x", "a;b", "x".repeat(129), null}) {
            JavaMergeOperator op = new JavaMergeOperator() {
                @Override public String name() {
                    return name;
                }

                @Override public byte[] fullMerge(byte[] key, byte[] existing, List<byte[]> operands) {
                    return existing;
                }
            };
            assertThrows(IllegalArgumentException.class, () -> options().javaMergeOperator(op), String.valueOf(name));
            assertThrows(IllegalArgumentException.class, () -> ColumnFamilyOptions.of().javaMergeOperator(op));
        }
    }
}
