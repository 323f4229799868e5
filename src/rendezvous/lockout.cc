// The lock-out refusal text and the token strength rule (see lockout.h).
#include "rendezvous/lockout.h"

#include <fmt/format.h>

#include <bitset>
#include <charconv>

namespace dd::rendezvous {

namespace {
constexpr std::string_view kLead = "rendezvous refused: too many wrong tokens from ";
constexpr std::string_view kFor = "; locked out for ";
}  // namespace

std::string lockout_message(std::string_view addr, int64_t seconds) {
  return fmt::format("{}{}{}{} s more", kLead, addr, kFor, seconds);
}

std::optional<Lockout> find_lockout(std::string_view text) {
  size_t at = text.find(kLead);
  if (at == std::string_view::npos) return std::nullopt;
  text.remove_prefix(at + kLead.size());
  size_t sep = text.find(kFor);
  if (sep == std::string_view::npos || sep == 0 || sep > 64) return std::nullopt;
  Lockout l{std::string(text.substr(0, sep))};
  text.remove_prefix(sep + kFor.size());
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), l.seconds);
  if (ec != std::errc()) return std::nullopt;
  return l;
}

bool token_resists_guessing(std::string_view token) {
  std::bitset<256> seen;
  for (unsigned char c : token) seen.set(c);
  return token.size() >= 32 && seen.count() >= 12;
}

}  // namespace dd::rendezvous
