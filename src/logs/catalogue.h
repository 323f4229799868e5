// The known-error catalogue: data/known_errors.json, embedded at build time. Each entry has literal needles
// (a cheap prefilter), an optional regex (run only on lines holding a needle, for confirmation and captures),
// and the id, severity, title, cause, fix and references that become a finding, and the entry's role: whether
// the line reports a cause or a consequence of another failure (read by finding_order.h's ordering).
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "logs/lazy_regex.h"
#include "report/finding.h"

namespace dd::logs {

// What a matched line is in a failure: a cause, or what follows from another failure (a survivor's view of a
// peer that died, a watchdog timeout after it, a generic error code a more specific line explains, a
// launcher's summary): placed after the root cause, lowered to info and marked "consequence of ID".
enum class CatalogueRole { cause, consequence };

struct CatalogueEntry {
  std::string id;
  CatalogueRole role = CatalogueRole::cause;  // "role" in the JSON: "cause" (the default) or "consequence"
  report::Severity severity = report::Severity::fail;
  std::string title;  // may hold {1}, {2}: regex captures
  std::string cause;
  std::string fix;
  std::vector<std::string> references;
  std::vector<std::string> needles;  // any of these literals must be in the line
  std::string pattern;               // ECMAScript regex; empty = needles suffice
  bool info_lines = false;  // also test NCCL INFO lines, where a needle must START the message (INFO lines
                            // are the bulk of a log; other entries skip them)
  std::string source;       // "nccl", "pytorch", "paddle", "mindspore", "hccl", "mpi", "cuda", ...
  std::shared_ptr<const LazyRegex> re;  // compiled on first use (lazy_regex.h)
};

// How `explain` says a role: "" for a cause (the default, nothing to add).
std::string_view role_words(CatalogueRole role);

struct CatalogueMatch {
  size_t entry;                       // index into entries()
  std::vector<std::string> captures;  // regex groups 1..n
};

class Catalogue {
 public:
  // Parses a catalogue document; an error names the entry at fault. check_patterns: compile every pattern
  // now to refuse a bad one (the embedded catalogue skips it: its test compiles them all).
  static Result<Catalogue> parse(std::string_view json_text, bool check_patterns = true);
  // The embedded catalogue (parsed once; a broken embedded file aborts: it is a build bug, caught by tests).
  static const Catalogue& builtin();

  const std::vector<CatalogueEntry>& entries() const { return entries_; }
  const CatalogueEntry* find(std::string_view id) const;
  bool has_info_entries() const { return !info_entries_.empty(); }

  // Appends matches for one line. nccl_info: the line is NCCL INFO output (only info_lines entries apply).
  void match(std::string_view line, bool nccl_info, std::vector<CatalogueMatch>& out) const;

  // Title with {n} replaced by captures.
  static std::string render_title(const CatalogueEntry& e, const std::vector<std::string>& captures);

 private:
  void build_prefilter();

  std::vector<CatalogueEntry> entries_;
  std::vector<size_t> info_entries_;  // indices of entries with info_lines
  // Prefilter: each needle is anchored on its rarest byte pair; one pass over the line checks a 64 Kbit map
  // of anchors and compares needles only where an anchor occurs (its needles found in a list sorted by pair:
  // a table of 65,536 lists cost ~2 ms to build in every run).
  struct NeedleRef {
    uint32_t pair;  // the anchor pair (first byte in the low 8 bits)
    uint32_t entry;
    uint32_t needle;
    uint32_t anchor;  // offset of the anchor pair inside the needle
  };
  std::array<bool, 256> info_first_{};  // first bytes of info_lines needles
  std::vector<uint64_t> anchor_bits_;
  std::vector<NeedleRef> anchors_;  // sorted by pair
};

}  // namespace dd::logs
