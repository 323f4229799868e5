// Job-token authentication: where the token comes from, and the HMAC proofs exchanged in the store handshake.
#include "rendezvous/auth.h"

#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

namespace dd::rendezvous {

Result<JobToken> resolve_token(const std::string& flag_token, const std::string& token_file,
                               const std::string& env_token) {
  JobToken t;
  if (!flag_token.empty()) {
    t.token = flag_token;
    t.source = "--token";
    return t;
  }
  if (!token_file.empty()) {
    std::ifstream in(token_file);
    if (!in) return Error::sys(errno, fmt::format("cannot read token file {}", token_file));
    std::stringstream ss;
    ss << in.rdbuf();
    t.token = ss.str();
    while (!t.token.empty() && std::isspace(static_cast<unsigned char>(t.token.back()))) t.token.pop_back();
    while (!t.token.empty() && std::isspace(static_cast<unsigned char>(t.token.front()))) t.token.erase(0, 1);
    if (t.token.empty()) return Error::invalid(fmt::format("token file {} is empty", token_file));
    t.source = "--token-file " + token_file;
    struct stat st {};
    if (::stat(token_file.c_str(), &st) == 0 && (st.st_mode & 077)) {
      t.warning = fmt::format("token file {} is readable by other users (mode {:o}); chmod 600 it",
                              token_file, st.st_mode & 0777);
    }
    return t;
  }
  if (!env_token.empty()) {
    t.token = env_token;
    t.source = "DISTDOCTOR_TOKEN";
  }
  return t;
}

std::string random_bytes(size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) {
    std::abort();  // no CSPRNG: nothing safe to fall back to
  }
  return out;
}

std::string generate_token() {
  std::string raw = random_bytes(32), hex;
  for (unsigned char c : raw) hex += fmt::format("{:02x}", c);
  return hex;
}

std::string hmac_sha256(const std::string& key, const std::string& data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  // Fetch SHA-256 once: OpenSSL 3 otherwise looks the algorithm up by name (under a global lock) on every
  // call.
  static EVP_MD* sha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  HMAC(sha256 ? sha256 : EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), md, &len);
  return std::string(reinterpret_cast<char*>(md), len);
}

namespace {
std::string proof(const char* label, const std::string& token, const std::string& cn, const std::string& sn) {
  // Length-prefix the nonces so no two (cn, sn) pairs map to the same message.
  std::string msg = fmt::format("distdoctor-rendezvous-v1 {} {}:", label, cn.size());
  msg += cn;
  msg += fmt::format(" {}:", sn.size());
  msg += sn;
  return hmac_sha256(token, msg);
}
}  // namespace

std::string server_proof(const std::string& token, const std::string& cn, const std::string& sn) {
  return proof("server", token, cn, sn);
}

std::string client_proof(const std::string& token, const std::string& cn, const std::string& sn) {
  return proof("client", token, cn, sn);
}

bool proofs_equal(const std::string& a, const std::string& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace dd::rendezvous
