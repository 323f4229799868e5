// hang_trigger(): the catalogue's hang_trigger needles (taken from PyTorch 2.x ProcessGroupNCCL output
// recorded on 4x H100, fixtures/logs/h100x4_hangs, and older releases' wording), then the rank, SeqNum and op
// of the line.
#include "logs/hang_trigger.h"

#include "nccl/log_line.h"

namespace dd::logs {

namespace {

// "[rank3]:" at the start (PyTorch's prefix of a worker's stderr); strips it from *rest.
int leading_rank(std::string_view line, std::string_view* rest) {
  *rest = line;
  if (line.substr(0, 5) != "[rank") return -1;
  int64_t v;
  size_t used;
  if (!nccl::parse_int(line.substr(5), v, &used) || line.size() < 7 + used || line[5 + used] != ']' ||
      line[6 + used] != ':')
    return -1;
  *rest = line.substr(7 + used);
  return int(v);
}

// "[Rank 3]" / "[PG ID 0 PG GUID 0(default_pg) Rank 3]".
int bracket_rank(std::string_view s) {
  size_t k = s.find(" Rank ");
  if (k == std::string_view::npos) k = s.find("[Rank ");
  if (k == std::string_view::npos) return -1;
  int64_t v;
  size_t used;
  if (!nccl::parse_int(s.substr(k + 6), v, &used) || k + 6 + used >= s.size() || s[k + 6 + used] != ']')
    return -1;
  return int(v);
}

std::string op_type(std::string_view s) {
  size_t k = s.find("OpType=");
  if (k == std::string_view::npos) return "";
  size_t e = k + 7;
  while (e < s.size() && ((s[e] >= 'A' && s[e] <= 'Z') || s[e] == '_')) ++e;
  return std::string(s.substr(k + 7, e - k - 7));
}

}  // namespace

bool is_dump_echo(std::string_view line) {
  for (std::string_view n : {"preparing to dump debug info", "dumping nccl trace to", "dumping trace to",
                             "Flight Recorder trace successfully dumped"})
    if (line.find(n) != std::string_view::npos) return true;
  return false;
}

std::optional<HangTrigger> hang_trigger(std::string_view line) {
  return hang_trigger(line, Catalogue::builtin());
}

std::optional<HangTrigger> hang_trigger(std::string_view line, const Catalogue& cat) {
  if (line.size() > 64 * 1024) line = line.substr(0, 64 * 1024);
  for (const RoleNeedle& n : cat.role_needles(CatalogueRole::hang_trigger)) {
    if (line.find(n.text) == std::string_view::npos) continue;
    HangTrigger t;
    t.kind = cat.entries()[n.entry].hang_kind;
    std::string_view rest;
    t.rank = leading_rank(line, &rest);
    if (t.rank < 0) t.rank = bracket_rank(rest);
    t.seq = nccl::int_after(rest, "SeqNum=");
    if (t.seq < 0) t.seq = nccl::int_after(rest, "work sequence id: ");
    t.op = op_type(rest);
    t.text = std::string(rest.substr(0, 400));
    return t;
  }
  return std::nullopt;
}

}  // namespace dd::logs
