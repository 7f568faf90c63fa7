package dev.ferry.ffm.internal;

import dev.ferry.internal.Abi;
import dev.ferry.internal.NativeLibrary;
import dev.ferry.spi.CompareHandler;
import dev.ferry.spi.FilterHandler;
import dev.ferry.spi.MergeHandler;
import dev.ferry.spi.NativeBinding;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Optional;

/**
 * The FFM binding (Java 22+): each method calls one {@code ferry_*} function of
 * {@code native/include/ferry.h} through a downcall handle, with no glue code in between: this
 * binding loads libferry with {@link SymbolLookup#libraryLookup} and never touches JNI (no
 * {@code System.load}, no {@code dev.ferry.jni} class). The methods, the {@link FfmHandles.Fn}
 * table of functions (in ferry.h's order, with their C prototypes) and the handles' holder classes
 * are {@link FfmFunctions}' and {@link FfmHandles}', generated from ferry.h by {@code native/gen/bindings.py};
 * {@code NativeBoundaryFfmTest} also parses ferry.h and fails on a descriptor whose layouts differ
 * from its prototype's. This class loads the library, makes the handles ({@link #bind}) and adds
 * the binding helpers.
 *
 * <p>Every handle is a {@code static final} constant built once from a {@link FunctionDescriptor},
 * so the JIT sees it as a constant and inlines the call. Each lives in its own holder class and is
 * made on the function's first call, not when this class initialises: a new descriptor shape costs
 * the JDK a generated class and stub, and a short-lived process that opens one store should pay
 * only for the functions it calls. When the class initialises it starts a daemon thread,
 * {@code ferry-ffm-warm}, that checks libferry's ABI and makes the handles of opening a store and
 * its first put, get and close while the caller loads the engine library; it ends when done and
 * {@code -Dferry.ffm.warm=false} turns it off. Pointers and
 * {@code size_t} are passed as {@code long} ({@link ValueLayout#JAVA_LONG}): on the LP64 ABIs
 * (x86_64 and aarch64 System V, AAPCS64) and on Windows x64 a pointer is a 64-bit integer passed
 * in the same registers, so no {@link MemorySegment} is created per call. {@code int} and
 * {@code uint32_t} are {@link ValueLayout#JAVA_INT}; results likewise ({@code int}, and
 * {@code ferry_strerror}'s pointer as a {@code long}).
 *
 * <p>{@link Linker.Option#critical(boolean) critical} handles (no thread-state transition, no
 * heap access) are used only for functions that cannot block or call back, those whose comment in
 * ferry.h says {@code @ffm critical}: {@code ferry_abi_version}, {@code ferry_cf_count} and
 * {@code ferry_cf_name} (lock-free reads of the store's family table) and {@code ferry_strerror} (a
 * static string); and {@code ferry_noop} for {@link #noopCritical()} (its plain handle serves
 * {@link #noop()}). Fills, gets, writes, opens and closes may do I/O or page-fault and use plain
 * handles.
 *
 * <p>If libferry cannot be loaded (or lacks a symbol), class initialisation still succeeds; the
 * {@link LinkageError} is kept and thrown, as the cause of an {@link UnsatisfiedLinkError}, by the
 * first call that needs the library. Symbols are all looked up during class initialisation and
 * {@link #loadError()} waits for the ABI check, so it reports a missing symbol or a mismatched
 * library before any call; no handle but {@code ferry_abi_version}'s is made for a mismatched one.
 *
 * <p>Needs native access: run with {@code --enable-native-access=ALL-UNNAMED} (class path) or
 * {@code --enable-native-access=dev.ferry.ffm} (module path), or put
 * {@code Enable-Native-Access: ALL-UNNAMED} in the application's main jar; the JDK honours that
 * attribute only in the main jar of {@code java -jar}, not in this library jar.
 *
 * <p>Thread safety: stateless and thread-safe.
 */
@SuppressWarnings("restricted") // binding native code is this class's purpose
public final class FfmBinding extends FfmFunctions implements NativeBinding {

    /**
     * The first reason libferry cannot be used: set while the class initialises (library or a
     * symbol missing, ABI mismatch) or, later, when a function's handle cannot be made.
     */
    private static volatile LinkageError loadError;

    /**
     * System property: {@code false} stops this class from starting, when it initialises, a
     * background thread that checks libferry's ABI and makes the handles {@link dev.ferry.Store#open}
     * and the first reads and writes need (each is then made by its first call instead).
     */
    public static final String WARM_PROPERTY = "ferry.ffm.warm";

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIB = openLibrary();

    private static final Linker.Option[] PLAIN = {};
    private static final Linker.Option[] CRITICAL = {Linker.Option.critical(false)};

