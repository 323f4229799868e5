// Flight Recorder dumps past the limits: a small pickle whose memo names one dict 400,000 times (refused
// before it is expanded, in bounded memory), the room the threads of one run share for decoded values, the
// values all its dumps may hold, and a dump too large, refused from its size without a byte read.
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "logs/analyze.h"
#include "logs/fr/flight_recorder.h"
#include "logs/fr/pickle_reader.h"

namespace dd::logs {
namespace {

std::string pickle_text(const std::string& s) {  // BINUNICODE: 'X', u32 length, bytes
  std::string b = "X";
  for (int k = 0; k < 4; ++k) b += static_cast<char>((s.size() >> (8 * k)) & 0xff);
  return b + s;
}

// {"version": "2.10", "pg_config": {}, "entries": [d, d, ...]}: d, a dict of `keys` small ints, is stored
// once (BINPUT 0) and named `uses` times (BINGET 0, 2 bytes each), as the 800 KB attack dump did.
std::string memo_dump(int keys, int uses) {
  std::string b("\x80\x02}(", 4);
  b += pickle_text("version") + pickle_text("2.10") + pickle_text("pg_config") + "}";
  b += pickle_text("entries") + "](}q" + std::string(1, '\0') + "(";
  for (int k = 0; k < keys; ++k) b += pickle_text("k" + std::to_string(k)) + "K" + static_cast<char>(k);
  b += "u";
  for (int i = 1; i < uses; ++i) b += "h" + std::string(1, '\0');
  return b + "eu.";
}

long max_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024;
}

// Bytes this process has read through read(2) and the like (/proc/self/io rchar).
uint64_t bytes_read_so_far() {
  std::ifstream in("/proc/self/io");
  std::string key;
  uint64_t v = 0;
  while (in >> key >> v)
    if (key == "rchar:") return v;
  return 0;
}

TEST(FrDumpLimits, MemoExpansionIsRefusedBeforeItIsBuilt) {
  const std::string dump = memo_dump(40, 400000);  // 16.4 million values once expanded
  ASSERT_LT(dump.size(), 1u << 20);
  const long before = max_rss_mib();
  auto r = parse_flight_record(dump);
  const long grew = max_rss_mib() - before;
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("shared values"), std::string::npos) << r.error().message();
  EXPECT_NE(r.error().message().find("refused"), std::string::npos) << r.error().message();
  EXPECT_LT(grew, 200) << "refusing an 800 KB dump took " << grew << " MiB more memory";
}

TEST(FrDumpLimits, ValuesAreCountedPerUseAgainstTheBudget) {
  // 4.4 million values once expanded: more than one dump may build (about 100 bytes of memory each).
  auto r = read_pickle(memo_dump(10, 400000));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("shared values"), std::string::npos) << r.error().message();
  // What is measured is what is built: 1 + 3 top values + 1 list + 2000 dicts of 11 values.
  auto d = decode_pickle(memo_dump(10, 2000));
  ASSERT_TRUE(d.ok()) << d.error().message();
  EXPECT_EQ(d->values(), 4u + 2000u * 11u);
  auto j = d->to_json();
  ASSERT_TRUE(j.ok());
  EXPECT_EQ((*j)["entries"].size(), 2000u);
}

TEST(FrDumpLimits, BytesAreMeasuredAsTheObjectTheyBecome) {
  // [b"\x00\xff"] becomes [{"$bytes": "00ff"}]: the list, the object and its string (a fuzzer's find: the
  // walk counted one value for the bytes and their raw length, less than what is built).
  auto d =
      decode_pickle(std::string("\x80\x02]C\x02\x00\xff"
                                "a.",
                                9));
  ASSERT_TRUE(d.ok()) << d.error().message();
  EXPECT_EQ(d->values(), 3u);
  EXPECT_EQ(d->text_bytes(), std::string("$bytes").size() + 4u);
  auto j = d->to_json();
  ASSERT_TRUE(j.ok());
  EXPECT_EQ(*j, nlohmann::json::parse(R"([{"$bytes": "00ff"}])"));
}

TEST(FrDumpLimits, ThreadsShareTheRoomForDecodedValues) {
  InFlightGate gate(30000);  // room for one dump of 22,004 values at a time
  PickleLimits lim;
  lim.in_flight = &gate;
  lim.in_flight_wait = std::chrono::milliseconds(200);
  ASSERT_TRUE(gate.acquire(20000, std::chrono::steady_clock::now()));  // another thread's dump, in use
  auto r = parse_flight_record(memo_dump(10, 2000), lim);
  ASSERT_FALSE(r.ok()) << "no room: it waits up to in_flight_wait, then says why";
  EXPECT_NE(r.error().message().find("did not fit"), std::string::npos) << r.error().message();
  std::thread done([&] { gate.release(20000); });  // the other dump ends, before or while this one waits
  lim.in_flight_wait = std::chrono::seconds(20);
  r = parse_flight_record(memo_dump(10, 2000), lim);
  done.join();
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->entries.size(), 2000u);
  EXPECT_TRUE(gate.acquire(30000, std::chrono::steady_clock::now())) << "its room was given back";
  EXPECT_FALSE(gate.acquire(1, std::chrono::steady_clock::now()));
  EXPECT_FALSE(InFlightGate(10).acquire(11, std::chrono::steady_clock::now() + std::chrono::hours(1)))
      << "more than the cap is refused at once, never waited for";
}

