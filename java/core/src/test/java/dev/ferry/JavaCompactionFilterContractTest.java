package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeEach;

/**
 * Compaction filters written in Java ({@link JavaCompactionFilter}), per engine x binding: keep, remove and
 * change in a compaction, not in a flush; a factory call per compaction with its context; per family; a
 * filter or factory that throws (the entry is kept, the failure reported, the store usable); a filter calling
 * its own store; close while a compaction filters; reopening without the filter. LMDB: refused.
 */
@Matrix(Target.Slice.ENGINES)
class JavaCompactionFilterContractTest extends StoreContract {

    /** Removes keys starting with "drop", upper-cases values of keys starting with "chg", keeps the rest. */
    static final class Factory implements JavaCompactionFilter.Factory {
        final List<JavaCompactionFilter.Context> contexts = new CopyOnWriteArrayList<>();
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        final AtomicInteger entries = new AtomicInteger();
        final Function<String, JavaCompactionFilter.Decision> extra;

        Factory(Function<String, JavaCompactionFilter.Decision> extra) {
            this.extra = extra;
        }

        Factory() {
            this(k -> null);
        }

        @Override public String name() {
            return "test.Filter";
        }

        @Override public JavaCompactionFilter create(JavaCompactionFilter.Context context) {
            contexts.add(context);
            return (level, key, value) -> {
                entries.incrementAndGet();
                String k = s(key);
                JavaCompactionFilter.Decision d = extra.apply(k);
                if (d != null) {
                    return d;
                }
                if (k.startsWith("drop")) {
                    return JavaCompactionFilter.Decision.REMOVE;
                }
                if (k.startsWith("chg")) {
                    return JavaCompactionFilter.Decision.change(b(s(value).toUpperCase(Locale.ROOT)));
                }
                return JavaCompactionFilter.Decision.KEEP;
            };
        }

        @Override public void failed(Throwable failure) {
            failures.add(failure);
        }
    }

    static final IllegalStateException BOOM = new IllegalStateException("boom");

    @Override
    @BeforeEach
    void openStore(Target t) {
        target = t;
        store = Store.open(dir.resolve("db"), options());
    }

    private void reopen(StoreOptions o) {
        store.close();
        store = Store.open(dir.resolve("db"), o);
    }

    private void write(ColumnFamily cf) {
        for (String k : List.of("drop1", "drop2", "chg1", "keep1", "keep2")) {
            store.put(cf, b(k), b("v-" + k));
        }
    }

    @MatrixTest
    void aFilterKeepsRemovesAndChangesEntriesInCompactionsOnly() {
        if (lmdb()) {
            assertThrows(IllegalArgumentException.class, () -> options().javaCompactionFilter(new Factory()));
            FerryException.NotSupported e = assertThrows(FerryException.NotSupported.class,
                    () -> store.createColumnFamily("f", ColumnFamilyOptions.of().javaCompactionFilter(new Factory())));
            assertTrue(e.getMessage().contains("LMDB"), e.getMessage());
            return;
        }
        Factory f = new Factory();
        reopen(options().javaCompactionFilter(f));
        ColumnFamily def = store.defaultColumnFamily();
        write(def);
        store.flush();
        assertEquals("v-drop1", s(store.get(b("drop1"))), "a flush does not filter");
        assertEquals(0, f.entries.get());
        store.compactRange();
        assertNull(store.get(b("drop1")));
        assertNull(store.get(b("drop2")));
        assertEquals("V-CHG1", s(store.get(b("chg1"))));
        assertEquals("v-keep1", s(store.get(b("keep1"))));
        assertEquals(5, f.entries.get());
        assertTrue(f.contexts.stream().allMatch(JavaCompactionFilter.Context::manualCompaction), f.contexts.toString());
        assertTrue(f.failures.isEmpty(), f.failures.toString());
        List<String> keys = new ArrayList<>();
        try (Cursor c = store.cursor()) {
            for (boolean ok = c.first(); ok; ok = c.next()) {
                keys.add(s(c.keyBytes()));
            }
        }
        assertEquals(List.of("chg1", "keep1", "keep2"), keys);
        // a filter is not recorded with the store: it opens without it
        reopen(options());
        assertEquals("V-CHG1", s(store.get(b("chg1"))));
    }

