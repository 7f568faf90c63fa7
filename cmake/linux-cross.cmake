# CMake toolchain file: libferry and the native tests for one Linux target, used by native/cross/linux
# (docs/testing.md, "Other Linux platforms"); the host's own architecture too (linux-x86_64: the
# library the jar ships is built here, for an old glibc, not by the host's gcc).
#   cmake -S native -B <dir> -DCMAKE_TOOLCHAIN_FILE=cmake/linux-cross.cmake -DFERRY_CROSS_TRIPLE=<triple>
# FERRY_CROSS_TRIPLE: <arch>-linux-gnu (glibc) or <arch>-linux-musl (musl), arch as GNU spells it:
#   x86_64 aarch64 powerpc64le s390x riscv64.
# glibc, with FERRY_GLIBC_VERSION (e.g. 2.17): zig's C compiler (FERRY_ZIG, the zig of the PyPI
#   package ziglang) as `zig cc -target <arch>-linux-gnu.<version>`, which links against zig's stubs
#   of that glibc version, so the library runs on that glibc and every newer one; archived by binutils
#   (<arch>-linux-gnu-ar, or the host's ar for the host's architecture).
# glibc, without FERRY_GLIBC_VERSION: Debian's cross compiler <triple>-gcc (gcc-<triple>); its
#   output needs the glibc of the build machine (2.34+ on Debian 12), newer than the engines need.
# Either way the glibc tests run under qemu-<arch> -L FERRY_CROSS_SYSROOT (default /usr/<triple>, the
#   target's libraries from Debian's libc6-<debarch>-cross), natively on the host's architecture.
# musl: zig's C compiler as `zig cc -target <arch>-linux-musl`, archived by binutils as above; the
#   tests run under FERRY_CROSS_EMULATOR (a ;-list, set by native/cross/linux: the musl loader of
#   that architecture, under qemu where the host cannot run it).
# No CMAKE_FIND_ROOT_PATH: the only thing the build looks up is jni.h, from the host JDK (its
# linux/jni_md.h is the same on every Linux architecture).
set(CMAKE_SYSTEM_NAME Linux)
if(NOT FERRY_CROSS_TRIPLE)
  message(FATAL_ERROR "linux-cross.cmake needs -DFERRY_CROSS_TRIPLE=<arch>-linux-gnu|<arch>-linux-musl")
endif()
# try_compile projects read this file again: hand them the same settings.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES FERRY_CROSS_TRIPLE FERRY_CROSS_SYSROOT FERRY_ZIG FERRY_CROSS_EMULATOR
  FERRY_GLIBC_VERSION)
string(REGEX MATCH "^[^-]+" ferry_arch "${FERRY_CROSS_TRIPLE}")
set(CMAKE_SYSTEM_PROCESSOR "${ferry_arch}")
# qemu names the architectures its own way
set(ferry_qemu "qemu-${ferry_arch}")
if(ferry_arch STREQUAL "powerpc64le")
  set(ferry_qemu qemu-ppc64le)
endif()

# zig_cc <target>: zig's C compiler for that target, binutils' ar for the archives
macro(ferry_zig_cc target)
  if(NOT FERRY_ZIG)
    message(FATAL_ERROR "${FERRY_CROSS_TRIPLE}: zig builds need -DFERRY_ZIG=<path of zig> (PyPI package ziglang)")
  endif()
  set(CMAKE_C_COMPILER "${FERRY_ZIG}")
  set(CMAKE_C_COMPILER_ARG1 "cc -target ${target}")
  if(ferry_arch STREQUAL CMAKE_HOST_SYSTEM_PROCESSOR)
    find_program(CMAKE_AR ar)
    find_program(CMAKE_RANLIB ranlib)
  else()
    string(REGEX REPLACE "-musl$" "-gnu" ferry_binutils "${FERRY_CROSS_TRIPLE}")
    find_program(CMAKE_AR "${ferry_binutils}-ar")
    find_program(CMAKE_RANLIB "${ferry_binutils}-ranlib")
  endif()
endmacro()

if(FERRY_CROSS_TRIPLE MATCHES "-linux-gnu$")
  if(FERRY_GLIBC_VERSION)
    ferry_zig_cc("${FERRY_CROSS_TRIPLE}.${FERRY_GLIBC_VERSION}")
  else()
    set(CMAKE_C_COMPILER "${FERRY_CROSS_TRIPLE}-gcc")
  endif()
  if(NOT FERRY_CROSS_SYSROOT)
    set(FERRY_CROSS_SYSROOT "/usr/${FERRY_CROSS_TRIPLE}")
  endif()
  set(FERRY_CROSS_SYSROOT "${FERRY_CROSS_SYSROOT}" CACHE PATH "the target's libraries, for qemu -L")
  # the host's own architecture runs its tests itself, on the host's glibc
  if(NOT FERRY_CROSS_EMULATOR AND NOT ferry_arch STREQUAL CMAKE_HOST_SYSTEM_PROCESSOR)
    set(FERRY_CROSS_EMULATOR "${ferry_qemu};-L;${FERRY_CROSS_SYSROOT}")
  endif()
elseif(FERRY_CROSS_TRIPLE MATCHES "-linux-musl$")
  ferry_zig_cc("${FERRY_CROSS_TRIPLE}")
  # Executables link musl dynamically (zig links them statically unless told), since the
  # tests dlopen the engines and libferry, which a static musl program cannot.
  set(CMAKE_EXE_LINKER_FLAGS_INIT "-dynamic")
else()
  message(FATAL_ERROR "FERRY_CROSS_TRIPLE ${FERRY_CROSS_TRIPLE}: expected <arch>-linux-gnu or <arch>-linux-musl")
endif()
if(FERRY_CROSS_EMULATOR)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${FERRY_CROSS_EMULATOR})
endif()
