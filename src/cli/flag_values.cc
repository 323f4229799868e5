// The flag value parsers and their CLI11 validators (see flag_values.h).
#include "cli/flag_values.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace dd::cli {

namespace {

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// A number in plain decimal notation: digits, at most one '.', nothing else (no sign, exponent, nan, inf).
bool plain_decimal(const std::string& s) {
  bool digit = false, dot = false;
  for (char c : s) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digit = true;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      return false;
    }
  }
  return digit;
}

CLI::Validator wrap(std::string desc, std::function<std::string(const std::string&)> check) {
  return CLI::Validator([check](std::string& v) { return check(v); }, std::move(desc));
}

}  // namespace

Result<double> parse_seconds(const std::string& text, double min_s, double max_s) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end == nullptr || *end != '\0' || !std::isfinite(v))
    return Error{fmt::format("'{}' is not a number of seconds", text)};
  if (v < min_s || v > max_s) return Error{fmt::format("{} seconds is outside {} .. {}", text, min_s, max_s)};
  return v;
}

Result<uint64_t> parse_byte_size(const std::string& text) {
  size_t n = 0;
  while (n < text.size() && (std::isdigit(static_cast<unsigned char>(text[n])) || text[n] == '.')) ++n;
  std::string number = text.substr(0, n), unit = text.substr(n);
  for (auto& c : unit) c = char(std::toupper(static_cast<unsigned char>(c)));
  if (!unit.empty() && unit.back() == 'B') unit.pop_back();
  if (unit.size() == 2 && unit.back() == 'I') unit.pop_back();
  const double mul = unit.empty()  ? 1
                     : unit == "K" ? 1024.0
                     : unit == "M" ? 1048576.0
                     : unit == "G" ? 1073741824.0
                     : unit == "T" ? 1099511627776.0
                                   : -1;
  const std::string bad = fmt::format("bad size '{}' (use e.g. 8, 64K, 256M, 8G)", text);
  if (!plain_decimal(number) || mul < 0) return Error{bad};
  const double bytes = std::strtod(number.c_str(), nullptr) * mul;
  if (!std::isfinite(bytes) || bytes >= 18446744073709551615.0) return Error{bad};
  return uint64_t(bytes);
}

Result<std::string> parse_master(const std::string& text) {
  const std::string shape = fmt::format("'{}' is not HOST:PORT or etcd://HOST:PORT", text);
  std::string rest = text;
  if (rest.rfind("etcd://", 0) == 0) {
    rest = rest.substr(7);
    rest = rest.substr(0, rest.find('/'));
  }
  if (rest.empty()) return Error{shape + " (no host)"};
  const size_t colon = rest.rfind(':');
  if (colon == std::string::npos) return Error{shape + " (no port)"};
  std::string host = rest.substr(0, colon);
  const std::string port = rest.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) return Error{shape + " (no host)"};
  if (port.empty() || port.size() > 5 || !plain_decimal(port) || port.find('.') != std::string::npos)
    return Error{shape + " (port '" + port + "' is not a number)"};
  const int p = std::atoi(port.c_str());
  if (p < 1 || p > 65535) return Error{fmt::format("{} (port {} is outside 1 .. 65535)", shape, p)};
  return text;
}

Result<std::string> parse_choice(const std::string& text, const std::vector<std::string>& choices) {
  for (const auto& c : choices)
    if (c == text) return text;
  return Error{fmt::format("unknown value '{}' (use one of: {})", text, joined(choices))};
}

Result<std::vector<std::string>> parse_choice_list(const std::string& text,
                                                   const std::vector<std::string>& choices) {
  std::vector<std::string> items;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    auto c = parse_choice(item, choices);
    if (!c) return c.error();
    items.push_back(item);
  }
  if (items.empty() || text.back() == ',') return Error{fmt::format("empty item in '{}'", text)};
  return items;
}

CLI::Validator seconds_in(double min_s, double max_s) {
  return wrap("SECONDS", [min_s, max_s](const std::string& v) {
    auto r = parse_seconds(v, min_s, max_s);
    return r ? std::string() : r.error().message();
  });
}

CLI::Validator finite_in(double min, double max) {
  return wrap("NUMBER", [min, max](const std::string& v) {
    auto r = parse_seconds(v, min, max);
    return r ? std::string() : fmt::format("'{}' is not a number in {} .. {}", v, min, max);
  });
}

CLI::Validator byte_size() {
  return wrap("SIZE", [](const std::string& v) {
    auto r = parse_byte_size(v);
    return r ? std::string() : r.error().message();
  });
}

