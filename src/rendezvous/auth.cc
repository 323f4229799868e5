// Job-token authentication: where the token comes from, and the HMAC proofs exchanged in the store handshake.
#include "rendezvous/auth.h"

#include <fmt/format.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/params.h>
#include <openssl/rand.h>
#include <sys/random.h>

#include <memory>

namespace dd::rendezvous {

Result<JobToken> resolve_token(const std::string& flag_token, const std::string& token_file,
                               const std::string& env_token, const ReadTokenFile& read_file,
                               const probe::Fs& fs) {
  JobToken t;
  if (!flag_token.empty()) {
    t.token = flag_token;
    t.source = "--token";
    return t;
  }
  if (!token_file.empty()) {
    auto text = read_file(token_file);
    if (!text)
      return Error{fmt::format("cannot read token file {}: {}", token_file, text.error().message()), 0};
    t.token = std::move(*text);
    while (!t.token.empty() && std::isspace(static_cast<unsigned char>(t.token.back()))) t.token.pop_back();
    while (!t.token.empty() && std::isspace(static_cast<unsigned char>(t.token.front()))) t.token.erase(0, 1);
    if (t.token.empty()) return Error::invalid(fmt::format("token file {} is empty", token_file));
    t.source = "--token-file " + token_file;
    if (auto info = fs.stat(token_file); info && (info->mode & 077)) {
      t.warning = fmt::format("token file {} is readable by other users (mode {:o}); chmod 600 it",
                              token_file, info->mode & 0777);
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
  // The kernel's CSPRNG: no lock shared by the threads of this process (OpenSSL's RAND_bytes seeds a DRBG per
  // thread under one global lock, which thousands of connecting threads queue on).
  std::string out(n, '\0');
  for (size_t got = 0; got < n;) {
    ssize_t r = ::getrandom(out.data() + got, n - got, 0);
    if (r > 0) {
      got += static_cast<size_t>(r);
    } else if (r < 0 && errno != EINTR) {
      if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1)
        std::abort();  // no CSPRNG at all: nothing safe to fall back to
      break;
    }
  }
  return out;
}

std::string generate_token() {
  std::string raw = random_bytes(32), hex;
  for (unsigned char c : raw) hex += fmt::format("{:02x}", c);
  return hex;
}

std::string hmac_sha256(const std::string& key, const std::string& data) {
  // HMAC fetched once, one context per thread keyed once per key: OpenSSL 3's one-shot HMAC() (and a context
  // initialised with a digest name) looks the algorithms up under a global lock on every call.
  static EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  thread_local std::unique_ptr<EVP_MAC_CTX, void (*)(EVP_MAC_CTX*)> ctx(mac ? EVP_MAC_CTX_new(mac) : nullptr,
                                                                        EVP_MAC_CTX_free);
  thread_local std::string keyed;  // the key ctx holds; a reinit with no key reuses it
  thread_local bool has_key = false;
  unsigned char md[EVP_MAX_MD_SIZE];
  size_t len = 0;
  const auto* k = reinterpret_cast<const unsigned char*>(key.data());
  const auto* d = reinterpret_cast<const unsigned char*>(data.data());
  bool ok = false;
  if (ctx) {
    if (has_key && keyed == key) {
      ok = EVP_MAC_init(ctx.get(), nullptr, 0, nullptr) == 1;
    } else {
      char digest[] = "SHA256";
      OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string("digest", digest, 0),
                             OSSL_PARAM_construct_end()};
      ok = EVP_MAC_init(ctx.get(), k, key.size(), params) == 1;
      has_key = ok;
      keyed = ok ? key : std::string();
    }
    ok = ok && EVP_MAC_update(ctx.get(), d, data.size()) == 1 &&
         EVP_MAC_final(ctx.get(), md, &len, sizeof md) == 1;
  }
  if (ok) return std::string(reinterpret_cast<char*>(md), len);
  has_key = false;
  unsigned int one_shot = 0;  // no EVP_MAC here: the one-shot call
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), d, data.size(), md, &one_shot);
  return std::string(reinterpret_cast<char*>(md), one_shot);
}

std::string to_hex(const std::string& bytes) {
  std::string s;
  s.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) s += fmt::format("{:02x}", c);
  return s;
}

std::string sha256_hex(const std::string& data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
  return to_hex(std::string(reinterpret_cast<char*>(md), len));
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
