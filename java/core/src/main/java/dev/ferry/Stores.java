package dev.ferry;

import dev.ferry.internal.Codes;
import dev.ferry.internal.Engines;
import dev.ferry.internal.Lifetime;
import dev.ferry.internal.NativeCalls;
import dev.ferry.internal.Once;
import dev.ferry.internal.binding.Bindings;
import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;

/**
 * Opening stores, and what the process remembers about the stores it opened: LMDB environments
 * open now (LMDB forbids opening one twice in a process) and stores closed while a cursor of
 * another thread still holds their engine (to say so when a new open is refused as busy).
 *
 * <p>Thread safety: thread-safe.
 */
final class Stores {
    private static final ConcurrentHashMap<Path, Boolean> OPEN_LMDB = new ConcurrentHashMap<>();
    /** Stores closed while a cursor of another thread still pinned their engine, by path. Pruned as engines go. */
    private static final ConcurrentHashMap<Path, List<Lifetime>> HELD_AFTER_CLOSE = new ConcurrentHashMap<>();

    private Stores() {
    }

    /** {@link Store#open(Path, StoreOptions)}. */
    static Store open(Path path, StoreOptions options) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(options, "options");
        NativeCalls calls = new NativeCalls(options.binding == null ? Bindings.defaultBinding() : Bindings.byName(options.binding));
        Engines.attach(calls, options.engine);
        Path key = path.toAbsolutePath().normalize();
        if (options.createIfMissing && !options.readOnly && key.getParent() != null) {
            StoreCore.createParents(key);
        }
        try {
            if (options.engine != Engine.LMDB) {
                return openNative(calls, key, options);
            }
            // LMDB forbids opening one environment twice in a process (it breaks its locks)
            if (OPEN_LMDB.putIfAbsent(key, Boolean.TRUE) != null) {
                throw FerryException.of(ErrorCode.BUSY, 0, "LMDB store " + key
                        + " is already open in this process: share that Store instead (BUSY)");
            }
            try {
                return openNative(calls, key, options);
            } catch (RuntimeException | Error e) {
                OPEN_LMDB.remove(key);
                throw e;
            }
        } catch (FerryException.Busy e) {
            List<Lifetime> held = HELD_AFTER_CLOSE.get(key);
            if (held == null || held.stream().allMatch(Lifetime::released)) {
                throw e;
            }
            throw FerryException.of(ErrorCode.BUSY, e.engineCode(), e.getMessage() + "; that Store was closed, but a"
                    + " cursor that another thread owns still holds its engine open: the engine closes when that thread"
                    + " next uses the cursor (which throws IllegalStateException) or lets it go");
        }
    }

    /** Native handles of a shared cache and manager, valid while {@link #holding} runs its action. */
    interface SharedAction<T> {
        T apply(long cache, long wbm);
    }

    /**
     * Runs {@code action} with the handles of {@code cache} and {@code wbm} (0 for null) kept valid: neither
     * can close meanwhile (their close waits). Store opens and write buffer manager creation pass the handles
     * to native code this way.
     *
     * @throws IllegalStateException when either is closed
     */
    static <T> T holding(SharedNative cache, SharedNative wbm, SharedAction<T> action) {
        Lock a = cache == null ? null : cache.use().readLock();
        Lock b = wbm == null ? null : wbm.use().readLock();
        if (a != null) {
            a.lock();
        }
        try {
            if (b != null) {
                b.lock();
            }
            try {
                return action.apply(cache == null ? 0 : cache.openHandle(), wbm == null ? 0 : wbm.openHandle());
            } finally {
                if (b != null) {
                    b.unlock();
                }
            }
        } finally {
            if (a != null) {
                a.unlock();
            }
        }
    }

    private static Store openNative(NativeCalls calls, Path path, StoreOptions options) {
        JavaCallbacks callbacks = new JavaCallbacks(calls);
        long h;
        try {
            String x = options.nativeOptionsString(callbacks);
            byte[] records = options.familyOptions.isEmpty() ? null : options.familyRecords(callbacks);
            Codes.StoreRecord record = options.toNative();
            h = holding(options.blockCache, options.writeBufferManager, (ch, wh) -> holding(options.rateLimiter,
                    options.sstFileManager, (lh, mh) -> {
                long[] o = record.blockCache(ch).writeBufferManager(wh).rateLimiter(lh).sstFileManager(mh).array();
                byte[] extra = x == null ? null : x.getBytes(StandardCharsets.UTF_8);
                if (options.secondary != null) {
                    Path sec = options.secondary.toAbsolutePath().normalize();
                    StoreCore.createParents(sec);
                    return calls.storeOpenSecondary(path.toString().getBytes(StandardCharsets.UTF_8),
                            sec.toString().getBytes(StandardCharsets.UTF_8), o, extra, records, options.familyOptions.size());
                }
                return calls.storeOpen(options.engine.id(), path.toString().getBytes(StandardCharsets.UTF_8), o, extra,
                        records, options.familyOptions.size());
            }));
        } catch (RuntimeException | Error e) {
            callbacks.close();
            throw e;
        }
        BlockCache cache = options.blockCache;
        WriteBufferManager wbm = options.writeBufferManager;
        RateLimiter limiter = options.rateLimiter;
        SstFileManager sfm = options.sstFileManager;
        Engine engine = options.engine;
        Once release = new Once(() -> {
            // EBUSY: an LMDB write transaction of another thread kept the environment open (only
            // that thread may end it), so the path stays open in this process
            boolean closed = calls.storeClose(h);
            if (closed && engine == Engine.LMDB) {
                OPEN_LMDB.remove(path);
            }
            // RocksDB's close waited for its flushes and compactions: no merge runs any more
            if (closed) {
                callbacks.close();
            }
            // the store held them natively until now: keep the Java objects reachable as long
            Reference.reachabilityFence(cache);
            Reference.reachabilityFence(wbm);
            Reference.reachabilityFence(limiter);
            Reference.reachabilityFence(sfm);
        });
        Store store;
        try {
            store = new Store(new StoreCore(calls, path, options, h, release, callbacks));
        } catch (RuntimeException | Error e) {
            release.run();
            throw e;
        }
        try {
            store.core.families.load();
        } catch (RuntimeException | Error e) {
            store.close();
            throw e;
        }
        return store;
    }

    /** A store closed: remembers it when a cursor of another thread still holds its engine; prunes released ones. */
    static void closed(StoreCore core) {
        if (core.lifetime.released()) {
            return;
        }
        for (Path p : HELD_AFTER_CLOSE.keySet()) {
            HELD_AFTER_CLOSE.computeIfPresent(p, (k, v) -> {
                List<Lifetime> live = v.stream().filter(l -> !l.released()).toList();
                return live.isEmpty() ? null : live;
            });
        }
        HELD_AFTER_CLOSE.compute(core.path, (k, v) -> {
            List<Lifetime> l = new ArrayList<>(v == null ? List.of() : v);
            l.add(core.lifetime);
            return List.copyOf(l);
        });
    }
}
