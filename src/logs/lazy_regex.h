// LazyRegex: a std::regex compiled on first use, once, by whichever thread needs it first. The catalogue has
// about 40 patterns and std::regex takes ~10 ms to compile them, half of what `logs` spends on a small input
// (issue 38); most runs confirm none of them. A pattern that does not compile is found when the catalogue is
// parsed (Catalogue::parse calls get() on each, unless told the text is the embedded one; a failed compile
// throws and leaves it uncompiled).
#pragma once
#include <memory>
#include <mutex>
#include <regex>
#include <string>

namespace dd::logs {

class LazyRegex {
 public:
  explicit LazyRegex(std::string pattern) : pattern_(std::move(pattern)) {}

  const std::string& pattern() const { return pattern_; }

  // The compiled regex; throws std::regex_error if the pattern is bad (parse checked it unless embedded).
  const std::regex& get() const {
    std::call_once(once_, [this] {
      // One compile at a time in the process: std::regex's scanner fills the shared ctype<char> facet's
      // narrow cache without a lock, so two threads compiling two patterns race on it (ThreadSanitizer saw it
      // in `logs --jobs 2`). Compiles are few (about 40 patterns) and short.
      static std::mutex compiling;
      std::lock_guard<std::mutex> one(compiling);
      re_ = std::make_unique<std::regex>(pattern_, kFlags);
    });
    return *re_;
  }

 private:
  static constexpr std::regex::flag_type kFlags = std::regex::ECMAScript | std::regex::optimize;
  std::string pattern_;
  mutable std::once_flag once_;
  mutable std::unique_ptr<std::regex> re_;
};

}  // namespace dd::logs
