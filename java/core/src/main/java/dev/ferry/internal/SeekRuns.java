package dev.ferry.internal;

/**
 * How many entries cursors of one store read after a positioning call, as a running average:
 * the size of the first page a positioning call fills. A cursor that reads ten entries after
 * each seek (db_bench's seekrandom, a bounded range query) then gets them in one native call
 * instead of pages of 1, 8 and 64 entries (the last mostly read for nothing); a cursor used for
 * point lookups keeps one-entry pages. Runs are capped at {@link #MAX}, so a long scan moves the
 * average at most that far and a later short seek reads at most that many entries ahead.
 *
 * <p>Thread safety: shared by every cursor of a store without synchronization on purpose. The
 * state is one int: a racing update is lost or wins, and either value is a valid hint.
 */
public final class SeekRuns {
    /** Largest run that counts, and the largest first page. */
    public static final int MAX = 64;
    /** Fixed point: the average times 16. */
    private static final int ONE = 16;

    private int average = ONE;

    /** @return entries the first page after a positioning call should hold, 1 to {@link #MAX} */
    public int firstFill() {
        return (average + ONE - 1) / ONE;
    }

    /**
     * Records a run: the entries a cursor stood on from a positioning call to the next one or
     * its close (0 when the positioning call found nothing; counted as 1).
     *
     * @param entries the run's length
     */
    public void ended(int entries) {
        int n = Math.max(1, Math.min(MAX, entries));
        int a = average;
        average = a + ((n * ONE - a) >> 2);
    }
}
