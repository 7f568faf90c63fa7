package dev.ferry.fuzz;

import dev.ferry.ColumnFamily;
import dev.ferry.Compression;
import dev.ferry.Cursor;
import dev.ferry.CursorOptions;
import dev.ferry.Engine;
import dev.ferry.EntryVisitor;
import dev.ferry.KeyRange;
import dev.ferry.LmdbFlag;
import dev.ferry.Snapshot;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import dev.ferry.View;
import dev.ferry.WriteBatch;
import dev.ferry.fuzz.World.BatchRef;
import dev.ferry.fuzz.World.BufRef;
import dev.ferry.fuzz.World.CfRef;
import dev.ferry.fuzz.World.CurRef;
import dev.ferry.fuzz.World.SnapRef;
import dev.ferry.fuzz.World.StoreRef;
import dev.ferry.fuzz.World.StoreSlot;
import dev.ferry.fuzz.World.ViewRef;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Operations on {@link Store}, {@link Snapshot}, {@link WriteBatch}, {@link KeyRange},
 * {@link StoreOptions} and {@link CursorOptions}, and the helpers other operations use to pick
 * targets (stores, families, ranges, options).
 *
 * <p>Thread safety: stateless; every method runs on the calling fuzz thread.
 */
final class StoreOps {
    private StoreOps() {
    }

    static void register(MisuseFuzz f, OpTable t) {
        t.add("get", 80, StoreOps::get, true);
        t.add("put", 80, StoreOps::put, true);
        t.add("delete", 25, StoreOps::delete, true);
        t.add("deleteRange", 15, StoreOps::deleteRange, true);
        t.add("multiGet", 25, StoreOps::multiGet, true);
        t.add("write", 25, StoreOps::write, true);
        t.add("scan", 35, StoreOps::scan, false);
        t.add("openCursor", 80, StoreOps::openCursor, true);
        t.add("snapshot", 25, StoreOps::snapshot, true);
        boolean rocks = f.world.engine == Engine.ROCKSDB; // RocksDB's family creation, flush and compaction take milliseconds
        t.add("createColumnFamily", rocks ? 6 : 15, StoreOps::createFamily, true);
        t.add("dropColumnFamily", 8, StoreOps::dropFamily, true);
        t.add("storeMeta", 15, StoreOps::meta, true);
        t.add("maintenance", rocks ? 2 : 6, StoreOps::maintenance, true);
        t.add("property", 15, StoreOps::property, true);
        t.add("closeStore", 7, StoreOps::closeStore, true);
        t.add("openStore", 12, StoreOps::openStore, false);
        t.add("snapshotOp", 60, StoreOps::snapshotOp, true);
        t.add("batchOp", 35, StoreOps::batchOp, true);
        t.add("rangeOp", 10, StoreOps::rangeOp, true);
        t.add("optionsMisuse", 6, StoreOps::optionsMisuse, true);
    }

    // ---- picking targets ----

    /** @return an open store of a slot (reopened when closed), or null when reopening failed */
    static StoreRef liveStore(Ctx c) {
        StoreSlot slot = c.world.slots[c.rnd.nextInt(c.world.slots.length)];
        StoreRef s = slot.current;
        if (s != null && !s.store.isClosed()) {
            return s;
        }
        return reopen(c, slot);
    }

    /** @return mostly an open store, sometimes any store ever opened (closed, private), or null */
    static StoreRef anyStore(Ctx c) {
        if (c.rnd.nextInt(6) == 0) {
            StoreRef s = c.world.stores.pick(c.rnd);
            if (s != null) {
                return s;
            }
        }
        return liveStore(c);
    }

    static StoreRef reopen(Ctx c, StoreSlot slot) {
        synchronized (slot) {
            StoreRef cur = slot.current;
            if (cur != null && !cur.store.isClosed()) {
                return cur;
            }
            Path dir = c.world.root.resolve("slot" + slot.index + "-" + slot.generation);
            StoreRef s = open(c, dir, false, c.oneIn(30));
            if (s == null) {
                // still held (a cursor of another thread keeps it open) or refused: move on to a new directory
                if (c.oneIn(2)) {
                    slot.generation++;
                }
                return null;
            }
            slot.current = s;
            return s;
        }
    }

    /**
     * Opens a store with random options and registers it and its families.
     *
     * @return the store, or null when the open threw (judged)
     */
    static StoreRef open(Ctx c, Path dir, boolean privateStore, boolean odd) {
        StringBuilder d = new StringBuilder();
        StoreOptions o = options(c, d, odd);
        java.util.Set<String> merging = c.world.engine == Engine.ROCKSDB || c.oneIn(4)
                ? CfOptionOps.addFamilyOptions(c, o, d) : java.util.Set.of();
        boolean readOnly = d.indexOf("readOnly") >= 0;
        boolean bound = c.world.engine == Engine.LMDB && d.indexOf("NOTLS") < 0;
        Store[] out = new Store[1];
        int id = c.world.nextId();
        boolean missing = d.indexOf("createIfMissing=false") >= 0 && !java.nio.file.Files.exists(dir);
        if (missing) {
            c.mustThrow("a missing store opened with createIfMissing(false)");
        }
        if (!c.call("s" + id + " = Store.open(" + dir.getFileName() + ", " + d + ")", () -> {
            try {
                out[0] = Store.open(dir, o);
            } catch (dev.ferry.FerryException e) {
                // contract 6 (by name: FerryException.NotFound is newer than some builds this runs against)
                if (missing && !e.getClass().getSimpleName().equals("NotFound")) {
                    c.wrong("Store.open", "a missing store with createIfMissing(false) threw " + MisuseFuzz.brief(e) + ", not FerryException.NotFound");
                }
                throw e;
            }
        })) {
            return null;
        }
        StoreRef s = new StoreRef(id, out[0], dir, readOnly, bound, privateStore);
        s.mergeOperator = d.indexOf(" merge=") >= 0 || d.indexOf("merge_operator=uint64add") >= 0;
        c.world.stores.add(c.rnd, s);
        List<ColumnFamily> fams = new ArrayList<>();
        c.call(s + ".columnFamilies()", () -> fams.addAll(s.store.columnFamilies()));
        for (ColumnFamily cf : fams) {
            c.world.families.add(c.rnd, new CfRef(c.world.nextId(), cf, s, 0));
            if (merging.contains(cf.name())) {
                c.world.familyMerge.add(cf);
            }
        }
        return s;
    }

