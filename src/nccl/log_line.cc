// NCCL log line parser: a fast forward path for the usual layout, a search for " NCCL " for odd prefixes.
#include "nccl/log_line.h"

#include <cstring>

namespace dd::nccl {

int64_t int_after(std::string_view s, std::string_view key, int64_t missing) {
  const size_t k = s.find(key);
  int64_t v;
  return k != std::string_view::npos && parse_int(s.substr(k + key.size()), v) ? v : missing;
}

bool parse_int(std::string_view s, int64_t& out, size_t* used) {
  size_t i = 0;
  bool neg = false;
  if (i < s.size() && s[i] == '-') {
    neg = true;
    ++i;
  }
  size_t start = i;
  int64_t v = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - start < 18) v = v * 10 + (s[i++] - '0');
  if (i == start) return false;
  out = neg ? -v : v;
  if (used) *used = i;
  return true;
}

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// "[rank12]:" (PyTorch), "[default3]:" (torchrun --tee/--log-line-prefix), "12: " (srun -l). Returns chars
// used.
size_t strip_framework_prefix(std::string_view s, int& rank) {
  size_t i = 0;
  if (s.size() > 3 && s[0] == '[') {
    size_t j = 1;
    if (s.compare(1, 4, "rank") == 0)
      j = 5;
    else if (s.compare(1, 7, "default") == 0)
      j = 8;
    else
      return 0;
    int64_t v;
    size_t used;
    if (!parse_int(s.substr(j), v, &used)) return 0;
    j += used;
    if (j + 1 < s.size() + 1 && j < s.size() && s[j] == ']') {
      ++j;
      if (j < s.size() && s[j] == ':') ++j;
      while (j < s.size() && s[j] == ' ') ++j;
      rank = static_cast<int>(v);
      return j;
    }
    return 0;
  }
  // srun -l: "12: "
  while (i < s.size() && i < 6 && is_digit(s[i])) ++i;
  if (i > 0 && i + 1 < s.size() && s[i] == ':' && s[i + 1] == ' ') {
    int64_t v;
    parse_int(s, v);
    rank = static_cast<int>(v);
    return i + 2;
  }
  return 0;
}

// Parses "host:pid:tid" ending at `end` (exclusive) of s; host may contain ':' only before pid:tid.
bool parse_host_pid_tid(std::string_view tok, NcclLine& out) {
  size_t c2 = tok.rfind(':');
  if (c2 == std::string_view::npos || c2 == 0) return false;
  size_t c1 = tok.rfind(':', c2 - 1);
  if (c1 == std::string_view::npos) return false;
  int64_t pid, tid;
  size_t used;
  if (!parse_int(tok.substr(c1 + 1, c2 - c1 - 1), pid, &used) || used != c2 - c1 - 1) return false;
  if (!parse_int(tok.substr(c2 + 1), tid, &used) || used != tok.size() - c2 - 1) return false;
  out.host = tok.substr(0, c1);
  out.pid = pid;
  out.tid = tid;
  return true;
}

// From position p (just after "host:pid:tid "), parse "[dev] [file:line [(func)] ]NCCL LEVEL msg".
bool parse_after_header(std::string_view s, size_t p, NcclLine& out) {
  if (p >= s.size() || s[p] != '[') return false;
  int64_t dev;
  size_t used;
  if (!parse_int(s.substr(p + 1), dev, &used)) return false;
  p += 1 + used;
  if (p + 1 >= s.size() || s[p] != ']' || s[p + 1] != ' ') return false;
  p += 2;
  out.dev = static_cast<int>(dev);
  std::string_view rest = s.substr(p);
  if (rest.size() < 9) return false;
  if (rest.compare(0, 5, "NCCL ") != 0) {
    // WARN: "file:line NCCL WARN" or "file:line (func) NCCL WARN"; TRACE: "time func:line NCCL TRACE".
    size_t k = rest.find(" NCCL ");
    if (k == std::string_view::npos || k > 256) return false;
    std::string_view src = rest.substr(0, k);
    if (size_t sp = src.find(' '); sp != std::string_view::npos && src.size() > sp + 1 && src[sp + 1] == '(')
      src = src.substr(0, sp);
    out.src = src;
    rest = rest.substr(k + 1);
  }
  // rest starts with "NCCL "
  std::string_view lvl = rest.substr(5);
  if (lvl.compare(0, 5, "INFO ") == 0 || lvl == "INFO") {
    out.level = NcclLevel::info;
    out.msg = lvl.substr(lvl.size() >= 5 ? 5 : 4);
  } else if (lvl.compare(0, 5, "WARN ") == 0 || lvl == "WARN") {
    out.level = NcclLevel::warn;
    out.msg = lvl.substr(lvl.size() >= 5 ? 5 : 4);
  } else if (lvl.compare(0, 6, "TRACE ") == 0 || lvl.compare(0, 5, "CALL ") == 0) {
    out.level = NcclLevel::trace;
    out.msg = lvl.substr(lvl.find(' ') + 1);
  } else {
    return false;
  }
  return true;
}

// Tries "host:pid:tid [dev] ..." starting at p.
bool parse_at(std::string_view s, size_t p, NcclLine& out) {
  size_t sp = s.find(' ', p);
  if (sp == std::string_view::npos || sp == p) return false;
  if (!parse_host_pid_tid(s.substr(p, sp - p), out)) return false;
  return parse_after_header(s, sp + 1, out);
}

}  // namespace

NcclLine parse_nccl_line(std::string_view line) {
  NcclLine out;
  size_t p = strip_framework_prefix(line, out.fw_rank);
  // A second prefix can follow ("[default0]:[rank0]:").
  if (p > 0 && p < line.size() && line[p] == '[') {
    int r2 = -1;
    size_t q = strip_framework_prefix(line.substr(p), r2);
    if (q > 0) {
      p += q;
      out.fw_rank = r2;
    }
  }
  std::string_view s = line.substr(p);
  // Fast path: "host:pid:tid [dev] NCCL ..." right here, or after a "[timestamp] " prefix.
  if (!s.empty() && s[0] != '[' && parse_at(s, 0, out)) return out;
  if (!s.empty() && s[0] == '[') {
    size_t close = s.find("] ");
    if (close != std::string_view::npos && close < 80 && parse_at(s, close + 2, out)) return out;
  }
  // Bare version line (NCCL_DEBUG=VERSION/WARN prints it without the header).
  if (s.size() > 13 && s.compare(0, 13, "NCCL version ") == 0) {
    out.level = NcclLevel::version;
    out.msg = s;
    return out;
  }
  // Slow path: anything before the header (custom timestamp formats, other tools' prefixes).
  if (const size_t k = s.find(" NCCL "); k != std::string_view::npos) {
    // Walk back over "[dev]" and an optional "file:line (func)" to the "host:pid:tid" token.
    size_t b = s.rfind("] ", k);
    if (b != std::string_view::npos) {
      size_t lb = s.rfind('[', b);
      if (lb != std::string_view::npos && lb >= 2 && s[lb - 1] == ' ') {
        size_t ts = s.rfind(' ', lb - 2);
        size_t start = ts == std::string_view::npos ? 0 : ts + 1;
        NcclLine tmp;
        tmp.fw_rank = out.fw_rank;
        if (parse_at(s, start, tmp)) return tmp;
      }
    }
  }
  out = NcclLine{.fw_rank = out.fw_rank};
  out.msg = s;
  return out;
}

}  // namespace dd::nccl
