package dev.ferry.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.ErrorCode;
import dev.ferry.FerryException;
import java.io.InputStream;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The loader maps (os.name, os.arch, C library) to the jar's libferry directory and file, and LMDB's
 * library in org.lmdbjava:native, for every platform, and names unsupported platforms.
 */
class PlatformTest {
    @Test
    void everyLinuxArchitectureRocksdbjniShipsIsSupportedWithGlibcAndMusl() {
        assertEquals("linux-x86_64", NativeLibrary.platform("Linux", "amd64", false));
        assertEquals("linux-x86_64", NativeLibrary.platform("Linux", "x86_64", false));
        assertEquals("linux-aarch64", NativeLibrary.platform("Linux", "aarch64", false));
        assertEquals("linux-ppc64le", NativeLibrary.platform("Linux", "ppc64le", false));
        assertEquals("linux-s390x", NativeLibrary.platform("Linux", "s390x", false));
        assertEquals("linux-riscv64", NativeLibrary.platform("Linux", "riscv64", false));
        assertEquals("linux-x86_64-musl", NativeLibrary.platform("Linux", "amd64", true));
        assertEquals("linux-aarch64-musl", NativeLibrary.platform("Linux", "aarch64", true));
        assertEquals("linux-ppc64le-musl", NativeLibrary.platform("Linux", "ppc64le", true));
        assertEquals("linux-s390x-musl", NativeLibrary.platform("Linux", "s390x", true));
        assertEquals("linux-riscv64-musl", NativeLibrary.platform("Linux", "riscv64", true));
    }

    @Test
    void macOsAndWindowsAreSupportedAndMuslMeansNothingThere() {
        assertEquals("macos-aarch64", NativeLibrary.platform("Mac OS X", "aarch64", false));
        assertEquals("macos-x86_64", NativeLibrary.platform("Mac OS X", "x86_64", false));
        assertEquals("macos-aarch64", NativeLibrary.platform("Mac OS X", "aarch64", true));
        assertEquals("windows-x86_64", NativeLibrary.platform("Windows 11", "amd64", false));
        assertEquals("windows-x86_64", NativeLibrary.platform("Windows Server 2022", "amd64", false));
    }

    @Test
    void libraryFileFollowsEachOperatingSystemsNaming() {
        assertEquals("libferry.so", NativeLibrary.libraryFile("linux-s390x-musl"));
        assertEquals("libferry.dylib", NativeLibrary.libraryFile("macos-aarch64"));
        assertEquals("ferry.dll", NativeLibrary.libraryFile("windows-x86_64"));
    }

    @Test
    void lmdbLibraryIsTheOneLmdbjavaShipsForThePlatformOrNone() {
        assertEquals("/org/lmdbjava/native/x86_64-linux-gnu.so", NativeLibrary.lmdbResource("linux-x86_64"));
        assertEquals("/org/lmdbjava/native/aarch64-linux-musl.so", NativeLibrary.lmdbResource("linux-aarch64-musl"));
        assertEquals("/org/lmdbjava/native/aarch64-macos-none.so", NativeLibrary.lmdbResource("macos-aarch64"));
        assertEquals("/org/lmdbjava/native/x86_64-windows-gnu.dll", NativeLibrary.lmdbResource("windows-x86_64"));
        for (String p : List.of("linux-ppc64le", "linux-s390x", "linux-riscv64", "linux-ppc64le-musl", "linux-s390x-musl", "linux-riscv64-musl")) {
            assertNull(NativeLibrary.lmdbResource(p), p);
        }
    }

    @Test
    void everyLmdbResourceNamedIsInTheLmdbjavaJar() throws Exception {
        int named = 0;
        for (String p : NativeLibrary.SUPPORTED_PLATFORMS) {
            String r = NativeLibrary.lmdbResource(p);
            if (r != null) {
                named++;
                try (InputStream in = NativeLibrary.openResource(r)) {
                    assertNotNull(in, p + ": " + r);
                }
            }
        }
        assertEquals(7, named);
    }

    @Test
    void thisJvmsPlatformIsSupportedAndItsLibraryIsInTheJar() {
        String p = NativeLibrary.platform();
        assertTrue(NativeLibrary.SUPPORTED_PLATFORMS.contains(p), p);
        assertTrue(NativeLibrary.class.getResource("/dev/ferry/native/" + p + "/" + NativeLibrary.libraryFile(p)) != null, p);
    }

    @Test
    void muslIsToldByTheMappedCLibraryNotByFilesOnDisk() {
        assertTrue(NativeLibrary.isMuslMapping("7f1c2a000000-7f1c2a014000 r--p 00000000 08:01 1048 /lib/ld-musl-x86_64.so.1"));
        assertTrue(NativeLibrary.isMuslMapping("7f1c2a000000-7f1c2a014000 r-xp 00000000 08:01 1048 /usr/lib/libc.musl-aarch64.so.1"));
        assertFalse(NativeLibrary.isMuslMapping("7f1c2a000000-7f1c2a014000 r-xp 00000000 08:01 1048 /usr/lib/x86_64-linux-gnu/libc.so.6"));
        assertFalse(NativeLibrary.isMuslMapping("7f1c2a000000-7f1c2a014000 rw-p 00000000 00:00 0 [heap]"));
        assertFalse(NativeLibrary.isMuslMapping("7f1c2a000000-7f1c2a014000 r-xp 00000000 08:01 99 /opt/app/ld-musl-notes/libfoo.so"));
    }

    @Test
    void thirtyTwoBitAndOtherArchitecturesAreRefusedByName() {
        FerryException e = assertThrows(FerryException.class, () -> NativeLibrary.platform("Linux", "x86", false));
        assertEquals(ErrorCode.NOT_SUPPORTED, e.code());
        assertEquals("Ferry has no native library for Linux on x86 (linux-x86); supported platforms: "
                + String.join(", ", NativeLibrary.SUPPORTED_PLATFORMS)
                + " (or set -Dferry.native.lib=<path> to a libferry built for this one)", e.getMessage());
        e = assertThrows(FerryException.class, () -> NativeLibrary.platform("Linux", "loongarch64", true));
        assertTrue(e.getMessage().startsWith("Ferry has no native library for Linux on loongarch64 (linux-loongarch64-musl);"), e.getMessage());
        e = assertThrows(FerryException.class, () -> NativeLibrary.platform("Linux", "ppc64", false));
        assertTrue(e.getMessage().contains("(linux-ppc64)"), e.getMessage()); // big-endian POWER: rocksdbjni has no library
    }

    @Test
    void otherOperatingSystemsAreRefusedByName() {
        FerryException e = assertThrows(FerryException.class, () -> NativeLibrary.platform("FreeBSD", "amd64", false));
        assertTrue(e.getMessage().startsWith("Ferry has no native library for FreeBSD on amd64 (freebsd-x86_64);"), e.getMessage());
        e = assertThrows(FerryException.class, () -> NativeLibrary.platform("Windows 11", "aarch64", false));
        assertTrue(e.getMessage().contains("Windows 11 on aarch64 (windows-aarch64)"), e.getMessage());
        e = assertThrows(FerryException.class, () -> NativeLibrary.platform("SunOS", "sparcv9", false));
        assertTrue(e.getMessage().contains("(sunos-sparcv9)"), e.getMessage());
    }
}
