// seal_value / unseal_value (value_seal.h): HMAC-SHA256 with the job token, checked in constant time.
#include "rendezvous/value_seal.h"

#include "rendezvous/auth.h"

namespace dd::rendezvous {

namespace {

constexpr std::string_view kTag = "dd-seal1:";
constexpr size_t kMacHex = 64;

std::string mac_hex(const std::string& token, const std::string& key, const std::string& value) {
  std::string msg = "distdoctor store value v1";
  msg += '\0';
  msg += std::to_string(key.size()) + ":" + key;
  msg += '\0';
  msg += value;
  return to_hex(hmac_sha256(token, msg));
}

}  // namespace

std::string seal_value(const std::string& token, const std::string& key, const std::string& value) {
  return std::string(kTag) + mac_hex(token, key, value) + ":" + value;
}

Result<std::string> unseal_value(const std::string& token, const std::string& key,
                                 const std::string& sealed) {
  const size_t head = kTag.size() + kMacHex + 1;
  if (sealed.size() < head || sealed.compare(0, kTag.size(), kTag) != 0 || sealed[head - 1] != ':')
    return Error::make(ErrorKind::protocol,
                       "store key '" + key +
                           "' holds a value without this job's seal (written by something "
                           "that does not hold the job token)");
  std::string value = sealed.substr(head);
  if (!proofs_equal(sealed.substr(kTag.size(), kMacHex), mac_hex(token, key, value)))
    return Error::make(ErrorKind::protocol,
                       "store key '" + key +
                           "' holds a value sealed with another token (written by something "
                           "that does not hold this job's token)");
  return value;
}

}  // namespace dd::rendezvous
