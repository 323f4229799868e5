// "Did you mean": the known words (commands, flags, finding ids) close enough to a mistyped one to be what
// was meant, by edit distance (common/edit_distance.h). Garbage gets no suggestion.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace dd {

// The known words nearest to `typed` (ASCII case folded), all at the smallest distance found, in the order of
// `known`, at most `max_shown`. Close means at most 2 edits and at most a third of typed's length (so one
// edit for a word of 3-5 characters); a word of fewer than 3 characters gets nothing, as does a known word.
std::vector<std::string> closest_words(std::string_view typed, const std::vector<std::string>& known,
                                       size_t max_shown = 3);

// "did you mean a?", "did you mean a or b?", "did you mean a, b or c?"; "" for no words.
std::string did_you_mean(const std::vector<std::string>& words);

}  // namespace dd
