# CMake toolchain file: libferry.dylib for macos-aarch64 with zig's clang (PyPI package ziglang), as
# native/cross/macos builds it. Nothing here runs Mach-O code: only the ferry target is built
# (native/cross/macos check checks it statically).
#   cmake -S native -B <dir> -DCMAKE_TOOLCHAIN_FILE=cmake/macos-aarch64.cmake -DFERRY_ZIG=<zig> -DFERRY_JAVA_HOME=<jdk>
# Target aarch64-macos.11.0: rocksdbjni's librocksdbjni-osx-arm64.jnilib needs macOS 11.0 too (without a version
# zig takes 13.0). A JDK's include/linux/jni_md.h is the same Unix header as macOS's darwin one.
set(CMAKE_SYSTEM_NAME Darwin)
set(CMAKE_SYSTEM_PROCESSOR arm64)
set(FERRY_ZIG "zig" CACHE FILEPATH "the zig executable (ziglang from PyPI)")
set(CMAKE_C_COMPILER "${FERRY_ZIG}")
set(CMAKE_C_COMPILER_ARG1 "cc -target aarch64-macos.11.0")
set(CMAKE_OSX_ARCHITECTURES "" CACHE STRING "" FORCE) # the target above says it (no -arch)
set(CMAKE_OSX_SYSROOT "" CACHE PATH "" FORCE)         # zig brings the macOS headers and libSystem stubs
set(CMAKE_OSX_DEPLOYMENT_TARGET "" CACHE STRING "" FORCE)
