// Secrets out of what launch prints or publishes: secret-named variables, URL passwords, secret query
// parameters (tokens, credentials, signatures of pre-signed URLs), and secret-looking NAME=VALUE pairs and
// --flag values in free text.
#include "common/redact.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "common/safe_text.h"
#include "common/secret_words.h"

namespace dd {

namespace {

std::vector<std::string>& secret_values() {
  static std::vector<std::string> v;
  return v;
}

std::string upper_of(const std::string& s) {
  std::string u = s;
  for (char& c : u) c = char(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

bool is_scheme_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
}

// The end of a URL's authority (user:pw@host:port) that starts at `from`.
size_t authority_end(const std::string& s, size_t from) {
  size_t i = from;
  while (i < s.size() && s[i] != '/' && s[i] != '?' && s[i] != '#' && s[i] != '"' && s[i] != '\'' &&
         !std::isspace(static_cast<unsigned char>(s[i])))
    ++i;
  return i;
}

// Whether a word is "--name", "-name" or "name" with a secret name (argv flags, env names).
bool is_secret_flag(const std::string& word) {
  if (word.empty() || word[0] != '-') return false;
  const std::string name = word.substr(
      word.find_first_not_of('-') == std::string::npos ? word.size() : word.find_first_not_of('-'));
  return !name.empty() && is_secret_name(name);
}

// Where a word's "NAME=" or "--name=" part with a secret name ends (the value starts there), npos if the
// word is no such pair.
size_t secret_pair_value(const std::string& word) {
  const size_t eq = word.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == word.size()) return std::string::npos;
  std::string name = word.substr(0, eq);
  name.erase(0, std::min(name.size(), name.find_first_not_of("-\"'")));
  const bool name_like = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
  return name_like && is_secret_name(name) ? eq + 1 : std::string::npos;
}

// Whether this word makes the next one a secret: "--password" (no "="), "token:" ("Authorization:").
bool announces_secret(const std::string& word) {
  if (word.find('=') != std::string::npos) return false;
  if (is_secret_flag(word)) return true;
  if (word.size() < 2 || word.back() != ':') return false;
  // "Authorization:", "token:", "api_key:" announce a secret; a plain "key:" or "keys:" is a word of the
  // sentence ("waiting for 1 key: dd/comm/gloo/1"), not a header.
  // Nor does an exception's name ("KeyError: 'label'", "AuthenticationError: bad login").
  const std::string name = upper_of(word.substr(0, word.size() - 1));
  const auto ends_with = [&](const std::string& tail) {
    return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
  };
  if (ends_with("ERROR") || ends_with("EXCEPTION") || ends_with("WARNING")) return false;
  return name != "KEY" && name != "KEYS" && is_secret_name(name);
}

bool is_auth_scheme(const std::string& word) {
  const std::string u = upper_of(word);
  return u == "BEARER" || u == "BASIC" || u == "TOKEN";
}

// "scheme://user:PASSWORD@host" -> "scheme://user:<redacted>@host", for every URL in s.
std::string redact_url_passwords(const std::string& value) {
  std::string out;
  size_t i = 0;
  for (size_t sep; (sep = value.find("://", i)) != std::string::npos;) {
    size_t scheme = sep;
    while (scheme > i && is_scheme_char(value[scheme - 1])) --scheme;
    const size_t host = sep + 3, end = authority_end(value, host);
    const size_t at = value.rfind('@', end - 1);
    const size_t colon = at == std::string::npos || at < host ? std::string::npos : value.find(':', host);
    if (scheme < sep && colon != std::string::npos && colon < at) {
      out += value.substr(i, colon + 1 - i) + kRedacted;
      i = at;  // "@host..." is copied by the next round
    } else {
      out += value.substr(i, host - i);
      i = host;
    }
  }
  return out + value.substr(i);
}

// URL query parameters that carry a secret: "?access_token=X", "&X-Amz-Credential=X", and the signatures of
// pre-signed URLs ("&X-Amz-Signature=X", Azure's "&sig=X"), which grant access on their own.
std::string redact_query_secrets(const std::string& s) {
  std::string out;
  size_t i = 0;
  for (size_t p; (p = s.find_first_of("?&", i)) != std::string::npos;) {
    size_t eq = p + 1;
    while (eq < s.size() && (std::isalnum(static_cast<unsigned char>(s[eq])) || s[eq] == '_' || s[eq] == '-'))
      ++eq;
    out += s.substr(i, eq - i);
    i = eq;
    if (eq >= s.size() || s[eq] != '=' || eq == p + 1) continue;
    const std::string param = s.substr(p + 1, eq - p - 1), u = upper_of(param);
    if (!is_secret_name(param) && u != "SIG" && u.find("SIGNATURE") == std::string::npos) continue;
    size_t end = eq + 1;
    while (end < s.size() && s[end] != '&' && s[end] != '#' && s[end] != '"' && s[end] != '\'' &&
           !std::isspace(static_cast<unsigned char>(s[end])))
      ++end;
    if (end > eq + 1) {
      out += std::string("=") + kRedacted;
      i = end;
    }
  }
  return out + s.substr(i);
}

}  // namespace

bool might_hold_secret(std::string_view s) {
  for (const auto& v : secret_values())
    if (s.find(v) != std::string_view::npos) return true;
  return has_secret_word(s);
}

bool is_secret_name(const std::string& name) {
  std::string u = upper_of(name);
  // Token counts and tokenizers are not secrets ("MAX_NEW_TOKENS", "--tokenizer"): drop those words first.
  // Nor is InfiniBand's partition key (NCCL_IB_PKEY): a network setting a diagnosis needs to show.
  for (const char* benign : {"TOKENIZ", "TOKENS", "PKEY"})
    for (size_t p; (p = u.find(benign)) != std::string::npos;) u.replace(p, std::string(benign).size(), "_");
  for (const char* word : {"TOKEN", "KEY", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH"})
    if (u.find(word) != std::string::npos) return true;
  return false;
}

std::string redact_value(const std::string& name, const std::string& value) {
  if (!name.empty() && is_secret_name(name)) return value.empty() ? value : kRedacted;
  return redact_query_secrets(redact_url_passwords(value));
}

void add_secret_values(const std::map<std::string, std::string>& env) {
  for (const auto& [name, value] : env)
    if (value.size() >= kMinSecretValue && is_secret_name(name) &&
        std::find(secret_values().begin(), secret_values().end(), value) == secret_values().end())
      secret_values().push_back(value);
  // Longer first: a value that holds a shorter one is hidden whole.
  std::sort(secret_values().begin(), secret_values().end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

// Every known secret value in text replaced by kRedacted.
std::string without_secret_values(const std::string& text) {
  std::string out = text;
  for (const auto& v : secret_values())
    for (size_t p = out.find(v); p != std::string::npos; p = out.find(v, p + std::strlen(kRedacted)))
      out.replace(p, v.size(), kRedacted);
  return out;
}

namespace {

// The word loop of both redactions. `announced`: a word that announces a secret ("--password", "token:",
// "Bearer") hides the next one, which only untrusted text may have (in the tool's own sentences the next
// word is a word of the sentence).
std::string redact_words(const std::string& raw, bool announced) {
  const std::string text = secret_values().empty() ? raw : without_secret_values(raw);
  if (!has_secret_word(text)) return text;
  std::string out;
  bool secret_next = false;  // the previous word announced a secret ("--password", "Authorization:")
  size_t i = 0;
  while (i < text.size()) {
    const size_t start = i;
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    out += text.substr(start, i - start);
    if (i == text.size()) break;
    const size_t word_start = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    const std::string word = text.substr(word_start, i - word_start);
    if (secret_next && (is_auth_scheme(word) || word.rfind("--", 0) == 0)) {
      out += word;  // "Bearer" comes before the secret; a flag means the previous one took no value
      secret_next = !is_auth_scheme(word) ? announces_secret(word) : true;
      continue;
    }
    if (secret_next) {
      out += kRedacted;
      secret_next = false;
      continue;
    }
    const size_t value = secret_pair_value(word);
    if (value == std::string::npos) {
      out += redact_value("", word);
      secret_next = announced && (announces_secret(word) || upper_of(word) == "BEARER");
      continue;
    }
    out += word.substr(0, value) + kRedacted;
    const char quote = word[value];  // NAME="two words": the quoted value runs on to its closing quote
    if ((quote == '"' || quote == '\'') && word.find(quote, value + 1) == std::string::npos) {
      const size_t close = text.find(quote, i);
      i = close == std::string::npos ? text.size() : close + 1;
    }
  }
  return out;
}

}  // namespace

std::string redact_text(const std::string& text) { return redact_words(text, true); }

std::string redact_known(const std::string& text) { return redact_words(text, false); }

std::string redact_command_line(const std::string& nul_separated) {
  std::vector<std::string> argv;
  for (size_t i = 0; i <= nul_separated.size();) {
    const size_t end = std::min(nul_separated.find('\0', i), nul_separated.size());
    if (end > i) argv.push_back(nul_separated.substr(i, end - i));
    i = end + 1;
  }
  std::string out;
  for (const auto& a : redact_argv(argv)) out += (out.empty() ? "" : " ") + a;
  return out;
}

std::vector<std::string> redact_argv(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  bool secret_next = false;
  for (const auto& arg : argv) {
    out.push_back(secret_next ? kRedacted : redact_text(arg));
    secret_next = arg.find('=') == std::string::npos && is_secret_flag(arg);
  }
  return out;
}

void redact_json(nlohmann::json& j) {
  if (j.is_string()) {
    j = redact_known(j.get_ref<const std::string&>());
  } else if (j.is_array()) {
    for (auto& e : j) redact_json(e);
  } else if (j.is_object()) {
    for (auto& [key, value] : j.items()) {
      if (value.is_string() && is_secret_name(key) && !value.get_ref<const std::string&>().empty())
        value = kRedacted;
      else
        redact_json(value);
    }
  }
}

std::string shown(std::string_view s) { return printable(redact_known(std::string(s))); }

std::string output_json(nlohmann::json j, int indent) {
  redact_json(j);
  return json_text(j, indent);
}

}  // namespace dd
