// Tests of the safe text writer: escapes for control characters and bad bytes, JSON that survives bad UTF-8.
#include "common/safe_text.h"

#include <gtest/gtest.h>

namespace dd {

TEST(SafeText, KeepsPlainAndUtf8TextAsIs) {
  EXPECT_EQ(printable("eth0,ib0 ^docker C:\\path"), "eth0,ib0 ^docker C:\\path");
  EXPECT_EQ(printable("grüße — 日本 🚀"), "grüße — 日本 🚀");
  EXPECT_EQ(printable(""), "");
}

TEST(SafeText, EscapesControlCharactersAndEscapeSequences) {
  EXPECT_EQ(printable("a\x1b[31mred\x1b[0m"), "a\\x1b[31mred\\x1b[0m");
  EXPECT_EQ(printable("l1\nl2\r\tx\x7f\x01"), "l1\\nl2\\r\\tx\\x7f\\x01");
  EXPECT_EQ(printable(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(printable("\xc2\x9b"
                      "2J"),
            "\\u009b2J");  // C1 CSI in UTF-8
  EXPECT_EQ(printable("abc\xe2\x80\xae"
                      "cba"),
            "abc\\u202ecba");  // right-to-left override
}

TEST(SafeText, ShowsBytesThatAreNotUtf8) {
  EXPECT_EQ(printable("\xff\x1b[31meth0"), "\\xff\\x1b[31meth0");
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // surrogate
  EXPECT_EQ(printable("x\xe6\x97"), "x\\xe6\\x97");                  // cut short
  EXPECT_EQ(printable("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // beyond U+10FFFF
}

TEST(SafeText, PrintableHasNoControlBytes) {
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  for (unsigned char c : printable(all + all)) EXPECT_GE(c, 0x20);
  for (unsigned char c : printable(all)) EXPECT_NE(c, 0x7f);
}

TEST(SafeText, JsonTextSurvivesBadUtf8) {
  nlohmann::json j = {{"NCCL_SOCKET_IFNAME", "\xff\x1b[31meth0"}, {"ok", "grüße"}};
  EXPECT_THROW((void)j.dump(), nlohmann::json::type_error);
  std::string text = json_text(j, 2);
  auto back = nlohmann::json::parse(text);
  EXPECT_EQ(back["NCCL_SOCKET_IFNAME"], "\xef\xbf\xbd\x1b[31meth0");
  EXPECT_EQ(back["ok"], "grüße");
  EXPECT_EQ(text.find('\x1b'), std::string::npos);  // the ESC is written as \u001b
}

TEST(SafeText, JsonTextMatchesDumpForValidUtf8) {
  nlohmann::json j = {{"a", {1, 2.5, "x\ty"}}, {"b", "日本"}, {"c", nullptr}};
  EXPECT_EQ(json_text(j), j.dump());
  EXPECT_EQ(json_text(j, 2), j.dump(2));
}

}  // namespace dd
