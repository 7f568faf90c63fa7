package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.internal.NativeLibrary;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** libferry is extracted under a content-hashed name, and -Dferry.native.lib overrides it. */
class NativeLibraryTest {
    @TempDir
    Path dir;

    @Test
    void extractedLibraryCarriesAContentHashAndIsReused() {
        Path p = NativeLibrary.ferryPath();
        assertTrue(p.getFileName().toString().matches("libferry-[0-9a-f]{16}\\.so"), p.toString());
        assertTrue(Files.isRegularFile(p));
        assertEquals(p, NativeLibrary.ferryPath());
        Path lmdb = NativeLibrary.lmdbPath();
        assertTrue(lmdb.getFileName().toString().matches("liblmdb-[0-9a-f]{16}\\.so"), lmdb.toString());
    }

    @Test
    void propertyPointsAtALocallyBuiltLibrary() throws Exception {
        Path built = Paths.get("target/native/libferry.so").toAbsolutePath();
        assertTrue(Files.isRegularFile(built), "the build leaves libferry in target/native");
        String out = child("-D" + NativeLibrary.LIB_PROPERTY + "=" + built);
        assertTrue(out.contains("ok " + built), out);
    }

    @Test
    void missingOverrideFailsWithAClearError() throws Exception {
        String out = child("-D" + NativeLibrary.LIB_PROPERTY + "=" + dir.resolve("nope.so"));
        assertTrue(out.contains("UnsatisfiedLinkError") && out.contains("nope.so") && out.contains("no such file"), out);
    }

    @Test
    void unsupportedPlatformFailsWithAFerryExceptionNamingIt() throws Exception {
        String out = child("-Dos.arch=sparcv9");
        assertTrue(out.contains("dev.ferry.FerryException$NotSupported: Ferry has no native library for Linux on sparcv9 (linux-sparcv9);"
                + " supported platforms: linux-x86_64, linux-aarch64, linux-ppc64le, linux-s390x, linux-riscv64, linux-x86_64-musl,"), out);
    }

    private String child(String prop) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Paths.get(System.getProperty("java.home"), "bin", "java").toString(), prop,
                "-cp", System.getProperty("java.class.path")));
        if (Runtime.version().feature() >= 22) {
            cmd.add(1, "--enable-native-access=ALL-UNNAMED");
        }
        cmd.add(Child.class.getName());
        cmd.add(dir.toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return out;
    }

    /** Opens a store through JNI and prints the library it loaded. */
    public static final class Child {
        public static void main(String[] args) {
            try (Store s = Store.open(Paths.get(args[0], "db"), StoreOptions.rocksdb().binding("jni"))) {
                s.put(new byte[] {1}, new byte[] {2});
                System.out.println("ok " + NativeLibrary.ferryPath());
            } catch (Throwable t) {
                System.out.println(t);
            }
        }
    }
}
