package dev.ferry.internal;

import dev.ferry.ErrorCode;
import dev.ferry.FerryException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Finds native libraries: libferry (from this jar, or {@code -Dferry.native.lib=<path>}) and
 * LMDB (from org.lmdbjava:native, or {@code -Dferry.lmdb.lib=<path>}). Jar resources are
 * extracted into {@code <java.io.tmpdir>/ferry-<user>/} under a name that carries a hash of
 * their content, so two versions never overwrite each other and a re-run reuses the file. That
 * directory is created owner-only and refused when it is a link or another user's; a reused file
 * is compared byte for byte with the jar's copy first.
 *
 * <p>The jar carries libferry for the {@link #SUPPORTED_PLATFORMS}; on any other platform
 * {@link #ferryPath()} throws a {@link FerryException} naming it, unless {@code -Dferry.native.lib}
 * points at a libferry built for it.
 *
 * <p>Thread safety: thread-safe; results are computed once.
 */
public final class NativeLibrary {
    /** System property naming a locally built libferry to use instead of the jar's. */
    public static final String LIB_PROPERTY = "ferry.native.lib";
    /** System property naming an LMDB library to use instead of org.lmdbjava:native's. */
    public static final String LMDB_PROPERTY = "ferry.lmdb.lib";

    /**
     * The platforms the jar has a libferry for, named as {@link #platform()} names them: Linux on the five
     * architectures rocksdbjni ships, with glibc and with musl ({@code -musl}), macOS on both
     * architectures, Windows on x86_64. (A jar built without the cross toolchains holds fewer; README,
     * "Platforms".)
     */
    public static final List<String> SUPPORTED_PLATFORMS = List.of(
            "linux-x86_64", "linux-aarch64", "linux-ppc64le", "linux-s390x", "linux-riscv64",
            "linux-x86_64-musl", "linux-aarch64-musl", "linux-ppc64le-musl", "linux-s390x-musl", "linux-riscv64-musl",
            "macos-x86_64", "macos-aarch64",
            "windows-x86_64");

    private static volatile Path ferryPath;
    private static volatile Path lmdbPath;
    private static boolean jniLoaded;

    private NativeLibrary() {
    }

    /**
     * Returns this JVM's platform as used in resource paths, e.g. {@code linux-x86_64}: one of the
     * {@link #SUPPORTED_PLATFORMS}.
     *
     * @return the platform name
     * @throws FerryException ({@link ErrorCode#NOT_SUPPORTED}) on another platform, naming it and
     *     the supported ones
     */
    public static String platform() {
        String os = System.getProperty("os.name");
        return platform(os, System.getProperty("os.arch"), isLinux(os) && muslProcess());
    }

    /**
     * Returns the platform of the given {@code os.name}, {@code os.arch} and C library as used in
     * resource paths, e.g. {@code linux-aarch64} for {@code ("Linux", "aarch64", false)} and
     * {@code linux-x86_64-musl} for {@code ("Linux", "amd64", true)}.
     *
     * @param osName the value of {@code os.name}
     * @param osArch the value of {@code os.arch}
     * @param musl whether the process runs on musl rather than glibc (ignored but on Linux)
     * @return one of the {@link #SUPPORTED_PLATFORMS}
     * @throws FerryException ({@link ErrorCode#NOT_SUPPORTED}) for another platform, naming it and
     *     the supported ones
     */
    public static String platform(String osName, String osArch, boolean musl) {
        String p = name(osName, osArch, musl);
        if (!SUPPORTED_PLATFORMS.contains(p)) {
            throw FerryException.of(ErrorCode.NOT_SUPPORTED, 0, "Ferry has no native library for " + osName + " on "
                    + osArch + " (" + p + "); supported platforms: " + String.join(", ", SUPPORTED_PLATFORMS)
                    + " (or set -D" + LIB_PROPERTY + "=<path> to a libferry built for this one)");
        }
        return p;
    }

    /**
     * Returns the file name of libferry on a platform: {@code libferry.so} on Linux,
     * {@code libferry.dylib} on macOS, {@code ferry.dll} on Windows.
     *
     * @param platform one of the {@link #SUPPORTED_PLATFORMS}
     * @return the file name inside {@code /dev/ferry/native/<platform>/}
     */
    public static String libraryFile(String platform) {
        return platform.startsWith("windows-") ? "ferry.dll" : platform.startsWith("macos-") ? "libferry.dylib" : "libferry.so";
    }

    /**
     * Returns the name of the LMDB library that org.lmdbjava:native carries for a platform, or
     * null when it carries none (Linux on ppc64le, s390x and riscv64: LMDB is not available there).
     *
     * @param platform one of the {@link #SUPPORTED_PLATFORMS}
     * @return the resource name, e.g. {@code /org/lmdbjava/native/x86_64-linux-musl.so}, or null
     */
    public static String lmdbResource(String platform) {
        switch (platform) {
            case "linux-x86_64": return "/org/lmdbjava/native/x86_64-linux-gnu.so";
            case "linux-aarch64": return "/org/lmdbjava/native/aarch64-linux-gnu.so";
            case "linux-x86_64-musl": return "/org/lmdbjava/native/x86_64-linux-musl.so";
            case "linux-aarch64-musl": return "/org/lmdbjava/native/aarch64-linux-musl.so";
            case "macos-x86_64": return "/org/lmdbjava/native/x86_64-macos-none.so";
            case "macos-aarch64": return "/org/lmdbjava/native/aarch64-macos-none.so";
            case "windows-x86_64": return "/org/lmdbjava/native/x86_64-windows-gnu.dll";
            default: return null;
        }
    }

    /** {@code <os>-<arch>[-musl]} for any platform, supported or not. */
    private static String name(String osName, String osArch, boolean musl) {
        String os = osName.toLowerCase(Locale.ROOT);
        String arch = osArch.toLowerCase(Locale.ROOT);
        String o = isLinux(osName) ? "linux" : os.startsWith("mac") || os.startsWith("darwin") ? "macos"
                : os.startsWith("windows") ? "windows" : os.replace(' ', '_');
        String a = arch.equals("amd64") || arch.equals("x86_64") ? "x86_64" : arch.equals("aarch64") || arch.equals("arm64") ? "aarch64" : arch;
        return o + "-" + a + (musl && o.equals("linux") ? "-musl" : "");
    }

    private static boolean isLinux(String osName) {
        return osName.toLowerCase(Locale.ROOT).startsWith("linux");
    }

    /**
     * Does this process run on musl? Its memory map names the C library actually loaded
     * ({@code ld-musl-<arch>.so.1} on Alpine and other musl systems), which a file on disk would not:
     * a glibc system may have musl installed beside it.
     */
    private static boolean muslProcess() {
        try (java.util.stream.Stream<String> maps = Files.lines(Paths.get("/proc/self/maps"))) {
            return maps.anyMatch(NativeLibrary::isMuslMapping);
        } catch (IOException | UncheckedIOException | SecurityException e) {
            return false; // no /proc: assume glibc, the common case; -Dferry.native.lib covers the rest
        }
    }

    /**
     * Whether a line of {@code /proc/self/maps} maps musl's C library.
     *
     * @param line a line of the map
     * @return true for musl's loader/C library ({@code ld-musl-*.so.1}, {@code libc.musl-*.so.1})
     */
    static boolean isMuslMapping(String line) {
        int slash = line.lastIndexOf('/');
        String file = slash < 0 ? line : line.substring(slash + 1);
        return file.startsWith("ld-musl-") || file.startsWith("libc.musl-");
    }

    /**
     * Returns the path of libferry, extracting it from the jar on first use.
     *
     * @return an absolute path
     * @throws FerryException ({@link ErrorCode#NOT_SUPPORTED}) on a platform the jar has no
     *     libferry for (see {@link #platform()}), unless {@code -Dferry.native.lib} is set
     * @throws UnsatisfiedLinkError when the jar lacks this platform's libferry or the property
     *     names no file
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
                        String platform = platform();
                        String file = libraryFile(platform);
                        int dot = file.lastIndexOf('.');
                        p = extract("/dev/ferry/native/" + platform + "/" + file, file.substring(0, dot), file.substring(dot));
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
     * @throws FerryException ({@link ErrorCode#NOT_SUPPORTED}) on a platform org.lmdbjava:native has
     *     no library for ({@link #lmdbResource}), unless {@code -Dferry.lmdb.lib} is set
     * @throws UnsatisfiedLinkError when the jar (org.lmdbjava:native) is not on the class path
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
                        String platform = platform();
                        String resource = lmdbResource(platform);
                        if (resource == null) {
                            throw FerryException.of(ErrorCode.NOT_SUPPORTED, 0, "LMDB is not available on " + platform
                                    + ": org.lmdbjava:native ships no LMDB library for it (RocksDB is; or set -D" + LMDB_PROPERTY
                                    + "=<path> to an liblmdb built for this platform)");
                        }
                        String ext = resource.substring(resource.lastIndexOf('.'));
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
        try (InputStream in = openResource(resource)) {
            if (in == null) {
                throw new UnsatisfiedLinkError("no native library " + resource + " on the class path for platform "
                        + platform() + " (set -D" + (prefix.equals("libferry") ? LIB_PROPERTY : LMDB_PROPERTY) + "=<path>)");
            }
            bytes = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + resource, e);
        }
        Path tmp = Paths.get(System.getProperty("java.io.tmpdir"));
        String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
        return extractTo(privateDirectory(tmp.resolve("ferry-" + user)), bytes, prefix, suffix);
    }

    /**
     * Opens a resource by absolute name: from Ferry's own jar or module first, then through the
     * system class loader. The second lookup finds org.lmdbjava:native when Ferry runs as a named
     * module: that jar cannot be a module ({@code native} is not a Java identifier) and stays on
     * the class path, which a named module's {@code Class.getResourceAsStream} does not search;
     * its library sits outside any package, so it is not encapsulated.
     *
     * @param resource the name, starting with {@code /}
     * @return the stream, or null when neither finds it
     */
    static InputStream openResource(String resource) {
        InputStream in = NativeLibrary.class.getResourceAsStream(resource);
        return in != null ? in : ClassLoader.getSystemClassLoader().getResourceAsStream(resource.substring(1));
    }

    /**
     * Writes {@code bytes} to {@code <dir>/<prefix>-<hash><suffix>} unless a file with exactly
     * these bytes is there already (a file of the right name but other content, planted or
     * damaged, is replaced). The file is written under a temporary name and moved into place, so
     * a concurrent loader never sees half a library.
     *
     * @param dir a directory that {@link #privateDirectory} accepted
     * @param bytes the library
     * @param prefix file name prefix
     * @param suffix file name suffix
     * @return the file
     */
    static Path extractTo(Path dir, byte[] bytes, String prefix, String suffix) {
        try {
            Path target = dir.resolve(prefix + "-" + sha256(bytes) + suffix);
            if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS) && Files.size(target) == bytes.length
                    && Arrays.equals(Files.readAllBytes(target), bytes)) {
                return target;
            }
            Path part = Files.createTempFile(dir, prefix, ".part"); // owner-only (0600) on POSIX
            Files.write(part, bytes);
            try {
                Files.move(part, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(part, target, StandardCopyOption.REPLACE_EXISTING);
            }
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("extracting a native library into " + dir, e);
        }
    }

    /**
     * Makes sure libraries can be loaded from {@code dir} without another local user having had
     * a chance to plant one: the directory is created owner-only (0700); an existing one must be a
     * real directory (not a symbolic link) owned by this process's user, and is tightened to 0700
     * if it is more open. (Files in it are checked byte for byte before they are loaded.)
     *
     * @param dir the directory, usually {@code <java.io.tmpdir>/ferry-<user>}
     * @return {@code dir}
     * @throws UnsatisfiedLinkError when the directory is not this user's
     */
    static Path privateDirectory(Path dir) {
        try {
            if (!dir.getFileSystem().supportedFileAttributeViews().contains("posix")) {
                // no POSIX owners here (Windows: the temp directory is per user); still no link or file in its place
                if (Files.isSymbolicLink(dir) || Files.exists(dir, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                    throw refuse(dir, "is " + (Files.isSymbolicLink(dir) ? "a symbolic link" : "not a directory"));
                }
                Files.createDirectories(dir);
                return dir;
            }
            Files.createDirectories(dir.getParent());
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            } catch (FileAlreadyExistsException e) {
                // someone made it first: maybe this user's earlier run, maybe not; check below
            }
            PosixFileAttributes a = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (a.isSymbolicLink() || !a.isDirectory()) {
                throw refuse(dir, "is " + (a.isSymbolicLink() ? "a symbolic link" : "not a directory"));
            }
            UserPrincipal me = currentUser(dir.getParent());
            if (!a.owner().equals(me)) {
                throw refuse(dir, "belongs to user '" + a.owner().getName() + "', not to '" + me.getName() + "'");
            }
            if (!a.permissions().equals(OWNER_ONLY)) {
                Files.setPosixFilePermissions(dir, OWNER_ONLY);
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("preparing " + dir + " for Ferry's native libraries", e);
        }
    }

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

    private static UnsatisfiedLinkError refuse(Path dir, String why) {
        return new UnsatisfiedLinkError("Ferry extracts its native libraries into " + dir + ", which " + why
                + ": refusing to load code from a directory another user may control. Remove it, or start the JVM with"
                + " -Djava.io.tmpdir=<a directory of your own>");
    }

    /** @return the user this process runs as: the owner of a file it creates (the name may not be in the user database) */
    private static UserPrincipal currentUser(Path writable) throws IOException {
        try {
            Path probe = Files.createTempFile(writable, "ferry-owner", ".tmp");
            try {
                return Files.getOwner(probe);
            } finally {
                Files.deleteIfExists(probe);
            }
        } catch (IOException e) {
            return writable.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(System.getProperty("user.name"));
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
