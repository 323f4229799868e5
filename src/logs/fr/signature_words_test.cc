// signature_words: sizes and dtypes in words, and the raw text kept where the words would guess.
#include <gtest/gtest.h>

#include "logs/fr/fr_summary.h"

namespace dd::logs {
namespace {

TEST(SignatureWords, OneTensorInWords) {
  EXPECT_EQ(signature_words({"all_reduce", "in [[1048576]] out [[1048576]]", "Float"}),
            "all_reduce of 1,048,576 float32 (4 MiB)");
  EXPECT_EQ(signature_words({"all_reduce", "in [[1048576]] out [[1048576]]", "Half"}),
            "all_reduce of 1,048,576 float16 (2 MiB)");
  EXPECT_EQ(signature_words({"all_gather", "in [[1048576]] out [[4,1048576]]", "Float"}),
            "all_gather of 1,048,576 float32 (4 MiB) into 4,194,304");
  EXPECT_EQ(signature_words({"broadcast", "in [[3,5]] out [[3,5]]", "BFloat16"}),
            "broadcast of 15 bfloat16 (30 B)");
}

TEST(SignatureWords, UnknownDtypeAndScalars) {
  EXPECT_EQ(signature_words({"all_reduce", "in [[10]] out [[10]]", "Quint4x2"}), "all_reduce of 10 Quint4x2");
  EXPECT_EQ(signature_words({"barrier", "in [[]] out [[]]", "Float"}), "barrier of 1 float32 (4 B)");
}

TEST(SignatureWords, CoalescedOrUnreadableKeepTheRawText) {
  FrSignature co{"all_reduce+all_reduce", "in [[4]] out [[4]] + in [[8]] out [[8]]", "Float+Float"};
  EXPECT_EQ(signature_words(co), signature_text(co));
  FrSignature junk{"all_reduce", "in [[x]] out [[1]]", "Float"};
  EXPECT_EQ(signature_words(junk), signature_text(junk));
  FrSignature list{"all_gather", "in [[2]] out [[1],[2],[3],[4]]", "Float"};
  EXPECT_EQ(signature_words(list), signature_text(list)) << "an uneven gather's outputs, each";
  FrSignature huge{"all_reduce", "in [[99999999999999999999]] out [[1]]", "Float"};
  EXPECT_EQ(signature_words(huge), signature_text(huge));
}

}  // namespace
}  // namespace dd::logs
