// The words that make a line worth redacting: a URL ("://") or a secret word (token, key, secret, passw,
// cred, auth, bearer, sig) anywhere, in any case. `logs` asks this of every line it reads, so it costs about
// what reading the line costs.
#pragma once
#include <string_view>

namespace dd {

bool has_secret_word(std::string_view s);

}  // namespace dd
