package dev.ferry;

import dev.ferry.internal.NativeCalls;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A store's column family registry: one {@link ColumnFamily} per native slot (ids are dense, in
 * the order families got them), created, found, listed and dropped here for {@link Store}.
 *
 * <p>Thread safety: thread-safe; changes are serialised on this object.
 */
final class Families {
    private final StoreCore core;
    private final List<ColumnFamily> list = new CopyOnWriteArrayList<>();
    /** Every family of the store has its ColumnFamily (see {@link Store#columnFamilies()}). */
    private volatile boolean listed;

    Families(StoreCore core) {
        this.core = core;
    }

    ColumnFamily get(int id) {
        return list.get(id);
    }

    /** @return how many families have an id (families below this count exist in a view begun now) */
    int size() {
        return list.size();
    }

    List<ColumnFamily> live() {
        core.guard.check();
        listAll();
        List<ColumnFamily> r = new ArrayList<>();
        for (ColumnFamily cf : list) {
            if (!cf.dropped) {
                r.add(cf);
            }
        }
        return Collections.unmodifiableList(r);
    }

    Optional<ColumnFamily> find(String name) {
        Objects.requireNonNull(name, "name");
        core.guard.check();
        Optional<ColumnFamily> known = liveFamily(name);
        if (known.isPresent() || listed || name.isEmpty() || name.indexOf('\0') >= 0) {
            return known;
        }
        synchronized (this) {
            known = liveFamily(name);
            if (known.isPresent()) {
                return known;
            }
            core.guard.enter();
            try {
                int id = core.calls.cfFind(core.handle, name.getBytes(StandardCharsets.UTF_8));
                if (id < 0) {
                    return Optional.empty();
                }
                load();
                ColumnFamily cf = list.get(id);
                return cf.dropped ? Optional.empty() : Optional.of(cf);
            } finally {
                core.guard.exit();
            }
        }
    }

    private Optional<ColumnFamily> liveFamily(String name) {
        for (ColumnFamily cf : list) {
            if (!cf.dropped && cf.name().equals(name)) {
                return Optional.of(cf);
            }
        }
        return Optional.empty();
    }

    /** Gives every family in the store an id (LMDB: once, see {@link Store#columnFamilies()}). */
    private void listAll() {
        if (listed) {
            return;
        }
        synchronized (this) {
            if (listed) {
                return;
            }
            core.guard.enter();
            try {
                core.calls.cfListAll(core.handle);
                load();
                listed = true;
            } finally {
                core.guard.exit();
            }
        }
    }

    synchronized ColumnFamily create(String name, Set<ColumnFamilyFlag> flags, ColumnFamilyOptions options) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(flags, "flags");
        Objects.requireNonNull(options, "options");
        if (flags.contains(ColumnFamilyFlag.DUPFIXED) && !flags.contains(ColumnFamilyFlag.DUPSORT)) {
            throw new IllegalArgumentException("column family flag DUPFIXED needs DUPSORT");
        }
        int mask = ColumnFamilyFlag.mask(flags);
        if (mask != 0 && core.engine != Engine.LMDB) {
            core.guard.check();
            throw FerryException.of(ErrorCode.NOT_SUPPORTED, 0, "column family flags " + flags + " are LMDB's: "
                    + core.engine + " keeps one value per key");
        }
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        if (n.length == 0 || name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("column family name must be non-empty and free of NUL characters");
        }
        if (core.engine == Engine.LMDB) {
            Long known = core.withHandle(h -> core.calls.admin().propertyLong(h, 0, "lmdb.max-key-size".getBytes(StandardCharsets.UTF_8)));
            long max = known == null ? 511 : known;
            if (n.length > max) {
                throw new IllegalArgumentException("column family name of " + n.length + " bytes is too long: LMDB keeps "
                        + "family names as keys of the default family, at most " + max + " bytes");
            }
        }
        core.guard.enter();
        try {
            String x = options.isEmpty() ? null : options.nativeOptionsString(core.callbacks);
            int id = core.calls.cfCreate(core.handle, n, mask, options.isEmpty() ? null : options.toNative(),
                    x == null ? null : x.getBytes(StandardCharsets.UTF_8));
            if (id != list.size()) { // not expected: every slot is made under this lock
                load();
                return list.get(id);
            }
            ColumnFamily cf = new ColumnFamily(core, id, name, mask | options.keyOrder().flag());
            list.add(cf);
            return cf;
        } finally {
            core.guard.exit();
        }
    }

    synchronized void drop(ColumnFamily cf) {
        int id = core.cfId(cf);
        if (id == 0) {
            throw new IllegalArgumentException("the default column family cannot be dropped");
        }
        core.guard.enter();
        try {
            core.calls.cfDrop(core.handle, id);
            cf.dropped = true;
        } finally {
            core.guard.exit();
        }
    }

    /** Adds a {@link ColumnFamily} for every native slot it has none for (ids are dense, in order). */
    void load() {
        int n = core.calls.cfCount(core.handle);
        for (int i = list.size(); i < n; i++) {
            NativeCalls.Slot slot = core.calls.cfSlot(core.handle, i);
            ColumnFamily cf = new ColumnFamily(core, i, slot.name, slot.flags);
            cf.dropped = slot.dropped;
            list.add(cf);
        }
    }
}
