// check_metrics and bench_metrics (see metrics.h): a family per figure (HELP, TYPE gauge, its samples), in
// the order first added; samples with the same labels are written once (the first value).
#include "report/metrics.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>
#include <vector>

namespace dd::report {

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

class Exposition {
 public:
  void add(const std::string& name, const std::string& help, const Labels& labels, double value) {
    if (!std::isfinite(value)) return;
    auto [it, fresh] = index_.try_emplace(name, families_.size());
    if (fresh) families_.push_back({name, help, {}, {}});
    Family& f = families_[it->second];
    std::string l;
    for (const auto& [k, v] : labels)
      l += fmt::format("{}{}=\"{}\"", l.empty() ? "" : ",", k, metric_label_value(v));
    if (!f.seen.insert(l).second) return;
    f.samples.push_back(
        fmt::format("{}{} {}", name, l.empty() ? "" : "{" + l + "}", fmt::format("{}", value)));
  }
  std::string text() const {
    std::string out;
    for (const auto& f : families_) {
      out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", f.name, f.help, f.name);
      for (const auto& s : f.samples) out += s + "\n";
    }
    return out;
  }

 private:
  struct Family {
    std::string name, help;
    std::vector<std::string> samples;
    std::set<std::string> seen;
  };
  std::vector<Family> families_;
  std::map<std::string, size_t> index_;
};

double json_num(const nlohmann::json& j, const char* key, double fallback = NAN) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

std::string json_str(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string bytes_label(const nlohmann::json& op) {
  auto it = op.find("bytes");
  return it != op.end() && it->is_number_unsigned() ? std::to_string(it->get<uint64_t>()) : "";
}

int verdict_value(const std::string& v) { return v == "fail" ? 2 : v == "warn" ? 1 : 0; }

void add_findings(Exposition& m, const nlohmann::json& report) {
  std::map<std::string, int> by_severity{{"ok", 0}, {"info", 0}, {"warn", 0}, {"fail", 0}};
  for (const auto& f : report.value("findings", nlohmann::json::array())) {
    const std::string sev = json_str(f, "severity");
    if (by_severity.count(sev)) ++by_severity[sev];
    if (sev == "warn" || sev == "fail")
      m.add("distdoctor_check_finding", "A warn or fail finding of the last check (1), by id and node",
            {{"id", json_str(f, "id")}, {"severity", sev}, {"node", json_str(f, "node")}}, 1);
  }
  for (const auto& [sev, n] : by_severity)
    m.add("distdoctor_check_findings", "Findings of the last check, by severity", {{"severity", sev}}, n);
}

// One collective's figures (check's pass and bench share the op fields: bytes, time_us, *_gbps, wrong).
void add_op(Exposition& m, const std::string& prefix, const nlohmann::json& op, Labels labels) {
  labels.insert(labels.begin(), {{"collective", json_str(op, "collective")}, {"bytes", bytes_label(op)}});
  m.add(prefix + "_busbw_bytes_per_second", "Bus bandwidth (nccl-tests' busbw) of the collective", labels,
        json_num(op, "busbw_gbps") * 1e9);
  m.add(prefix + "_algbw_bytes_per_second", "Algorithm bandwidth (bytes / time) of the collective", labels,
        json_num(op, "algbw_gbps") * 1e9);
  m.add(prefix + "_time_seconds", "Time of one run of the collective", labels, json_num(op, "time_us") / 1e6);
  m.add(prefix + "_wrong_elements", "Output elements that held a wrong value (0 = verified)", labels,
        json_num(op, "wrong"));
}

void add_mesh(Exposition& m, const nlohmann::json& facts) {
  const auto nodes = facts.value("nodes", nlohmann::json::array());
  auto host = [&](const nlohmann::json& idx) {
    const int i = idx.is_number_integer() ? idx.get<int>() : -1;
    if (i < 0 || size_t(i) >= nodes.size()) return std::to_string(i);
    const auto& n = nodes[size_t(i)];  // "host(node rank)", as the report names nodes: two may share a host
    return fmt::format("{}({})", json_str(n, "hostname"), static_cast<int>(json_num(n, "node_rank", i)));
  };
  const auto mesh = facts.value("mesh", nlohmann::json::object());
  for (const auto& p : mesh.value("probes", nlohmann::json::array())) {
    const Labels l{{"from", host(p.value("from", nlohmann::json()))},
                   {"to", host(p.value("to", nlohmann::json()))},
                   {"to_addr", json_str(p, "to_addr")}};
    m.add("distdoctor_check_mesh_ok",
          "Whether a TCP connection between the two nodes succeeded (1) or not (0)", l,
          p.value("ok", false) ? 1 : 0);
    if (p.value("ok", false))
      m.add("distdoctor_check_mesh_connect_seconds", "TCP connect time between the two nodes", l,
            json_num(p, "connect_ms") / 1e3);
  }
}

}  // namespace

std::string metric_label_value(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string check_metrics(const nlohmann::json& report, double unix_time) {
  Exposition m;
  m.add("distdoctor_check_verdict", "Verdict of the last check: 0 pass, 1 warn, 2 fail", {},
        verdict_value(json_str(report, "verdict")));
  m.add("distdoctor_check_last_run_timestamp_seconds", "When the last check ended (Unix time)", {},
        unix_time);
  add_findings(m, report);
  const auto meas = report.value("measurements", nlohmann::json::object());
  if (meas.is_object() && meas.contains("collectives") && meas["collectives"].is_object()) {
    const auto& c = meas["collectives"];
    m.add("distdoctor_check_collectives_ok", "Whether every collective of the pass passed (1) or not (0)",
          {{"engine", json_str(c, "engine")}}, c.value("ok", false) ? 1 : 0);
    m.add("distdoctor_check_collectives_duration_seconds", "Wall time of the collective pass",
          {{"engine", json_str(c, "engine")}}, json_num(c, "wall_s"));
    for (const auto& op : c.value("ops", nlohmann::json::array()))
      if (op.is_object()) add_op(m, "distdoctor_check_collective", op, {{"engine", json_str(c, "engine")}});
  }
  const auto facts = report.value("facts", nlohmann::json::object());
  if (facts.is_object() && facts.contains("mesh")) add_mesh(m, facts);
  return m.text();
}

std::string bench_metrics(const nlohmann::json& bench, double unix_time) {
  Exposition m;
  const std::string engine = json_str(bench, "engine");
  m.add("distdoctor_bench_ok",
        "Whether every run of the last bench completed with verified data (1) or not (0)",
        {{"engine", engine}}, bench.value("ok", false) ? 1 : 0);
  m.add("distdoctor_bench_last_run_timestamp_seconds", "When the last bench ended (Unix time)", {},
        unix_time);
  m.add("distdoctor_bench_ranks", "Ranks of the last bench", {{"engine", engine}}, json_num(bench, "world"));
  const double link = json_num(bench.value("link", nlohmann::json::object()), "gbps", 0);
  if (link > 0)
    m.add("distdoctor_bench_link_bytes_per_second", "The bandwidth limit of the GPUs' link (NVLink or PCIe)",
          {{"engine", engine}}, link * 1e9);
  for (const auto& op : bench.value("results", nlohmann::json::array())) {
    if (!op.is_object()) continue;
    const Labels l{{"engine", engine},
                   {"dtype", json_str(op, "dtype")},
                   {"in_place", op.value("in_place", false) ? "true" : "false"}};
    add_op(m, "distdoctor_bench_collective", op, l);
    if (link > 0 && op.value("complete", false))
      m.add(
          "distdoctor_bench_collective_link_ratio", "Bus bandwidth as a share of the link's limit (0-1)",
          [&] {
            Labels x = l;
            x.insert(x.begin(), {{"collective", json_str(op, "collective")}, {"bytes", bytes_label(op)}});
            return x;
          }(),
          json_num(op, "busbw_gbps") / link);
  }
  return m.text();
}

std::string launch_metrics(const nlohmann::json& doc, double unix_time) {
  Exposition m;
  const std::string job = json_str(doc, "job");
  m.add("distdoctor_launch_lateness_timestamp_seconds", "When these lateness figures were taken (Unix time)",
        {{"job", job}}, unix_time);
  m.add("distdoctor_launch_attempt", "The attempt these figures are of (0 = the first)", {{"job", job}},
        json_num(doc, "attempt"));
  for (const auto& r : doc.value("ranks", nlohmann::json::array())) {
    if (!r.is_object()) continue;
    const Labels l{{"job", job},
                   {"group", json_str(r, "pg")},
                   {"rank", std::to_string(r.value("rank", -1))},
                   {"signal", json_str(r, "signal")}};
    m.add("distdoctor_launch_rank_lateness_seconds",
          "A rank's median lateness in the collectives compared: its arrival (or, signal gpu, its kernel's "
          "start) after the earliest rank's",
          l, json_num(r, "late_ms") / 1e3);
    m.add("distdoctor_launch_rank_others_wait_ratio",
          "The part of the other ranks' time spent waiting for this rank in collectives (0-1)", l,
          json_num(r, "others_wait_share"));
    m.add("distdoctor_launch_rank_collectives_compared", "Collectives the rank's lateness was measured on", l,
          json_num(r, "compared"));
  }
  for (const auto& g : doc.value("stragglers", nlohmann::json::array()))
    if (g.is_object())
      m.add("distdoctor_launch_straggler", "1 for a rank the others wait for (launch.job.straggler)",
            {{"job", job},
             {"group", json_str(g, "pg")},
             {"rank", std::to_string(g.value("rank", -1))},
             {"signal", json_str(g, "signal")}},
            1);
  return m.text();
}

}  // namespace dd::report
