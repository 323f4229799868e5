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
// Two kinds of text, two redactions. Untrusted text (a log line, a worker's output, a process's command line)
// goes through redact_text where it enters: secret values, URL passwords, NAME=VALUE pairs with secret names,
// and the word a secret word announces ("--api-key X", "Authorization: Bearer X", "token: X"). Every output
// then goes through redact_known, the net: all of that but the announced word, which in the tool's own
// sentences is a word of the sentence ("pass --token or DISTDOCTOR_TOKEN", "HF_TOKEN: node 1 differs").
std::string redact_text(const std::string& text);
std::string redact_known(const std::string& text);
// A cheap superset of what redact_text changes: a known secret value, a URL or a secret word anywhere
// (case-insensitive). Most lines have none and need no redaction.
bool might_hold_secret(std::string_view text);
// A /proc/PID/cmdline (arguments separated by NUL bytes) as one line, redacted as redact_argv does.
std::string redact_command_line(const std::string& nul_separated);
// An argument vector: each argument as redact_text does, and the one after a secret flag ("--api-key X").
std::vector<std::string> redact_argv(const std::vector<std::string>& argv);
// Every string in j: members with secret names hidden whole, the rest through redact_known (argument vectors
// were redacted where they entered: redact_argv).
void redact_json(nlohmann::json& j);

// The two writers of every output: text for a terminal or file (redact_known, then printable: see
// safe_text.h) and JSON text (redact_json, then json_text).
std::string shown(std::string_view s);
std::string output_json(nlohmann::json j, int indent = 2);

}  // namespace dd
