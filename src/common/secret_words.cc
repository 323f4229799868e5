// has_secret_word: the needles looked for with two 256-entry tables per byte (see NeedleBytes).
#include "common/secret_words.h"

#include <cctype>
#include <cstdint>
#include <iterator>

namespace dd {

namespace {

constexpr const char* kNeedles[] = {"://",  "token", "key",    "secret", "passw",
                                    "cred", "auth",  "bearer", "sig"};

char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? char(c + ('a' - 'A')) : c; }

// Which needles a byte can start (bit j: needle j's first character, in either case) and which it can
// continue as their second character. A needle is compared only where both agree: two look-ups in 256-byte
// tables and an AND per byte of text. `logs` runs this on every line it reads, so it must cost about what
// reading the line costs (a per-byte tolower and compare made `logs` 5x slower).
struct NeedleBytes {
  uint16_t first[256] = {}, second[256] = {};
  NeedleBytes() {
    for (size_t j = 0; j < std::size(kNeedles); ++j)
      for (int k = 0; k < 2; ++k) {
        const auto c = static_cast<unsigned char>(kNeedles[j][k]);
        uint16_t* table = k == 0 ? first : second;
        table[c] |= uint16_t(1u << j);
        table[static_cast<unsigned char>(std::toupper(c))] |= uint16_t(1u << j);
      }
  }
};

}  // namespace

bool has_secret_word(std::string_view s) {
  static const NeedleBytes bytes;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    uint16_t maybe =
        bytes.first[static_cast<unsigned char>(s[i])] & bytes.second[static_cast<unsigned char>(s[i + 1])];
    for (size_t j = 0; maybe; ++j, maybe >>= 1) {
      if (!(maybe & 1)) continue;
      const char* n = kNeedles[j];
      size_t k = 2;
      while (n[k] && i + k < s.size() && ascii_lower(s[i + k]) == n[k]) ++k;
      if (!n[k]) return true;
    }
  }
  return false;
}

}  // namespace dd
