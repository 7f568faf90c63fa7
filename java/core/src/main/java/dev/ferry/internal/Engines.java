package dev.ferry.internal;

import dev.ferry.Engine;
import dev.ferry.ErrorCode;
import dev.ferry.FerryException;
import dev.ferry.spi.NativeBinding;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Attaches the engine libraries to the shim once per process: RocksDB is loaded by RocksJava
 * ({@code RocksDB.loadLibrary()}) and found in the process by the shim; LMDB is extracted from
 * org.lmdbjava:native and loaded by the shim from that path.
 *
 * <p>Both engine jars are optional dependencies of ferry-core: the application adds the ones it
 * uses. A missing jar is reported as a {@link dev.ferry.FerryException.EngineLoad} that names the
 * artifact to add; no class of {@code org.rocksdb} is touched before its jar has been found.
 *
 * <p>Thread safety: thread-safe.
 */
public final class Engines {
    /** The RocksDB artifact and the versions Ferry is tested with (named in the missing-jar message). */
    public static final String ROCKSDB_ARTIFACT = "org.rocksdb:rocksdbjni (tested: 7.9.2 to 11.8.1)";
    /** The LMDB artifact and the version Ferry is tested with (named in the missing-jar message). */
    public static final String LMDB_ARTIFACT = "org.lmdbjava:native (tested: 0.9.33-5)";
    /** RocksJava's module name on the module path (derived from the jar name: the jar declares none). */
    public static final String ROCKSDB_MODULE = "rocksdbjni";
    private static final String ROCKSDB_CLASS = "org.rocksdb.RocksDB";

    private static volatile boolean rocksdb;
    private static volatile boolean lmdb;

    private Engines() {
    }

    /**
     * Makes sure an engine is attached.
     *
     * @param b the binding to call through
     * @param engine the engine
     * @throws dev.ferry.FerryException.EngineLoad when the engine cannot be attached
     */
    public static void attach(NativeBinding b, Engine engine) {
        attach(new NativeCalls(b), engine);
    }

    /**
     * Makes sure an engine is attached.
     *
     * @param calls the call layer to call through
     * @param engine the engine
     * @throws dev.ferry.FerryException.EngineLoad when the engine cannot be attached
     */
    public static void attach(NativeCalls calls, Engine engine) {
        if (engine == Engine.ROCKSDB ? rocksdb : lmdb) {
            return;
        }
        synchronized (Engines.class) {
            if (engine == Engine.ROCKSDB) {
                if (rocksdb) {
                    return;
                }
                loadRocksJava();
                calls.engineAttach(engine.id(), null);
                rocksdb = true;
            } else {
                if (lmdb) {
                    return;
                }
                calls.engineAttach(engine.id(), lmdbPath().toString().getBytes(StandardCharsets.UTF_8));
                lmdb = true;
            }
        }
    }

    /**
     * Finds RocksJava and lets it load its library. Found through this class's loader (the class
     * path, or the module graph when Ferry is a named module) and then the system class loader
     * (rocksdbjni on the class path while Ferry is on the module path); Ferry's module is made to
     * read RocksJava's before any of its classes is linked.
     */
    private static void loadRocksJava() {
        Class<?> c = find(ROCKSDB_CLASS, Engines.class.getClassLoader());
        if (c == null) {
            c = find(ROCKSDB_CLASS, ClassLoader.getSystemClassLoader());
        }
        if (c == null) {
            throw missing("RocksDB", ROCKSDB_ARTIFACT, Engines.class.getModule().isNamed()
                    ? "; on the module path, also resolve its module: 'requires " + ROCKSDB_MODULE + ";' in your module-info.java or --add-modules "
                            + ROCKSDB_MODULE : "");
        }
        Engines.class.getModule().addReads(c.getModule());
        RocksJava.loadLibrary();
    }

    private static Class<?> find(String name, ClassLoader loader) {
        try {
            return Class.forName(name, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
    }

    /** Kept apart so that {@code org.rocksdb} is linked only after {@link #loadRocksJava} found it. */
    private static final class RocksJava {
        static void loadLibrary() {
            org.rocksdb.RocksDB.loadLibrary();
        }
    }

    private static Path lmdbPath() {
        try {
            return NativeLibrary.lmdbPath();
        } catch (UnsatisfiedLinkError e) {
            throw missing("LMDB", LMDB_ARTIFACT, " (" + e.getMessage() + ")");
        }
    }

    private static FerryException missing(String engine, String artifact, String more) {
        return FerryException.of(ErrorCode.ENGINE_NOT_LOADED, 0, engine + " needs the engine jar " + artifact
                + ": add it to your build (dev.ferry:ferry-core declares it optional)" + more);
    }

    /**
     * Returns the path of the attached engine object.
     *
     * @param b the binding
     * @param engine the engine
     * @return the path, or null when not attached
     */
    public static String path(NativeBinding b, Engine engine) {
        return new NativeCalls(b).enginePath(engine.id());
    }
}
