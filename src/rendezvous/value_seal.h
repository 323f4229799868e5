// Values a shared store (etcd) holds for one job, sealed with the job token: an HMAC over the full key and
// the value travels in front of the value, so a user of the same etcd who can list and write the job's keys
// but does not hold the token cannot put a value there that a node would accept, nor move one to another key.
#pragma once
#include <string>

#include "common/result.h"

namespace dd::rendezvous {

// "dd-seal1:" + 64 hex digits of HMAC-SHA256(token, label, key, value) + ":" + value.
std::string seal_value(const std::string& token, const std::string& key, const std::string& value);

// The value inside a sealed one; a protocol-kind Error naming the key when the seal is missing or does not
// verify with this token.
Result<std::string> unseal_value(const std::string& token, const std::string& key, const std::string& sealed);

}  // namespace dd::rendezvous
