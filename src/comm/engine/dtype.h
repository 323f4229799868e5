// Element types the collective engines test (float, bfloat16, half, int32), their names and sizes,
// and exact host-side conversions for the small integers the test patterns use.
#pragma once
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

namespace dd::comm {

enum class Dtype : int { f32 = 0, bf16 = 1, f16 = 2, i32 = 3 };

inline constexpr Dtype kAllDtypes[] = {Dtype::f32, Dtype::bf16, Dtype::f16, Dtype::i32};

inline const char* dtype_name(Dtype t) {
  switch (t) {
    case Dtype::f32:
      return "float";
    case Dtype::bf16:
      return "bfloat16";
    case Dtype::f16:
      return "half";
    case Dtype::i32:
      return "int32";
  }
  return "?";
}

inline size_t dtype_size(Dtype t) { return (t == Dtype::bf16 || t == Dtype::f16) ? 2 : 4; }

inline std::optional<Dtype> dtype_from_name(const std::string& s) {
  if (s == "float" || s == "float32" || s == "f32" || s == "fp32") return Dtype::f32;
  if (s == "bfloat16" || s == "bf16") return Dtype::bf16;
  if (s == "half" || s == "float16" || s == "f16" || s == "fp16") return Dtype::f16;
  if (s == "int32" || s == "int" || s == "i32") return Dtype::i32;
  return std::nullopt;
}

// IEEE half <-> float, round to nearest even (host side; used by the Gloo engine and tests).
inline float half_to_float(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ffu, bits;
  if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else {  // subnormal: renormalise
      exp = 127 - 15 + 1;
      while (!(man & 0x400u)) {
        man <<= 1;
        --exp;
      }
      bits = sign | (exp << 23) | ((man & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (man << 13);
  } else {
    bits = sign | ((exp - 15 + 127) << 23) | (man << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = int32_t((x >> 23) & 0xff) - 127 + 15;
  uint32_t man = x & 0x7fffffu;
  if (((x >> 23) & 0xff) == 0xff) return uint16_t(sign | 0x7c00u | (man ? 0x200u : 0));
  if (exp >= 31) return uint16_t(sign | 0x7c00u);
  if (exp <= 0) {
    if (exp < -10) return uint16_t(sign);
    man |= 0x800000u;
    uint32_t shift = uint32_t(14 - exp);
    uint32_t half_man = man >> shift, rem = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half_man & 1))) ++half_man;
    return uint16_t(sign | half_man);
  }
  uint32_t half_man = man >> 13, rem = man & 0x1fffu;
  uint32_t out = sign | (uint32_t(exp) << 10) | half_man;
  if (rem > 0x1000u || (rem == 0x1000u && (half_man & 1))) ++out;  // may carry into the exponent: correct
  return uint16_t(out);
}

inline float bf16_to_float(uint16_t b) {
  uint32_t bits = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline uint16_t float_to_bf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7f800000u) == 0x7f800000u && (x & 0x7fffffu))
    return uint16_t((x >> 16) | 0x40);  // NaN stays NaN
  x += 0x7fffu + ((x >> 16) & 1);
  return uint16_t(x >> 16);
}

}  // namespace dd::comm