    /** Random store options; appends a description to {@code d}. {@code odd}: rarer, stranger settings. */
    static StoreOptions options(Ctx c, StringBuilder d, boolean odd) {
        StoreOptions o = StoreOptions.of(c.world.engine).binding(c.world.binding);
        d.append(c.world.engine).append('/').append(c.world.binding);
        if (c.world.engine == Engine.ROCKSDB && c.oneIn(3)) {
            o.statistics(true); // RocksDB's statistics, which storeMore reads (a RocksDB-only option: LMDB's options refuse it)
            d.append(" statistics");
        }
        if (c.world.engine == Engine.LMDB) {
            int m = c.rnd.nextInt(20);
            if (m < 12) {
                o.mapSize(256L << 20);
                d.append(" map=256M");
            } else if (m < 15) {
                long step = (1L << 20) << c.rnd.nextInt(4);
                o.mapSize(4L << 20).autoGrow(step);
                d.append(" map=4M autoGrow=").append(step);
            } else if (m < 16) {
                o.mapSize(1L << 20);
                d.append(" map=1M");
            }
            int f = c.rnd.nextInt(20);
            int fams = f < 10 ? 16 : f < 15 ? -1 : f < 19 ? 2 + c.rnd.nextInt(3) : 0;
            if (fams >= 0) {
                o.maxColumnFamilies(fams);
                d.append(" maxCf=").append(fams);
            }
            if (c.oneIn(4)) {
                // a full reader table makes every LMDB read retry with GCs for ~60 ms: small tables rarely
                int r = c.rnd.nextInt(10) != 0 ? 126 : 2 + c.rnd.nextInt(15);
                o.maxReaders(r);
                d.append(" maxReaders=").append(r);
            }
            EnumSet<LmdbFlag> flags = EnumSet.noneOf(LmdbFlag.class);
            if (c.rnd.nextInt(30) != 0) {
                flags.add(LmdbFlag.NOSYNC); // a synced commit costs milliseconds: rarely
            }
            if (c.oneIn(2)) {
                flags.add(LmdbFlag.NOTLS);
            }
            if (c.oneIn(3)) {
                flags.add(LmdbFlag.NOMETASYNC);
            }
            if (c.oneIn(7)) {
                flags.add(LmdbFlag.WRITEMAP);
            }
            if (c.oneIn(5)) {
                flags.add(LmdbFlag.NORDAHEAD);
            }
            o.lmdbFlags(flags);
            d.append(" flags=").append(flags);
        } else {
            if (c.oneIn(2)) {
                Compression z = Compression.values()[c.rnd.nextInt(Compression.values().length)];
                o.compression(z);
                d.append(" compression=").append(z);
            }
            if (c.oneIn(3)) {
                boolean w = c.oneIn(2);
                o.wal(w);
                d.append(" wal=").append(w);
            }
            if (c.oneIn(100)) {
                o.syncWrites(true);
                d.append(" syncWrites");
            }
            if (c.oneIn(3)) {
                int b = c.rnd.nextInt(21);
                o.bloomBitsPerKey(b);
                d.append(" bloom=").append(b);
            }
            if (c.oneIn(5)) {
                int n = new int[] {-1, 5, 64}[c.rnd.nextInt(3)];
                o.maxOpenFiles(n);
                d.append(" maxOpenFiles=").append(n);
            }
            if (c.oneIn(5)) {
                long n = new long[] {0, 1 << 20, 8 << 20}[c.rnd.nextInt(3)];
                o.blockCacheSize(n);
                d.append(" blockCache=").append(n);
            }
            if (c.oneIn(5)) {
                long n = new long[] {0, 4096, 2 << 20}[c.rnd.nextInt(3)];
                o.readaheadSize(n);
                d.append(" readahead=").append(n);
            }
            if (c.oneIn(3)) {
                dev.ferry.TransactionMode t = dev.ferry.TransactionMode.values()[c.rnd.nextInt(dev.ferry.TransactionMode.values().length)];
                // short lock waits: another fuzz thread's transaction may hold a key for the length of its op
                o.transactions(t).lockTimeout(50);
                d.append(" transactions=").append(t).append(" lockTimeout=50");
            }
            if (c.oneIn(20)) {
                c.call("StoreOptions.javaMergeOperator(badly named)", () -> o.javaMergeOperator(CfOptionOps.BADLY_NAMED));
            }
            if (c.oneIn(3)) {
                dev.ferry.MergeOperator m = dev.ferry.MergeOperator.values()[c.rnd.nextInt(dev.ferry.MergeOperator.values().length)];
                o.mergeOperator(m);
                d.append(" merge=").append(m);
            }
            if (c.oneIn(odd ? 2 : 10)) {
                // merge_operator=uint64add (not after a typed merge: the string wins, mergeOperator stays what it said)
                String[] extra = {"write_buffer_size=65536", "max_write_buffer_number=2;level0_file_num_compaction_trigger=2",
                    "bogus_option=1", "write_buffer_size=", ";;", "compression=kNoCompression", "max_open_files=-5",
                    "merge_operator=sortlist", "merge_operator=bogus", "merge_operator=uint64add", "merge_operator={id=x"};
                String e = extra[c.rnd.nextInt(extra.length)];
                o.rocksdbOptions(e);
                d.append(" rocksdbOptions='").append(e).append('\'');
            }
        }
        if (c.oneIn(3)) {
            int p = new int[] {256, 300, 4096, 1 << 20}[c.rnd.nextInt(4)];
            o.pageSize(p);
            d.append(" pageSize=").append(p);
        }
        if (odd) {
            switch (c.rnd.nextInt(4)) {
                case 0: o.readOnly(true); d.append(" readOnly"); break;
                case 1: o.createIfMissing(false); d.append(" createIfMissing=false"); break;
                case 2: o.errorIfExists(true); d.append(" errorIfExists"); break;
                default: break;
            }
        }
        return o;
    }

    /**
     * A column family for a call on {@code s}: mostly one of its live families, sometimes a
     * dropped one, one of another store, or null. Notes what the call must do about it.
     *
     * @return the family and a log name, as {@code [ColumnFamily, String]}
     */
    static Object[] family(Ctx c, StoreRef s) {
        return family(c, s, true);
    }

    /** As {@link #family(Ctx, StoreRef)}; {@code strict} false: the call need not refuse another store's or a dropped family. */
    static Object[] family(Ctx c, StoreRef s, boolean strict) {
        int r = c.rnd.nextInt(100);
        if (r < 3) {
            c.nullArg("column family");
            return new Object[] {null, "null"};
        }
        if (r < 45) {
            ColumnFamily d = s.store.defaultColumnFamily();
            return new Object[] {d, s + ".default"};
        }
        for (int i = 0; i < 8; i++) {
            CfRef f = c.world.families.pick(c.rnd);
            if (f == null) {
                break;
            }
            boolean same = f.store == s;
            if (!same && r < 92) {
                continue; // mostly the store's own families
            }
            if (!strict) {
                return new Object[] {f.cf, f.toString()};
            }
            if (!same) {
                c.mustThrow("a column family of another store accepted");
            } else if (f.cf.isDropped()) {
                c.mustThrow("a dropped column family accepted");
            }
            return new Object[] {f.cf, f.toString()};
        }
        return new Object[] {s.store.defaultColumnFamily(), s + ".default"};
    }

    /** @return a key range (factories with random bounds; sometimes a pooled one) */
    static KeyRange range(Ctx c, StringBuilder d) {
        if (c.oneIn(4)) {
            KeyRange r = c.world.ranges.pick(c.rnd);
            if (r != null) {
                d.append(r);
                return r;
            }
        }
        byte[] a = c.anyKey();
        byte[] b = c.anyKey();
        KeyRange r;
        switch (c.rnd.nextInt(11)) {
            case 0: r = KeyRange.atLeast(a); break;
            case 1: r = KeyRange.greaterThan(a); break;
            case 2: r = KeyRange.atMost(a); break;
            case 3: r = KeyRange.lessThan(a); break;
            case 4: r = KeyRange.closed(a, b); break;
            case 5: r = KeyRange.closedOpen(a, b); break;
            case 6: r = KeyRange.openClosed(a, b); break;
            case 7: r = KeyRange.open(a, b); break;
            case 8: r = KeyRange.prefix(Arrays.copyOf(a, Math.min(a.length, 2))); break;
            default: r = KeyRange.all(); break;
        }
        d.append(r);
        if (c.oneIn(3)) {
            c.world.ranges.add(c.rnd, r);
        }
        return r;
    }