    static {
        if (LIB != null) {
            // Every symbol is looked up now (dlsym, cheap), so a stale library is reported at once;
            // the handles themselves are made on first call (see the holder classes below).
            for (Fn fn : Fn.values()) {
                if (LIB.find(fn.symbol).isEmpty()) {
                    recordLoadError(new UnsatisfiedLinkError("libferry at " + NativeLibrary.ferryPath()
                            + " has no symbol " + fn.symbol + " (stale or foreign library?)"));
                    break;
                }
            }
        }
        if (loadError == null && Boolean.parseBoolean(System.getProperty(WARM_PROPERTY, "true"))) {
            try {
                Thread t = new Thread(FfmBinding::warm, "ferry-ffm-warm");
                t.setDaemon(true);
                t.start();
            } catch (RuntimeException | OutOfMemoryError e) {
                // no thread to be had: each handle is then made by its function's first call
            }
        }
    }

    /** The single instance. */
    public static final FfmBinding INSTANCE = new FfmBinding();

    private FfmBinding() {
    }

    /**
     * Returns the error that kept libferry from loading, if any (the calls that need the library
     * throw it as their cause).
     *
     * @return the error, or empty when libferry loaded, has every symbol and its ABI matches (and no
     *         handle made since has failed)
     */
    public static Optional<LinkageError> loadError() {
        AbiCheck.ensure();
        return Optional.ofNullable(loadError);
    }

    /**
     * The background warm-up: the JDK's first downcall handle (its linker's own start-up, tens of
     * milliseconds) and the ABI check, then the handles of opening a store, its first put and get
     * and its close, in that order, while the thread that opens the store loads the engine
     * library. A caller that reaches a handle first makes it itself; one that reaches it while this
     * thread is making it waits for it (the JVM's class initialisation lock), so nothing is made
     * twice and nothing is called before the ABI check.
     */
    private static void warm() {
        AbiCheck.ensure();
        MethodHandle[] made = {EngineAttach.H, StoreOpen.H, CfCount.H, CfName.H, Put.H, Get.H, StoreClose.H};
        assert made.length == 7;
    }

    /**
     * Checks libferry's ABI version once, before any handle but ferry_abi_version's own is made;
     * records a mismatch as the load error (then no further handle is made and every call throws).
     */
    private static final class AbiCheck {
        static {
            if (loadError == null) {
                try {
                    Abi.check((int) AbiVersion.H.invokeExact(), NativeLibrary.ferryPath());
                } catch (LinkageError e) {
                    recordLoadError(e);
                } catch (Throwable t) {
                    recordLoadError(linkageError("ferry_abi_version failed: " + t, t));
                }
            }
        }

        /** Does nothing; calling it initialises the class, which runs the check (once). */
        static void ensure() {
        }
    }

    /** ferry_noop's critical handle, besides the plain one of {@link #noop()}. */
    private static final class NoopCritical {
        static final MethodHandle H = bind(Fn.NOOP, CRITICAL);
    }

    /**
     * Calls {@code ferry_noop} through a {@link Linker.Option#critical(boolean) critical} handle:
     * the floor of an FFM call without the thread-state transition, for benchmarks.
     *
     * @return 0
     */
    public static int noopCritical() {
        try {
            return (int) NoopCritical.H.invokeExact();
        } catch (Throwable t) {
            throw failure("ferry_noop", t);
        }
    }

    @Override
    public String name() {
        return "ffm";
    }

    /**
     * {@inheritDoc}
     *
     * <p>The result is the address of index 0 whatever the buffer's position, like JNI's
     * {@code GetDirectBufferAddress}; a heap buffer gives 0.
     */
    @Override
    public long address(ByteBuffer direct) {
        if (!direct.isDirect()) {
            return 0;
        }
        // ofBuffer covers position..limit: step back to index 0.
        return MemorySegment.ofBuffer(direct).address() - direct.position();
    }

    /**
     * {@inheritDoc}
     *
     * <p>The buffer is made from a global-scope {@link MemorySegment}, so it checks that scope on
     * each access (JNI's {@code NewDirectByteBuffer} makes one that does not). That once cost a
     * scan that read LMDB's map through such buffers about 40% more; no scan reads through them
     * now (cursor pages and views read memory through {@code dev.ferry.internal.Mem}), and the one
     * caller, {@code View.copyTo(ByteBuffer)}, copies the whole view in one bulk transfer.
     */
    @Override
    public ByteBuffer wrap(long address, int length) {
        return MemorySegment.ofAddress(address).reinterpret(length).asByteBuffer().order(ByteOrder.nativeOrder());
    }

