// Units in words: no raw byte counts or CUDA version numbers in messages, and never "0 B" for a need.
#include "common/units.h"

#include <gtest/gtest.h>

namespace dd {
namespace {

TEST(Units, SizesInBinaryUnits) {
  EXPECT_EQ(size_in_words(8388608), "8 MiB");
  EXPECT_EQ(size_in_words(65536), "64 KiB");
  EXPECT_EQ(size_in_words(int64_t(3) << 29), "1.5 GiB");
  EXPECT_EQ(size_in_words(512), "512 B");
  EXPECT_EQ(size_in_words(0), "0 B");
  EXPECT_EQ(size_in_words(-1), "?");
}

// One ladder for every size in words: the largest unit reached, capped; whole_only keeps sizes exact.
TEST(Units, OneLadderOfBinaryUnits) {
  EXPECT_STREQ(scale_size(1536, SizeUnit::PiB).unit, "KiB");
  EXPECT_EQ(scale_size(1536, SizeUnit::PiB).value, 1.5);
  EXPECT_STREQ(scale_size(1536, SizeUnit::PiB, /*whole_only=*/true).unit, "B");
  EXPECT_STREQ(scale_size(double(uint64_t(1) << 50), SizeUnit::PiB).unit, "PiB");
  EXPECT_EQ(scale_size(double(uint64_t(1) << 50), SizeUnit::TiB).value, 1024);
  EXPECT_STREQ(scale_size(double(uint64_t(3) << 40), SizeUnit::GiB).unit, "GiB");
  EXPECT_EQ(size_in_words(int64_t(1) << 40), "1 TiB");
  EXPECT_EQ(size_in_words(1023), "1023 B");
}

TEST(Units, AnEstimateIsNeverZeroBytes) {
  EXPECT_EQ(estimate_in_words(0), "nothing");
  EXPECT_EQ(estimate_in_words(1), "under 1 KiB");
  EXPECT_EQ(estimate_in_words(1023), "under 1 KiB");
  EXPECT_EQ(estimate_in_words(33 << 20), "about 33 MiB");
}

TEST(Units, CudaVersionAsMajorMinor) {
  EXPECT_EQ(cuda_version_in_words(12080), "12.8 (12080)");
  EXPECT_EQ(cuda_version_in_words(12020), "12.2 (12020)");
  EXPECT_EQ(cuda_version_in_words(11040), "11.4 (11040)");
  EXPECT_EQ(cuda_version_in_words(-1), "?");
}

}  // namespace
}  // namespace dd
