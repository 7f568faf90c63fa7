package dev.ferry.ffm;

import dev.ferry.ffm.internal.FfmBinding;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.Cursor;
import dev.ferry.Engine;
import dev.ferry.KeyRange;
import dev.ferry.Snapshot;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import dev.ferry.WriteBatch;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * FfmBinding makes each downcall handle on its function's first call, and by default a background
 * thread makes those of Store.open's path at the same time: in a fresh JVM (where no handle exists
 * yet), with the warm-up thread racing the caller and without it, every function the store API
 * reaches must work on its first call. The in-process suites (contract, RocksJava interop) also
 * reach each function first in their JVM, but in whatever order their tests run.
 */
class FfmFirstCallTest {

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void everyFunctionWorksOnItsFirstCallInAFreshJvm(boolean warm, @TempDir Path dir) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "-Dferry.binding=ffm", "-D" + FfmBinding.WARM_PROPERTY + "=" + warm));
        for (String p : List.of("ferry.native.lib", "ferry.lmdb.lib")) {
            if (System.getProperty(p) != null) {
                cmd.add("-D" + p + "=" + System.getProperty(p));
            }
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), FirstCalls.class.getName(), dir.toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "child timed out");
        assertEquals(0, p.exitValue(), () -> "child failed:\n" + out);
        assertTrue(out.contains("first calls ok"), () -> "child output:\n" + out);
    }

    /** The child program: the binding's own calls first, then each engine's store API once. */
    static final class FirstCalls {
        private FirstCalls() {
        }

        public static void main(String[] args) throws IOException {
            Path dir = Path.of(args[0]);
            FfmBinding b = FfmBinding.INSTANCE;
            check(FfmBinding.loadError().isEmpty(), "loadError " + FfmBinding.loadError());
            check(b.noop() == 0, "noop");
            check(FfmBinding.noopCritical() == 0, "noopCritical");
            check(b.abiVersion() == dev.ferry.internal.Abi.ABI_VERSION, "abiVersion");
            for (Engine e : Engine.values()) {
                Path path = Files.createDirectories(dir.resolve(e.name()));
                try (Store s = Store.open(path, StoreOptions.of(e))) {
                    check(s.binding().equals("ffm"), "binding " + s.binding());
                    s.put(bytes("a"), bytes("1"));
                    check(Arrays.equals(bytes("1"), s.get(bytes("a"))), "get");
                    check(s.multiGet(List.of(bytes("a"), bytes("zz"))).get(1) == null, "multiGet");
                    try (WriteBatch batch = new WriteBatch()) {
                        s.write(batch.put(bytes("b"), bytes("2")).put(bytes("c"), bytes("3")));
                    }
                    s.delete(bytes("c"));
                    try (Snapshot snap = s.snapshot(); Cursor c = snap.cursor(KeyRange.all())) {
                        int n = 0;
                        for (boolean ok = c.first(); ok; ok = c.next()) {
                            n++;
                        }
                        check(n == 2, "cursor saw " + n);
                    }
                    s.columnFamilies();
                    if (e == Engine.ROCKSDB) {
                        s.deleteRange(bytes("a"), bytes("b"));
                        s.flush();
                        s.compactRange();
                        check(s.property("rocksdb.estimate-num-keys").isPresent(), "property");
                        s.estimatedKeyCount();
                        s.dropColumnFamily(s.createColumnFamily("extra"));
                    }
                }
            }
            System.out.println("first calls ok");
        }

        private static byte[] bytes(String s) {
            return s.getBytes(StandardCharsets.UTF_8);
        }

        private static void check(boolean ok, String what) {
            if (!ok) {
                throw new AssertionError(what);
            }
        }
    }
}
