package dev.ferry.kafka;

import dev.ferry.ColumnFamily;
import dev.ferry.Cursor;
import dev.ferry.KeyRange;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.streams.state.TimestampedBytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The import of {@link BuiltInImport} for window and session stores: Kafka's built-in segmented stores
 * ({@code RocksDBSegmentedBytesStore}, {@code RocksDBTimestampedSegmentedBytesStore} under
 * {@code RocksDBWindowStore}, {@code RocksDBTimestampedWindowStore} and {@code RocksDBSessionStore}) keep one
 * RocksDB store per time segment in {@code <task>/<name>/<name>.<segment start>}. Each segment holds its
 * entries under the same store keys Ferry's segmented stores use (the window key schema
 * {@code [key][window start][sequence number]}, the session key schema {@code [key][end][start]}; values as the
 * store keeps them) in {@code default} (plain window and session stores) or {@code keyValueWithTimestamp}
 * (timestamped window stores), and the changelog offsets Kafka committed in its own {@code offsets} family
 * (Kafka 4.3+, KIP-1035): Kafka takes a partition's committed offset from the newest segment that has one, and
 * so does the import.
 *
 * <p>The segments are read oldest first, and every entry is written under Ferry's segment prefix
 * ({@link FerrySegmentedStore}, the id from the entry's own timestamp and the Ferry store's segment interval)
 * into the new store, in key order. Not imported (logged; the store restores from the changelog): a directory
 * holding anything but segments of that name, a segment of another layout (another family with entries, or
 * keys that do not fall in order, such as segments of another interval), and under exactly-once a segment that
 * was not closed. Kafka's time-ordered stores (emit-on-window-close aggregations) keep another layout in the same
 * place: Ferry's stores for them never import ({@link #importable}).
 *
 * <p>Thread safety: as {@link BuiltInImport}.
 */
final class SegmentedImport {
    private static final Logger LOG = LoggerFactory.getLogger(SegmentedImport.class);

    private SegmentedImport() {
    }

    /**
     * Whether a store imports a built-in segmented store: Ferry's window stores (plain and timestamped) and
     * session stores, except a session store made for an emit-on-window-close aggregation, whose built-in
     * counterpart is Kafka's time-ordered session store.
     *
     * @param store the store being opened
     * @return whether it imports
     */
    static boolean importable(FerryStateStore store) {
        return store instanceof FerryWindowStore || store instanceof FerrySessionStore s && s.importsBuiltIn();
    }

    /**
     * @param builtIn the built-in store's directory, {@code <task>/<name>}
     * @return whether it holds at least one segment store
     */
    static boolean hasSegments(Path builtIn) throws IOException {
        if (!Files.isDirectory(builtIn)) {
            return false;
        }
        try (Stream<Path> l = Files.list(builtIn)) {
            return l.anyMatch(p -> Files.isRegularFile(p.resolve("CURRENT")));
        }
    }

    /**
     * The segments of a built-in store, by their start time, or null when the directory holds anything else.
     */
    private static TreeMap<Long, Path> segments(Path builtIn, String name) throws IOException {
        TreeMap<Long, Path> segments = new TreeMap<>();
        String prefix = name + ".";
        try (Stream<Path> l = Files.list(builtIn)) {
            for (Path p : (Iterable<Path>) l::iterator) {
                String f = p.getFileName().toString();
                long start;
                try {
                    start = f.startsWith(prefix) ? Long.parseLong(f.substring(prefix.length())) : -1;
                } catch (NumberFormatException e) {
                    start = -1;
                }
                if (start < 0 || !Files.isRegularFile(p.resolve("CURRENT"))) {
                    LOG.info("Ferry store {}: Kafka's built-in store at {} holds {}, not a segment of that store: not imported, "
                            + "the store restores from the changelog", name, builtIn, f);
                    return null;
                }
                segments.put(start, p);
            }
        }
        return segments;
    }

