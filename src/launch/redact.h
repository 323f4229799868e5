// Secrets out of anything launch prints or publishes: values of variables whose name contains TOKEN, KEY,
// SECRET, PASSWORD, PASSWD, CREDENTIAL or AUTH (case-insensitive), and passwords inside URLs
// (scheme://user:PASSWORD@host). Pure.
#pragma once
#include <string>

namespace dd::launch {

inline constexpr const char* kRedacted = "<redacted>";

bool is_secret_name(const std::string& name);
// The value as it may be shown: "<redacted>" for a secret name, else the value with URL passwords replaced.
std::string redact_value(const std::string& name, const std::string& value);
// A free text line (a command line, a log line): URL passwords and NAME=VALUE pairs with secret names.
std::string redact_text(const std::string& text);

}  // namespace dd::launch
