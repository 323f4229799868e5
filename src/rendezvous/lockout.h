// The store's lock-out of an address that sent too many wrong tokens (server_admission.h counts them): the
// refusal the master sends in its auth-result, which the joining node reads back to name the pause and the
// address (instead of a silent close that looks like a firewall), and whether a right token still gets in.
//
// A pause slows online guessing only if the master answers nothing about the tokens it receives while it
// lasts: admitting a right token is an answer, so for a token that could be guessed (short, or few distinct
// characters: typed by a person) every connection from the address is refused, right token or not. A long
// random token (the 64 hex digits distdoctor makes, or `openssl rand -hex 32`) cannot be guessed online
// at any rate: the pause guards nothing there, and letting the right token through keeps a stranger on the
// same address (a shared login node) from locking a real node out of its own job.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dd::rendezvous {

// "rendezvous refused: too many wrong tokens from ADDR; locked out for N s more"
std::string lockout_message(std::string_view addr, int64_t seconds);

struct Lockout {
  std::string addr;  // the address the master paused (as it sees it: NAT shows the gateway)
  int64_t seconds = 0;
};
// The lock-out named in an error text (a client's Error message), nullopt when the text holds none.
std::optional<Lockout> find_lockout(std::string_view text);

// True when guessing the token online is hopeless at any rate: at least 32 characters, at least 12 of them
// distinct (a random hex token of 32 digits has 14 on average; "password" four times over has 7).
bool token_resists_guessing(std::string_view token);

}  // namespace dd::rendezvous
