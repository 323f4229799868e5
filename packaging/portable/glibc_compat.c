// The portable build (make portable) links GCC 12's libstdc++.a, compiled against glibc 2.36, into a binary that
// asks for glibc 2.31 at most: the two names it takes from a newer glibc are defined here instead.
#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>

// glibc 2.32+: nonzero while the process has one thread, letting libstdc++ skip atomics. Zero is always correct
// (the atomic path), only a little slower.
char __libc_single_threaded = 0;

// glibc 2.36+: std::random_device's "arc4random" source. getrandom (glibc 2.25, Linux 3.17) gives the same;
// like glibc's own, it aborts when the kernel gives no randomness (retrying an interrupted call a few times).
uint32_t arc4random(void) {
  uint32_t v = 0;
  for (int i = 0; i < 64; i++)
    if (getrandom(&v, sizeof v, 0) == (ssize_t)sizeof v) return v;
  abort();
}
