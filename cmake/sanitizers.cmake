# Sanitizer builds (make test-asan, make test-tsan): -DDD_SANITIZE="address;undefined" or -DDD_SANITIZE=thread
# instruments every C++ target (-O1 -g1, frame pointers, no recovery: the first report stops the process) and runs
# every test through scripts/sanitizers/run.sh, which sets the runtime options and fails a test on any report.
set(DD_SANITIZE "" CACHE STRING "Sanitizers for every C++ target: address;undefined, or thread (empty: none)")
set(DD_SANITIZER_LAUNCHER "")
set(DD_TEST_TIMEOUT_SCALE 1)
if(DD_SANITIZE)
  if("thread" IN_LIST DD_SANITIZE AND "address" IN_LIST DD_SANITIZE)
    message(FATAL_ERROR "DD_SANITIZE: thread and address cannot share a build (use two build dirs)")
  endif()
  list(JOIN DD_SANITIZE "," dd_sanitize_list)
  # -g1 (line tables and function names) is all a sanitizer's stack trace needs; full -g made these two builds
  # about 20% slower to compile, and CI builds them from scratch every time.
  string(REGEX REPLACE "(^| )-g( |$)" "\\1-g1\\2" CMAKE_CXX_FLAGS_DEBUG "${CMAKE_CXX_FLAGS_DEBUG}")
  # CUDA sources (device kernels and their launch stubs) stay uninstrumented, like the libraries they call.
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-fsanitize=${dd_sanitize_list};-fno-sanitize-recover=all>"
                      "$<$<COMPILE_LANGUAGE:CXX>:-fno-omit-frame-pointer;-O1;-g1>")
  add_link_options(-fsanitize=${dd_sanitize_list})
  set(DD_SANITIZER_LAUNCHER bash ${CMAKE_SOURCE_DIR}/scripts/sanitizers/run.sh ${dd_sanitize_list})
  # Everything runs several times slower under the sanitizers (TSan 5-15x): ctest's limits grow with it.
  if("thread" IN_LIST DD_SANITIZE)
    set(DD_TEST_TIMEOUT_SCALE 4)
  else()
    set(DD_TEST_TIMEOUT_SCALE 2)
  endif()
  message(STATUS "distdoctor: sanitizers ${dd_sanitize_list}, tests through scripts/sanitizers/run.sh")
endif()
