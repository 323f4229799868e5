// The known-error catalogue: data/known_errors.json, embedded at build time. Each entry has literal needles
// (a cheap prefilter), an optional regex (run only on lines holding a needle, for confirmation and captures),
// and the id, severity, title, cause, fix and references that become a finding, and the entry's roles: what
// the line is in a failure (docs/catalogue.md). It is the one place for what a log line means: `logs` and
// `explain` match its findings, finding_order.h reads the consequences, hang_trigger.h the lines that make
// `launch` stop a job, progress_scan.h the lines that report a peer's failure.
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

// What a line is in a failure ("role" in the JSON: one name or a list; "cause" when absent). An entry has at
// most one finding role (cause, consequence) and any of the others; one with no finding role is never a
// finding, only read by its role's reader.
enum class CatalogueRole : uint8_t {
  cause,        // a finding: the root cause when it is the first failure
  consequence,  // a finding that follows from another failure (a survivor's view of a peer that died, a
                // watchdog timeout after it, a generic error code a more specific line explains, a launcher's
                // summary): placed after the root cause, lowered to info and marked "consequence of ID"
  hang_trigger,  // a line a worker prints once a collective failed or timed out: `launch` stops the job and
                 // diagnoses at the first one ("hang_kind" says which kind)
  peer_failure,  // a line that reports another rank's failure, a timeout or a stop: a traceback holding it is
                 // a survivor's, not the rank's own error ("peer_kind")
};
inline constexpr size_t kCatalogueRoles = 4;

// The kinds of hang trigger, in the order they win when one line holds needles of several (a watchdog's abort
// line restates its timeout: the line is a timeout).
enum class HangTriggerKind : uint8_t { watchdog_timeout, dump_signal, abort, comm_error };
// lost_peer: the line says a peer's process exited or its connection closed (read on every line: it sets the
// rank's peer_lost); survivor_error: an error a rank raises after a peer failed, a wait timed out or the
// launcher stopped it (read in tracebacks only).
enum class PeerKind : uint8_t { lost_peer, survivor_error };

const char* hang_trigger_kind_name(HangTriggerKind k);  // "watchdog_timeout", ...
const char* peer_kind_name(PeerKind k);                 // "lost_peer", "survivor_error"

struct CatalogueEntry {
  std::string id;
  uint8_t roles = 1u << static_cast<unsigned>(CatalogueRole::cause);  // a set of CatalogueRole bits
  std::vector<std::string> consequence_of;  // a consequence: the entries it usually follows from (empty: any)
  HangTriggerKind hang_kind = HangTriggerKind::watchdog_timeout;  // with the hang_trigger role
  PeerKind peer_kind = PeerKind::survivor_error;                  // with the peer_failure role
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

  bool has_role(CatalogueRole r) const { return (roles >> static_cast<unsigned>(r)) & 1u; }
  // A finding role (cause or consequence): `logs` and `explain` match it.
  bool is_finding() const { return has_role(CatalogueRole::cause) || has_role(CatalogueRole::consequence); }
};

// How `explain` says an entry's roles: "" for a plain cause (the default, nothing to add).
std::string role_words(const CatalogueEntry& e);

// One needle of an entry with a role, in a list built once when the catalogue is parsed.
struct RoleNeedle {
  std::string text;
  uint32_t entry;  // index into entries()
};

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
  // The needles of the entries with `role` (built at parse, not per line): catalogue order, hang triggers
  // ordered by HangTriggerKind (the kind that wins first).
  const std::vector<RoleNeedle>& role_needles(CatalogueRole role) const {
    return role_needles_[static_cast<size_t>(role)];
  }

  // Appends matches for one line. nccl_info: the line is NCCL INFO output (only info_lines entries apply).
  // Only entries with a finding role match.
  void match(std::string_view line, bool nccl_info, std::vector<CatalogueMatch>& out) const;

  // Title with {n} replaced by captures.
  static std::string render_title(const CatalogueEntry& e, const std::vector<std::string>& captures);

 private:
  void build_prefilter();
  void build_role_needles();

  std::vector<CatalogueEntry> entries_;
  std::vector<size_t> info_entries_;  // indices of entries with info_lines
  std::array<std::vector<RoleNeedle>, kCatalogueRoles> role_needles_;
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