    /**
     * {@inheritDoc} The callback is libferry's C trampoline, which calls Java through JNI (not an upcall
     * stub: see {@link FfmMergeDispatch}).
     */
    @Override
    public long mergeCallback(MergeHandler handler) {
        return FfmMergeDispatch.address(handler);
    }

    /** {@inheritDoc} The callback is libferry's C trampoline, as for {@link #mergeCallback}. */
    @Override
    public long filterCallback(FilterHandler handler) {
        return FfmMergeDispatch.filterAddress(handler);
    }

    /** {@inheritDoc} The callback is libferry's C trampoline, as for {@link #mergeCallback}. */
    @Override
    public long compareCallback(CompareHandler handler) {
        return FfmMergeDispatch.compareAddress(handler);
    }

    // ---------------------------------------------------------------- loading

    private static SymbolLookup openLibrary() {
        String where = "libferry";
        try {
            if (ValueLayout.ADDRESS.byteSize() != Long.BYTES) {
                throw new UnsatisfiedLinkError("the FFM binding passes pointers as 64-bit longs; this platform has "
                        + ValueLayout.ADDRESS.byteSize() + "-byte pointers");
            }
            where = NativeLibrary.ferryPath().toString();
            return SymbolLookup.libraryLookup(NativeLibrary.ferryPath(), Arena.global());
        } catch (LinkageError e) {
            recordLoadError(e);
        } catch (RuntimeException e) { // IllegalArgumentException (dlopen failed), IllegalCallerException, I/O
            recordLoadError(linkageError("cannot load " + where + " for the FFM binding: " + e.getMessage(), e));
        }
        return null;
    }

    /**
     * Returns the downcall handle of a function, or null (recording why) when it cannot be made.
     * Called once per function, by the initialiser of its holder class ({@link FfmHandles}).
     *
     * @param fn the function
     * @return its handle, critical when {@code fn.critical}, or null
     */
    static MethodHandle bind(Fn fn) {
        return bind(fn, fn.critical ? CRITICAL : PLAIN);
    }

    /**
     * Returns a plain downcall handle of one of libferry's binding helpers, functions outside ferry.h.
     *
     * @param symbol the function's name
     * @param descriptor its signature
     * @return the handle
     * @throws LinkageError when libferry did not load or lacks the symbol
     */
    static MethodHandle bindHelper(String symbol, FunctionDescriptor descriptor) {
        AbiCheck.ensure();
        if (LIB == null || loadError != null) {
            throw loadError != null ? loadError : new UnsatisfiedLinkError("libferry is not loaded");
        }
        MemorySegment s = LIB.find(symbol).orElseThrow(() -> new UnsatisfiedLinkError("libferry at "
                + NativeLibrary.ferryPath() + " has no symbol " + symbol + " (stale or foreign library?)"));
        return LINKER.downcallHandle(s, descriptor, PLAIN);
    }

    private static MethodHandle bind(Fn fn, Linker.Option[] options) {
        if (fn != Fn.ABI_VERSION) {
            AbiCheck.ensure();
        }
        if (LIB == null || (fn != Fn.ABI_VERSION && loadError != null)) {
            return null;
        }
        try {
            MemorySegment symbol = LIB.find(fn.symbol).orElse(null);
            if (symbol == null) {
                recordLoadError(new UnsatisfiedLinkError("libferry at " + NativeLibrary.ferryPath()
                        + " has no symbol " + fn.symbol + " (stale or foreign library?)"));
                return null;
            }
            return LINKER.downcallHandle(symbol, fn.descriptor, options);
        } catch (LinkageError e) {
            recordLoadError(e);
        } catch (RuntimeException e) {
            recordLoadError(linkageError("cannot bind " + fn.symbol + ": " + e.getMessage(), e));
        }
        return null;
    }

    /** Keeps the first load error (later ones are consequences or repeats). */
    private static synchronized void recordLoadError(LinkageError e) {
        if (loadError == null) {
            loadError = e;
        }
    }

    private static LinkageError linkageError(String message, Throwable cause) {
        LinkageError e = new UnsatisfiedLinkError(message);
        e.initCause(cause);
        return e;
    }

    /**
     * Turns whatever a downcall threw into the error to raise. Downcalls with matching types throw
     * nothing of their own, so this runs only when libferry did not load (the handle is null) or on
     * a bug.
     *
     * @param function the C function's name
     * @param t what its handle's invocation threw
     * @return the error to throw
     */
    static Error failure(String function, Throwable t) {
        LinkageError cause = loadError;
        if (cause != null) {
            return linkageError(function + " is unavailable: " + cause.getMessage(), cause);
        }
        if (t instanceof Error e) {
            return e;
        }
        return new AssertionError("downcall " + function + " failed", t);
    }
}
