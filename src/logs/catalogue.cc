// Catalogue loading (nlohmann::json) and matching (memmem prefilter, then std::regex on candidate lines
// only).
#include "logs/catalogue.h"

#include <cstring>
#include <nlohmann/json.hpp>

#include "logs/known_errors_data.h"

namespace dd::logs {

Result<Catalogue> Catalogue::parse(std::string_view json_text) {
  Catalogue c;
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(json_text);
  } catch (const std::exception& e) {
    return Error{std::string("catalogue is not valid JSON: ") + e.what()};
  }
  const nlohmann::json& arr = doc.is_object() && doc.contains("entries") ? doc["entries"] : doc;
  if (!arr.is_array()) return Error{"catalogue: expected an array of entries"};
  for (size_t i = 0; i < arr.size(); ++i) {
    const auto& j = arr[i];
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
    } catch (const std::exception& ex) {
      return Error{"catalogue entry " + std::to_string(i) + " (" + e.id + "): " + ex.what()};
    }
    if (e.needles.empty()) return Error{"catalogue entry " + e.id + ": needs at least one needle"};
    for (const auto& n : e.needles)
      if (n.empty()) return Error{"catalogue entry " + e.id + ": empty needle"};
    if (!e.pattern.empty()) {
      try {
        e.re = std::make_shared<std::regex>(e.pattern, std::regex::ECMAScript | std::regex::optimize);
      } catch (const std::exception& ex) {
        return Error{"catalogue entry " + e.id + ": bad pattern: " + ex.what()};
      }
    }
    if (c.find(e.id)) return Error{"catalogue: duplicate id " + e.id};
    if (e.info_lines) c.info_entries_.push_back(c.entries_.size());
    c.entries_.push_back(std::move(e));
  }
  return c;
}

const Catalogue& Catalogue::builtin() {
  static const Catalogue c = [] {
    auto r = parse(kKnownErrorsJson);
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

bool has_needle(const CatalogueEntry& e, std::string_view line) {
  for (const auto& n : e.needles)
    if (memmem(line.data(), line.size(), n.data(), n.size())) return true;
  return false;
}

void try_entry(const CatalogueEntry& e, size_t idx, std::string_view line, std::vector<CatalogueMatch>& out) {
  if (!has_needle(e, line)) return;
  CatalogueMatch m{idx, {}};
  if (e.re) {
    std::match_results<std::string_view::const_iterator> mr;
    if (!std::regex_search(line.begin(), line.end(), mr, *e.re)) return;
    for (size_t g = 1; g < mr.size(); ++g) m.captures.push_back(mr[g].matched ? mr[g].str() : "");
  }
  out.push_back(std::move(m));
}

}  // namespace

void Catalogue::match(std::string_view line, bool nccl_info, std::vector<CatalogueMatch>& out) const {
  if (nccl_info) {
    for (size_t i : info_entries_) try_entry(entries_[i], i, line, out);
    return;
  }
  for (size_t i = 0; i < entries_.size(); ++i) try_entry(entries_[i], i, line, out);
}

std::string Catalogue::render_title(const CatalogueEntry& e, const std::vector<std::string>& captures) {
  std::string t;
  t.reserve(e.title.size() + 32);
  for (size_t i = 0; i < e.title.size(); ++i) {
    if (e.title[i] == '{' && i + 2 < e.title.size() && e.title[i + 2] == '}' && e.title[i + 1] >= '1' &&
        e.title[i + 1] <= '9') {
      size_t g = static_cast<size_t>(e.title[i + 1] - '1');
      t += g < captures.size() ? captures[g] : "?";
      i += 2;
    } else {
      t += e.title[i];
    }
  }
  return t;
}

}  // namespace dd::logs
