package dev.ferry.fuzz;

import dev.ferry.ErrorCode;
import dev.ferry.FerryException;
import java.nio.ReadOnlyBufferException;
import java.util.Random;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * One fuzzing thread's state: its randomness, its operation counter, and the expectations of
 * the call being prepared. An operation chooses its arguments (the generators here note what
 * they chose: a null, a bad index), describes the call and runs it through {@link #call}, which
 * logs it first, runs it, and judges what it threw:
 * <ul>
 * <li>allowed: {@link IllegalStateException}, {@link IllegalArgumentException},
 *     {@link UnsupportedOperationException}, {@link FerryException} (but see below), direct-memory
 *     {@link OutOfMemoryError}; {@link NullPointerException} only when a null was passed,
 *     {@link IndexOutOfBoundsException} only when a bad index or length was passed,
 *     {@link ReadOnlyBufferException} only with a read-only destination, {@code WrongThreadException}
 *     only from a thread that does not own the object;</li>
 * <li>a failure ("UNEXPECTED"): anything else, e.g. an NPE with no null argument,
 *     ClassCastException, InternalError, a FerryException saying CORRUPTION, DIRECTION or
 *     BAD_TRANSACTION, or INVALID_ARGUMENT for a write whose arguments were valid;</li>
 * <li>a failure ("CONTRACT"): a call that returned normally although it had to throw (a null the
 *     API must reject, a bad index, a closed object, another thread's cursor).</li>
 * </ul>
 * A non-thread-safe object shared between threads (a WriteBatch) may throw any RuntimeException.
 *
 * <p>Thread safety: confined to its thread.
 */
public final class Ctx {
    /** This thread's randomness (seeded from the run's seed and the thread number). */
    public final Random rnd;
    /** The thread's number in the log. */
    public final int tid;
    /** The shared objects. */
    public final World world;
    final MisuseFuzz fuzz;
    long seq;
    /** Start of the outermost call running now (0 when none), for the hang watchdog. */
    volatile long opStart;
    volatile String opDesc;
    private int depth;
    private Expect pending = new Expect();

    /** What the call being prepared may throw and must throw. */
    private static final class Expect {
        boolean nullOk;
        String nullMust;
        boolean badOk;
        String badMust;
        boolean readOnlyDst;
        boolean foreign;
        String foreignMust;
        String closedMust;
        String otherMust;
        BooleanSupplier validWrite;
        BooleanSupplier racy;
        Throwable thrownByUs;
        Class<? extends Throwable> allowed;
    }

    /** A call to judge. */
    @FunctionalInterface
    public interface Action {
        /**
         * Runs the call.
         *
         * @throws Throwable whatever it throws
         */
        void run() throws Throwable;
    }

    Ctx(MisuseFuzz fuzz, World world, int tid, long seed) {
        this.fuzz = fuzz;
        this.world = world;
        this.tid = tid;
        this.rnd = new Random(seed);
    }

    // ---- expectations of the next call ----

    /**
     * A null was passed.
     *
     * @param param the parameter, when the API must reject it (the call must throw), else null
     * @return this
     */
    public Ctx nullArg(String param) {
        pending.nullOk = true;
        if (param != null && pending.nullMust == null) {
            pending.nullMust = "null " + param + " accepted";
        }
        return this;
    }

    /**
     * A bad index, offset or length was passed.
     *
     * @param mustThrow why the call must throw, or null when it only may
     * @return this
     */
    public Ctx badIndex(String mustThrow) {
        pending.badOk = true;
        if (mustThrow != null && pending.badMust == null) {
            pending.badMust = mustThrow;
        }
        return this;
    }

    /**
     * The call comes from a thread that does not own its target.
     *
     * @param mustThrow why the call must throw, or null when it only may
     * @return this
     */
    public Ctx foreign(String mustThrow) {
        pending.foreign = true;
        if (mustThrow != null && fuzz.contracts && pending.foreignMust == null) {
            pending.foreignMust = mustThrow;
        }
        return this;
    }

    /**
     * The target was closed before the call: it must throw.
     *
     * @param what the closed object, for the failure message
     * @return this
     */
    public Ctx closed(String what) {
        if (fuzz.contracts && pending.closedMust == null) {
            pending.closedMust = "call on closed " + what + " returned normally";
        }
        return this;
    }

    /**
     * The call must throw for another reason.
     *
     * @param why the reason
     * @return this
     */
    public Ctx mustThrow(String why) {
        if (fuzz.contracts && pending.otherMust == null) {
            pending.otherMust = why;
        }
        return this;
    }

    /** @return this; the destination buffer is read-only */
    public Ctx readOnlyDst() {
        pending.readOnlyDst = true;
        return this;
    }

    /**
     * The target is not thread-safe and may be in use by another thread: any RuntimeException is
     * fine when {@code shared} says so at the time the call threw.
     *
     * @param shared whether it is shared
     * @return this
     */
    public Ctx racy(BooleanSupplier shared) {
        pending.racy = shared;
        return this;
    }

    /**
     * A write with a valid key and value: INVALID_ARGUMENT means a poisoned store, unless its
     * family was dropped meanwhile (a write racing a drop may see the engine's stale handle).
     *
     * @param cf the write's family, or null for the default one
     * @return this
     */
    public Ctx validWrite(dev.ferry.ColumnFamily cf) {
        pending.validWrite = cf == null ? () -> true : () -> !cf.isDropped();
        return this;
    }

    /**
     * The call may rethrow this exception (thrown by the fuzzer's own callback).
     *
     * @param t the exception
     * @return this
     */
    public Ctx thrownByUs(Throwable t) {
        pending.thrownByUs = t;
        return this;
    }

    /** Forgets expectations noted for a call that was then not made (also called before each operation). */
    public void resetPending() {
        pending = new Expect();
    }

    /** @return how many judged calls are running on this thread now (nesting) */
    public int depth() {
        return depth;
    }

    /**
     * The call may throw this type (a checked exception of a library the fuzzer drives itself).
     *
     * @param type the exception type
     * @return this
     */
    public Ctx allow(Class<? extends Throwable> type) {
        pending.allowed = type;
        return this;
    }

    // ---- running calls ----

    /**
     * Logs a call, runs it and judges its outcome.
     *
     * @param desc the call with its arguments (one line)
     * @param a the call
     * @return true when it returned normally
     */
    public boolean call(String desc, Action a) {
        return run(desc, null, a);
    }

    /**
     * Runs and judges a call without logging it (for tight loops that logged one line for all).
     *
     * @param desc describes the call, asked for only when it fails
     * @param a the call
     * @return true when it returned normally
     */
    public boolean quiet(Supplier<String> desc, Action a) {
        return run(null, desc, a);
    }

    private boolean run(String desc, Supplier<String> lazy, Action a) {
        Expect e = pending;
        pending = new Expect();
        long s = ++seq;
        if (desc != null) {
            fuzz.log.op(tid, s, desc);
        }
        boolean outer = depth == 0;
        if (outer) {
            opDesc = desc != null ? desc : "(quiet loop)";
            opStart = System.nanoTime();
        }
        depth++;
        Throwable thrown = null;
        try {
            a.run();
        } catch (Throwable t) {
            thrown = t;
        } finally {
            depth--;
            if (outer) {
                opStart = 0;
            }
        }
        if (thrown == null) {
            String must = e.nullMust != null ? e.nullMust : e.badMust != null ? e.badMust : e.foreignMust != null ? e.foreignMust
                    : e.closedMust != null ? e.closedMust : e.otherMust;
            if (must != null) {
                fuzz.fail("CONTRACT", this, s, desc != null ? desc : lazy.get(), must, null);
            }
            return true;
        }
        String why = verdict(e, thrown);
        if (why == null) {
            fuzz.countThrown(thrown);
            if (desc != null) {
                fuzz.log.line("  T" + tid + " #" + s + " ! " + MisuseFuzz.brief(thrown));
            }
        } else {
            fuzz.fail("UNEXPECTED", this, s, desc != null ? desc : lazy.get(), why, thrown);
        }
        return false;
    }

    /** @return null when {@code t} is an allowed outcome, else why not */
    private static String verdict(Expect e, Throwable t) {
        if (t == e.thrownByUs || (e.allowed != null && e.allowed.isInstance(t))) {
            return null;
        }
        if (t instanceof FuzzStop) {
            return "the visitor's exception escaped where it must not";
        }
        if (e.racy != null && t instanceof RuntimeException && e.racy.getAsBoolean()) {
            return null;
        }
        if (t instanceof FerryException) {
            ErrorCode code = ((FerryException) t).code();
            if (code == ErrorCode.CORRUPTION || code == ErrorCode.DIRECTION || code == ErrorCode.BAD_TRANSACTION) {
                return "FerryException " + code + " after misuse";
            }
            if (e.validWrite != null && (code == ErrorCode.INVALID_ARGUMENT || code == ErrorCode.ENGINE_INVALID_ARGUMENT)
                    && e.validWrite.getAsBoolean()) {
                return "a write with a valid key and value failed with " + code + " (a store poisoned by an earlier call, or options its open should have refused)";
            }
            return null;
        }
        if (t instanceof IllegalStateException || t instanceof IllegalArgumentException || t instanceof UnsupportedOperationException) {
            return null;
        }
        if (t instanceof NullPointerException) {
            return e.nullOk ? null : "NullPointerException although no null was passed";
        }
        if (t instanceof IndexOutOfBoundsException) {
            return e.badOk ? null : "IndexOutOfBoundsException although every index and length was valid";
        }
        if (t instanceof ReadOnlyBufferException) {
            return e.readOnlyDst ? null : "ReadOnlyBufferException without a read-only destination";
        }
        if (t.getClass().getName().equals("java.lang.WrongThreadException")) {
            return e.foreign ? null : "WrongThreadException on the owner's thread";
        }
        if (t instanceof OutOfMemoryError && String.valueOf(t.getMessage()).contains("direct buffer memory")) {
            return null;
        }
        return t.getClass().getName() + " is never an expected outcome";
    }

    /**
     * Records a wrong answer (a call that returned, with a result the contract forbids).
     *
     * @param desc the call
     * @param why what is wrong
     */
    public void wrong(String desc, String why) {
        fuzz.fail("WRONG", this, seq, desc, why, null);
    }

    /**
     * Appends a free-form line to the log (scenario steps).
     *
     * @param text the line
     */
    public void note(String text) {
        fuzz.log.op(tid, ++seq, text);
    }

    /** @return an open store of the run (reopened when closed), or null when reopening failed */
    public World.StoreRef liveStore() {
        return StoreOps.liveStore(this);
    }

    // ---- argument generators ----

    private static final byte[] ALPHABET = {0x00, 0x01, 0x41, 0x42, 0x43, 0x7f, (byte) 0x80, (byte) 0xff};

    /** @return a key from a small key space (often present), sometimes empty or over LMDB's 511-byte limit; never null */
    public byte[] anyKey() {
        int r = rnd.nextInt(100);
        if (r < 3) {
            return new byte[0];
        }
        if (r < 4) {
            byte[] k = new byte[512 + rnd.nextInt(200)];
            rnd.nextBytes(k);
            return k;
        }
        byte[] k = new byte[1 + rnd.nextInt(rnd.nextInt(4) == 0 ? 6 : 3)];
        for (int i = 0; i < k.length; i++) {
            k[i] = ALPHABET[rnd.nextInt(ALPHABET.length)];
        }
        return k;
    }

    /**
     * @param param the parameter's name
     * @return a key, or (2%) null noted as a null the call must reject
     */
    public byte[] key(String param) {
        if (rnd.nextInt(50) == 0) {
            nullArg(param);
            return null;
        }
        return anyKey();
    }

    /** @return whether {@code k} is a key both engines accept (non-empty, at most 511 bytes) */
    public static boolean validKey(byte[] k) {
        return k != null && k.length > 0 && k.length <= 511;
    }

    /** @return a value: mostly small, sometimes larger than a cursor page, rarely about a megabyte; never null */
    public byte[] anyValue() {
        int r = rnd.nextInt(1000);
        int n = r < 550 ? rnd.nextInt(17) : r < 800 ? 17 + rnd.nextInt(300) : r < 950 ? 300 + rnd.nextInt(4000)
                : r < 998 ? 60_000 + rnd.nextInt(80_000) : 300_000 + rnd.nextInt(800_000);
        byte[] v = new byte[n];
        rnd.nextBytes(v);
        return v;
    }

    /**
     * @param param the parameter's name
     * @return a value, or (2%) null noted as a null the call must reject
     */
    public byte[] value(String param) {
        if (rnd.nextInt(50) == 0) {
            nullArg(param);
            return null;
        }
        return anyValue();
    }

    /**
     * An index into something of {@code length} bytes for an access of {@code size} bytes: mostly
     * valid, sometimes negative, at or past the end, or extreme. A bad one is noted.
     *
     * @param length the length, or -1 when unknown
     * @param size bytes accessed at the index
     * @param mustThrow whether a bad index must make the call throw (the length is certain)
     * @return the index
     */
    public int index(int length, int size, boolean mustThrow) {
        int r = rnd.nextInt(100);
        int i;
        if (length < 0) {
            i = r < 80 ? rnd.nextInt(16) : extreme();
        } else if (r < 85 && length - size >= 0) {
            i = rnd.nextInt(length - size + 1);
        } else {
            switch (rnd.nextInt(5)) {
                case 0: i = -1; break;
                case 1: i = length - size + 1; break;
                case 2: i = length; break;
                default: i = extreme(); break;
            }
        }
        if (length < 0 || i < 0 || i > length - size) {
            badIndex(mustThrow && length >= 0 ? "index " + i + " size " + size + " outside length " + length + " accepted" : null);
        }
        return i;
    }

    /** @return an extreme int */
    public int extreme() {
        int[] x = {Integer.MIN_VALUE, -1, Integer.MAX_VALUE, Integer.MAX_VALUE - 3, 1 << 30, -(1 << 30)};
        return x[rnd.nextInt(x.length)];
    }

    /** @return true with probability 1/n */
    public boolean oneIn(int n) {
        return rnd.nextInt(n) == 0;
    }

    /** @return a short hex rendering of a byte array for the log */
    public static String hex(byte[] b) {
        if (b == null) {
            return "null";
        }
        StringBuilder sb = new StringBuilder("[");
        int n = Math.min(b.length, 8);
        for (int i = 0; i < n; i++) {
            sb.append(Character.forDigit((b[i] >> 4) & 0xF, 16)).append(Character.forDigit(b[i] & 0xF, 16));
        }
        if (b.length > n) {
            sb.append("..len=").append(b.length);
        }
        return sb.append(']').toString();
    }

    /** The fuzzer's own exception, thrown by visitors to test that it comes back out unchanged. */
    public static final class FuzzStop extends RuntimeException {
        private static final long serialVersionUID = 1L;

        FuzzStop() {
            super("fuzzer's visitor stop", null, false, false);
        }
    }
}
