# What `make install` (cmake --install) and the Debian package put where. Two components: `runtime` (the
# binary, its man page, bash completion, the Slurm prolog/epilog examples) and `debug` (the binary's debug
# info, in bin/.debug/ beside it, where gdb finds it through the debuglink for any prefix).
include(GNUInstallDirs)
install(TARGETS distdoctor RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
if(DD_SPLIT_DEBUG AND CMAKE_OBJCOPY AND NOT CMAKE_BUILD_TYPE STREQUAL "Debug")
  install(FILES ${CMAKE_BINARY_DIR}/distdoctor.debug DESTINATION ${CMAKE_INSTALL_BINDIR}/.debug COMPONENT debug)
endif()

# The man page, made from the binary's own help (scripts/make-man.sh, help2man) at every build that changed it.
find_program(DD_HELP2MAN help2man)
if(DD_HELP2MAN)
  add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/distdoctor.1.gz
    COMMAND ${CMAKE_SOURCE_DIR}/scripts/make-man.sh $<TARGET_FILE:distdoctor> ${CMAKE_BINARY_DIR}/distdoctor.1.gz
    DEPENDS distdoctor ${CMAKE_SOURCE_DIR}/scripts/make-man.sh
    COMMENT "Making the man page from the help")
  add_custom_target(man ALL DEPENDS ${CMAKE_BINARY_DIR}/distdoctor.1.gz)
  install(FILES ${CMAKE_BINARY_DIR}/distdoctor.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT runtime)
else()
  message(WARNING "help2man not found: no man page (scripts/install-deps.sh installs it)")
endif()

install(FILES ${CMAKE_SOURCE_DIR}/packaging/distdoctor.bash RENAME distdoctor
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions COMPONENT runtime)
install(PROGRAMS ${CMAKE_SOURCE_DIR}/packaging/slurm/distdoctor-prolog.sh
        DESTINATION ${CMAKE_INSTALL_DATADIR}/distdoctor/slurm COMPONENT runtime)
install(FILES ${CMAKE_SOURCE_DIR}/docs/slurm.md ${CMAKE_SOURCE_DIR}/docs/metrics.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime)