    @MatrixTest
    void eachFamilyHasItsOwnFilter() {
        if (lmdb()) {
            return;
        }
        Factory storeWide = new Factory();
        Factory own = new Factory(k -> k.equals("keep2") ? JavaCompactionFilter.Decision.REMOVE : null);
        reopen(options().javaCompactionFilter(storeWide));
        ColumnFamily plain = store.createColumnFamily("plain", ColumnFamilyOptions.of());
        ColumnFamily mine = store.createColumnFamily("mine", ColumnFamilyOptions.of().javaCompactionFilter(own));
        write(plain);
        write(mine);
        store.flush(plain);
        store.flush(mine);
        store.compactRange(plain, null, null);
        store.compactRange(mine, null, null);
        assertNull(store.get(plain, b("drop1")), "a family without its own filter has the store's");
        assertEquals("v-keep2", s(store.get(plain, b("keep2"))));
        assertNull(store.get(mine, b("keep2")), "the family's own filter");
        assertEquals(5, storeWide.entries.get());
        assertEquals(5, own.entries.get());
        // at the next open, the family is given its filter again
        reopen(options().javaCompactionFilter(storeWide).columnFamily("mine", ColumnFamilyOptions.of().javaCompactionFilter(own))
                .columnFamily("plain", ColumnFamilyOptions.of()));
        ColumnFamily again = store.columnFamily("mine").orElseThrow();
        store.put(again, b("keep2"), b("x"));
        store.flush(again);
        store.compactRange(again, null, null);
        assertNull(store.get(again, b("keep2")));
    }

    @MatrixTest
    void aThrowingFilterKeepsTheEntryReportsItAndTheStoreStaysUsable() {
        if (lmdb()) {
            return;
        }
        Factory f = new Factory(k -> {
            if (k.equals("drop2")) {
                throw BOOM;
            }
            return null;
        });
        reopen(options().javaCompactionFilter(f));
        write(store.defaultColumnFamily());
        store.flush();
        store.compactRange();
        assertNull(store.get(b("drop1")));
        assertEquals("v-drop2", s(store.get(b("drop2"))), "the entry whose filter threw is kept");
        assertEquals("V-CHG1", s(store.get(b("chg1"))), "the compaction went on");
        assertEquals(List.of(BOOM), f.failures);
        store.put(b("after"), b("y"));
        assertEquals("y", s(store.get(b("after"))));
    }

    @MatrixTest
    void aFactoryThatThrowsOrReturnsNullKeepsEveryEntry() {
        if (lmdb()) {
            return;
        }
        for (boolean toss : new boolean[] {true, false}) {
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            JavaCompactionFilter.Factory f = new JavaCompactionFilter.Factory() {
                @Override public String name() {
                    return "test.Broken";
                }

                @Override public JavaCompactionFilter create(JavaCompactionFilter.Context context) {
                    if (toss) {
                        throw BOOM;
                    }
                    return null;
                }

                @Override public void failed(Throwable failure) {
                    failures.add(failure);
                    throw new IllegalStateException("a report that throws is ignored");
                }
            };
            store.close();
            store = Store.open(dir.resolve("broken-" + toss), options().javaCompactionFilter(f));
            write(store.defaultColumnFamily());
            store.flush();
            store.compactRange();
            assertEquals("v-drop1", s(store.get(b("drop1"))));
            assertEquals(1, failures.size(), failures.toString());
            if (toss) {
                assertSame(BOOM, failures.get(0));
            } else {
                assertInstanceOf(NullPointerException.class, failures.get(0));
            }
        }
    }

    @MatrixTest
    void aFilterCallingItsOwnStoreGetsIllegalStateException() {
        if (lmdb()) {
            return;
        }
        AtomicReference<Store> self = new AtomicReference<>();
        Factory f = new Factory(k -> {
            self.get().get(b("other"));
            return null;
        });
        reopen(options().javaCompactionFilter(f));
        self.set(store);
        store.put(b("drop1"), b("x"));
        store.flush();
        store.compactRange();
        assertEquals("x", s(store.get(b("drop1"))), "the entry is kept");
        assertEquals(1, f.failures.size(), f.failures.toString());
        IllegalStateException e = assertInstanceOf(IllegalStateException.class, f.failures.get(0));
        assertTrue(e.getMessage().contains("must not use its own store"), e.getMessage());
    }

    @MatrixTest
    void closeWaitsForACompactionThatFilters() throws Exception {
        if (lmdb()) {
            return;
        }
        AtomicInteger running = new AtomicInteger();
        AtomicInteger afterClose = new AtomicInteger();
        CountDownLatch started = new CountDownLatch(1);
        AtomicReference<Boolean> closed = new AtomicReference<>(false);
        Factory f = new Factory(k -> {
            running.incrementAndGet();
            try {
                if (closed.get()) {
                    afterClose.incrementAndGet();
                }
                started.countDown();
                Thread.sleep(1);
                return null;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            } finally {
                running.decrementAndGet();
            }
        });
        reopen(options().javaCompactionFilter(f));
        for (int i = 0; i < 2000; i++) {
            store.put(b("keep" + i), b("v"));
        }
        store.flush();
        Store s = store;
        AtomicReference<Throwable> unexpected = new AtomicReference<>();
        Thread compactor = new Thread(() -> {
            try {
                s.compactRange();
            } catch (IllegalStateException | FerryException closedUnderIt) {
                // the store closed under the compaction: expected
            } catch (Throwable t) {
                unexpected.set(t);
            }
        });
        compactor.start();
        started.await();
        s.close();
        closed.set(true);
        assertEquals(0, running.get(), "no filter runs once close returned");
        compactor.join();
        assertNull(unexpected.get());
        assertEquals(0, afterClose.get());
        store = Store.open(dir.resolve("db"), options());
        assertEquals("v", s(store.get(b("keep7"))));
    }

