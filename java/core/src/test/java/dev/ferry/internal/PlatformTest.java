package dev.ferry.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.ErrorCode;
import dev.ferry.FerryException;
import org.junit.jupiter.api.Test;

/** The loader maps (os.name, os.arch) to the jar's libferry directory and names unsupported platforms. */
class PlatformTest {
    @Test
    void linuxX86_64AndAarch64AreSupported() {
        assertEquals("linux-x86_64", NativeLibrary.platform("Linux", "amd64"));
        assertEquals("linux-x86_64", NativeLibrary.platform("Linux", "x86_64"));
        assertEquals("linux-aarch64", NativeLibrary.platform("Linux", "aarch64"));
    }

    @Test
    void thisJvmsPlatformIsSupportedAndItsLibraryIsInTheJar() {
        String p = NativeLibrary.platform();
        assertTrue(NativeLibrary.SUPPORTED_PLATFORMS.contains(p), p);
        assertTrue(NativeLibrary.class.getResource("/dev/ferry/native/" + p + "/libferry.so") != null, p);
    }

    @Test
    void macOsOnArmIsRefusedByName() {
        FerryException e = assertThrows(FerryException.class, () -> NativeLibrary.platform("Mac OS X", "aarch64"));
        assertEquals(ErrorCode.NOT_SUPPORTED, e.code());
        assertEquals("Ferry has no native library for Mac OS X on aarch64 (macos-aarch64); supported platforms:"
                + " linux-x86_64, linux-aarch64 (or set -Dferry.native.lib=<path> to a libferry built for this one)", e.getMessage());
    }

    @Test
    void linuxOnRiscVIsRefusedByName() {
        FerryException e = assertThrows(FerryException.class, () -> NativeLibrary.platform("Linux", "riscv64"));
        assertEquals(ErrorCode.NOT_SUPPORTED, e.code());
        assertTrue(e.getMessage().startsWith("Ferry has no native library for Linux on riscv64 (linux-riscv64);"
                + " supported platforms: linux-x86_64, linux-aarch64"), e.getMessage());
    }

    @Test
    void windowsIsRefusedByName() {
        FerryException e = assertThrows(FerryException.class, () -> NativeLibrary.platform("Windows 11", "amd64"));
        assertTrue(e.getMessage().contains("Windows 11 on amd64 (windows-x86_64)"), e.getMessage());
    }
}
