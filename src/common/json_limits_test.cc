// json_depth and the checked parsers: brackets inside strings and escapes do not count; a text nested deeper
// than kMaxJsonDepth is refused before nlohmann builds it (100,000 levels crashed the process before).
#include "common/json_limits.h"

#include <gtest/gtest.h>

#include <string>

namespace dd {
namespace {

TEST(JsonLimits, DepthSkipsStrings) {
  EXPECT_EQ(json_depth(R"({"a": [1, {"b": "[[[{{{"}], "c": "\"]]"})"), 3);
  EXPECT_EQ(json_depth("[]"), 1);
  EXPECT_EQ(json_depth("42"), 0);
  EXPECT_EQ(json_depth(std::string(1000000, '[')), kMaxJsonDepth + 1) << "stops counting past the limit";
}

TEST(JsonLimits, DeepTextIsRefusedNotParsed) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_THROW(parse_json(deep), std::invalid_argument);
  EXPECT_TRUE(parse_json_or_discarded(deep).is_discarded());
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
  objects += "1" + std::string(100000, '}');
  EXPECT_TRUE(parse_json_or_discarded(objects).is_discarded());
  const std::string at_limit = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_TRUE(parse_json(at_limit).is_array());
  EXPECT_THROW(parse_json("{oops"), std::exception);
  EXPECT_EQ(parse_json(R"({"k": [1, 2]})")["k"][1], 2);
}

struct Pair {
  int a = 0;
  double b = 0;
};
void from_json(const nlohmann::json& j, Pair& p) {
  p.a = j.value("a", 0);
  p.b = j.value("b", 0.0);
}

TEST(JsonLimits, PeerRecordOfTheWrongShapeIsRefusedNotThrown) {
  auto ok = parse_record<Pair>(R"({"a": 3, "b": 2.5})");
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->a, 3);
  std::string why;
  EXPECT_FALSE(parse_record<Pair>(R"({"a": "three"})", &why).has_value());  // from_json threw type_error
  EXPECT_NE(why.find("type must be number"), std::string::npos) << why;
  EXPECT_FALSE(parse_record<Pair>(R"({"a": 1e43})", &why).has_value());  // the cast to int would be UB
  EXPECT_EQ(why, "a number out of range");
  EXPECT_FALSE(parse_record<Pair>(R"([{"a": [1e300]}])", &why).has_value());
  EXPECT_FALSE(parse_record<Pair>("not json", &why).has_value());
  EXPECT_FALSE(parse_record<Pair>(std::string(100, '[') + std::string(100, ']'), &why).has_value());
  EXPECT_NE(why.find("deeper than 64"), std::string::npos) << why;
}

TEST(JsonLimits, MeasureCountsWhatParseWouldBuildAndStopsAtItsCaps) {
  const std::string text = R"({"ab": [1, 2.5, "xyz", null, true, {"k": -3}], "c": ""})";
  JsonSize s = measure_json(text, 100, 100);
  EXPECT_TRUE(s.valid);
  EXPECT_FALSE(s.over);
  EXPECT_EQ(s.values, 10u) << "the object, the array, 6 scalars and the inner object's -3, the empty string";
  EXPECT_EQ(s.text_bytes, 2u + 3u + 1u + 1u) << "keys ab, k, c and the string xyz";
  EXPECT_TRUE(measure_json(text, 9, 100).over);
  EXPECT_TRUE(measure_json(text, 100, 6).over);
  EXPECT_FALSE(measure_json("[1, 2", 100, 100).valid) << "truncated";
  EXPECT_FALSE(measure_json("[1] x", 100, 100).valid) << "trailing bytes";
  EXPECT_FALSE(measure_json(std::string(100, '[') + std::string(100, ']'), 1000, 100).valid);
  // A huge text of small values is measured, not built: the pass stops at the cap.
  std::string big = "[";
  for (int i = 0; i < 200000; ++i) big += "0,";
  big += "0]";
  JsonSize b = measure_json(big, 1000, 100);
  EXPECT_TRUE(b.over);
  EXPECT_EQ(b.values, 1001u);
}

}  // namespace
}  // namespace dd
