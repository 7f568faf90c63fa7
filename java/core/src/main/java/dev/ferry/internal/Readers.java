package dev.ferry.internal;

/**
 * LMDB's reader table is small (126 slots by default) and every open cursor and snapshot holds a
 * slot. When it is full, cursors or snapshots the application dropped without closing may be
 * holding slots that their cleaners would free after the next GC: {@link #reclaim} runs one and
 * lets the caller retry, a few times with a short back-off, the way the JDK reclaims direct
 * memory held by unreachable buffers.
 *
 * <p>One instance per store: LMDB's reader table belongs to one environment, so a store at its own
 * reader limit must not turn off reclamation for the other stores of the process.
 *
 * <p>Thread safety: thread-safe.
 */
public final class Readers {
    /** Attempts before the error reaches the caller (about 60 ms of waiting in all). */
    private static final int ATTEMPTS = 6;
    /**
     * After a whole sequence of attempts freed nothing, the slots are really in use: calls fail
     * at once for this long instead of running GCs again (a program at its reader limit would
     * otherwise pay about 60 ms and six GCs per call).
     */
    private static final long QUIET_NANOS = 1_000_000_000L;
    /** For readers whose engine has no reader table (RocksDB, RocksJava interop): never retries. */
    public static final Readers NONE = new Readers();

    private volatile long quietUntil = System.nanoTime();

    /** Creates the reclaimer of one store's reader table. */
    public Readers() {
    }

    /**
     * Decides whether to retry a call that returned {@code rc}, after trying to free reader slots.
     *
     * @param rc the call's return code
     * @param attempt retries made so far
     * @return true when the caller should repeat the call
     */
    public boolean reclaim(int rc, int attempt) {
        if (rc != Abi.EREADERSFULL || this == NONE) {
            return false;
        }
        if (attempt >= ATTEMPTS) {
            quietUntil = System.nanoTime() + QUIET_NANOS;
            return false;
        }
        if (attempt == 0 && System.nanoTime() - quietUntil < 0) {
            return false;
        }
        System.gc();
        try {
            Thread.sleep(1L << attempt);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return true;
    }
}
