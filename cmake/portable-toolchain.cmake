# Toolchain of the portable build (make portable): this host's GCC, CMake and CUDA compile against the Debian 11
# tree that scripts/portable-deps.sh makes (glibc 2.31), so the binary asks for no glibc symbol newer than 2.31.
# Headers and static libraries that bullseye lacks or has too old (CLI11, nlohmann/json, fmt, OpenSSL 3, Gloo)
# are found under its opt/distdoctor; C++ comes from GCC 12 (its libstdc++.a is linked in, with the two glibc
# 2.32+ names it wants supplied by packaging/portable/glibc_compat.c), the unwinder from gcc-10's libgcc_eh.a.
set(DD_PORTABLE_ROOT "$ENV{DD_PORTABLE_ROOT}" CACHE PATH "The bullseye tree of scripts/portable-deps.sh")
if(NOT DD_PORTABLE_ROOT)
  set(DD_PORTABLE_ROOT /var/tmp/distdoctor-bullseye CACHE PATH "" FORCE)
endif()
set(DD_PORTABLE_PREFIX ${DD_PORTABLE_ROOT}/opt/distdoctor)

set(CMAKE_C_COMPILER gcc)
set(CMAKE_CXX_COMPILER g++)
set(CMAKE_SYSROOT ${DD_PORTABLE_ROOT})
# Packages, headers and libraries: the Debian 12 extras first, then the bullseye tree, then this host (the CUDA
# toolkit; GTest, which only the tests use).
set(CMAKE_FIND_ROOT_PATH ${DD_PORTABLE_PREFIX})
set(CMAKE_PREFIX_PATH /usr)
# Debian's multiarch header folder of the extras (OpenSSL's opensslconf.h, configuration.h).
set(CMAKE_C_FLAGS_INIT "-isystem ${DD_PORTABLE_PREFIX}/usr/include/x86_64-linux-gnu")
set(CMAKE_CXX_FLAGS_INIT "-isystem ${DD_PORTABLE_PREFIX}/usr/include/x86_64-linux-gnu")
# Links: the sysroot for CUDA links too (CMake gives it to C/C++ only); the tree's start files and libc before this
# host's (GCC searches its own library folders before the sysroot's); gcc-10's unwinder before GCC 12's.
set(_dd_link "--sysroot=${DD_PORTABLE_ROOT} -B${DD_PORTABLE_ROOT}/usr/lib/x86_64-linux-gnu/")
string(APPEND _dd_link " -L${DD_PORTABLE_ROOT}/usr/lib/x86_64-linux-gnu -L${DD_PORTABLE_PREFIX}/gcc-eh")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${_dd_link}")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "${_dd_link}")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "${_dd_link}")
set(CMAKE_CUDA_HOST_COMPILER g++)
set(CMAKE_CUDA_FLAGS_INIT "-Xcompiler=--sysroot=${DD_PORTABLE_ROOT}")
