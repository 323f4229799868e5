// Job-token authentication for the store: token sources, token generation, HMAC-SHA256 challenge-response.
// The token itself is secret: nothing here logs it, and callers must never put it in reports or JSON.
#pragma once
#include <functional>
#include <string>

#include "common/result.h"
#include "probe/fs.h"

namespace dd::rendezvous {

// The sentence both sides print when the tokens differ.
inline constexpr const char* kWrongTokenMessage =
    "rendezvous refused: wrong job token (the token must match the master's)";

struct JobToken {
  std::string token;    // secret
  std::string source;   // "--token", "DISTDOCTOR_TOKEN", "--token-file /path", or "" when none was given
  std::string warning;  // e.g. a token file readable by other users
};

// Reads a token file for resolve_token: the caller's safe opener (cluster uses probe::read_regular_file:
// bounded, never blocked by a FIFO or a device), so nothing here opens a file a user names.
using ReadTokenFile = std::function<Result<std::string>(const std::string& path)>;

// Picks the token: --token, else --token-file (read through read_file), else env_token (the caller passes
// DISTDOCTOR_TOKEN's value, probe::tool_env().token: nothing here reads the environment). None given -> empty
// token, no error. An unreadable or empty token file is an Error; one other users may read is a warning (its
// mode from fs).
Result<JobToken> resolve_token(const std::string& flag_token, const std::string& token_file,
                               const std::string& env_token, const ReadTokenFile& read_file,
                               const probe::Fs& fs = probe::local_fs());

// A new random token: 32 bytes from the OpenSSL CSPRNG as 64 hex digits.
std::string generate_token();

// Random bytes from the OpenSSL CSPRNG (nonces).
std::string random_bytes(size_t n);

std::string hmac_sha256(const std::string& key, const std::string& data);

// SHA-256 of data as 64 lowercase hex digits (digests nodes compare, e.g. of a command line).
std::string sha256_hex(const std::string& data);

// Bytes as lowercase hex.
std::string to_hex(const std::string& bytes);

// Proofs bind both nonces and a direction label, so a proof for one side cannot be replayed as the other's.
std::string server_proof(const std::string& token, const std::string& client_nonce,
                         const std::string& server_nonce);
std::string client_proof(const std::string& token, const std::string& client_nonce,
                         const std::string& server_nonce);

// Constant-time comparison for proofs.
bool proofs_equal(const std::string& a, const std::string& b);

}  // namespace dd::rendezvous
