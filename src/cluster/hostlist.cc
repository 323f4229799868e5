// Slurm hostlist expansion ("gpu[01-04,07],cpu[1-2]"), as SLURM_NODELIST / SLURM_JOB_NODELIST hold it.
#include <fmt/format.h>

#include "cluster/launcher_env.h"

namespace dd::cluster {
namespace {

constexpr size_t kMaxHosts = 100000;  // bad input never expands without bound

// Splits at commas that are outside brackets; false on unbalanced brackets.
bool split_top(const std::string& s, std::vector<std::string>* parts) {
  int depth = 0;
  std::string cur;
  for (char c : s) {
    if (c == '[') depth++;
    if (c == ']' && --depth < 0) return false;
    if (c == ',' && depth == 0) {
      parts->push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (depth != 0) return false;
  parts->push_back(cur);
  return true;
}

bool all_digits(const std::string& s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// Expands one bracket body "01-04,07" into its strings (padding kept).
bool expand_range(const std::string& body, std::vector<std::string>* out, std::string* err) {
  size_t start = 0;
  while (start <= body.size()) {
    size_t comma = body.find(',', start);
    std::string item = body.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t dash = item.find('-');
    if (dash == std::string::npos) {
      if (!all_digits(item)) return *err = fmt::format("bad range item \"{}\"", item), false;
      out->push_back(item);
    } else {
      std::string lo = item.substr(0, dash), hi = item.substr(dash + 1);
      if (!all_digits(lo) || !all_digits(hi)) return *err = fmt::format("bad range \"{}\"", item), false;
      long a = std::stol(lo), b = std::stol(hi);
      if (b < a) return *err = fmt::format("descending range \"{}\"", item), false;
      if (static_cast<size_t>(b - a) > kMaxHosts) return *err = "range too large", false;
      size_t width = lo.size();
      for (long v = a; v <= b; ++v) out->push_back(fmt::format("{:0{}}", v, width));
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return true;
}

// Expands one host pattern with any number of bracket groups.
bool expand_one(const std::string& pat, std::vector<std::string>* out, std::string* err) {
  size_t open = pat.find('[');
  if (open == std::string::npos) {
    if (pat.find(']') != std::string::npos) return *err = "unbalanced bracket", false;
    out->push_back(pat);
    return true;
  }
  size_t close = pat.find(']', open);
  if (close == std::string::npos) return *err = "unbalanced bracket", false;
  std::vector<std::string> mids;
  if (!expand_range(pat.substr(open + 1, close - open - 1), &mids, err)) return false;
  std::vector<std::string> tails;
  if (!expand_one(pat.substr(close + 1), &tails, err)) return false;
  if (mids.size() * tails.size() + out->size() > kMaxHosts) return *err = "hostlist too large", false;
  std::string head = pat.substr(0, open);
  for (const auto& m : mids)
    for (const auto& t : tails) out->push_back(head + m + t);
  return true;
}

}  // namespace

bool expand_hostlist(const std::string& list, std::vector<std::string>* out, std::string* error) {
  std::string err;
  std::vector<std::string> parts;
  std::vector<std::string> result;
  if (!split_top(list, &parts)) err = "unbalanced bracket";
  for (const auto& p : parts) {
    if (!err.empty()) break;
    if (p.empty()) continue;
    expand_one(p, &result, &err);
  }
  if (!err.empty()) {
    if (error) *error = err;
    return false;
  }
  *out = std::move(result);
  return true;
}

}  // namespace dd::cluster