    /**
     * Copies the built-in segmented store in {@code builtIn} into a new Ferry store in {@code temp}, complete and
     * closed.
     *
     * @param builtIn the built-in store's directory
     * @param temp the new store's directory
     * @param options the options it is written with
     * @param store the Ferry store being opened (its key schema and segment interval)
     * @param eos whether the application runs exactly-once
     * @return what was copied, or null when the built-in store is not one to import (logged; {@code temp} may
     *         hold a partial store then)
     */
    static BuiltInImport.Result copy(Path builtIn, Path temp, StoreOptions options, FerrySegmentedStore store, boolean eos)
            throws IOException {
        long start = System.nanoTime();
        String name = store.name();
        TreeMap<Long, Path> segments = segments(builtIn, name);
        if (segments == null) {
            return null;
        }
        boolean timestamped = store instanceof TimestampedBytesStore;
        String want = timestamped ? BuiltInImport.TIMESTAMPED_FAMILY : BuiltInImport.PLAIN_FAMILY;
        TreeMap<String, byte[]> kept = new TreeMap<>(); // the newest segment's offsets and position win
        long[] counts = new long[2];
        try (Store dst = Store.open(temp, options)) {
            ColumnFamily data = dst.createColumnFamily(FerryStateStore.DATA_FAMILY);
            ColumnFamily offs = dst.createColumnFamily(FerryStateStore.OFFSETS_FAMILY);
            try (BuiltInImport.EntryWriter w = new BuiltInImport.EntryWriter(dst, data, temp, options)) {
                for (Path segment : segments.values()) {
                    if (!copySegment(segment, want, store, eos, w, kept)) {
                        return null;
                    }
                }
                w.finish();
                counts[0] = w.records;
                counts[1] = w.bytes;
            }
            kept.remove(new String(FerryStateStore.STATUS_KEY, StandardCharsets.UTF_8));
            BuiltInImport.writeOffsets(dst, offs, kept);
        }
        return new BuiltInImport.Result(counts[0], counts[1], BuiltInImport.offsetsOf(kept), (System.nanoTime() - start) / 1_000_000);
    }

    /** Copies one segment's entries and takes its offsets; false when it is not one to import (logged). */
    private static boolean copySegment(Path segment, String want, FerrySegmentedStore store, boolean eos, BuiltInImport.EntryWriter w,
                                       Map<String, byte[]> kept) throws IOException {
        String name = store.name();
        try (Store src = BuiltInImport.openBuiltIn(segment)) {
            BuiltInImport.Families f = BuiltInImport.families(src, want);
            ColumnFamily from = f.from();
            ColumnFamily offsets = f.offsets();
            if (f.other() != null) {
                LOG.info("Ferry store {}: the segment {} of Kafka's built-in store holds entries in its column family {}, not the "
                        + "layout of {}: not imported, the store restores from the changelog", name, segment, f.other(),
                        store.getClass().getSimpleName());
                return false;
            }
            if (from == null) {
                LOG.info("Ferry store {}: the segment {} of Kafka's built-in store has no column family {}: not imported, the store "
                        + "restores from the changelog", name, segment, want);
                return false;
            }
            TreeMap<String, byte[]> segmentOffsets = BuiltInImport.readOffsets(src, offsets);
            if (eos && BuiltInImport.notClosed(segmentOffsets.get(new String(FerryStateStore.STATUS_KEY, StandardCharsets.UTF_8)))) {
                LOG.info("Ferry store {}: the segment {} of Kafka's built-in store was not closed: under exactly-once it may hold "
                        + "uncommitted writes, not imported, the store restores from the changelog", name, segment);
                return false;
            }
            kept.putAll(segmentOffsets);
            try (Cursor c = src.cursor(from, KeyRange.all(), null)) {
                while (c.next()) {
                    byte[] k = c.keyBytes();
                    // a key of another layout throws here (too short) or below (out of order): the import then fails and restores
                    w.put(FerrySegmentedStore.prefixed(store.segmentId(store.segmentTimestamp(k)), k), c.valueBytes());
                }
            }
        }
        return true;
    }
}
