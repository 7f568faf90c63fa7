package dev.ferry.internal;

import dev.ferry.Engine;
import dev.ferry.spi.NativeBinding;
import java.nio.charset.StandardCharsets;

/**
 * Attaches the engine libraries to the shim once per process: RocksDB is loaded by RocksJava
 * ({@code RocksDB.loadLibrary()}) and found in the process by the shim; LMDB is extracted from
 * org.lmdbjava:native and loaded by the shim from that path.
 *
 * <p>Thread safety: thread-safe.
 */
public final class Engines {
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
        if (engine == Engine.ROCKSDB ? rocksdb : lmdb) {
            return;
        }
        synchronized (Engines.class) {
            Scratch s = Scratch.get(b);
            int rc;
            if (engine == Engine.ROCKSDB) {
                if (rocksdb) {
                    return;
                }
                org.rocksdb.RocksDB.loadLibrary();
                rc = b.engineAttach(engine.id(), 0, s.err());
            } else {
                if (lmdb) {
                    return;
                }
                byte[] p = NativeLibrary.lmdbPath().toString().getBytes(StandardCharsets.UTF_8);
                NativeBuffer m = s.ensure(Scratch.DATA + p.length + 1L, 0);
                m.putCString(Scratch.DATA, p);
                rc = b.engineAttach(engine.id(), m.addr + Scratch.DATA, s.err());
            }
            if (rc != 0) {
                throw s.error(rc);
            }
            if (engine == Engine.ROCKSDB) {
                rocksdb = true;
            } else {
                lmdb = true;
            }
        }
    }

    /**
     * Returns the path of the attached engine object.
     *
     * @param b the binding
     * @param engine the engine
     * @return the path, or null when not attached
     */
    public static String path(NativeBinding b, Engine engine) {
        Scratch s = Scratch.get(b);
        NativeBuffer m = s.ensure(Scratch.DATA + 4096L, 0);
        int n = b.enginePath(engine.id(), m.addr + Scratch.DATA, 4096);
        return n < 0 ? null : new String(m.bytes(Scratch.DATA, Math.min(n, 4095)), StandardCharsets.UTF_8);
    }
}