namespace {

// A comma list, each item through parse_item (an empty item goes to it too, and is refused there); the error
// names the item and the whole text.
template <typename T, typename Parse>
Result<std::vector<T>> parse_list(const std::string& text, Parse parse_item) {
  std::vector<T> out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    Result<T> v = parse_item(item);
    if (!v) return Error{"'" + item + "' in '" + text + "': " + v.error().message()};
    out.push_back(*v);
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

}  // namespace

Result<std::vector<uint64_t>> parse_byte_size_list(const std::string& text) {
  return parse_list<uint64_t>(text, parse_byte_size);
}

Result<std::vector<int>> parse_index_list(const std::string& text, int max) {
  return parse_list<int>(text, [max](const std::string& item) -> Result<int> {
    const bool digits =
        !item.empty() && item.size() <= 9 && item.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stoi(item) > max) return Error{"not a number from 0 to " + std::to_string(max)};
    return std::stoi(item);
  });
}

CLI::Validator index_list(int max) {
  return wrap("N[,N...]", [max](const std::string& v) {
    auto r = parse_index_list(v, max);
    return r ? std::string() : r.error().message();
  });
}

CLI::Validator byte_size_list() {
  return wrap("SIZE[,SIZE...]", [](const std::string& v) {
    auto r = parse_byte_size_list(v);
    return r ? std::string() : r.error().message();
  });
}

CLI::Validator master_address() {
  return wrap("HOST:PORT", [](const std::string& v) {
    auto r = parse_master(v);
    return r ? std::string() : r.error().message();
  });
}

namespace {
// "{nccl,gloo}": the values a flag takes, in its help (and so in the bash completion, which reads the help).
std::string listed(const std::vector<std::string>& choices) {
  std::string out;
  for (const auto& c : choices) out += (out.empty() ? "{" : ",") + c;
  return out + "}";
}
}  // namespace

CLI::Validator one_of(std::vector<std::string> choices) {
  return wrap(listed(choices), [choices](const std::string& v) {
    auto r = parse_choice(v, choices);
    return r ? std::string() : r.error().message();
  });
}

CLI::Validator list_of(std::vector<std::string> choices) {
  return wrap(listed(choices), [choices](const std::string& v) {
    auto r = parse_choice_list(v, choices);
    return r ? std::string() : r.error().message();
  });
}

CLI::Validator node_count() {
  return wrap("N", [](const std::string& v) -> std::string {
    char* end = nullptr;
    const long n = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0') return fmt::format("'{}' is not a node count", v);
    if (n < 1) return fmt::format("{} nodes: give at least 1", v);
    if (n > kMaxNodes)
      return fmt::format("{} nodes is more than the store takes (at most {} nodes, one connection each)", v,
                         kMaxNodes);
    return "";
  });
}

CLI::Validator worker_count() {
  return wrap("N|{gpu}", [](const std::string& v) -> std::string {
    if (v == "gpu") return "";
    char* end = nullptr;
    const long n = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || n < 1 || n > 4096)
      return fmt::format("\"{}\" is not a worker count (1 .. 4096) or \"gpu\"", v);
    return "";
  });
}

CLI::Validator job_name() {
  return wrap("NAME", [](const std::string& v) -> std::string {
    constexpr size_t kMax = 128;
    const bool chars =
        v.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
        std::string::npos;
    if (!v.empty() && v.size() <= kMax && chars && v[0] != '.' && v[0] != '-') return "";
    return fmt::format(
        "\"{}\" is not a job name: 1 to {} letters, digits, '.', '_' or '-', not starting with "
        "'.' or '-' (it becomes a folder under --log-dir)",
        v.size() > 60 ? v.substr(0, 60) + "..." : v, kMax);
  });
}

CLI::Validator rank_or(std::vector<std::string> words) {
  return wrap("RANK|" + listed(words), [words](const std::string& v) -> std::string {
    if (parse_choice(v, words)) return "";
    const bool digits = !v.empty() && v.size() < 8 && v.find_first_not_of("0123456789") == std::string::npos;
    return digits ? "" : fmt::format("'{}' is not a rank (0, 1, ...) or one of: {}", v, joined(words));
  });
}

namespace {
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_group(std::string group, bool is_positional,
                         std::vector<const CLI::Option*> opts) const override {
    if (group == kOldNamesGroup) return "";
    return CLI::Formatter::make_group(std::move(group), is_positional, std::move(opts));
  }
};
}  // namespace

std::shared_ptr<CLI::Formatter> help_formatter() { return std::make_shared<HelpFormatter>(); }

}  // namespace dd::cli
