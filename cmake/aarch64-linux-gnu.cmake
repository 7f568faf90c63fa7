# CMake toolchain file: libferry and the native tests for linux-aarch64 with Debian's cross
# compiler (gcc-aarch64-linux-gnu), the tests run under qemu-user (docs/testing.md, "linux-aarch64").
#   cmake -S native -B <dir> -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
# FERRY_AARCH64_SYSROOT: where the aarch64 glibc and libstdc++ live (Debian's cross packages
# install them under /usr/aarch64-linux-gnu); qemu-aarch64 resolves the tests' loader and
# libraries there (-L).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(FERRY_AARCH64_SYSROOT "/usr/aarch64-linux-gnu" CACHE PATH "aarch64 libraries for qemu-aarch64 -L")
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L "${FERRY_AARCH64_SYSROOT}")
# No CMAKE_FIND_ROOT_PATH: the only thing the build looks up is jni.h, from the host JDK (its
# linux/jni_md.h is the same for aarch64).
