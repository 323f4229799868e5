// closest_words and its sentence (see did_you_mean.h).
#include "common/did_you_mean.h"

#include <algorithm>
#include <cctype>

#include "common/edit_distance.h"

namespace dd {

namespace {

std::string folded(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::vector<std::string> closest_words(std::string_view typed, const std::vector<std::string>& known,
                                       size_t max_shown) {
  const std::string t = folded(typed);
  if (t.size() < 3 || std::find(known.begin(), known.end(), typed) != known.end()) return {};
  const size_t allowed = std::min<size_t>(2, t.size() / 3);
  size_t best = allowed + 1;
  std::vector<std::string> words;
  for (const auto& k : known) {
    const size_t d = edit_distance(t, folded(k), allowed);
    if (d > allowed || d > best) continue;  // 0: it differs in case only
    if (d < best) words.clear();
    best = d;
    if (words.size() < max_shown && std::find(words.begin(), words.end(), k) == words.end())
      words.push_back(k);
  }
  return words;
}

std::string did_you_mean(const std::vector<std::string>& words) {
  if (words.empty()) return "";
  std::string s = "did you mean " + words[0];
  for (size_t i = 1; i < words.size(); ++i) s += (i + 1 == words.size() ? " or " : ", ") + words[i];
  return s + "?";
}

}  // namespace dd