    /** @return cursor options (null for defaults, pooled shared ones, or new ones with random settings) */
    static CursorOptions cursorOptions(Ctx c, StringBuilder d) {
        int r = c.rnd.nextInt(10);
        if (r < 4) {
            d.append("null");
            return null;
        }
        if (r < 6) {
            CursorOptions o = c.world.cursorOptions.pick(c.rnd);
            if (o != null) {
                d.append("pooled");
                return o;
            }
        }
        CursorOptions o = CursorOptions.defaults();
        d.append("opts{");
        if (c.oneIn(2)) {
            int p = new int[] {256, 257, 1000, 4096, 4096, 65536, 65536, 1 << 20}[c.rnd.nextInt(8)];
            o.pageSize(p);
            d.append("page=").append(p).append(' ');
        }
        // the draws in this order: a seed replays the same options
        flag(c, d, 3, "pointers", o::pointers);
        flag(c, d, 3, "pageWalk", o::pageWalk);
        flag(c, d, 4, "fillCache", o::fillCache);
        flag(c, d, 4, "verifyChecksums", o::verifyChecksums);
        flag(c, d, 4, "asyncIo", o::asyncIo);
        flag(c, d, 4, "autoPrefixMode", o::autoPrefixMode);
        d.append('}');
        if (c.oneIn(3)) {
            c.world.cursorOptions.add(c.rnd, o);
        }
        return o;
    }

    /** One in {@code oneIn} calls: sets a random boolean option and describes it. */
    private static void flag(Ctx c, StringBuilder d, int oneIn, String name, Consumer<Boolean> set) {
        if (c.oneIn(oneIn)) {
            boolean v = c.oneIn(2);
            set.accept(v);
            d.append(name).append('=').append(v).append(' ');
        }
    }

    /** @return a buffer whose position..limit holds {@code b}: heap, direct, read-only, sliced or offset */
    static ByteBuffer buffer(Ctx c, byte[] b, StringBuilder d) {
        int pad = c.oneIn(3) ? c.rnd.nextInt(9) : 0;
        boolean direct = c.oneIn(2);
        ByteBuffer x = direct ? direct(b.length + 2 * pad) : ByteBuffer.allocate(b.length + 2 * pad);
        x.position(pad);
        x.put(b);
        x.position(pad).limit(pad + b.length);
        d.append(x.isDirect() ? "direct" : "heap").append(Ctx.hex(b));
        if (c.oneIn(4)) {
            x = x.asReadOnlyBuffer();
            d.append("/ro");
        }
        if (c.oneIn(4)) {
            x = x.slice();
            d.append("/slice");
        }
        return x;
    }

    /** @return a destination buffer of a random size (sometimes read-only, noted) */
    static ByteBuffer into(Ctx c, StringBuilder d) {
        int n = new int[] {0, 1, 7, 64, 5000, 200_000}[c.rnd.nextInt(6)];
        ByteBuffer x = c.oneIn(2) ? direct(n) : ByteBuffer.allocate(n);
        if (n > 2 && c.oneIn(4)) {
            x.position(1).limit(n - 1);
        }
        d.append(x.isDirect() ? "direct" : "heap").append(n);
        if (c.oneIn(10)) {
            x = x.asReadOnlyBuffer();
            c.readOnlyDst();
            d.append("/ro");
        }
        return x;
    }

    /** @return a direct buffer, or a heap one when direct memory is exhausted */
    static ByteBuffer direct(int n) {
        try {
            return ByteBuffer.allocateDirect(n);
        } catch (OutOfMemoryError e) {
            return ByteBuffer.allocate(n);
        }
    }

    /** Notes a closed store for calls that must then throw. */
    static void closedStore(Ctx c, StoreRef s) {
        if (s.store.isClosed()) {
            c.closed("store " + s);
        }
    }

    // ---- store operations ----

    private static void get(Ctx c) {
        StoreRef s = anyStore(c);
        if (s == null) {
            return;
        }
        Store st = s.store;
        switch (c.rnd.nextInt(6)) {
            case 0: {
                closedStore(c, s);
                byte[] k = c.key("key");
                c.call(s + ".get(" + Ctx.hex(k) + ")", () -> st.get(k));
                break;
            }
            case 1: {
                closedStore(c, s);
                Object[] f = family(c, s);
                byte[] k = c.key("key");
                c.call(s + ".get(" + f[1] + ", " + Ctx.hex(k) + ")", () -> st.get((ColumnFamily) f[0], k));
                break;
            }
            case 2: {
                closedStore(c, s);
                Object[] f = family(c, s);
                byte[] k = c.key("key");
                int len = k == null ? 4 : k.length;
                int off = c.index(len, 0, true);
                int n = off >= 0 && off <= len && c.rnd.nextInt(4) != 0 ? c.rnd.nextInt(len - off + 1) : c.extreme();
                if (n < 0 || off < 0 || (long) off + n > len) {
                    c.badIndex(k == null ? null : "slice off=" + off + " len=" + n + " of " + len + " accepted");
                }
                c.call(s + ".get(" + f[1] + ", " + Ctx.hex(k) + ", " + off + ", " + n + ")", () -> st.get((ColumnFamily) f[0], k, off, n));
                break;
            }
            case 3: {
                closedStore(c, s);
                Object[] f = family(c, s);
                StringBuilder d = new StringBuilder();
                ByteBuffer k = c.oneIn(50) ? null : buffer(c, c.anyKey(), d);
                if (k == null) {
                    c.nullArg("key");
                }
                c.call(s + ".get(" + f[1] + ", " + (k == null ? "null" : d) + ")", () -> st.get((ColumnFamily) f[0], k));
                break;
            }
            case 4: {
                closedStore(c, s);
                byte[] k = c.key("key");
                StringBuilder d = new StringBuilder();
                ByteBuffer into = c.oneIn(50) ? null : into(c, d);
                if (into == null) {
                    c.nullArg("into");
                }
                c.call(s + ".get(" + Ctx.hex(k) + ", into " + (into == null ? "null" : d) + ")", () -> st.get(k, into));
                break;
            }
            default: {
                closedStore(c, s);
                Object[] f = family(c, s);
                StringBuilder d = new StringBuilder();
                ByteBuffer k = buffer(c, c.anyKey(), d);
                d.append(", into ");
                ByteBuffer into = into(c, d);
                c.call(s + ".get(" + f[1] + ", " + d + ")", () -> st.get((ColumnFamily) f[0], k, into));
                break;
            }
        }
    }

