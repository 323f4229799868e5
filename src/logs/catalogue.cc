// Catalogue loading (nlohmann::json) and matching (memmem prefilter, then std::regex on candidate lines
// only).
#include "logs/catalogue.h"

#include <algorithm>
#include <bitset>
#include <cctype>
#include <cstring>
#include <nlohmann/json.hpp>

#include "common/json_limits.h"
#include "logs/catalogue_roles.h"
#include "logs/known_errors_data.h"

namespace dd::logs {

namespace {

constexpr size_t kMaxEntries = 512;

// How unusual a byte is in ordinary text: anchors on rare pairs make the prefilter fire less often.
int rarity(unsigned char c) {
  if (c == ' ' || c == ':' || c == ',') return 0;
  if (std::strchr("etaoinshrdlcu", c)) return 1;
  if (c >= 'a' && c <= 'z') return 2;
  if (c >= 'A' && c <= 'Z') return 3;
  return 4;
}

uint32_t pair_at(const char* p) {
  return static_cast<unsigned char>(p[0]) | (static_cast<uint32_t>(static_cast<unsigned char>(p[1])) << 8);
}

}  // namespace

void Catalogue::build_prefilter() {
  info_first_.fill(false);
  for (size_t i : info_entries_)
    for (const auto& n : entries_[i].needles) info_first_[static_cast<unsigned char>(n[0])] = true;
  anchor_bits_.assign(65536 / 64, 0);
  anchors_.clear();
  for (size_t i = 0; i < entries_.size(); ++i) {
    const auto& e = entries_[i];
    if (!e.is_finding()) continue;  // read by its role's reader only (role_needles)
    for (size_t k = 0; k < e.needles.size(); ++k) {
      const std::string& n = e.needles[k];
      size_t best = 0;
      int best_score = -1;
      for (size_t j = 0; j + 1 < n.size(); ++j) {
        int sc = rarity(n[j]) + rarity(n[j + 1]);
        if (sc > best_score) {
          best_score = sc;
          best = j;
        }
      }
      uint32_t pr = pair_at(n.data() + best);
      anchor_bits_[pr >> 6] |= uint64_t{1} << (pr & 63);
      anchors_.push_back(
          NeedleRef{pr, static_cast<uint32_t>(i), static_cast<uint32_t>(k), static_cast<uint32_t>(best)});
    }
  }
  // Sorted by pair (then in entry order): a pair's needles are one run, found by binary search.
  std::stable_sort(anchors_.begin(), anchors_.end(),
                   [](const NeedleRef& a, const NeedleRef& b) { return a.pair < b.pair; });
}

namespace {

// One entry of the document; an error names it.
Result<CatalogueEntry> parse_entry(const nlohmann::json& j, size_t i, bool check_patterns) {
  CatalogueEntry e;
  try {
    e.id = j.at("id").get<std::string>();
    e.severity = report::severity_from_name(j.value("severity", "fail"));
    e.title = j.at("title").get<std::string>();
    e.cause = j.value("cause", "");
    e.fix = j.value("fix", "");
    e.references = j.value("references", std::vector<std::string>{});
    e.needles = j.at("needles").get<std::vector<std::string>>();
    e.pattern = j.value("pattern", "");
    e.info_lines = j.value("info_lines", false);
    e.source = j.value("source", "");
    if (auto roles = read_roles(j, e); !roles.ok()) return roles.error();
  } catch (const std::exception& ex) {
    return Error{"catalogue entry " + std::to_string(i) + " (" + e.id + "): " + ex.what()};
  }
  if (e.needles.empty()) return Error{"catalogue entry " + e.id + ": needs at least one needle"};
  for (const auto& n : e.needles)
    if (n.size() < 2) return Error{"catalogue entry " + e.id + ": needles need 2 characters or more"};
  if (!e.pattern.empty()) {
    e.re = std::make_shared<const LazyRegex>(e.pattern);
    try {
      if (check_patterns) e.re->get();  // compiled now, and kept for the matching
    } catch (const std::exception& ex) {
      return Error{"catalogue entry " + e.id + ": bad pattern: " + ex.what()};
    }
  }
  return e;
}

}  // namespace

Result<Catalogue> Catalogue::parse(std::string_view json_text, bool check_patterns) {
  Catalogue c;
  nlohmann::json doc;
  try {
    doc = dd::parse_json(json_text);
  } catch (const std::exception& e) {
    return Error{std::string("catalogue is not valid JSON: ") + e.what()};
  }
  const nlohmann::json& arr = doc.is_object() && doc.contains("entries") ? doc["entries"] : doc;
  if (!arr.is_array()) return Error{"catalogue: expected an array of entries"};
  for (size_t i = 0; i < arr.size(); ++i) {
    auto e = parse_entry(arr[i], i, check_patterns);
    if (!e.ok()) return e.error();
    if (c.find(e->id)) return Error{"catalogue: duplicate id " + e->id};
    if (e->info_lines && e->is_finding()) c.info_entries_.push_back(c.entries_.size());
    c.entries_.push_back(std::move(e.value()));
    if (c.entries_.size() > kMaxEntries) return Error{"catalogue: more than 512 entries"};
  }
  if (auto s = check_consequence_of(c); !s.ok()) return s.error();
  c.build_prefilter();
  c.build_role_needles();
  return c;
}

const Catalogue& Catalogue::builtin() {
  static const Catalogue c = [] {
    auto r = parse(kKnownErrorsJson, false);  // its patterns: Catalogue.EmbeddedPatternsCompile
    if (!r.ok()) {
      fprintf(stderr, "distdoctor: embedded catalogue is broken: %s\n", r.error().message().c_str());
      std::abort();
    }
    return std::move(r.value());
  }();
  return c;
}

const CatalogueEntry* Catalogue::find(std::string_view id) const {
  for (const auto& e : entries_)
    if (e.id == id) return &e;
  return nullptr;
}

namespace {

// Confirms a candidate with its regex (if any) and records the captures.
void confirm(const CatalogueEntry& e, size_t idx, std::string_view line, std::vector<CatalogueMatch>& out) {
  CatalogueMatch m{idx, {}};
  if (e.re) {
    // std::regex recurses per character: run it on a bounded window around the needle, never a whole long
    // line.
    constexpr size_t kBefore = 256, kWindow = 1024;
    if (line.size() > kWindow) {
      size_t pos = line.size();
      for (const auto& n : e.needles)
        if (const void* h = memmem(line.data(), line.size(), n.data(), n.size()))
          pos = std::min(pos, static_cast<size_t>(static_cast<const char*>(h) - line.data()));
      if (pos == line.size()) pos = 0;
      size_t start = pos > kBefore ? pos - kBefore : 0;
      line = line.substr(start, kWindow);
    }
    std::match_results<std::string_view::const_iterator> mr;
    if (!std::regex_search(line.begin(), line.end(), mr, e.re->get())) return;
    for (size_t g = 1; g < mr.size(); ++g) m.captures.push_back(mr[g].matched ? mr[g].str() : "");
  }
  out.push_back(std::move(m));
}

}  // namespace

void Catalogue::match(std::string_view line, bool nccl_info, std::vector<CatalogueMatch>& out) const {
  if (nccl_info) {
    // INFO lines are the bulk of any log: info_lines needles must start the message, tested by first byte.
    if (line.empty() || !info_first_[static_cast<unsigned char>(line[0])]) return;
    for (size_t i : info_entries_)
      for (const auto& nd : entries_[i].needles)
        if (line.size() >= nd.size() && std::memcmp(line.data(), nd.data(), nd.size()) == 0) {
          confirm(entries_[i], i, line, out);
          break;
        }
    return;
  }
  if (line.size() < 2) return;
  std::bitset<kMaxEntries> hit;
  bool any = false;
  const char* p = line.data();
  const size_t n = line.size();
  for (size_t i = 0; i + 1 < n; ++i) {
    uint32_t pr = pair_at(p + i);
    if (!(anchor_bits_[pr >> 6] & (uint64_t{1} << (pr & 63)))) continue;
    auto r = std::lower_bound(anchors_.begin(), anchors_.end(), pr,
                              [](const NeedleRef& a, uint32_t pair) { return a.pair < pair; });
    for (; r != anchors_.end() && r->pair == pr; ++r) {
      if (hit[r->entry] || i < r->anchor) continue;
      const std::string& nd = entries_[r->entry].needles[r->needle];
      size_t at = i - r->anchor;
      if (at + nd.size() <= n && std::memcmp(p + at, nd.data(), nd.size()) == 0) {
        hit[r->entry] = true;
        any = true;
      }
    }
  }
  if (!any) return;
  for (size_t i = 0; i < entries_.size(); ++i)
    if (hit[i]) confirm(entries_[i], i, line, out);
}

namespace {
// A capture worth showing: it holds a letter or a digit (not only quotes, spaces or punctuation).
bool has_word(const std::string& s) {
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c))) return true;
  return false;
}
}  // namespace

std::string Catalogue::render_title(const CatalogueEntry& e, const std::vector<std::string>& captures) {
  std::string t;
  t.reserve(e.title.size() + 32);
  for (size_t i = 0; i < e.title.size(); ++i) {
    if (e.title[i] == '{' && i + 2 < e.title.size() && e.title[i + 2] == '}' && e.title[i + 1] >= '1' &&
        e.title[i + 1] <= '9') {
      size_t g = static_cast<size_t>(e.title[i + 1] - '1');
      // A capture with no word ("'" from "instance of 'c10::DistBackendError'") is left out with the ": "
      // before it: "DistBackendError", not "DistBackendError: '".
      if (g < captures.size() && !has_word(captures[g])) {
        while (!t.empty() && (t.back() == ' ' || t.back() == ':' || t.back() == '=')) t.pop_back();
        i += 2;
        continue;
      }
      t += g < captures.size() ? captures[g] : "…";
      i += 2;
    } else {
      t += e.title[i];
    }
  }
  return t;
}

}  // namespace dd::logs