TEST(FrDumpLimits, AllDumpsOfARunShareOneCountOfValues) {
  SharedCount kept(50000);  // room for two dumps of 22,004 values, not three
  PickleLimits lim;
  lim.kept = &kept;
  const std::string dump = memo_dump(10, 2000);
  ASSERT_TRUE(parse_flight_record(dump, lim).ok());
  ASSERT_TRUE(parse_flight_record(dump, lim).ok());
  auto third = parse_flight_record(dump, lim);
  ASSERT_FALSE(third.ok());
  EXPECT_NE(third.error().message().find("all the dumps of one run"), std::string::npos)
      << third.error().message();
  EXPECT_TRUE(kept.reached());
}

// {"version": "2.10", "pg_config": {}, "entries": [{"record_id": 0, ...}, ...]}: `n` entries of 6 values.
std::string json_dump(int n) {
  std::string t = R"({"version": "2.10", "pg_config": {}, "entries": [)";
  for (int i = 0; i < n; ++i)
    t += fmt::format(R"({}{{"record_id": {}, "collective_seq_id": {}, "profiling_name": "nccl:all_reduce",)"
                     R"( "state": "completed", "pg_id": 0}})",
                     i ? "," : "", i, i);
  return t + "]}";
}

TEST(FrDumpLimits, JsonDumpIsMeasuredBeforeItIsBuilt) {
  PickleLimits lim;
  lim.max_output_nodes = 10000;
  auto r = parse_flight_record(json_dump(1000), lim);  // 6,004 values
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->format, "json");
  EXPECT_EQ(r->entries.size(), 1000u);
  r = parse_flight_record(json_dump(2000), lim);  // 12,004
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("more than 10000 values"), std::string::npos) << r.error().message();
  // A dump of small numbers builds about 16 bytes a value from 2 bytes of text: refused unbuilt.
  std::string zeros = R"({"version": "2.10", "pg_config": {}, "entries": [)";
  for (int i = 0; i < 5'000'000; ++i) zeros += "0,";
  zeros += "0]}";
  const long before = max_rss_mib();
  r = parse_flight_record(zeros);
  const long grew = max_rss_mib() - before;
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("values"), std::string::npos) << r.error().message();
  EXPECT_LT(grew, 100) << "refusing a 10 MB JSON dump took " << grew << " MiB more memory";
}

TEST(FrDumpLimits, JsonDumpsShareTheRunsCountAndRoomWithPickles) {
  SharedCount kept(15000);  // room for two dumps of 6,004 values, not three
  InFlightGate gate(7000);
  PickleLimits lim;
  lim.kept = &kept;
  lim.in_flight = &gate;
  lim.in_flight_wait = std::chrono::milliseconds(100);
  ASSERT_TRUE(parse_flight_record(json_dump(1000), lim).ok());
  ASSERT_TRUE(gate.acquire(2000, std::chrono::steady_clock::now()));  // another thread's dump in use
  auto r = parse_flight_record(json_dump(1000), lim);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("did not fit"), std::string::npos) << r.error().message();
  gate.release(2000);
  r = parse_flight_record(json_dump(1000), lim);
  ASSERT_FALSE(r.ok()) << "the refused dump's values were counted too: the run's count is spent";
  EXPECT_NE(r.error().message().find("all the dumps of one run"), std::string::npos) << r.error().message();
}

TEST(FrDumpLimits, AJsonDumpRefusedForItsSizeIsSaidNotReadAsText) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "dd_fr_json_refused";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  {
    std::ofstream big(dir / "fr_trace_0.json");
    big << R"({"version": "2.10", "pg_config": {}, "entries": [)";
    for (int i = 0; i < 5'000'000; ++i) big << "0,";
    big << "0]}";
    std::ofstream(dir / "fr_trace_1.json") << R"({"pg_config": "not a dump", "x": [1, 2)";  // no dump: text
  }
  LogsOptions opt;
  opt.paths = {dir.string()};
  LogsResult r = analyze_logs(opt, Catalogue::builtin());
  std::filesystem::remove_all(dir);
  ASSERT_EQ(r.flight_record_errors.size(), 1u);
  EXPECT_NE(r.flight_record_errors[0].find("fr_trace_0.json: json: more than 4000000 values"),
            std::string::npos)
      << r.flight_record_errors[0];
  size_t text_lines = 0;
  for (const auto& f : r.files) text_lines += f.lines;
  EXPECT_EQ(text_lines, 1u) << "only the file that is no dump is read as text";
}

TEST(FrDumpLimits, TooLargeDumpIsRefusedUnread) {
  const auto path = std::filesystem::path(::testing::TempDir()) / "fr_trace_big_0";
  {
    std::ofstream out(path, std::ios::binary);
    out << std::string("\x80\x02}q\x00.", 6);
  }
  std::filesystem::resize_file(path, 600ull << 20);  // sparse: no disk used
  const uint64_t before = bytes_read_so_far();
  auto r = read_flight_record_file(path.string());
  const uint64_t read = bytes_read_so_far() - before;
  std::filesystem::remove(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("600 MiB"), std::string::npos) << r.error().message();
  EXPECT_LT(read, 1u << 20) << "read " << (read >> 20) << " MiB of a dump it refused";
}

}  // namespace
}  // namespace dd::logs
