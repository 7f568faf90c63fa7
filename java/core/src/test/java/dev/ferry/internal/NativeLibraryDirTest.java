package dev.ferry.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14, defect 10: the directory Ferry loads extracted libraries from must be this user's
 * alone, or another local user could plant a library there first. On Windows (no POSIX owners or
 * modes; the temp directory is the user's own) only the link, file and planted-library checks apply.
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
}
