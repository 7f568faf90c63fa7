package dev.ferry.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.AclEntry;
import java.nio.file.attribute.AclEntryFlag;
import java.nio.file.attribute.AclEntryPermission;
import java.nio.file.attribute.AclEntryType;
import java.nio.file.attribute.AclFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14, defect 10: the directory Ferry loads extracted libraries from must be this user's
 * alone, or another local user could plant a library there first. On Windows (no POSIX owners or
 * modes) the directory's owner and ACL are checked instead (issue 43): that decision is tested here on
 * every platform through a view of a made-up ACL, and on Windows on the real directory.
 */
class NativeLibraryDirTest {
    private static final String POSIX_ONLY = "POSIX owners and modes: Windows has neither (its temp directory is per user)";

    @TempDir
    Path tmp;

    @DisabledOnOs(value = OS.WINDOWS, disabledReason = POSIX_ONLY)
    @Test
    void aNewDirectoryIsOwnerOnly() throws Exception {
        Path d = NativeLibrary.privateDirectory(tmp.resolve("ferry-me"));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(d)));
    }

    @DisabledOnOs(value = OS.WINDOWS, disabledReason = POSIX_ONLY)
    @Test
    void anOwnDirectoryThatIsTooOpenIsTightened() throws Exception {
        Path d = Files.createDirectory(tmp.resolve("ferry-me"));
        Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwxrwxrwx"));
        NativeLibrary.privateDirectory(d);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(d)));
    }

    @Test
    void aSymbolicLinkIsRefused() throws Exception {
        Path elsewhere = Files.createDirectory(tmp.resolve("attacker"));
        Path link = Files.createSymbolicLink(tmp.resolve("ferry-me"), elsewhere);
        // wine makes a Windows link a Unix one that Windows code then sees as a plain directory
        assumeTrue(Files.isSymbolicLink(link), "this file system shows the link it made as no link");
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> NativeLibrary.privateDirectory(link));
        assertTrue(e.getMessage().contains("symbolic link") && e.getMessage().contains(link.toString()), e.getMessage());
    }

    @Test
    void aFileInPlaceOfTheDirectoryIsRefused() throws Exception {
        Path f = Files.createFile(tmp.resolve("ferry-me"));
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> NativeLibrary.privateDirectory(f));
        assertTrue(e.getMessage().contains("not a directory"), e.getMessage());
    }

    /** Needs root to give a directory to another user (CI runs as root). */
    @DisabledOnOs(value = OS.WINDOWS, disabledReason = POSIX_ONLY)
    @Test
    void anotherUsersDirectoryIsRefused() throws Exception {
        UserPrincipal me = Files.getOwner(tmp);
        assumeTrue(me.getName().equals("root"), "only root can make a directory owned by someone else");
        Path d = Files.createDirectory(tmp.resolve("ferry-me"));
        UserPrincipal other;
        try {
            other = d.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
        } catch (java.io.IOException e) {
            assumeTrue(false, "no user 'nobody' here");
            return;
        }
        Files.setOwner(d, other);
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> NativeLibrary.privateDirectory(d));
        assertTrue(e.getMessage().contains("nobody") && e.getMessage().contains("refusing"), e.getMessage());
    }

    @Test
    void aPlantedFileWithTheRightNameIsReplacedByTheJarsBytes() throws Exception {
        Path d = NativeLibrary.privateDirectory(tmp.resolve("ferry-me"));
        byte[] lib = "the real library".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        Path first = NativeLibrary.extractTo(d, lib, "libx", ".so");
        assertArrayEquals(lib, Files.readAllBytes(first));
        byte[] planted = "a planted library".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        Files.write(first, planted);
        Path second = NativeLibrary.extractTo(d, lib, "libx", ".so");
        assertEquals(first, second);
        assertArrayEquals(lib, Files.readAllBytes(second));
        assertTrue(Files.isRegularFile(second, LinkOption.NOFOLLOW_LINKS));
    }

    private static byte[] lib() {
        return "the real library".getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Issue 43: a hard link planted while the directory was still open to others (before it was
     * tightened to 0700) passes the byte check, and whoever holds its other name could change it before
     * the load. It is replaced, and the file it links to is left as it was.
     */
    @DisabledOnOs(value = OS.WINDOWS, disabledReason = POSIX_ONLY)
    @Test
    void aPlantedHardLinkWithTheRightBytesIsReplaced() throws Exception {
        Path d = NativeLibrary.privateDirectory(tmp.resolve("ferry-me"));
        Path name = NativeLibrary.extractTo(d, lib(), "libx", ".so");
        Files.delete(name);
        Path elsewhere = Files.write(tmp.resolve("someone-elses-file"), lib());
        Files.createLink(name, elsewhere);
        assertEquals(2, nlink(elsewhere));
        Path got = NativeLibrary.extractTo(d, lib(), "libx", ".so");
        assertEquals(name, got);
        assertFalse(Files.isSameFile(got, elsewhere), "the planted link was kept");
        assertEquals(1, nlink(got));
        assertEquals(1, nlink(elsewhere));
        assertArrayEquals(lib(), Files.readAllBytes(got));
        assertArrayEquals(lib(), Files.readAllBytes(elsewhere));
    }

    /** Issue 43: a file of the right bytes owned by another user is replaced. Needs root, as above. */
    @DisabledOnOs(value = OS.WINDOWS, disabledReason = POSIX_ONLY)
    @Test
    void anotherUsersFileWithTheRightBytesIsReplaced() throws Exception {
        UserPrincipal me = Files.getOwner(tmp);
        assumeTrue(me.getName().equals("root"), "only root can make a file owned by someone else");
        Path d = NativeLibrary.privateDirectory(tmp.resolve("ferry-me"));
        Path name = NativeLibrary.extractTo(d, lib(), "libx", ".so");
        UserPrincipal other;
        try {
            other = d.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
        } catch (IOException e) {
            assumeTrue(false, "no user 'nobody' here");
            return;
        }
        Files.setOwner(name, other);
        Path got = NativeLibrary.extractTo(d, lib(), "libx", ".so");
        assertEquals(me, Files.getOwner(got, LinkOption.NOFOLLOW_LINKS));
        assertArrayEquals(lib(), Files.readAllBytes(got));
    }

    private static long nlink(Path p) throws IOException {
        return ((Number) Files.getAttribute(p, "unix:nlink", LinkOption.NOFOLLOW_LINKS)).longValue();
    }

    /** On Windows, the real thing: the directory Ferry makes is its user's alone by its ACL. */
    @EnabledOnOs(OS.WINDOWS)
    @Test
    void onWindowsTheDirectorysAclGrantsOnlyItsOwner() throws Exception {
        Path d = NativeLibrary.privateDirectory(tmp.resolve("ferry-me"));
        AclFileAttributeView v = Files.getFileAttributeView(d, AclFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
        assumeTrue(v != null, "no ACLs on this file system");
        assertNull(NativeLibrary.aclProblem(v.getOwner(), v.getOwner(), NativeLibrary.windowsAdministration(d), v.getAcl()));
    }

    // ---- the ACL decision (Windows), on made-up principals and ACLs ----

    private static final Principal ME = new Principal("HOST\\service");
    private static final Principal ATTACKER = new Principal("HOST\\attacker");
    private static final Principal USERS = new Principal("BUILTIN\\Users");
    private static final Principal EVERYONE = new Principal("Everyone");
    private static final Principal SYSTEM = new Principal("NT AUTHORITY\\SYSTEM");
    private static final java.util.Set<UserPrincipal> NONE = java.util.Set.of();

    /** A user or group known by name alone. */
    private static final class Principal implements UserPrincipal {
        private final String name;

        Principal(String name) {
            this.name = name;
        }

        @Override
        public String getName() {
            return name;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Principal && ((Principal) o).name.equals(name);
        }

        @Override
        public int hashCode() {
            return name.hashCode();
        }
    }

    /** A directory's owner and ACL in memory; setAcl may fail or be ignored. */
    private static final class Acl implements AclFileAttributeView {
        UserPrincipal owner;
        List<AclEntry> acl;
        boolean ignoreSet;
        IOException failSet;
        int sets;

        Acl(UserPrincipal owner, AclEntry... acl) {
            this.owner = owner;
            this.acl = List.of(acl);
        }

        @Override
        public String name() {
            return "acl";
        }

        @Override
        public List<AclEntry> getAcl() {
            return acl;
        }

        @Override
        public void setAcl(List<AclEntry> a) throws IOException {
            sets++;
            if (failSet != null) {
                throw failSet;
            }
            if (!ignoreSet) {
                acl = List.copyOf(a);
            }
        }

        @Override
        public UserPrincipal getOwner() {
            return owner;
        }

        @Override
        public void setOwner(UserPrincipal o) {
            owner = o;
        }
    }

    private static AclEntry entry(AclEntryType type, UserPrincipal who, EnumSet<AclEntryFlag> flags, AclEntryPermission... p) {
        return AclEntry.newBuilder().setType(type).setPrincipal(who).setFlags(flags)
                .setPermissions(p.length == 0 ? EnumSet.allOf(AclEntryPermission.class) : EnumSet.of(p[0], p)).build();
    }

    private static AclEntry allow(UserPrincipal who, AclEntryPermission... p) {
        return entry(AclEntryType.ALLOW, who, EnumSet.noneOf(AclEntryFlag.class), p);
    }

    /** What a directory created in C:\Windows\Temp inherits: users may add files and subdirectories. */
    private static Acl inheritedFromWindowsTemp() {
        return new Acl(ME, allow(ME), allow(USERS, AclEntryPermission.ADD_FILE, AclEntryPermission.ADD_SUBDIRECTORY,
                AclEntryPermission.EXECUTE, AclEntryPermission.READ_ATTRIBUTES));
    }

    @Test
    void aDirectoryOfAnotherOwnerIsRefusedOnAclFileSystems() {
        Acl v = new Acl(ATTACKER, allow(ATTACKER), allow(ME));
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class,
                () -> NativeLibrary.makeAclPrivate(tmp.resolve("ferry-service"), v, ME, NONE));
        assertTrue(e.getMessage().contains("belongs to user 'HOST\\attacker'") && e.getMessage().contains("refusing"), e.getMessage());
        assertEquals(0, v.sets, "another user's directory is left as it is");
    }

    @Test
    void anAclLettingOthersAddFilesIsReplacedByOneGrantingOnlyTheOwner() throws Exception {
        Acl v = inheritedFromWindowsTemp();
        String why = NativeLibrary.aclProblem(v.owner, ME, NONE, v.acl);
        assertTrue(why != null && why.contains("BUILTIN\\Users") && why.contains("WRITE_DATA"), why);
        NativeLibrary.makeAclPrivate(tmp.resolve("ferry-service"), v, ME, NONE);
        assertEquals(NativeLibrary.ownerOnlyAcl(ME), v.acl);
        assertNull(NativeLibrary.aclProblem(v.owner, ME, NONE, v.acl));
    }

    @Test
    void everyWayToChangeTheDirectoryCountsAsWrite() {
        for (AclEntryPermission p : new AclEntryPermission[] {AclEntryPermission.WRITE_DATA, AclEntryPermission.APPEND_DATA,
            AclEntryPermission.DELETE_CHILD, AclEntryPermission.DELETE, AclEntryPermission.WRITE_ACL, AclEntryPermission.WRITE_OWNER}) {
            String why = NativeLibrary.aclProblem(ME, ME, NONE, List.of(allow(ME), allow(EVERYONE, p)));
            assertTrue(why != null && why.contains("Everyone") && why.contains(p.name()), p + ": " + why);
        }
    }

    @Test
    void anAclLettingOthersOnlyReadIsKept() throws Exception {
        Acl v = new Acl(ME, allow(ME), allow(EVERYONE, AclEntryPermission.READ_DATA, AclEntryPermission.EXECUTE,
                AclEntryPermission.READ_ATTRIBUTES, AclEntryPermission.READ_ACL, AclEntryPermission.SYNCHRONIZE),
                entry(AclEntryType.DENY, ATTACKER, EnumSet.noneOf(AclEntryFlag.class)),
                entry(AclEntryType.ALLOW, USERS, EnumSet.of(AclEntryFlag.INHERIT_ONLY, AclEntryFlag.FILE_INHERIT)));
        List<AclEntry> before = v.acl;
        assertNull(NativeLibrary.aclProblem(ME, ME, NONE, v.acl));
        NativeLibrary.makeAclPrivate(tmp.resolve("ferry-service"), v, ME, NONE);
        assertEquals(0, v.sets);
        assertEquals(before, v.acl);
    }

    @Test
    void anAclThatCannotBeReplacedIsRefused() {
        Acl ignored = inheritedFromWindowsTemp();
        ignored.ignoreSet = true;
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class,
                () -> NativeLibrary.makeAclPrivate(tmp.resolve("ferry-service"), ignored, ME, NONE));
        assertTrue(e.getMessage().contains("BUILTIN\\Users") && e.getMessage().contains("after its ACL was replaced"), e.getMessage());
        Acl failing = inheritedFromWindowsTemp();
        failing.failSet = new IOException("access denied");
        e = assertThrows(UnsatisfiedLinkError.class, () -> NativeLibrary.makeAclPrivate(tmp.resolve("ferry-service"), failing, ME, NONE));
        assertTrue(e.getMessage().contains("cannot be replaced") && e.getCause() == failing.failSet, e.getMessage());
    }

    /**
     * The system's administration (SYSTEM, Administrators) may write: it can take any file anyway. Wine
     * shows an entry granting SYSTEM every right on files, so without this no directory would do there.
     */
    @Test
    void writeAccessOfTheSystemsAdministrationIsKept() throws Exception {
        Acl v = new Acl(ME, allow(SYSTEM), allow(ME));
        assertTrue(NativeLibrary.aclProblem(ME, ME, NONE, v.acl).contains("SYSTEM"));
        assertNull(NativeLibrary.aclProblem(ME, ME, java.util.Set.of(SYSTEM), v.acl));
        NativeLibrary.makeAclPrivate(tmp.resolve("ferry-service"), v, ME, java.util.Set.of(SYSTEM));
        assertEquals(0, v.sets);
        Acl withUsers = new Acl(ME, allow(SYSTEM), allow(ME), allow(USERS, AclEntryPermission.ADD_FILE));
        withUsers.ignoreSet = true; // an ACL that will not change: refused for the Users entry, not SYSTEM's
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class,
                () -> NativeLibrary.makeAclPrivate(tmp.resolve("ferry-service"), withUsers, ME, java.util.Set.of(SYSTEM)));
        assertTrue(e.getMessage().contains("BUILTIN\\Users"), e.getMessage());
    }
}
