# Writes OUT (a header with DD_COMMIT, the checkout's commit as `git describe --always --dirty` gives it, or
# "unknown" outside a git checkout) only when it changed, so a build after a new commit recompiles main.cc alone.
# Run at every build: cmake -DSRC=<checkout> -DOUT=<header> -P cmake/build_commit.cmake
execute_process(COMMAND git -C "${SRC}" describe --always --dirty --abbrev=12
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR commit STREQUAL "")
  set(commit "unknown")
endif()
file(WRITE "${OUT}.tmp" "#define DD_COMMIT \"${commit}\"\n")
configure_file("${OUT}.tmp" "${OUT}" COPYONLY)
file(REMOVE "${OUT}.tmp")
