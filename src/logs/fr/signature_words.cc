// signature_words (see fr_summary.h): a Flight Recorder op in words a person reads at a glance, "all_reduce
// of 1,048,576 float32 (4 MiB)", instead of "all_reduce in [[1048576]] out [[1048576]] Float".
#include <fmt/format.h>

#include <cstdint>
#include <string_view>

#include "logs/fr/fr_summary.h"
#include "rules/rule_util.h"

namespace dd::logs {

namespace {

struct DtypeWords {
  std::string_view torch, name;
  int bytes;
};

// PyTorch's ScalarType names as the dumps hold them, with the names users write and the element size.
constexpr DtypeWords kDtypes[] = {
    {"Float", "float32", 4},
    {"Half", "float16", 2},
    {"BFloat16", "bfloat16", 2},
    {"Double", "float64", 8},
    {"Long", "int64", 8},
    {"Int", "int32", 4},
    {"Short", "int16", 2},
    {"Char", "int8", 1},
    {"Byte", "uint8", 1},
    {"Bool", "bool", 1},
    {"ComplexFloat", "complex64", 8},
    {"ComplexDouble", "complex128", 16},
    {"Float8_e4m3fn", "float8_e4m3fn", 1},
    {"Float8_e5m2", "float8_e5m2", 1},
};

// The element count of the first shape in "[[4,1048576]]" or "[[1048576], [8]]"; -1 when there is none.
int64_t first_shape_numel(std::string_view sizes) {
  const size_t open = sizes.find("[[");
  if (open == std::string_view::npos) return -1;
  const size_t close = sizes.find(']', open);
  if (close == std::string_view::npos) return -1;
  int64_t n = 1;
  bool any = false;
  int64_t cur = -1;
  for (size_t i = open + 2; i <= close; ++i) {
    const char c = sizes[i];
    if (c >= '0' && c <= '9') {
      cur = (cur < 0 ? 0 : cur) * 10 + (c - '0');
      if (cur > (int64_t(1) << 50)) return -1;
    } else if (c == ',' || c == ']') {
      if (cur < 0) return any ? n : (c == ']' ? 1 : -1);  // "[[]]": a scalar
      n *= cur;
      any = true;
      cur = -1;
      if (n > (int64_t(1) << 50)) return -1;
    } else if (c != ' ') {
      return -1;
    }
  }
  return any ? n : 1;
}

std::string grouped(int64_t n) {
  std::string s = std::to_string(n), out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i > 0 && (s.size() - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return out;
}

}  // namespace

std::string signature_words(const FrSignature& s) {
  // Coalesced ops, and lists of tensors (an uneven all_gather's outputs): the raw text says more.
  if (s.op.find('+') != std::string::npos || s.sizes.find(" + ") != std::string::npos ||
      s.sizes.find("],[") != std::string::npos || s.sizes.find("], [") != std::string::npos)
    return signature_text(s);
  const size_t out_at = s.sizes.find(" out ");
  const int64_t in = first_shape_numel(s.sizes.substr(0, out_at));
  const int64_t out = out_at == std::string::npos ? -1 : first_shape_numel(s.sizes.substr(out_at));
  if (in < 0) return signature_text(s);
  const std::string first_dtype = s.dtypes.substr(0, s.dtypes.find(','));
  const DtypeWords* d = nullptr;
  for (const auto& k : kDtypes)
    if (k.torch == first_dtype) d = &k;
  std::string text = fmt::format("{} of {} {}", s.op, grouped(in),
                                 d ? std::string(d->name) : (first_dtype.empty() ? "elements" : first_dtype));
  if (d) text += fmt::format(" ({})", rules::human_bytes(in * d->bytes));
  if (out >= 0 && out != in) text += fmt::format(" into {}", grouped(out));
  return text;
}

}  // namespace dd::logs
