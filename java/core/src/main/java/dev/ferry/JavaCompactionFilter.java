package dev.ferry;

import java.util.Objects;

/**
 * A compaction filter written in Java (RocksDB only): sees each value a compaction writes and keeps it,
 * removes it, or changes it. RocksDB asks the filter's {@link Factory} for one filter per compaction, on
 * its compaction threads; flushes are not filtered, nor merge operands and deletions. Give a factory to a
 * store with {@link StoreOptions#javaCompactionFilter(Factory)} or to one family with
 * {@link ColumnFamilyOptions#javaCompactionFilter(Factory)}.
 *
 * <p>Every array a filter receives is a copy, its own to keep. An exception from {@link #filter} keeps the
 * entry and goes to {@link Factory#failed(Throwable)}; so does one from {@link Factory#create} (that
 * compaction then keeps every entry). The compaction, and the store, go on. A filter must not call its own
 * store (nor its snapshots, cursors or transactions): such a call throws {@link IllegalStateException}, which
 * then keeps the entry. A store's close waits for its compactions, and so for their filters.
 *
 * <p>Removing an entry in a compaction uncovers any older value of the key in files the compaction did not
 * read, as in RocksDB: a filter suits keys written once or data that is dropped for good (expiry).
 *
 * <p>Thread safety: one filter is called by one thread at a time; filters of different compactions run
 * concurrently, and the factory is called from any thread.
 */
public interface JavaCompactionFilter {

    /**
     * Decides about one entry.
     *
     * @param level the level the compaction reads from
     * @param key the key
     * @param value the value
     * @return {@link Decision#KEEP}, {@link Decision#REMOVE} or {@link Decision#change(byte[])}
     */
    Decision filter(int level, byte[] key, byte[] value);

    /**
     * What a filter does with an entry.
     *
     * <p>Thread safety: immutable.
     */
    final class Decision {
        /** Keep the entry. */
        public static final Decision KEEP = new Decision(false, null);
        /** Remove the entry. */
        public static final Decision REMOVE = new Decision(true, null);

        private final boolean remove;
        private final byte[] value;

        private Decision(boolean remove, byte[] value) {
            this.remove = remove;
            this.value = value;
        }

        /**
         * Replace the entry's value.
         *
         * @param newValue the new value (not copied: do not change it afterwards)
         * @return the decision
         * @throws NullPointerException when {@code newValue} is null
         */
        public static Decision change(byte[] newValue) {
            return new Decision(false, Objects.requireNonNull(newValue, "newValue"));
        }

        /** @return whether the entry is removed */
        boolean removes() {
            return remove;
        }

        /** @return the new value of a change, else null */
        byte[] value() {
            return value;
        }

        @Override
        public String toString() {
            return remove ? "REMOVE" : value == null ? "KEEP" : "CHANGE(" + value.length + " bytes)";
        }
    }

    /**
     * What RocksDB says about a compaction when it asks for its filter.
     *
     * @param fullCompaction whether the compaction reads all of the family's files
     * @param manualCompaction whether it was asked for ({@link Store#compactRange()} and its overloads)
     */
    record Context(boolean fullCompaction, boolean manualCompaction) {
    }

    /**
     * Makes one filter per compaction.
     *
     * <p>Thread safety: implementations must be thread-safe.
     */
    interface Factory {

        /**
         * Returns the factory's name, which RocksDB records with the store: 1 to 128 letters, digits, '_', '.'
         * or '-', not starting with {@code "ferry."}.
         *
         * @return the name
         */
        String name();

        /**
         * Makes the filter of one compaction.
         *
         * @param context the compaction
         * @return its filter (not null)
         */
        JavaCompactionFilter create(Context context);

        /**
         * Hears of an exception of {@link #create} or of a filter (the entry was kept). The default logs it
         * ({@link System.Logger}, {@code dev.ferry}, WARNING). An exception thrown here is ignored.
         *
         * @param failure the exception
         */
        default void failed(Throwable failure) {
            System.getLogger("dev.ferry").log(System.Logger.Level.WARNING,
                    "compaction filter " + name() + " failed; the entry was kept", failure);
        }
    }
}
