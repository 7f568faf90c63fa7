# Compiler flags shared by the shim, its tests and the benchmark floor.
set(CMAKE_C_STANDARD 11)
set(CMAKE_C_STANDARD_REQUIRED ON)
set(CMAKE_C_VISIBILITY_PRESET hidden)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release)
endif()
add_compile_options(-Wall -Wextra -Wno-unused-parameter -fno-strict-aliasing)
# A call to an undeclared function compiles in C (as returning int) and truncates a returned
# pointer: a crash at run time. These are errors, as in newer compilers.
add_compile_options(-Werror=implicit-function-declaration -Werror=int-conversion -Werror=incompatible-pointer-types)
# FERRY_SANITIZE=address,undefined builds the shim, libferry and the native tests with sanitizers
# (./ferry test --sanitize, docs/testing.md "Sanitizers"). Every report is fatal
# (-fno-sanitize-recover=all): an UBSan finding fails the run instead of printing and going on.
# -O1 keeps stack traces readable while staying fast enough for the Java suite.
set(FERRY_SANITIZE "" CACHE STRING "comma-separated -fsanitize= list, e.g. address,undefined")
if(FERRY_SANITIZE)
  add_compile_options(-fsanitize=${FERRY_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer -O1 -g)
  add_link_options(-fsanitize=${FERRY_SANITIZE})
endif()
