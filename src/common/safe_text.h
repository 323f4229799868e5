// Safe text: the one writer of untrusted strings (env values, hostnames, log lines) to a terminal and to
// JSON. Text gets control characters and bad bytes as visible escapes; JSON replaces bytes that are not
// UTF-8 instead of throwing.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace dd {

// `s` as it may be printed on a terminal: valid UTF-8 is kept as is; control characters become visible
// escapes (\n, \r, \t, \x1b, \x7f, \u009b), as do Unicode direction overrides (\u202e); bytes that are not
// UTF-8 become \xNN. The result holds no byte below 0x20 and never starts an escape sequence.
std::string printable(std::string_view s);

// The JSON text of `j` (indent -1: one line, as json::dump). Strings that are not valid UTF-8 get U+FFFD
// for their bad bytes instead of the exception json::dump throws; valid UTF-8 comes out identical.
std::string json_text(const nlohmann::json& j, int indent = -1);

}  // namespace dd
