// Tests of the pickle reader: plain values of every protocol, memo semantics, the refused opcodes, the
// torch.jit._pickle wrappers, limits (deep nesting, cycles, memo expansion, long strings), truncation at
// every length, and a real Flight Recorder dump (fixtures/logs/h100x4_hangs, PyTorch 2.11 on 4x H100).
#include "logs/fr/pickle_reader.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace dd::logs {
namespace {

using nlohmann::json;

// A protocol 2 pickle of body (a literal: embedded NUL bytes are kept) and STOP.
template <size_t N>
std::string pk(const char (&body)[N]) {
  return std::string("\x80\x02", 2) + std::string(body, N - 1) + ".";
}
std::string pk(const std::string& body) { return std::string("\x80\x02", 2) + body + "."; }

json read_ok(const std::string& bytes, const PickleLimits& lim = {}) {
  auto r = read_pickle(bytes, lim);
  EXPECT_TRUE(r.ok()) << r.error().message();
  return r.ok() ? *r : json();
}

std::string read_err(const std::string& bytes, const PickleLimits& lim = {}) {
  auto r = read_pickle(bytes, lim);
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.error().message();
}

TEST(PickleReader, Scalars) {
  EXPECT_EQ(read_ok(pk("K\x07")), 7);
  EXPECT_EQ(read_ok(pk(std::string("M\x01\x02", 3))), 0x0201);
  EXPECT_EQ(read_ok(pk(std::string("J\xfe\xff\xff\xff", 5))), -2);
  EXPECT_EQ(read_ok(pk(std::string("\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x80", 10))), INT64_MIN);
  EXPECT_EQ(read_ok(pk(std::string("\x8a\x02\xff\x7f", 4))), 32767);
  EXPECT_EQ(read_ok(pk(std::string("\x8a\x01\xff", 3))), -1);
  EXPECT_EQ(read_ok(pk(std::string("\x8a\x09\xff\xff\xff\xff\xff\xff\xff\xff\x00", 11))), UINT64_MAX);
  EXPECT_EQ(read_ok(pk(std::string("\x8a\x00", 2))), 0);
  EXPECT_EQ(read_ok(pk(std::string("G\x3f\xf8\x00\x00\x00\x00\x00\x00", 9))), 1.5);
  EXPECT_TRUE(read_ok(pk(std::string("G\x7f\xf8\x00\x00\x00\x00\x00\x00", 9))).is_null());  // NaN
  EXPECT_EQ(read_ok(pk("\x88")), true);
  EXPECT_EQ(read_ok(pk("\x89")), false);
  EXPECT_TRUE(read_ok(pk("N")).is_null());
  EXPECT_EQ(read_ok(pk(std::string("X\x02\x00\x00\x00hi", 7))), "hi");
  EXPECT_EQ(read_ok(pk("\x8c\x02ok")), "ok");
  EXPECT_EQ(read_ok(pk(std::string("C\x02\x00\xff", 4))), json({{"$bytes", "00ff"}}));
  EXPECT_EQ(read_ok("I42\n."), 42);  // protocol 0 text forms
  EXPECT_EQ(read_ok("I01\n."), true);
  EXPECT_EQ(read_ok("F0.25\n."), 0.25);
  EXPECT_EQ(read_ok("L12345678901234L\n."), 12345678901234);
}

TEST(PickleReader, ContainersAndKeys) {
  // {"a": [1, (2, 3)], 5: None} as a protocol 2 writer puts it.
  json j =
      read_ok(pk("}(\x8c\x01"
                 "a](K\x01K\x02K\x03\x86"
                 "eK\x05Nu"));
  EXPECT_EQ(j, json({{"a", json::array({1, json::array({2, 3})})}, {"5", nullptr}}));
  EXPECT_EQ(read_ok(pk(")")), json::array());
  EXPECT_EQ(read_ok(pk("(K\x01K\x02K\x03K\x04t")), json::array({1, 2, 3, 4}));
  EXPECT_EQ(read_ok(pk("(K\x01K\x02l")), json::array({1, 2}));
  EXPECT_EQ(read_ok(pk("(\x8c\x01kK\x01"
                       "d")),
            json({{"k", 1}}));
  EXPECT_EQ(read_ok(pk("]K\x01"
                       "a")),
            json::array({1}));
  EXPECT_EQ(read_ok(pk("}\x8c\x01kK\x02s")), json({{"k", 2}}));
  EXPECT_EQ(read_ok(pk("\x8f(K\x01\x90")), json::array({1}));  // a set
}

TEST(PickleReader, MemoIsByReference) {
  // l = []; memoized while empty, then filled; [l, l] must show the filled list twice (Python's semantics).
  json j =
      read_ok(pk("](]q\x00(K\x01K\x02"
                 "eh\x00"
                 "e"));
  EXPECT_EQ(j, json::array({json::array({1, 2}), json::array({1, 2})}));
  EXPECT_EQ(read_ok(pk("\x8c\x01x\x94\x8c\x01yh\x00\x87")), json::array({"x", "y", "x"}));  // MEMOIZE
  EXPECT_NE(read_err(pk("h\x05")).find("unset memo"), std::string::npos);
}

TEST(PickleReader, RefusesCodeAndObjects) {
  for (std::string bad :
       {std::string("cos\nsystem\n\x8c\x02id\x85R"), std::string("\x8c\x02os\x8c\x06system\x93"),
        std::string("}}b"), std::string("(cbuiltins\nobject\no"), std::string("Pabc\n"),
        std::string("K\x01Q"), std::string(")K\x01\x81")}) {
    std::string e = read_err(pk(bad));
    EXPECT_NE(e.find("refused"), std::string::npos) << e;
  }
  // REDUCE of a value that is not an allowed global.
  EXPECT_NE(read_err(pk("K\x01)R")).find("refused"), std::string::npos);
  EXPECT_NE(read_err(pk("\xff")).find("unsupported opcode 0xff"), std::string::npos);
}

TEST(PickleReader, UnwrapsTorchJitPickleWrappers) {
  // restore_type_tag({"a": 1}, "Dict[str, int]") and build_intlist([1, 2]): the plain values, nothing called.
  json j =
      read_ok(pk("ctorch.jit._pickle\nrestore_type_tag\n}(\x8c\x01"
                 "aK\x01u\x8c\x0e"
                 "Dict[str, int]\x86R"));
  EXPECT_EQ(j, json({{"a", 1}}));
  EXPECT_EQ(read_ok(pk("ctorch.jit._pickle\nbuild_intlist\n(](K\x01K\x02"
                       "etR")),
            json::array({1, 2}));
  EXPECT_NE(read_err(pk("ctorch.jit._pickle\nbuild_intlist\n(K\x01tR")).find("other than a list"),
            std::string::npos);
  EXPECT_NE(read_err(pk("ctorch.jit._pickle\nbuild_tensor_from_id\n")).find("refused"), std::string::npos);
  EXPECT_FALSE(
      read_pickle(pk("ctorch.jit._pickle\nbuild_intlist\n")).ok());  // an unapplied global is no value
}

TEST(PickleReader, DeepNestingIsAnErrorNotACrash) {
  std::string deep = std::string("\x80\x02", 2);
  for (int i = 0; i < 100000; ++i) deep += "]";
  for (int i = 0; i < 99999; ++i) deep += "a";
  deep += ".";
  EXPECT_NE(read_err(deep).find("nested deeper"), std::string::npos);
  // Tuples built from MARKs, 100000 deep.
  std::string marks = std::string("\x80\x02", 2) + std::string(100000, '(') + std::string(100000, 't') + ".";
  EXPECT_FALSE(read_pickle(marks).ok());
}

TEST(PickleReader, CyclesAndExpansionAreBounded) {
  EXPECT_NE(read_err(pk("]q\x00h\x00"
                        "a"))
                .find("nested deeper"),
            std::string::npos);  // l.append(l)
  // Each level doubles the previous one through the memo: 2^40 values once expanded.
  std::string b = "\x8c\x01x";
  for (int i = 0; i < 40; ++i) b += "q" + std::string(1, char(i)) + "h" + std::string(1, char(i)) + "\x86";
  PickleLimits lim;
  lim.max_output_nodes = 100000;
  EXPECT_NE(read_err(pk(b), lim).find("shared values"), std::string::npos);
}

TEST(PickleReader, LimitsAndTruncation) {
  PickleLimits lim;
  lim.max_string_bytes = 4;
  EXPECT_NE(read_err(pk(std::string("X\x05\x00\x00\x00hello", 10)), lim).find("over the limit"),
            std::string::npos);
  lim = {};
  lim.max_input_bytes = 3;
  EXPECT_NE(read_err(pk("K\x01"), lim).find("allowed"), std::string::npos);
  EXPECT_NE(read_err(pk(std::string("X\xff\xff\xff\xff", 5))).find("over the limit"), std::string::npos);
  std::string good =
      pk("}(\x8c\x01"
         "a](K\x01\x8c\x02hi\x86"
         "eK\x05Nu");
  for (size_t n = 0; n + 1 < good.size(); ++n) EXPECT_FALSE(read_pickle(good.substr(0, n)).ok()) << n;
  EXPECT_NE(read_err(pk("K\x01K\x02")).find("malformed stack"), std::string::npos);
}

TEST(PickleReader, BadUtf8IsReplaced) {
  json j =
      read_ok(pk(std::string("X\x03\x00\x00\x00"
                             "a\xff"
                             "b",
                             8)));
  EXPECT_EQ(j,
            "a\xef\xbf\xbd"
            "b");
  EXPECT_NO_THROW(j.dump());
}

TEST(PickleReader, RealFlightRecorderDump) {
  std::ifstream in(std::string(DD_FIXTURE_DIR) + "/logs/h100x4_hangs/desync_op/fr/fr_trace_3",
                   std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  ASSERT_TRUE(looks_like_pickle(ss.str()));
  json j = read_ok(ss.str());
  EXPECT_EQ(j["version"], "2.10");
  ASSERT_EQ(j["entries"].size(), 8u);
  EXPECT_EQ(j["entries"][6]["profiling_name"], "nccl:broadcast");
  EXPECT_EQ(j["entries"][6]["process_group"], json::array({"0", "default_pg"}));
  EXPECT_EQ(j["entries"][6]["frames"][0]["name"], "broadcast");
  EXPECT_TRUE(j["entries"][6]["time_discovered_completed_ns"].is_null());
}

}  // namespace
}  // namespace dd::logs
