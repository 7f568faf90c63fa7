package dev.ferry.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;

/**
 * Finds native libraries: libferry (from this jar, or {@code -Dferry.native.lib=<path>}) and
 * LMDB (from org.lmdbjava:native, or {@code -Dferry.lmdb.lib=<path>}). Jar resources are
 * extracted once into {@code <java.io.tmpdir>/ferry-<user>/} under a name that carries a hash of
 * their content, so two versions never overwrite each other and a re-run reuses the file.
 *
 * <p>Thread safety: thread-safe; results are computed once.
 */
public final class NativeLibrary {
    /** System property naming a locally built libferry to use instead of the jar's. */
    public static final String LIB_PROPERTY = "ferry.native.lib";
    /** System property naming an LMDB library to use instead of org.lmdbjava:native's. */
    public static final String LMDB_PROPERTY = "ferry.lmdb.lib";

    private static volatile Path ferryPath;
    private static volatile Path lmdbPath;
    private static boolean jniLoaded;

    private NativeLibrary() {
    }

    /**
     * Returns {@code <os>-<arch>} as used in resource paths, e.g. {@code linux-x86_64}.
     *
     * @return the platform name
     */
    public static String platform() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        String o = os.contains("linux") ? "linux" : os.contains("mac") ? "macos" : os.contains("win") ? "windows" : os;
        String a = arch.equals("amd64") || arch.equals("x86_64") ? "x86_64" : arch.equals("aarch64") || arch.equals("arm64") ? "aarch64" : arch;
        return o + "-" + a;
    }

    /**
     * Returns the path of libferry, extracting it from the jar on first use.
     *
     * @return an absolute path
     * @throws UnsatisfiedLinkError when no libferry exists for this platform
     */
    public static Path ferryPath() {
        Path p = ferryPath;
        if (p == null) {
            synchronized (NativeLibrary.class) {
                p = ferryPath;
                if (p == null) {
                    String override = System.getProperty(LIB_PROPERTY);
                    if (override != null && !override.isEmpty()) {
                        p = Paths.get(override).toAbsolutePath();
                        if (!Files.isReadable(p)) {
                            throw new UnsatisfiedLinkError("-D" + LIB_PROPERTY + "=" + override + ": no such file");
                        }
                    } else {
                        String resource = "/dev/ferry/native/" + platform() + "/libferry.so";
                        p = extract(resource, "libferry", ".so");
                    }
                    ferryPath = p;
                }
            }
        }
        return p;
    }

    /**
     * Returns the path of the LMDB library from org.lmdbjava:native, extracting it on first use.
     *
     * @return an absolute path
     * @throws UnsatisfiedLinkError when the jar has no library for this platform
     */
    public static Path lmdbPath() {
        Path p = lmdbPath;
        if (p == null) {
            synchronized (NativeLibrary.class) {
                p = lmdbPath;
                if (p == null) {
                    String override = System.getProperty(LMDB_PROPERTY);
                    if (override != null && !override.isEmpty()) {
                        p = Paths.get(override).toAbsolutePath();
                    } else {
                        String[] pa = platform().split("-");
                        String abi = pa[0].equals("linux") ? "gnu" : pa[0].equals("windows") ? "gnu" : "none";
                        String ext = pa[0].equals("windows") ? ".dll" : ".so";
                        String resource = "/org/lmdbjava/native/" + pa[1] + "-" + pa[0] + "-" + abi + ext;
                        p = extract(resource, "liblmdb", ext);
                    }
                    lmdbPath = p;
                }
            }
        }
        return p;
    }

    /** Loads libferry into the JVM for the JNI binding (once). */
    public static synchronized void loadForJni() {
        if (!jniLoaded) {
            System.load(ferryPath().toString());
            jniLoaded = true;
        }
    }

    private static Path extract(String resource, String prefix, String suffix) {
        byte[] bytes;
        try (InputStream in = NativeLibrary.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new UnsatisfiedLinkError("no native library " + resource + " on the class path for platform "
                        + platform() + " (set -D" + (prefix.equals("libferry") ? LIB_PROPERTY : LMDB_PROPERTY) + "=<path>)");
            }
            bytes = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + resource, e);
        }
        try {
            Path dir = Paths.get(System.getProperty("java.io.tmpdir"), "ferry-" + System.getProperty("user.name", "user"));
            Files.createDirectories(dir);
            Path target = dir.resolve(prefix + "-" + sha256(bytes) + suffix);
            if (Files.exists(target) && Files.size(target) == bytes.length) {
                return target;
            }
            Path tmp = Files.createTempFile(dir, prefix, ".part");
            Files.write(tmp, bytes);
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("extracting " + resource, e);
        }
    }

    private static String sha256(byte[] bytes) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(bytes);
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < 8; i++) {
                sb.append(String.format("%02x", d[i]));
            }
            return sb.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
