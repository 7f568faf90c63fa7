# CMake toolchain file: libferry and the native tests for one Linux target other than the host's,
# used by native/cross/linux (docs/testing.md, "Other Linux platforms").
#   cmake -S native -B <dir> -DCMAKE_TOOLCHAIN_FILE=cmake/linux-cross.cmake -DFERRY_CROSS_TRIPLE=<triple>
# FERRY_CROSS_TRIPLE: <arch>-linux-gnu (glibc) or <arch>-linux-musl (musl), arch as GNU spells it:
#   x86_64 aarch64 powerpc64le s390x riscv64.
# glibc: Debian's cross compiler <triple>-gcc (gcc-<triple>), whose libraries live in
#   FERRY_CROSS_SYSROOT (default /usr/<triple>); the tests run under qemu-<arch> -L <sysroot>.
# musl: zig's C compiler (FERRY_ZIG, the zig of the PyPI package ziglang) as `zig cc -target
#   <arch>-linux-musl`, archived by binutils (<arch>-linux-gnu-ar, or the host's ar for x86_64); the
#   tests run under FERRY_CROSS_EMULATOR (a ;-list, set by native/cross/linux: the musl loader of
#   that architecture, under qemu where the host cannot run it).
# No CMAKE_FIND_ROOT_PATH: the only thing the build looks up is jni.h, from the host JDK (its
# linux/jni_md.h is the same on every Linux architecture).
set(CMAKE_SYSTEM_NAME Linux)
if(NOT FERRY_CROSS_TRIPLE)
  message(FATAL_ERROR "linux-cross.cmake needs -DFERRY_CROSS_TRIPLE=<arch>-linux-gnu|<arch>-linux-musl")
endif()
# try_compile projects read this file again: hand them the same settings.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES FERRY_CROSS_TRIPLE FERRY_CROSS_SYSROOT FERRY_ZIG FERRY_CROSS_EMULATOR)
string(REGEX MATCH "^[^-]+" ferry_arch "${FERRY_CROSS_TRIPLE}")
set(CMAKE_SYSTEM_PROCESSOR "${ferry_arch}")
# qemu names the architectures its own way
set(ferry_qemu "qemu-${ferry_arch}")
if(ferry_arch STREQUAL "powerpc64le")
  set(ferry_qemu qemu-ppc64le)
endif()

if(FERRY_CROSS_TRIPLE MATCHES "-linux-gnu$")
  set(CMAKE_C_COMPILER "${FERRY_CROSS_TRIPLE}-gcc")
  if(NOT FERRY_CROSS_SYSROOT)
    set(FERRY_CROSS_SYSROOT "/usr/${FERRY_CROSS_TRIPLE}")
  endif()
  set(FERRY_CROSS_SYSROOT "${FERRY_CROSS_SYSROOT}" CACHE PATH "the target's libraries, for qemu -L")
  if(NOT FERRY_CROSS_EMULATOR)
    set(FERRY_CROSS_EMULATOR "${ferry_qemu};-L;${FERRY_CROSS_SYSROOT}")
  endif()
elseif(FERRY_CROSS_TRIPLE MATCHES "-linux-musl$")
  if(NOT FERRY_ZIG)
    message(FATAL_ERROR "a musl build needs -DFERRY_ZIG=<path of zig> (PyPI package ziglang)")
  endif()
  set(CMAKE_C_COMPILER "${FERRY_ZIG}")
  set(CMAKE_C_COMPILER_ARG1 "cc -target ${FERRY_CROSS_TRIPLE}")
  if(ferry_arch STREQUAL CMAKE_HOST_SYSTEM_PROCESSOR)
    find_program(CMAKE_AR ar)
    find_program(CMAKE_RANLIB ranlib)
  else()
    string(REGEX REPLACE "-musl$" "-gnu" ferry_binutils "${FERRY_CROSS_TRIPLE}")
    find_program(CMAKE_AR "${ferry_binutils}-ar")
    find_program(CMAKE_RANLIB "${ferry_binutils}-ranlib")
  endif()
  # Executables link musl dynamically (zig links them statically unless told), since the
  # tests dlopen the engines and libferry, which a static musl program cannot.
  set(CMAKE_EXE_LINKER_FLAGS_INIT "-dynamic")
else()
  message(FATAL_ERROR "FERRY_CROSS_TRIPLE ${FERRY_CROSS_TRIPLE}: expected <arch>-linux-gnu or <arch>-linux-musl")
endif()
if(FERRY_CROSS_EMULATOR)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${FERRY_CROSS_EMULATOR})
endif()
