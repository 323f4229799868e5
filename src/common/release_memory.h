// Gives the memory a process freed back to the system. glibc keeps what a thread frees in that thread's own
// arena, so when several threads each build and free a large value one after another (Flight Recorder dumps
// decoded by `logs`' threads), the resident size is the sum of every thread's largest, not the largest at one
// time. malloc_trim returns the free pages of every arena; elsewhere this does nothing.
#pragma once
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace dd {

inline void release_freed_memory() {
#if defined(__GLIBC__)
  ::malloc_trim(0);
#endif
}

}  // namespace dd
