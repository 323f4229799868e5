// Edit distance between two words (optimal string alignment: insert, delete, substitute, or swap two
// neighbours, each costs 1), the measure behind "did you mean" (common/did_you_mean.h).
#pragma once
#include <cstddef>
#include <string_view>

namespace dd {

// The fewest single-character edits that turn a into b, where swapping two adjacent characters is one edit
// ("chekc" -> "check" is 1). Bytes are compared as given (callers fold case). Returns at most `cap` + 1:
// once every path costs more than cap the count stops there (pass a large cap for the exact distance).
size_t edit_distance(std::string_view a, std::string_view b, size_t cap = 64);

}  // namespace dd
