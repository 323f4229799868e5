// The one redaction every output path uses (the text and JSON reports, launch records, the facts' env and
// NCCL settings): values of variables whose name contains TOKEN, KEY, SECRET, PASSWORD, PASSWD, CREDENTIAL or
// AUTH (case-insensitive; not token counts, tokenizers or InfiniBand's PKEY), and passwords inside URLs
// (scheme://user:PASSWORD@host). Pure.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace dd {

inline constexpr const char* kRedacted = "<redacted>";

bool is_secret_name(const std::string& name);

// The values of this run's secret-named variables (at least kMinSecretValue characters), hidden wherever they
// appear in a text, also where nothing names them ("bad key sk-live-123" printed by a worker). Called once at
// start-up (main), before any thread; redact_text reads them.
inline constexpr size_t kMinSecretValue = 6;
void add_secret_values(const std::map<std::string, std::string>& env);
// The value as it may be shown: "<redacted>" for a secret name, else the value with URL passwords replaced.
std::string redact_value(const std::string& name, const std::string& value);
// A free text line (a command line, a log line): URL passwords and NAME=VALUE pairs with secret names.
std::string redact_text(const std::string& text);
// An argument vector: each argument as redact_text does, and the one after a secret flag ("--api-key X").
std::vector<std::string> redact_argv(const std::vector<std::string>& argv);
// Every string in j: members with secret names hidden whole, arrays as argument vectors, the rest as text.
void redact_json(nlohmann::json& j);

// The two writers of every output: text for a terminal or file (redacted, then printable: see safe_text.h)
// and JSON text (redacted, then json_text).
std::string shown(std::string_view s);
std::string output_json(nlohmann::json j, int indent = 2);

}  // namespace dd