    private static void put(Ctx c) {
        StoreRef s = anyStore(c);
        if (s == null) {
            return;
        }
        Store st = s.store;
        closedStore(c, s);
        switch (c.rnd.nextInt(4)) {
            case 0: {
                byte[] k = c.key("key");
                byte[] v = c.value("value");
                if (Ctx.validKey(k) && v != null) {
                    c.validWrite(null);
                }
                c.call(s + ".put(" + Ctx.hex(k) + ", " + Ctx.hex(v) + ")", () -> st.put(k, v));
                break;
            }
            case 1: {
                Object[] f = family(c, s);
                byte[] k = c.key("key");
                byte[] v = c.value("value");
                if (Ctx.validKey(k) && v != null) {
                    c.validWrite((ColumnFamily) f[0]);
                }
                c.call(s + ".put(" + f[1] + ", " + Ctx.hex(k) + ", " + Ctx.hex(v) + ")", () -> st.put((ColumnFamily) f[0], k, v));
                break;
            }
            case 2: {
                Object[] f = family(c, s);
                byte[] k = c.key("key");
                byte[] v = c.value("value");
                int kl = k == null ? 3 : k.length;
                int vl = v == null ? 3 : v.length;
                int ko = c.rnd.nextInt(4) != 0 ? 0 : c.index(kl, 0, false);
                int kn = c.rnd.nextInt(4) != 0 ? kl - Math.max(0, Math.min(ko, kl)) : c.index(kl, 0, false);
                int vo = c.rnd.nextInt(4) != 0 ? 0 : c.index(vl, 0, false);
                int vn = c.rnd.nextInt(4) != 0 ? vl - Math.max(0, Math.min(vo, vl)) : c.index(vl, 0, false);
                boolean bad = ko < 0 || kn < 0 || (long) ko + kn > kl || vo < 0 || vn < 0 || (long) vo + vn > vl;
                if (bad) {
                    c.badIndex(k == null || v == null ? null : "bad slice accepted");
                } else if (k != null && v != null && kn > 0 && kn <= 511) {
                    c.validWrite((ColumnFamily) f[0]);
                }
                c.call(s + ".put(" + f[1] + ", " + Ctx.hex(k) + ", " + ko + ", " + kn + ", " + Ctx.hex(v) + ", " + vo + ", " + vn + ")",
                        () -> st.put((ColumnFamily) f[0], k, ko, kn, v, vo, vn));
                break;
            }
            default: {
                Object[] f = family(c, s);
                StringBuilder d = new StringBuilder();
                byte[] kb = c.anyKey();
                ByteBuffer k = buffer(c, kb, d);
                d.append(", ");
                byte[] vb = c.anyValue();
                ByteBuffer v = c.oneIn(50) ? null : buffer(c, vb, d);
                if (v == null) {
                    c.nullArg("value");
                } else if (Ctx.validKey(kb)) {
                    c.validWrite((ColumnFamily) f[0]);
                }
                c.call(s + ".put(" + f[1] + ", " + d + ")", () -> st.put((ColumnFamily) f[0], k, v));
                break;
            }
        }
    }

    private static void delete(Ctx c) {
        StoreRef s = anyStore(c);
        if (s == null) {
            return;
        }
        Store st = s.store;
        closedStore(c, s);
        switch (c.rnd.nextInt(4)) {
            case 0: {
                byte[] k = c.key("key");
                c.call(s + ".delete(" + Ctx.hex(k) + ")", () -> st.delete(k));
                break;
            }
            case 1: {
                Object[] f = family(c, s);
                byte[] k = c.key("key");
                c.call(s + ".delete(" + f[1] + ", " + Ctx.hex(k) + ")", () -> st.delete((ColumnFamily) f[0], k));
                break;
            }
            case 2: {
                Object[] f = family(c, s);
                byte[] k = c.key("key");
                int len = k == null ? 2 : k.length;
                int off = c.index(len, 0, false);
                int n = c.index(len, 0, false);
                if (off < 0 || n < 0 || (long) off + n > len) {
                    c.badIndex(k == null ? null : "bad slice accepted");
                }
                c.call(s + ".delete(" + f[1] + ", " + Ctx.hex(k) + ", " + off + ", " + n + ")", () -> st.delete((ColumnFamily) f[0], k, off, n));
                break;
            }
            default: {
                Object[] f = family(c, s);
                StringBuilder d = new StringBuilder();
                ByteBuffer k = c.oneIn(50) ? null : buffer(c, c.anyKey(), d);
                if (k == null) {
                    c.nullArg("key");
                }
                c.call(s + ".delete(" + f[1] + ", " + (k == null ? "null" : d) + ")", () -> st.delete((ColumnFamily) f[0], k));
                break;
            }
        }
    }

    private static void deleteRange(Ctx c) {
        StoreRef s = anyStore(c);
        if (s == null) {
            return;
        }
        Store st = s.store;
        closedStore(c, s);
        boolean withCf = c.oneIn(2);
        Object[] f = withCf ? family(c, s) : null;
        byte[] b = c.key("begin");
        byte[] e = c.rnd.nextInt(5) == 0 ? new byte[0] : c.key("end");
        if (b != null && e != null && b.length <= 511 && e.length <= 511) {
            // contract 3: begin >= end is a no-op, and no range of valid keys is an invalid argument
            c.validWrite(withCf ? (ColumnFamily) f[0] : null);
        }
        if (!withCf) {
            c.call(s + ".deleteRange(" + Ctx.hex(b) + ", " + Ctx.hex(e) + ")", () -> st.deleteRange(b, e));
        } else {
            c.call(s + ".deleteRange(" + f[1] + ", " + Ctx.hex(b) + ", " + Ctx.hex(e) + ")", () -> st.deleteRange((ColumnFamily) f[0], b, e));
        }
    }

