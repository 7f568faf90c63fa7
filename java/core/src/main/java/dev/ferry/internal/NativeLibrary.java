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
import java.nio.file.attribute.AclEntry;
import java.nio.file.attribute.AclEntryFlag;
import java.nio.file.attribute.AclEntryPermission;
import java.nio.file.attribute.AclEntryType;
import java.nio.file.attribute.AclFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Finds native libraries: libferry (from this jar, or {@code -Dferry.native.lib=<path>}) and
 * LMDB (from org.lmdbjava:native, or {@code -Dferry.lmdb.lib=<path>}). Jar resources are
 * extracted into {@code <java.io.tmpdir>/ferry-<user>/} under a name that carries a hash of
 * their content, so two versions never overwrite each other and a re-run reuses the file. That
 * directory is created owner-only (POSIX mode 0700; on Windows an ACL granting only its owner) and
 * refused when it is a link or another user's; a reused file must be this user's with no other
 * name (one link) and is compared byte for byte with the jar's copy first, else it is extracted again.
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
        try (Stream<String> maps = Files.lines(Paths.get("/proc/self/maps"))) {
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
     * these bytes, owned by this user and with no other name, is there already (a file of the right
     * name but other content, planted or damaged, is replaced; so is one of another user, or a hard
     * link, which someone holding its other name could change between this check and the load: it
     * may have been planted while the directory was still open to others, {@link #privateDirectory}).
     * The file is written under a temporary name and moved into place, so a concurrent loader never
     * sees half a library.
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
            if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS) && soleAndOwn(dir, target)
                    && Files.size(target) == bytes.length && Arrays.equals(Files.readAllBytes(target), bytes)) {
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
     * Whether {@code file} in {@code dir} is this user's own and its only name: owned by the owner of
     * {@code dir} (which {@link #privateDirectory} checked is this user) and, where the file system
     * counts links (Linux, macOS), with one link.
     *
     * @param dir the directory
     * @param file a regular file in it
     * @return false when another user owns the file or it has another name
     * @throws IOException when its attributes cannot be read
     */
    static boolean soleAndOwn(Path dir, Path file) throws IOException {
        Set<String> views = file.getFileSystem().supportedFileAttributeViews();
        if (views.contains("owner")
                && !Files.getOwner(file, LinkOption.NOFOLLOW_LINKS).equals(Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS))) {
            return false;
        }
        return !views.contains("unix") || ((Number) Files.getAttribute(file, "unix:nlink", LinkOption.NOFOLLOW_LINKS)).longValue() == 1;
    }

    /**
     * Makes sure libraries can be loaded from {@code dir} without another local user having had
     * a chance to plant one: the directory is created owner-only (0700); an existing one must be a
     * real directory (not a symbolic link) owned by this process's user, and is tightened to 0700
     * if it is more open. Where the file system has ACLs instead of modes (Windows: a service running
     * as SYSTEM extracts into the shared {@code C:\Windows\Temp}, where any user may create a
     * directory, and a directory created there inherits ACL entries that let other users add files),
     * the directory must be owned by this process's user too, and its ACL is replaced by one that
     * grants only its owner ({@link #makeAclPrivate}). (Files in it are checked before they are loaded,
     * {@link #extractTo}.)
     *
     * @param dir the directory, usually {@code <java.io.tmpdir>/ferry-<user>}
     * @return {@code dir}
     * @throws UnsatisfiedLinkError when the directory is not this user's
     */
    static Path privateDirectory(Path dir) {
        try {
            if (!dir.getFileSystem().supportedFileAttributeViews().contains("posix")) {
                // no POSIX owners and modes here (Windows): no link or file in its place, then its owner and ACL
                if (Files.isSymbolicLink(dir) || Files.exists(dir, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                    throw refuse(dir, "is " + (Files.isSymbolicLink(dir) ? "a symbolic link" : "not a directory"));
                }
                Files.createDirectories(dir);
                AclFileAttributeView acl = Files.getFileAttributeView(dir, AclFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
                if (acl != null) {
                    makeAclPrivate(dir, acl, currentUser(dir.getParent()), windowsAdministration(dir));
                }
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

    /** What lets a principal change what a directory holds: add, remove or rename entries, or change who may. */
    private static final Set<AclEntryPermission> ACL_WRITE = EnumSet.of(AclEntryPermission.WRITE_DATA,
            AclEntryPermission.APPEND_DATA, AclEntryPermission.DELETE_CHILD, AclEntryPermission.DELETE,
            AclEntryPermission.WRITE_ACL, AclEntryPermission.WRITE_OWNER);

    /**
     * The principals that administer a Windows system, whose write access to a directory exposes it to
     * no one new (they can take ownership of any file anyway): SYSTEM and the Administrators group, as far
     * as they can be looked up by name (wine shows an entry granting SYSTEM every right on files).
     * Where the names are not found (a Windows in another language), nobody: their entries are then
     * replaced like any other.
     *
     * @param dir a path on the file system to look them up on
     * @return the principals found
     */
    static Set<UserPrincipal> windowsAdministration(Path dir) {
        Set<UserPrincipal> out = new HashSet<>();
        for (String name : new String[] {"NT AUTHORITY\\SYSTEM", "BUILTIN\\Administrators"}) {
            try {
                out.add(dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(name));
            } catch (IOException | UnsupportedOperationException e) {
                // not known by this name here
            }
        }
        return out;
    }

    /**
     * The ACL form of {@link #privateDirectory}'s check: the directory must be owned by {@code me}, and
     * no one else but {@code trusted} may change what it holds. An ACL that lets someone else is
     * replaced by {@link #ownerOnlyAcl}, and checked again.
     *
     * @param dir the directory (for messages)
     * @param view its ACL view
     * @param me the user this process runs as
     * @param trusted principals whose write access is no risk (the system's administration)
     * @throws UnsatisfiedLinkError when another user owns it, or its ACL cannot be made private
     * @throws IOException when the owner or the ACL cannot be read
     */
    static void makeAclPrivate(Path dir, AclFileAttributeView view, UserPrincipal me, Set<UserPrincipal> trusted)
            throws IOException {
        UserPrincipal owner = view.getOwner();
        if (!owner.equals(me)) {
            throw refuse(dir, aclProblem(owner, me, trusted, List.of()));
        }
        String why = aclProblem(owner, me, trusted, view.getAcl());
        if (why == null) {
            return;
        }
        try {
            view.setAcl(ownerOnlyAcl(me));
        } catch (IOException e) {
            UnsatisfiedLinkError u = refuse(dir, why + ", and its ACL cannot be replaced (" + e + ")");
            u.initCause(e);
            throw u;
        }
        why = aclProblem(view.getOwner(), me, trusted, view.getAcl());
        if (why != null) {
            throw refuse(dir, why + " after its ACL was replaced by one granting only its owner");
        }
    }

    /**
     * Why a directory with this owner and ACL is not {@code me}'s alone, or null when it is: it is owned
     * by someone else, or an entry allows someone else (not {@code trusted}) to add, remove or rename its
     * entries or to change its ACL or owner. Entries that only deny, and entries that only pass to new
     * files and subdirectories (inherit-only), grant nothing on the directory itself.
     *
     * @param owner the directory's owner
     * @param me the user this process runs as
     * @param trusted principals whose write access is no risk
     * @param acl the directory's ACL
     * @return the reason, for a message after "which", or null
     */
    static String aclProblem(UserPrincipal owner, UserPrincipal me, Set<UserPrincipal> trusted, List<AclEntry> acl) {
        if (!owner.equals(me)) {
            return "belongs to user '" + owner.getName() + "', not to '" + me.getName() + "'";
        }
        for (AclEntry e : acl) {
            if (e.type() != AclEntryType.ALLOW || e.flags().contains(AclEntryFlag.INHERIT_ONLY) || e.principal().equals(me)
                    || trusted.contains(e.principal())) {
                continue;
            }
            Set<AclEntryPermission> granted = EnumSet.noneOf(AclEntryPermission.class);
            granted.addAll(e.permissions());
            granted.retainAll(ACL_WRITE);
            if (!granted.isEmpty()) {
                return "lets '" + e.principal().getName() + "' change what it holds (its ACL grants " + granted + ")";
            }
        }
        return null;
    }

    /**
     * An ACL granting {@code me} everything, on the directory and (inherited) on what is created in it,
     * and no one else anything.
     *
     * @param me the directory's owner
     * @return the ACL
     */
    static List<AclEntry> ownerOnlyAcl(UserPrincipal me) {
        return List.of(AclEntry.newBuilder().setType(AclEntryType.ALLOW).setPrincipal(me)
                .setPermissions(EnumSet.allOf(AclEntryPermission.class))
                .setFlags(AclEntryFlag.FILE_INHERIT, AclEntryFlag.DIRECTORY_INHERIT).build());
    }

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
