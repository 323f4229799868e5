// MappedFile: the bytes of a mapped file, and a file truncated while it is read (logrotate's copytruncate)
// reads as zeros past its new end, said by shrank(), instead of killing the process with SIGBUS.
#include "probe/mapped_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace dd::probe {
namespace {

TEST(MappedFile, AFileThatShrinksWhileReadReadsAsZerosNotACrash) {
  const auto path = std::filesystem::path(::testing::TempDir()) / "dd_mapped_shrinks";
  std::ofstream(path) << std::string(3u << 20, 'x');
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  auto m = MappedFile::map(fd, 3u << 20);
  ASSERT_TRUE(m.ok()) << m.error().message();
  m->begin_reading();
  const std::string_view bytes = m->bytes();
  EXPECT_EQ(bytes[0], 'x');
  EXPECT_EQ(bytes[(2u << 20) + 5], 'x');
  EXPECT_FALSE(m->shrank());
  ASSERT_EQ(::truncate(path.c_str(), 4096), 0);
  EXPECT_EQ(bytes[100], 'x') << "the part still in the file is the file's";
  EXPECT_EQ(bytes[(2u << 20) + 5], '\0') << "past the new end: a zero page, not SIGBUS";
  EXPECT_TRUE(m->shrank());
  EXPECT_EQ(bytes[(3u << 20) - 1], '\0');
  m->end_reading();
  ::close(fd);
  std::filesystem::remove(path);
}

TEST(MappedFile, ReleasingReadPagesKeepsTheBytes) {
  const auto path = std::filesystem::path(::testing::TempDir()) / "dd_mapped_release";
  std::string text;
  for (int i = 0; i < 300000; ++i) text += static_cast<char>('a' + i % 26);
  std::ofstream(path) << text;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  auto m = MappedFile::map(fd, text.size());
  ASSERT_TRUE(m.ok());
  m->begin_reading();
  EXPECT_EQ(m->bytes(), text);
  m->release_before(200000);
  EXPECT_EQ(m->bytes(), text) << "a released page is read again from the file";
  EXPECT_FALSE(m->shrank());
  m->end_reading();
  ::close(fd);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace dd::probe
