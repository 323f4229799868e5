// Reading facts back from JSON: recorded facts load unchanged; numbers a field cannot hold are errors that
// name the field (found by fuzz/facts_json.cc: 1e300 in an int field was an undefined conversion).
#include "probe/facts_json.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace dd::probe {
namespace {

std::string parse_error_of(const std::string& text) {
  auto r = facts_from_text(text);
  return r ? "" : r.error().message();
}

TEST(FactsJson, RecordedFactsAndReportsLoadUnchanged) {
  std::ifstream in(std::string(DD_FIXTURE_DIR) + "/facts/healthy_2gpu.json");
  std::stringstream text;
  text << in.rdbuf();
  auto f = facts_from_text(text.str());
  ASSERT_TRUE(f.ok()) << f.error().message();
  EXPECT_EQ(nlohmann::json(*f), nlohmann::json(nlohmann::json::parse(text.str()).get<NodeFacts>()));
  auto r = facts_from_text(R"({"verdict":"pass","facts":{"host":{"hostname":"n1","pid":7}}})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->host.hostname, "n1");
  EXPECT_EQ(r->host.pid, 7);
  auto whole = facts_from_text(R"({"gpu":{"gpus":[{"index":3.0}]},"later_field":0.5})");
  ASSERT_TRUE(whole.ok()) << whole.error().message();
  EXPECT_EQ(whole->gpu.gpus.at(0).index, 3);
}

TEST(FactsJson, NumbersTheFieldCannotHoldNameTheField) {
  EXPECT_EQ(parse_error_of(R"({"gpu":{"gpus":[{"index":1e300}]}})"),
            "facts.gpu.gpus[0].index = 1e+300 is not a whole number");
  EXPECT_EQ(parse_error_of(R"({"gpu":{"gpus":[{"index":0.5}]}})"),
            "facts.gpu.gpus[0].index = 0.5 is not a whole number");
  EXPECT_EQ(parse_error_of(R"({"gpu":{"gpus":[{"index":5000000000}]}})"),
            "facts.gpu.gpus[0].index = 5000000000 is out of range for its field");
  EXPECT_EQ(parse_error_of(R"({"host":{"pid":18446744073709551615}})"),
            "facts.host.pid = 18446744073709551615 is out of range for its field");
  EXPECT_NE(parse_error_of(R"({"host":{"pid":"7"}})"), "");
  EXPECT_NE(parse_error_of("[1,"), "");
}

// Found by the fuzzer (fuzz/corpus/facts_json/timeout-device-count-2e9): the CUDA_VISIBLE_DEVICES rule listed
// one entry per GPU of device_count, 2e9 of them (a timeout, then gigabytes).
TEST(FactsJson, AGpuCountNoNodeHasIsRefused) {
  EXPECT_EQ(parse_error_of(R"({"cuda":{"device_count":2000000000}})"),
            "facts.cuda.device_count = 2000000000 is more GPUs than a node can have (at most 1024)");
  auto most = facts_from_text(R"({"cuda":{"device_count":1024}})");
  ASSERT_TRUE(most.ok()) << most.error().message();
  EXPECT_EQ(most->cuda.device_count, 1024);
}

}  // namespace
}  // namespace dd::probe
