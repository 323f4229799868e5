// Tests of the Flight Recorder dump reader: real dumps (fixtures/logs/h100x4_hangs, PyTorch 2.11, version
// "2.10"), the synthetic JSON form and a Python-pickled dump (fixtures/logs/fr, made by make_fr_fixtures.py),
// older and partial dumps, file names, and the record's own JSON round trip.
#include "logs/fr/flight_recorder.h"

#include <gtest/gtest.h>

namespace dd::logs {
namespace {

using nlohmann::json;

const std::string kReal = std::string(DD_FIXTURE_DIR) + "/logs/h100x4_hangs";
const std::string kSynth = std::string(DD_FIXTURE_DIR) + "/logs/fr";

FlightRecord load(const std::string& path) {
  auto r = read_flight_record_file(path);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message());
  return r.ok() ? *r : FlightRecord{};
}

TEST(FrRecord, RealDumpOfTheDesyncedRank) {
  FlightRecord r = load(kReal + "/desync_op/fr/fr_trace_3");
  EXPECT_EQ(r.rank, 3);
  EXPECT_EQ(r.format, "pickle");
  EXPECT_EQ(r.version, "2.10");
  EXPECT_EQ(r.comm_lib_version, "2.28.9");
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0], (FrGroup{"0", "default_pg", {0, 1, 2, 3}}));
  ASSERT_EQ(r.status.size(), 1u);
  EXPECT_EQ(r.status[0], (FrGroupStatus{0, 8, -1, 6}));
  ASSERT_EQ(r.entries.size(), 8u);
  const FrEntry& e = r.entries[6];
  EXPECT_EQ(e.op, "nccl:broadcast");
  EXPECT_EQ(e.collective_seq_id, 7);
  EXPECT_EQ(e.pg_name, "0");
  EXPECT_EQ(e.pg_desc, "default_pg");
  EXPECT_EQ(e.state, "scheduled");
  EXPECT_FALSE(e.completed());
  EXPECT_EQ(e.input_sizes, (std::vector<std::vector<int64_t>>{{1048576}}));
  EXPECT_EQ(e.input_dtypes, std::vector<std::string>{"Float"});
  EXPECT_EQ(e.time_completed_ns, -1);
  EXPECT_EQ(e.timeout_ms, 10000);
  ASSERT_EQ(e.frames.size(), 3u);
  EXPECT_EQ(e.frames[0].name, "broadcast");
  EXPECT_EQ(e.frames[2], (FrFrame{"<module>", "tools/device/hang_worker.py", 69}));
  EXPECT_EQ(r.entries[1].output_sizes, (std::vector<std::vector<int64_t>>{{4, 1048576}}));
  EXPECT_TRUE(r.entries[0].completed());
  EXPECT_TRUE(r.warnings.empty());
}

TEST(FrRecord, RealDumpWithoutCollectives) {  // late_init: rank 3 never came, nothing was recorded
  FlightRecord r = load(kReal + "/late_init/fr/fr_trace_1");
  EXPECT_EQ(r.rank, 1);
  EXPECT_EQ(r.version, "2.10");
  EXPECT_TRUE(r.groups.empty());
  EXPECT_TRUE(r.entries.empty());
}

TEST(FrRecord, JsonFormAndPythonPickleGiveTheSameEntries) {
  FlightRecord p = load(kSynth + "/desync_op/nccl_trace_rank_3");
  FlightRecord j = load(kSynth + "/desync_op_json/comm_lib_trace_rank_3");
  EXPECT_EQ(j.format, "json");
  ASSERT_EQ(p.entries.size(), j.entries.size());
  EXPECT_EQ(j.status, p.status);  // the JSON form writes pg_status numbers as strings
  for (size_t i = 0; i < p.entries.size(); ++i) {
    FrEntry a = p.entries[i];
    a.frames.clear();  // the JSON form has no stacks
    EXPECT_EQ(a, j.entries[i]) << i;
  }
  FlightRecord py = load(kSynth + "/healthy_pypickle/nccl_trace_rank_2");
  EXPECT_EQ(py.rank, 2);
  ASSERT_EQ(py.entries.size(), 20u);
  EXPECT_EQ(py.entries[19].frames.size(), 5u);
}

TEST(FrRecord, OldAndPartialDumps) {
  json old = {{"version", "2.2"},
              {"pg_config", {{"0", {{"desc", "default_pg"}, {"ranks", json::array({0, 1})}}}}},
              {"entries", json::array({{{"profiling_name", "nccl:all_reduce"}, {"collective_seq_id", 3}}})}};
  auto r = flight_record_from_dump(old);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->groups[0], (FrGroup{"0", "default_pg", {0, 1}}));
  EXPECT_EQ(r->entries[0].collective_seq_id, 3);
  EXPECT_EQ(r->entries[0].record_id, -1);
  EXPECT_FALSE(r->warnings.empty());  // no state
  json odd = {{"version", 2}, {"entries", "x"}, {"pg_config", json::array()}};
  auto o = flight_record_from_dump(odd);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->version, "2");
  EXPECT_EQ(o->warnings.size(), 2u);
  EXPECT_FALSE(flight_record_from_dump(json::array()).ok());
  EXPECT_FALSE(flight_record_from_dump({{"x", 1}}).ok());
  EXPECT_FALSE(parse_flight_record("hello").ok());
  EXPECT_FALSE(parse_flight_record(std::string("\x80\x02]q\x00.", 6)).ok());  // a pickled list
}

TEST(FrRecord, FloatsOutsideTheIntegersAreAbsent) {  // fuzz found 1.754e+21 in a seq id (UB when cast)
  json d = {{"version", "2.10"},
            {"entries", json::array({{{"profiling_name", "nccl:all_reduce"}, {"collective_seq_id", 1.754e21}},
                                     {{"profiling_name", "nccl:all_reduce"}, {"collective_seq_id", 4.0}}})}};
  auto r = flight_record_from_dump(d);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->entries.size(), 2u);
  EXPECT_EQ(r->entries[0].collective_seq_id, -1);
  EXPECT_EQ(r->entries[1].collective_seq_id, 4);
}

TEST(FrRecord, RankFromFileName) {
  EXPECT_EQ(rank_from_dump_name("a/b/nccl_trace_rank_3"), 3);
  EXPECT_EQ(rank_from_dump_name("fr_trace_12"), 12);
  EXPECT_EQ(rank_from_dump_name("/x/dump_7.json"), 7);
  EXPECT_EQ(rank_from_dump_name("trace.pkl"), -1);
  EXPECT_EQ(rank_from_dump_name("x/fr_trace_"), -1);
  EXPECT_EQ(rank_from_dump_name("r12345678901"), -1);
}

TEST(FrRecord, DetectsDumpsByContent) {
  EXPECT_TRUE(looks_like_flight_record(std::string("\x80\x02}q", 4)));
  EXPECT_TRUE(looks_like_flight_record(" {\"version\": \"2.10\", \"pg_config\": {}}"));
  EXPECT_FALSE(looks_like_flight_record("{\"level\": \"info\"}"));
  EXPECT_FALSE(looks_like_flight_record("[rank0]: hello"));
}

TEST(FrRecord, JsonRoundTrip) {
  FlightRecord r = load(kReal + "/desync_pg/fr/fr_trace_0");
  ASSERT_EQ(r.groups.size(), 2u);
  json j = r;
  FlightRecord back = j.get<FlightRecord>();
  EXPECT_EQ(back, r);
  EXPECT_EQ(json(back), j);
}

}  // namespace
}  // namespace dd::logs
