// Parses the timestamp formats of log_time.h by hand (no regex: this runs on every line).
#include "logs/log_time.h"

#include <fmt/format.h>

namespace dd::logs {

namespace {

constexpr int64_t kUsPerSecond = 1000000;

bool lt_digits(std::string_view s, size_t at, size_t n, int64_t& out) {
  if (at + n > s.size()) return false;
  out = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

// "HH:MM:SS" at `at`, then an optional ".ffffff" or ",mmm" fraction.
int64_t lt_clock(std::string_view s, size_t at, int64_t month, int64_t day) {
  int64_t h, m, sec;
  if (month < 1 || month > 12 || day < 1 || day > 31) return -1;
  if (!lt_digits(s, at, 2, h) || at + 2 >= s.size() || s[at + 2] != ':' || !lt_digits(s, at + 3, 2, m) ||
      at + 5 >= s.size() || s[at + 5] != ':' || !lt_digits(s, at + 6, 2, sec))
    return -1;
  int64_t us = 0;
  size_t p = at + 8;
  if (p < s.size() && (s[p] == '.' || s[p] == ',')) {
    int64_t scale = 100000;
    for (++p; p < s.size() && s[p] >= '0' && s[p] <= '9'; ++p, scale /= 10)
      if (scale > 0) us += (s[p] - '0') * scale;
  }
  int64_t day_index = (month - 1) * 31 + (day - 1);
  return ((day_index * 24 + h) * 60 + m) * 60 * kUsPerSecond + sec * kUsPerSecond + us;
}

// "YYYY-MM-DD HH:MM:SS" (or "YYYY-MM-DD-HH:MM:SS", "YYYY-MM-DDTHH:MM:SS") at `at`.
int64_t lt_iso(std::string_view s, size_t at) {
  int64_t y, mo, d;
  if (!lt_digits(s, at, 4, y) || at + 4 >= s.size() || s[at + 4] != '-' || !lt_digits(s, at + 5, 2, mo) ||
      at + 7 >= s.size() || s[at + 7] != '-' || !lt_digits(s, at + 8, 2, d) || at + 10 >= s.size())
    return -1;
  char sep = s[at + 10];
  if (sep != ' ' && sep != '-' && sep != 'T' && sep != '_') return -1;
  return lt_clock(s, at + 11, mo, d);
}

// glog: "E1123 15:02:00.551802" at `at`.
int64_t lt_glog(std::string_view s, size_t at) {
  if (at + 14 > s.size()) return -1;
  char c = s[at];
  if (c != 'I' && c != 'W' && c != 'E' && c != 'F') return -1;
  int64_t mo, d;
  if (!lt_digits(s, at + 1, 2, mo) || !lt_digits(s, at + 3, 2, d) || s[at + 5] != ' ') return -1;
  return lt_clock(s, at + 6, mo, d);
}

// Skips "[rank1]:" / "[default0]:" prefixes (letters then digits, then "]:").
size_t lt_skip_rank_prefixes(std::string_view s) {
  size_t p = 0;
  for (int n = 0; n < 2 && p < s.size() && s[p] == '['; ++n) {
    size_t q = p + 1;
    while (q < s.size() && ((s[q] >= 'a' && s[q] <= 'z') || s[q] == '_')) ++q;
    size_t letters = q;
    while (q < s.size() && s[q] >= '0' && s[q] <= '9') ++q;
    if (letters == p + 1 || q == letters || q + 1 >= s.size() || s[q] != ']' || s[q + 1] != ':') break;
    p = q + 2;
  }
  return p;
}

}  // namespace

int64_t log_time_key(std::string_view line) {
  size_t p = lt_skip_rank_prefixes(line);
  if (p >= line.size()) return -1;
  char c = line[p];
  if (c == '[') {
    ++p;
    if (p >= line.size()) return -1;
    c = line[p];
  } else if (c == 'L' && line.compare(p, 12, "LAUNCH INFO ") == 0) {
    return lt_iso(line, p + 12);
  }
  if (c >= '0' && c <= '9') return lt_iso(line, p);
  return lt_glog(line, p);
}

std::string log_time_text(int64_t key) {
  if (key < 0) return "";
  int64_t us = key % kUsPerSecond, s = key / kUsPerSecond;
  int64_t sec = s % 60, min = s / 60 % 60, h = s / 3600 % 24, days = s / 86400;
  return fmt::format("{:02}-{:02} {:02}:{:02}:{:02}.{:03}", days / 31 + 1, days % 31 + 1, h, min, sec,
                     us / 1000);
}

}  // namespace dd::logs