    @MatrixTest
    void aFilterClosingItsStoreWhileTheStoreClosesGetsIllegalStateException() throws Exception {
        if (lmdb()) {
            return;
        }
        AtomicReference<Store> self = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        AtomicReference<Object> outcome = new AtomicReference<>();
        Factory f = new Factory(k -> {
            if (started.getCount() == 0) {
                return null;
            }
            started.countDown();
            Store s = self.get();
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (!s.isClosed() && System.nanoTime() < deadline) { // the owner's close has begun: it waits for us
                Thread.onSpinWait();
            }
            try {
                s.close();
                outcome.set("returned (closed: " + s.isClosed() + ")");
            } catch (IllegalStateException e) {
                outcome.set(e);
            }
            return null;
        });
        reopen(options().javaCompactionFilter(f));
        self.set(store);
        for (int i = 0; i < 100; i++) {
            store.put(b("keep" + i), b("v"));
        }
        store.flush();
        Store s = store;
        Thread compactor = new Thread(() -> {
            try {
                s.compactRange();
            } catch (IllegalStateException | FerryException closedUnderIt) {
                // the store closed under the compaction: expected
            }
        });
        compactor.start();
        started.await();
        s.close();
        compactor.join();
        IllegalStateException e = assertInstanceOf(IllegalStateException.class, outcome.get(), String.valueOf(outcome.get()));
        assertTrue(e.getMessage().contains("must not use its own store"), e.getMessage());
        store = Store.open(dir.resolve("db"), options());
        assertEquals("v", s(store.get(b("keep7"))));
    }

    @MatrixTest
    void aStoreWideFilterAndAFamilysTtlAreRefusedAtOpenAndAtCreate() {
        if (lmdb()) {
            return;
        }
        Factory f = new Factory();
        store.createColumnFamily("t", ColumnFamilyOptions.of().ttl(1000, 0));
        store.close();
        // RocksDB would run the family's TTL filter and never the store's Java one: refused, naming both
        FerryException.InvalidArgument e = assertThrows(FerryException.InvalidArgument.class, () -> Store.open(
                dir.resolve("db"), options().javaCompactionFilter(f).columnFamily("t", ColumnFamilyOptions.of().ttl(1000, 0))));
        assertTrue(e.getMessage().contains("'t'") && e.getMessage().contains("time to live")
                && e.getMessage().contains("test.Filter"), e.getMessage());
        // each alone opens
        store = Store.open(dir.resolve("db"), options().javaCompactionFilter(f));
        e = assertThrows(FerryException.InvalidArgument.class,
                () -> store.createColumnFamily("t2", ColumnFamilyOptions.of().ttl(1000, 0)));
        assertTrue(e.getMessage().contains("time to live"), e.getMessage());
        assertTrue(store.columnFamily("t2").isEmpty());
        store.close();
        store = Store.open(dir.resolve("db"), options().columnFamily("t", ColumnFamilyOptions.of().ttl(1000, 0)));
        assertTrue(store.columnFamily("t").isPresent());
    }

    @MatrixTest
    void badNamesAreRefusedBeforeAnyNativeCall() {
        if (lmdb()) {
            return;
        }
        for (String name : new String[] {"", "ferry.x", "a;b", "x".repeat(129), null}) {
            JavaCompactionFilter.Factory f = new JavaCompactionFilter.Factory() {
                @Override public String name() {
                    return name;
                }

                @Override public JavaCompactionFilter create(JavaCompactionFilter.Context context) {
                    return (level, key, value) -> JavaCompactionFilter.Decision.KEEP;
                }
            };
            assertThrows(IllegalArgumentException.class, () -> options().javaCompactionFilter(f), String.valueOf(name));
            assertThrows(IllegalArgumentException.class, () -> ColumnFamilyOptions.of().javaCompactionFilter(f));
        }
        assertThrows(NullPointerException.class, () -> JavaCompactionFilter.Decision.change(null));
        assertEquals("REMOVE", JavaCompactionFilter.Decision.REMOVE.toString());
    }
}
