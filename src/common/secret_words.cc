// has_secret_word: 16 bytes at a time, each checked for the first two characters of every needle with vector
// compares (GCC/Clang vector extensions: SSE2 on x86-64, NEON on arm64, plain code elsewhere); only where a
// pair matches is the whole needle compared. On x86-64 CPUs with AVX2 (chosen at run time), 32 bytes at a
// time with nibble look-ups (below): 1.6 -> 2.6 GB/s on NCCL lines, then -30% of the scan's time (issue 38).
#include "common/secret_words.h"

#include <bit>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define DD_SECRET_WORDS_AVX2 1
#endif

namespace dd {

namespace {

constexpr const char* kNeedles[] = {"://",  "token", "key",    "secret", "passw",
                                    "cred", "auth",  "bearer", "sig"};

char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? char(c + ('a' - 'A')) : c; }

// Whether a needle starts at s[i], in any case: only the needles that start with its character are compared.
bool needle_at(std::string_view s, size_t i) {
  const auto is = [&](const char* n) {
    size_t k = 0;
    while (n[k] && i + k < s.size() && ascii_lower(s[i + k]) == n[k]) ++k;
    return !n[k];
  };
  switch (ascii_lower(s[i])) {
    case ':':
      return is(kNeedles[0]);
    case 't':
      return is(kNeedles[1]);
    case 'k':
      return is(kNeedles[2]);
    case 's':
      return is(kNeedles[3]) || is(kNeedles[8]);
    case 'p':
      return is(kNeedles[4]);
    case 'c':
      return is(kNeedles[5]);
    case 'a':
      return is(kNeedles[6]);
    case 'b':
      return is(kNeedles[7]);
    default:
      return false;
  }
}

using Bytes16 = uint8_t __attribute__((vector_size(16)));

// Lanes where a needle's first two characters stand (bit 5 set on both bytes: upper case reads as lower, and
// other bytes that become a needle's only make a candidate that needle_at then refuses). `logs` runs this on
// every line it reads: a byte-at-a-time table look-up cost half of `logs`' time (issue 38).
// Returns the 16 lanes as two words, a byte of 0xff per lane where a pair stands.
void pairs_in(const char* p, uint64_t half[2]) {
  Bytes16 a, b;
  std::memcpy(&a, p, 16);
  std::memcpy(&b, p + 1, 16);
  a |= 0x20;
  b |= 0x20;
  const auto m = ((a == ':') & (b == '/')) | ((a == 't') & (b == 'o')) | ((a == 'k') & (b == 'e')) |
                 ((a == 's') & (b == 'e')) | ((a == 'p') & (b == 'a')) | ((a == 'c') & (b == 'r')) |
                 ((a == 'a') & (b == 'u')) | ((a == 'b') & (b == 'e')) | ((a == 's') & (b == 'i'));
  std::memcpy(half, &m, 16);
}

// The 16-byte scan (any CPU).
bool scan16(std::string_view s) {
  // The lanes of one block that hold a pair, each compared whole from s[at + lane].
  const auto any_in = [&](const char* block, size_t at) {
    uint64_t half[2];
    pairs_in(block, half);
    for (size_t h = 0; h < 2; ++h)
      // One bit per lane (each lane's byte is 0x00 or 0xff); only the lanes that hold a pair are compared.
      for (uint64_t bits = half[h] & 0x0101010101010101ull; bits; bits &= bits - 1) {
        const size_t byte = size_t(std::countr_zero(bits)) / 8;
        const size_t lane = std::endian::native == std::endian::little ? byte : 7 - byte;
        if (at + h * 8 + lane < s.size() && needle_at(s, at + h * 8 + lane)) return true;
      }
    return false;
  };
  size_t i = 0;
  for (; i + 17 <= s.size(); i += 16)  // reads s[i .. i+16]: 16 pairs
    if (any_in(s.data() + i, i)) return true;
  if (s.size() - i < 2) return false;
  char tail[32] = {};  // the last 2..16 bytes, zero after them: a zero byte starts no pair
  std::memcpy(tail, s.data() + i, s.size() - i);
  return any_in(tail, i);
}

#ifdef DD_SECRET_WORDS_AVX2
// The AVX2 scan classifies bytes by nibble (the "Teddy" method of Hyperscan's literal matcher): each needle's
// first two characters (lower case) are a bucket; bucket b's first character x sets bit b in lo1[x & 15] and
// hi1[x >> 4], its second character likewise in lo2/hi2 ("se" and "si" share a bucket). A lane is a candidate
// when the four look-ups of its byte and the next share a bit: four shuffles instead of 18 compares (scan
// alone 37 -> 26 ms on 200 MB of NCCL lines, issue 38). Cross-nibble false candidates are refused by
// needle_at.
struct Nibbles {
  uint8_t lo1[16], hi1[16], lo2[16], hi2[16];
};
constexpr Nibbles make_nibbles() {
  Nibbles t{};
  constexpr const char* kPairs[8] = {":/", "to", "ke", "sei", "pa", "cr", "au", "be"};
  for (int b = 0; b < 8; ++b) {
    const char* p = kPairs[b];
    t.lo1[p[0] & 15] |= uint8_t(1u << b);
    t.hi1[(p[0] >> 4) & 15] |= uint8_t(1u << b);
    for (const char* q = p + 1; *q; ++q) {
      t.lo2[*q & 15] |= uint8_t(1u << b);
      t.hi2[(*q >> 4) & 15] |= uint8_t(1u << b);
    }
  }
  return t;
}
constexpr Nibbles kNibbles = make_nibbles();

__attribute__((target("avx2"), always_inline)) inline __m256i table(const uint8_t* t) {
  return _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(t)));
}
__attribute__((target("avx2"), always_inline)) inline __m256i classify(__m256i v, __m256i lo, __m256i hi) {
  const __m256i low4 = _mm256_set1_epi8(0x0f);
  return _mm256_and_si256(_mm256_shuffle_epi8(lo, _mm256_and_si256(v, low4)),
                          _mm256_shuffle_epi8(hi, _mm256_and_si256(_mm256_srli_epi16(v, 4), low4)));
}
// The lanes of the 32 bytes at p where a pair may stand, one bit each (reads p[0 .. 32]).
__attribute__((target("avx2"))) uint32_t pairs_in32(const char* p) {
  const __m256i lower = _mm256_set1_epi8(0x20);
  const __m256i a = _mm256_or_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)), lower);
  const __m256i b = _mm256_or_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 1)), lower);
  const __m256i m = _mm256_and_si256(classify(a, table(kNibbles.lo1), table(kNibbles.hi1)),
                                     classify(b, table(kNibbles.lo2), table(kNibbles.hi2)));
  return ~static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(m, _mm256_setzero_si256())));
}

// The same pairs 32 bytes at a time; the last 32 bytes or fewer go through scan16 (a needle starting there
// lies within them; a zero-padded block, or one more block overlapping the last, measured slower).
__attribute__((target("avx2"))) bool scan32(std::string_view s) {
  size_t i = 0;
  for (; i + 33 <= s.size(); i += 32)
    for (uint32_t bits = pairs_in32(s.data() + i); bits; bits &= bits - 1)
      if (needle_at(s, i + size_t(std::countr_zero(bits)))) return true;
  return scan16(s.substr(i));
}
#endif

}  // namespace

bool has_secret_word(std::string_view s) {
#ifdef DD_SECRET_WORDS_AVX2
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2 && s.size() >= 33) return scan32(s);
#endif
  return scan16(s);
}

}  // namespace dd
