# The Debian packages (`make package`: CPack's DEB generator): distdoctor (component runtime) and
# distdoctor-dbg (component debug). Runtime dependencies are computed by dpkg-shlibdeps from the libraries the
# binary really links (libgloo, libc, ...); NCCL, CUDA and NVML are opened at run time where present, so they
# are no dependency (a node without them still gets its check).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME distdoctor)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "finds why a distributed GPU job will not start, hangs, or runs slow")
set(CPACK_PACKAGE_DESCRIPTION "distdoctor checks GPU nodes (driver, CUDA, NCCL, NICs, InfiniBand, env), \
compares the nodes of a job, runs verified NCCL/Gloo collectives, launches jobs with per-rank logs and names \
the rank that failed or hung, and reads NCCL and framework logs.")
set(CPACK_PACKAGE_CONTACT "distdoctor developers <distdoctor@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime debug)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME distdoctor)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_DEBUG_PACKAGE_NAME distdoctor-dbg)
set(CPACK_DEBIAN_DEBUG_PACKAGE_SECTION debug)
set(CPACK_DEBIAN_DEBUG_PACKAGE_DEPENDS "distdoctor (= ${PROJECT_VERSION})")
set(CPACK_COMPONENT_DEBUG_DESCRIPTION "debug information for distdoctor")
include(CPack)