    /** @return a key list (sometimes null, empty, with a null element, or long) */
    static List<byte[]> keys(Ctx c, StringBuilder d) {
        int r = c.rnd.nextInt(40);
        if (r == 0) {
            c.nullArg("keys");
            d.append("null");
            return null;
        }
        int n = r == 1 ? 0 : r == 2 ? 300 + c.rnd.nextInt(700) : 1 + c.rnd.nextInt(12);
        List<byte[]> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            l.add(c.anyKey());
        }
        if (n > 0 && c.oneIn(25)) {
            l.set(c.rnd.nextInt(n), null);
            c.nullArg("keys element");
            d.append("(with null) ");
        }
        d.append(n).append(" keys");
        return l;
    }

    private static void multiGet(Ctx c) {
        StoreRef s = anyStore(c);
        if (s == null) {
            return;
        }
        Store st = s.store;
        closedStore(c, s);
        StringBuilder d = new StringBuilder();
        if (c.oneIn(2)) {
            List<byte[]> k = keys(c, d);
            c.call(s + ".multiGet(" + d + ")", () -> st.multiGet(k));
        } else {
            Object[] f = family(c, s);
            List<byte[]> k = keys(c, d);
            c.call(s + ".multiGet(" + f[1] + ", " + d + ")", () -> st.multiGet((ColumnFamily) f[0], k));
        }
    }

    private static void write(Ctx c) {
        StoreRef s = anyStore(c);
        if (s == null) {
            return;
        }
        Store st = s.store;
        int r = c.rnd.nextInt(30);
        if (r == 0) {
            closedStore(c, s);
            c.nullArg("batch");
            c.call(s + ".write(null)", () -> st.write(null));
            return;
        }
        BatchRef b = r < 12 ? c.world.batches.pick(c.rnd) : null;
        if (b == null) {
            b = newBatch(c);
            fillBatch(c, b, s, 1 + c.rnd.nextInt(c.oneIn(10) ? 1000 : 8));
        }
        BatchRef w = b;
        w.touch();
        closedStore(c, s);
        c.racy(() -> w.shared);
        c.call(s + ".write(" + w + ")", () -> st.write(w.batch));
    }

    static BatchRef newBatch(Ctx c) {
        BatchRef b = new BatchRef(c.world.nextId(), new WriteBatch(), Thread.currentThread());
        c.note(b + " = new WriteBatch()");
        c.world.batches.add(c.rnd, b);
        return b;
    }

    /** Adds {@code n} random records (one logged line each) naming families of {@code s} or none. */
    static void fillBatch(Ctx c, BatchRef b, StoreRef s, int n) {
        WriteBatch wb = b.batch;
        b.touch();
        if (n > 20) {
            long seed = c.rnd.nextLong();
            c.racy(() -> b.shared);
            c.call(b + ".put x" + n + " (seed " + seed + ")", () -> {
                java.util.Random r = new java.util.Random(seed);
                for (int i = 0; i < n; i++) {
                    byte[] k = {(byte) r.nextInt(256), (byte) r.nextInt(256)};
                    wb.put(k, new byte[r.nextInt(64)]);
                }
            });
            return;
        }
        for (int i = 0; i < n; i++) {
            batchRecord(c, b, s);
        }
    }

    private static void batchRecord(Ctx c, BatchRef b, StoreRef s) {
        WriteBatch wb = b.batch;
        c.racy(() -> b.shared);
        if (wb == null) {
            return;
        }
        int op = c.rnd.nextInt(8);
        boolean withCf = op >= 4;
        Object[] f = withCf && s != null ? family(c, s, false) : new Object[] {null, null};
        if (withCf && s == null) {
            c.nullArg("cf");
        }
        ColumnFamily cf = (ColumnFamily) f[0];
        byte[] k = c.key("key");
        switch (op % 4) {
            case 3: {
                byte[] v = c.value("operand");
                c.call(b + ".merge(" + (withCf ? f[1] + ", " : "") + Ctx.hex(k) + ", " + Ctx.hex(v) + ")",
                        () -> { if (withCf) { wb.merge(cf, k, v); } else { wb.merge(k, v); } });
                break;
            }
            case 0: {
                byte[] v = c.value("value");
                c.call(b + ".put(" + (withCf ? f[1] + ", " : "") + Ctx.hex(k) + ", " + Ctx.hex(v) + ")",
                        () -> { if (withCf) { wb.put(cf, k, v); } else { wb.put(k, v); } });
                break;
            }
            case 1:
                c.call(b + ".delete(" + (withCf ? f[1] + ", " : "") + Ctx.hex(k) + ")",
                        () -> { if (withCf) { wb.delete(cf, k); } else { wb.delete(k); } });
                break;
            default: {
                byte[] e = c.rnd.nextInt(5) == 0 ? new byte[0] : c.key("end");
                c.call(b + ".deleteRange(" + (withCf ? f[1] + ", " : "") + Ctx.hex(k) + ", " + Ctx.hex(e) + ")",
                        () -> { if (withCf) { wb.deleteRange(cf, k, e); } else { wb.deleteRange(k, e); } });
                break;
            }
        }
    }

    private static void batchOp(Ctx c) {
        BatchRef b = c.world.batches.pick(c.rnd);
        if (b == null || c.oneIn(8)) {
            b = newBatch(c);
        }
        BatchRef w = b;
        w.touch();
        WriteBatch wb = w.batch;
        c.racy(() -> w.shared);
        switch (c.rnd.nextInt(8)) {
            case 0:
                c.call(w + ".count()", wb::count);
                break;
            case 1:
                c.call(w + ".sizeInBytes()", wb::sizeInBytes);
                break;
            case 2:
                c.call(w + ".clear()", wb::clear);
                break;
            case 3:
                c.call(w + ".close()", wb::close);
                break;
            default:
                fillBatch(c, w, c.oneIn(5) ? null : anyStore(c), 1 + c.rnd.nextInt(3));
                break;
        }
    }

    /**
     * A visitor for a scan, chosen at random (count, stop, throw, keep views, nested call, close
     * the store, read and check entries); appends its description to {@code d}.
     */
    /** @return whether f (a family or null) keeps several values per key */
    static boolean dups(Object f) {
        return f instanceof ColumnFamily && ((ColumnFamily) f).hasDuplicates();
    }

    static EntryVisitor visitor(Ctx c, StringBuilder d, StoreRef s, Snapshot snap, KeyRange range, Ctx.FuzzStop stop) {
        return visitor(c, d, s, snap, range, stop, false);
    }

    static EntryVisitor visitor(Ctx c, StringBuilder d, StoreRef s, Snapshot snap, KeyRange range, Ctx.FuzzStop stop,
            boolean dups) {
        int mode = c.rnd.nextInt(30);
        int n = c.rnd.nextInt(c.oneIn(2) ? 4 : 200);
        CurRef pseudo = new CurRef(c.world.nextId(), null, Thread.currentThread(), range, s, null);
        switch (mode) {
            case 0:
                c.nullArg("visitor");
                d.append("null");
                return null;
            case 1: case 2: case 3:
                d.append("stop after ").append(n);
                int[] left = {n};
                return (k, v) -> left[0]-- > 0;
            case 4: case 5:
                d.append("throw after ").append(n);
                c.thrownByUs(stop);
                int[] left2 = {n};
                return (k, v) -> {
                    if (left2[0]-- <= 0) {
                        throw stop;
                    }
                    return true;
                };
            case 6: case 7: case 8:
                d.append("keep views after ").append(n);
                int[] left3 = {n};
                return (k, v) -> {
                    if (left3[0]-- == 0) {
                        c.world.views.add(c.rnd, new ViewRef(c.world.nextId(), k, pseudo));
                        c.world.views.add(c.rnd, new ViewRef(c.world.nextId(), v, pseudo));
                        if (c.oneIn(2)) {
                            keepBuffer(c, v, pseudo);
                        }
                    }
                    return true;
                };
            case 9: case 10: case 11: case 12:
                d.append("nested calls every ").append(n + 1);
                int[] left4 = {n};
                return (k, v) -> {
                    if (left4[0]-- <= 0) {
                        left4[0] = n;
                        if (c.depth() <= 1) {
                            c.resetPending();
                            try {
                                c.fuzz.table.runNestable(c);
                            } catch (Throwable t) {
                                c.fuzz.fail("FUZZER", c, c.seq, "nested op", "escaped a nested operation", t);
                            }
                        }
                    }
                    return true;
                };
            case 13: case 14: {
                boolean closeSnap = snap != null && c.oneIn(2);
                d.append("close ").append(closeSnap ? "snapshot" : "store").append(" after ").append(n);
                int[] left5 = {n};
                return (k, v) -> {
                    if (left5[0]-- == 0) {
                        if (closeSnap) {
                            c.call("(visitor) snapshot.close()", snap::close);
                        } else {
                            c.call("(visitor) " + s + ".close()", s.store::close);
                        }
                    }
                    return true;
                };
            }
            default:
                d.append("read and check");
                byte[][] prev = {null, null};
                return (k, v) -> {
                    byte[] kb = k.toByteArray();
                    byte[] vb = v.toByteArray();
                    int cmp = prev[0] == null ? -1 : Arrays.compareUnsigned(prev[0], kb);
                    if (cmp == 0 && dups) { // a key's values, in order
                        cmp = Arrays.compareUnsigned(prev[1], vb);
                    }
                    prev[1] = vb;
                    if (cmp >= 0) {
                        c.wrong("scan visitor", "scan keys out of order: " + Ctx.hex(prev[0]) + " then " + Ctx.hex(kb));
                    }
                    if (range != null && !range.contains(kb)) {
                        c.wrong("scan visitor", "scan key " + Ctx.hex(kb) + " outside its range " + range);
                    }
                    if (v.length() != vb.length || k.length() != kb.length) {
                        c.wrong("scan visitor", "view length differs from its copy");
                    }
                    prev[0] = kb;
                    return true;
                };
        }
    }

    /** Takes a view's buffer on the owner's thread and keeps it with the bytes it shows now. */
    static void keepBuffer(Ctx c, View v, CurRef cur) {
        byte[][] expect = new byte[1][];
        ByteBuffer[] out = new ByteBuffer[1];
        int id = c.world.nextId();
        if (c.call("b" + id + " = " + (cur == null ? "view" : cur + ".view") + ".asByteBuffer()", () -> {
            expect[0] = v.toByteArray();
            out[0] = v.asByteBuffer();
        })) {
            ByteBuffer bb = out[0];
            byte[] now = new byte[bb.remaining()];
            bb.duplicate().get(now);
            if (!Arrays.equals(now, expect[0])) {
                c.wrong("asByteBuffer", "a fresh buffer shows other bytes than the view");
            }
            c.world.buffers.add(c.rnd, new BufRef(id, bb, expect[0], cur));
        }
    }

    private static void scan(Ctx c) {
        StoreRef s = anyStore(c);
        if (s == null) {
            return;
        }
        Store st = s.store;
        closedStore(c, s);
        StringBuilder d = new StringBuilder();
        Ctx.FuzzStop stop = new Ctx.FuzzStop();
        int kind = c.rnd.nextInt(3);
        Object[] f = kind == 2 ? family(c, s) : null;
        KeyRange range = c.oneIn(40) ? null : range(c, d);
        if (range == null) {
            c.nullArg("range");
            d.append("null");
        }
        d.append(", ");
        EntryVisitor v = visitor(c, d, s, null, range, stop, f != null && dups(f[0]));
        if (kind == 0) {
            c.call(s + ".scan(" + d + ")", () -> st.scan(range, v));
        } else {
            c.call(s + ".scan(" + (f == null ? s + ".default" : f[1]) + ", " + d + ")",
                    () -> st.scan(f == null ? st.defaultColumnFamily() : (ColumnFamily) f[0], range, v));
        }
    }

    private static void openCursor(Ctx c) {
        StoreRef s = anyStore(c);
        if (s == null) {
            return;
        }
        Store st = s.store;
        closedStore(c, s);
        StringBuilder d = new StringBuilder();
        Cursor[] out = new Cursor[1];
        KeyRange[] rg = {KeyRange.all()};
        Object[] fam = {null};
        int id = c.world.nextId();
        boolean ok;
        switch (c.rnd.nextInt(4)) {
            case 0:
                ok = c.call("c" + id + " = " + s + ".cursor()", () -> out[0] = st.cursor());
                break;
            case 1: {
                KeyRange r = c.oneIn(40) ? null : range(c, d);
                if (r == null) {
                    c.nullArg("range");
                }
                rg[0] = r;
                ok = c.call("c" + id + " = " + s + ".cursor(" + (r == null ? "null" : d) + ")", () -> out[0] = st.cursor(r));
                break;
            }
            default: {
                Object[] f = family(c, s);
                KeyRange r = c.oneIn(40) ? null : range(c, d);
                if (r == null) {
                    c.nullArg("range");
                }
                rg[0] = r;
                d.append(", ");
                CursorOptions o = cursorOptions(c, d);
                fam[0] = f[0];
                ok = c.call("c" + id + " = " + s + ".cursor(" + f[1] + ", " + d + ")", () -> out[0] = st.cursor((ColumnFamily) f[0], r, o));
                break;
            }
        }
        if (ok) {
            CurRef ref = new CurRef(id, out[0], Thread.currentThread(), rg[0], s, null);
            ref.dups = dups(fam[0]);
            c.world.keep(c, ref);
        }
    }

    private static void snapshot(Ctx c) {
        StoreRef s = anyStore(c);
        if (s == null) {
            return;
        }
        closedStore(c, s);
        Snapshot[] out = new Snapshot[1];
        int id = c.world.nextId();
        if (c.call("p" + id + " = " + s + ".snapshot()", () -> out[0] = s.store.snapshot())) {
            c.world.keep(c, new SnapRef(id, out[0], s, Thread.currentThread(), c.world.tick()));
        }
    }

    static String familyName(Ctx c) {
        int r = c.rnd.nextInt(50);
        switch (r) {
            case 0: c.nullArg("name"); return null;
            case 1: return "";
            case 2: return "a\0b";
            case 3: return "n".repeat(600);
            case 4: return "\u00e9\u4e2d";
            default: return "f" + c.rnd.nextInt(8);
        }
    }

    static String shown(String name) {
        return name == null ? "null" : name.length() > 20 ? "'n' x" + name.length() : "'" + name.replace("\0", "\\0") + "'";
    }

    private static void createFamily(Ctx c) {
        StoreRef s = anyStore(c);
        if (s == null) {
            return;
        }
        closedStore(c, s);
        String name = familyName(c);
        ColumnFamily[] out = new ColumnFamily[1];
        long before = c.world.tick();
        int id = c.world.nextId();
        String shown = shown(name);
        if (c.call("f" + id + " = " + s + ".createColumnFamily(" + shown + ")", () -> out[0] = s.store.createColumnFamily(name))) {
            c.world.families.add(c.rnd, new CfRef(id, out[0], s, before));
        }
    }

    private static void dropFamily(Ctx c) {
        StoreRef s = anyStore(c);
        if (s == null) {
            return;
        }
        closedStore(c, s);
        Object[] f = family(c, s);
        c.call(s + ".dropColumnFamily(" + f[1] + ")", () -> s.store.dropColumnFamily((ColumnFamily) f[0]));
    }

    private static void meta(Ctx c) {
        StoreRef s = anyStore(c);
        if (s == null) {
            return;
        }
        Store st = s.store;
        switch (c.rnd.nextInt(8)) {
            case 0:
                closedStore(c, s);
                c.call(s + ".columnFamilies()", st::columnFamilies);
                break;
            case 1: {
                closedStore(c, s);
                String n = familyName(c);
                c.call(s + ".columnFamily(" + shown(n) + ")", () -> {
                    Optional<ColumnFamily> cf = st.columnFamily(n);
                    // another thread may drop it between the lookup and this check (CI saw that once, LMDB/ffm,
                    // 3 threads): wrong only if the store hands out the same dropped family again
                    if (cf.isPresent() && cf.get().isDropped()) {
                        Optional<ColumnFamily> again = st.columnFamily(n);
                        if (again.isPresent() && again.get() == cf.get()) {
                            c.wrong(s + ".columnFamily", "returned a dropped family");
                        }
                    }
                });
                break;
            }
            case 2:
                c.call(s + ".defaultColumnFamily()", st::defaultColumnFamily);
                break;
            case 3:
                c.call(s + ".engine()/path()/binding()", () -> {
                    if (st.engine() != c.world.engine || !st.binding().equals(c.world.binding) || st.path() == null) {
                        c.wrong(s + ".engine()", "engine/binding/path differ from what was opened");
                    }
                });
                break;
            case 4:
                c.call(s + ".isClosed()", st::isClosed);
                break;
            case 5:
                c.call(s + ".toString()", st::toString);
                break;
            default: {
                closedStore(c, s);
                c.call(s + ".estimatedKeyCount()", st::estimatedKeyCount);
                break;
            }
        }
    }

    private static void maintenance(Ctx c) {
        StoreRef s = anyStore(c);
        if (s == null) {
            return;
        }
        Store st = s.store;
        closedStore(c, s);
        switch (c.rnd.nextInt(4)) {
            case 0:
                c.call(s + ".flush()", st::flush);
                break;
            case 1: {
                Object[] f = family(c, s);
                c.call(s + ".flush(" + f[1] + ")", () -> st.flush((ColumnFamily) f[0]));
                break;
            }
            case 2:
                c.call(s + ".compactRange()", st::compactRange);
                break;
            default: {
                Object[] f = family(c, s);
                byte[] b = c.oneIn(3) ? null : c.anyKey();
                byte[] e = c.oneIn(3) ? null : c.anyKey();
                c.call(s + ".compactRange(" + f[1] + ", " + Ctx.hex(b) + ", " + Ctx.hex(e) + ")",
                        () -> st.compactRange((ColumnFamily) f[0], b, e));
                break;
            }
        }
    }

    private static void property(Ctx c) {
        StoreRef s = anyStore(c);
        if (s == null) {
            return;
        }
        Store st = s.store;
        closedStore(c, s);
        String[] names = {"rocksdb.stats", "rocksdb.estimate-num-keys", "lmdb.stat", "lmdb.entries", "lmdb.walked-pages",
            "ferry.estimate-num-keys", "bogus", "", "rocksdb.levelstats", "lmdb.info"};
        int op = c.rnd.nextInt(4);
        String n = c.oneIn(30) || op == 3 ? null : names[c.rnd.nextInt(names.length)];
        if (n == null && op != 3) {
            c.nullArg("name");
        }
        switch (op) {
            case 0:
                c.call(s + ".property(" + n + ")", () -> st.property(n));
                break;
            case 1: {
                Object[] f = family(c, s);
                c.call(s + ".property(" + f[1] + ", " + n + ")", () -> st.property((ColumnFamily) f[0], n));
                break;
            }
            case 2: {
                Object[] f = family(c, s);
                c.call(s + ".propertyLong(" + f[1] + ", " + n + ")", () -> st.propertyLong((ColumnFamily) f[0], n));
                break;
            }
            default: {
                Object[] f = family(c, s);
                c.call(s + ".estimatedKeyCount(" + f[1] + ")", () -> st.estimatedKeyCount((ColumnFamily) f[0]));
                break;
            }
        }
    }

    private static void closeStore(Ctx c) {
        StoreRef s = c.oneIn(4) ? c.world.stores.pick(c.rnd) : liveStore(c);
        if (s == null) {
            return;
        }
        c.call(s + ".close()", s.store::close);
        if (c.oneIn(3)) {
            c.call(s + ".close() again", s.store::close);
        }
    }

    private static void openStore(Ctx c) {
        int r = c.rnd.nextInt(10);
        if (r < 5) {
            StoreSlot slot = c.world.slots[c.rnd.nextInt(c.world.slots.length)];
            if (slot.current == null || slot.current.store.isClosed()) {
                reopen(c, slot);
            }
        } else if (r < 7) {
            // the directory of a store that may still be open: LMDB refuses (Busy), RocksDB holds a lock
            StoreRef s = c.world.stores.pick(c.rnd);
            if (s != null) {
                StoreRef o = open(c, s.dir, true, c.oneIn(2));
                if (o != null && c.oneIn(2)) {
                    c.call(o + ".close()", o.store::close);
                }
            }
        } else if (r < 8) {
            open(c, c.world.root.resolve("missing-" + c.world.nextId()).resolve("x"), true, true);
        } else {
            StoreRef o = open(c, c.world.root.resolve("private-" + c.world.nextId()), true, c.oneIn(4));
            if (o != null && c.oneIn(3)) {
                c.call(o + ".close()", o.store::close);
            }
        }
    }

    // ---- snapshots ----

    private static void snapshotOp(Ctx c) {
        SnapRef p = c.world.snapshots.pick(c.rnd);
        if (p == null) {
            snapshot(c);
            return;
        }
        Snapshot sn = p.snap;
        StoreRef s = p.store;
        boolean closedBefore = sn.isClosed();
        int op = c.rnd.nextInt(13);
        if (op < 9 || op == 12) {
            if (closedBefore) {
                c.closed("snapshot " + p);
            }
            if (p.foreignAndBound()) {
                c.foreign("another thread used an LMDB snapshot bound to its thread");
            }
        }
        switch (op) {
            case 0: {
                byte[] k = c.key("key");
                c.call(p + ".get(" + Ctx.hex(k) + ")", () -> sn.get(k));
                break;
            }
            case 1: case 2: {
                Object[] f = snapFamily(c, p);
                byte[] k = c.key("key");
                c.call(p + ".get(" + f[1] + ", " + Ctx.hex(k) + ")", () -> sn.get((ColumnFamily) f[0], k));
                break;
            }
            case 3: {
                Object[] f = snapFamily(c, p);
                StringBuilder d = new StringBuilder();
                ByteBuffer k = buffer(c, c.anyKey(), d);
                d.append(", into ");
                ByteBuffer into = into(c, d);
                c.call(p + ".get(" + f[1] + ", " + d + ")", () -> sn.get((ColumnFamily) f[0], k, into));
                break;
            }
            case 4: {
                Object[] f = snapFamily(c, p);
                StringBuilder d = new StringBuilder();
                List<byte[]> k = keys(c, d);
                c.call(p + ".multiGet(" + f[1] + ", " + d + ")", () -> sn.multiGet((ColumnFamily) f[0], k));
                break;
            }
            case 5: case 6: {
                StringBuilder d = new StringBuilder();
                Cursor[] out = new Cursor[1];
                Object[] fam = {null};
                int id = c.world.nextId();
                KeyRange r = range(c, d);
                boolean ok;
                if (c.oneIn(2)) {
                    ok = c.call("c" + id + " = " + p + ".cursor(" + d + ")", () -> out[0] = sn.cursor(r));
                } else {
                    Object[] f = snapFamily(c, p);
                    fam[0] = f[0];
                    d.append(", ");
                    CursorOptions o = cursorOptions(c, d);
                    ok = c.call("c" + id + " = " + p + ".cursor(" + f[1] + ", " + d + ")", () -> out[0] = sn.cursor((ColumnFamily) f[0], r, o));
                }
                if (ok) {
                    CurRef ref = new CurRef(id, out[0], Thread.currentThread(), r, s, null);
                    ref.dups = dups(fam[0]);
                    c.world.keep(c, ref);
                }
                break;
            }
            case 7: case 8: {
                Object[] f = snapFamily(c, p);
                StringBuilder d = new StringBuilder();
                KeyRange r = range(c, d);
                d.append(", ");
                Ctx.FuzzStop stop = new Ctx.FuzzStop();
                EntryVisitor v = visitor(c, d, s, sn, r, stop, dups(f[0]));
                c.call(p + ".scan(" + f[1] + ", " + d + ")", () -> sn.scan((ColumnFamily) f[0], r, v));
                break;
            }
            case 9:
                c.call(p + ".isClosed()", sn::isClosed);
                break;
            case 12: {
                Object[] f = snapFamily(c, p);
                byte[] k = c.key("key");
                c.call(p + ".valueCount(" + f[1] + ", " + Ctx.hex(k) + ")", () -> sn.valueCount((ColumnFamily) f[0], k));
                break;
            }
            default:
                c.call(p + ".close()", sn::close);
                break;
        }
    }

    /** A family for a snapshot call; a family created after the snapshot must be refused (contract 4). */
    private static Object[] snapFamily(Ctx c, SnapRef p) {
        Object[] f = family(c, p.store);
        if (f[0] != null) {
            for (CfRef r : c.world.families.all()) {
                if (r.cf == f[0] && r.store == p.store && r.createdAfter > p.takenBefore) {
                    c.mustThrow("a snapshot read a column family created after it was taken");
                }
            }
        }
        return f;
    }

    // ---- ranges and options ----

    private static void rangeOp(Ctx c) {
        int r = c.rnd.nextInt(6);
        if (r < 2) {
            int f = c.rnd.nextInt(10);
            byte[] a = f == 9 ? c.anyKey() : c.key(f == 8 ? "prefix" : "from");
            byte[] b = f >= 4 && f <= 7 ? c.key("to") : c.anyKey();
            KeyRange[] out = new KeyRange[1];
            if (c.call("KeyRange#" + f + "(" + Ctx.hex(a) + ", " + Ctx.hex(b) + ")", () -> {
                switch (f) {
                    case 0: out[0] = KeyRange.atLeast(a); break;
                    case 1: out[0] = KeyRange.greaterThan(a); break;
                    case 2: out[0] = KeyRange.atMost(a); break;
                    case 3: out[0] = KeyRange.lessThan(a); break;
                    case 4: out[0] = KeyRange.closed(a, b); break;
                    case 5: out[0] = KeyRange.closedOpen(a, b); break;
                    case 6: out[0] = KeyRange.openClosed(a, b); break;
                    case 7: out[0] = KeyRange.open(a, b); break;
                    case 8: out[0] = KeyRange.prefix(a); break;
                    default: out[0] = KeyRange.all(); break;
                }
            })) {
                c.world.ranges.add(c.rnd, out[0]);
            }
            return;
        }
        KeyRange k = c.world.ranges.pick(c.rnd);
        if (k == null) {
            return;
        }
        byte[] x = c.key("key");
        c.call(k + ".contains(" + Ctx.hex(x) + ")/lower/upper/isEmpty/equals/hashCode", () -> {
            boolean in = k.contains(x);
            byte[] lo = k.lower();
            byte[] hi = k.upper();
            boolean model = (lo == null || Arrays.compareUnsigned(x, lo) >= 0) && (hi == null || Arrays.compareUnsigned(x, hi) < 0);
            if (in != model) {
                c.wrong("KeyRange.contains", k + " contains " + Ctx.hex(x) + " = " + in);
            }
            if (k.isEmpty() && in) {
                c.wrong("KeyRange.isEmpty", k + " is empty but contains " + Ctx.hex(x));
            }
            if (!k.equals(k) || k.hashCode() != k.hashCode() || k.equals(null)) {
                c.wrong("KeyRange.equals", "equals/hashCode inconsistent");
            }
        });
    }

    private static void optionsMisuse(Ctx c) {
        StoreOptions o = StoreOptions.of(c.world.engine);
        CursorOptions co = CursorOptions.defaults();
        int v = c.rnd.nextBoolean() ? c.extreme() : c.rnd.nextInt(600) - 300;
        long l = c.rnd.nextBoolean() ? (long) c.extreme() * 3 : c.rnd.nextInt(600) - 300;
        switch (c.rnd.nextInt(14)) {
            case 11: {
                // shared memory (RocksDB): bad sizes and ratios, a closed cache or manager at open and
                // at manager creation, closing one in use; LMDB options refuse them
                double r = c.oneIn(2) ? c.rnd.nextDouble() * 3 - 1 : Double.NaN;
                dev.ferry.BlockCache[] cache = new dev.ferry.BlockCache[1];
                c.call("BlockCache.builder(" + l + ").highPriorityPoolRatio(" + r + ")",
                        () -> cache[0] = dev.ferry.BlockCache.builder(l).highPriorityPoolRatio(r).binding(c.world.binding).build());
                c.call("WriteBufferManager.create(" + l + ")", () -> dev.ferry.WriteBufferManager.create(l, null, false,
                        c.world.binding).close());
                dev.ferry.BlockCache k = cache[0];
                if (k != null) {
                    c.call("BlockCache.close", k::close);
                    c.call("WriteBufferManager.create(closed cache)", () -> dev.ferry.WriteBufferManager.create(1 << 20, k,
                            false, c.world.binding).close());
                    c.call("StoreOptions.blockCache(closed cache)", () -> {
                        Store st = Store.open(c.world.root.resolve("closed-cache-" + c.world.nextId()),
                                StoreOptions.of(c.world.engine).binding(c.world.binding).blockCache(k));
                        st.close();
                    });
                    c.call("BlockCache.usage after close", k::usage);
                }
                break;
            }
            case 12: {
                if (c.world.engine == Engine.LMDB) {
                    c.call("StoreOptions.lmdb().cacheIndexAndFilterBlocks(true)", () -> o.cacheIndexAndFilterBlocks(true));
                    break;
                }
                // a store holding a shared cache: closing the cache is refused until the store closes
                dev.ferry.BlockCache[] cache = new dev.ferry.BlockCache[1];
                if (!c.call("BlockCache.lru(1M)", () -> cache[0] = dev.ferry.BlockCache.builder(1 << 20)
                        .binding(c.world.binding).build())) {
                    break;
                }
                Path dir = c.world.root.resolve("shared-" + c.world.nextId());
                Store[] st = new Store[1];
                c.call("Store.open(" + dir.getFileName() + ", blockCache)", () -> st[0] = Store.open(dir,
                        StoreOptions.of(c.world.engine).binding(c.world.binding).blockCache(cache[0])
                                .cacheIndexAndFilterBlocks(c.oneIn(2))));
                if (st[0] != null) {
                    c.call("BlockCache.close while a store holds it", cache[0]::close);
                    c.call("close shared-cache store", st[0]::close);
                }
                c.call("BlockCache.close", cache[0]::close);
                break;
            }
            case 0: c.call("StoreOptions.mapSize(" + l + ")", () -> o.mapSize(l)); break;
            case 1: c.call("StoreOptions.maxColumnFamilies(" + v + ")", () -> o.maxColumnFamilies(v)); break;
            case 2: c.call("StoreOptions.maxReaders(" + v + ")", () -> o.maxReaders(v)); break;
            case 3: c.call("StoreOptions.autoGrow(" + l + ")", () -> o.autoGrow(l)); break;
            case 4: c.call("StoreOptions.pageSize(" + v + ")", () -> o.pageSize(v)); break;
            case 5: c.call("StoreOptions.blockCacheSize(" + l + ")", () -> o.blockCacheSize(l)); break;
            case 6: c.call("StoreOptions.bloomBitsPerKey(" + v + ")", () -> o.bloomBitsPerKey(v)); break;
            case 7: c.nullArg("compression"); c.call("StoreOptions.compression(null)", () -> o.compression(null)); break;
            case 8: c.nullArg("flags"); c.call("StoreOptions.lmdbFlags(null)", () -> o.lmdbFlags(null)); break;
            case 9: c.call("CursorOptions.pageSize(" + v + ")", () -> co.pageSize(v)); break;
            case 10: c.nullArg("engine"); c.call("StoreOptions.of(null)", () -> StoreOptions.of(null)); break;
            default: {
                // options a store then refuses: a binding that does not exist, a huge map
                StoreOptions bad = StoreOptions.of(c.world.engine).binding(c.oneIn(2) ? "nope" : c.world.binding);
                if (c.world.engine == Engine.LMDB) {
                    bad.mapSize(c.oneIn(2) ? Long.MAX_VALUE : 1);
                } else {
                    bad.rocksdbOptions("write_buffer_size=-1");
                }
                Path dir = c.world.root.resolve("bad-" + c.world.nextId());
                Store[] out = new Store[1];
                c.call("Store.open(" + dir.getFileName() + ", refused options)", () -> out[0] = Store.open(dir, bad));
                if (out[0] != null) {
                    c.call("close refused-options store", out[0]::close);
                }
                break;
            }
        }
    }
}
