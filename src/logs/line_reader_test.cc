// Tests for the streaming reader: gzip (whole, concatenated, truncated, a bomb cut at the expansion cap),
// long lines, binary, empty, unreadable, FIFOs and devices refused.
#include "logs/line_reader.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace dd::logs {
namespace {

std::string tmp_path(const char* name) {
  return std::string(::testing::TempDir()) + "/dd_logs_" + std::to_string(getpid()) + "_" + name;
}

void write_file(const std::string& p, const std::string& data) { std::ofstream(p, std::ios::binary) << data; }

std::string gzip(const std::string& data) {
  z_stream zs{};
  deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, data.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = data.size();
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = out.size();
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

std::vector<std::string> read_all(const std::string& p, ReadStats& st, size_t max_line = 64 * 1024) {
  std::vector<std::string> lines;
  ReadOptions o;
  o.max_line = max_line;
  o.chunk = 4096;  // small chunks exercise lines that cross chunk edges
  st = read_lines(p, o, [&](std::string_view l, uint64_t n) {
    EXPECT_EQ(n, lines.size() + 1);
    lines.emplace_back(l);
  });
  return lines;
}

TEST(LogsLineReader, PlainCrlfAndNoTrailingNewline) {
  auto p = tmp_path("plain");
  write_file(p, "a\r\nbb\n\nccc");
  ReadStats st;
  auto l = read_all(p, st);
  ASSERT_EQ(l.size(), 4u);
  EXPECT_EQ(l[0], "a");
  EXPECT_EQ(l[2], "");
  EXPECT_EQ(l[3], "ccc");
  EXPECT_EQ(st.last_line, "ccc");
  EXPECT_TRUE(st.error.empty());
  unlink(p.c_str());
}

TEST(LogsLineReader, GzipWholeConcatenatedAndTruncated) {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "host:1:1 [0] NCCL INFO line " + std::to_string(i) + "\n";
  auto p = tmp_path("gz");
  write_file(p, gzip(text));
  ReadStats st;
  auto l = read_all(p, st);
  EXPECT_TRUE(st.gzip);
  EXPECT_TRUE(st.error.empty()) << st.error;
  ASSERT_EQ(l.size(), 20000u);
  EXPECT_EQ(l.back(), "host:1:1 [0] NCCL INFO line 19999");

  write_file(p, gzip("one\n") + gzip("two\n"));
  l = read_all(p, st);
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[1], "two");
  EXPECT_TRUE(st.error.empty());

  std::string gz = gzip(text);
  write_file(p, gz.substr(0, gz.size() / 2));
  l = read_all(p, st);
  EXPECT_NE(st.error.find("truncated"), std::string::npos) << st.error;
  EXPECT_GT(l.size(), 100u);  // what was there is still read
  EXPECT_LT(l.size(), 20000u);
  unlink(p.c_str());
}

TEST(LogsLineReader, TenMegabyteLineIsCut) {
  auto p = tmp_path("long");
  std::string big(10 << 20, 'x');
  write_file(p, "before\n" + big + "\nafter\n");
  ReadStats st;
  auto l = read_all(p, st, 1024);
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[1].size(), 1024u);
  EXPECT_EQ(st.truncated_lines, 1u);
  EXPECT_EQ(st.longest_line, big.size());
  EXPECT_EQ(l[2], "after");
  unlink(p.c_str());
}

TEST(LogsLineReader, BinaryEmptyAndMissing) {
  auto p = tmp_path("bin");
  std::mt19937 rng(7);
  std::string junk(1 << 20, '\0');
  for (auto& c : junk) c = static_cast<char>(rng());
  write_file(p, junk);
  ReadStats st;
  auto l = read_all(p, st);
  EXPECT_GT(st.nul_bytes, 0u);
  EXPECT_EQ(st.bytes, junk.size());
  write_file(p, "");
  l = read_all(p, st);
  EXPECT_TRUE(l.empty());
  EXPECT_TRUE(st.error.empty());
  EXPECT_EQ(st.bytes, 0u);
  unlink(p.c_str());
  l = read_all(p, st);
  EXPECT_NE(st.error.find("cannot open"), std::string::npos);
  // A gzip header followed by garbage.
  write_file(p, std::string("\x1f\x8b\x08\x00garbagegarbage", 18));
  l = read_all(p, st);
  EXPECT_FALSE(st.error.empty());
  unlink(p.c_str());
}

// 32 MiB of zeros (about 32 KB compressed, 1000x) with the floor at 4 MiB: cut, and the error says so.
TEST(LogsLineReader, GzipBombCutAtTheExpansionCap) {
  auto p = tmp_path("bomb");
  write_file(p, gzip(std::string(32u << 20, '\0')));
  ReadOptions o;
  o.gzip_floor_bytes = 4u << 20;
  ReadStats st = read_lines(p, o, [](std::string_view, uint64_t) {});
  EXPECT_TRUE(st.gzip_capped);
  EXPECT_LT(st.bytes, 8u << 20);
  EXPECT_NE(st.error.find("decompression stopped"), std::string::npos) << st.error;
  // Ordinary text (about 10x) passes the same cap whole.
  std::string text;
  for (int i = 0; text.size() < (6u << 20); ++i) text += "NCCL INFO line " + std::to_string(i * 7919) + "\n";
  write_file(p, gzip(text));
  st = read_lines(p, o, [](std::string_view, uint64_t) {});
  EXPECT_FALSE(st.gzip_capped);
  EXPECT_EQ(st.bytes, text.size());
  unlink(p.c_str());
}

TEST(LogsLineReader, BinaryInputStopsButAZeroHoleDoesNot) {
  auto p = tmp_path("zeros");
  ReadOptions o;
  o.binary_after = 4 << 20;
  write_file(p, std::string(16 << 20, '\0'));  // as /dev/zero through stdin would be, but finite
  ReadStats st = read_lines(p, o, [](std::string_view, uint64_t) {});
  EXPECT_NE(st.error.find("binary data, not a log"), std::string::npos) << st.error;
  EXPECT_LT(st.bytes, 16u << 20);
  std::string log;  // 12 MiB of text with a 2 MiB hole of zeros, as a crash can leave
  while (log.size() < (6u << 20)) log += "node1:1:1 [0] NCCL INFO Channel 00/02 : 0 1\n";
  write_file(p, log + std::string(2 << 20, '\0') + log);
  st = read_lines(p, o, [](std::string_view, uint64_t) {});
  EXPECT_EQ(st.error, "");
  EXPECT_EQ(st.bytes, 2 * log.size() + (2u << 20));
  unlink(p.c_str());
}

TEST(LogsLineReader, FifoAndDeviceRefusedWithoutBlocking) {
  auto p = tmp_path("fifo");
  ASSERT_EQ(mkfifo(p.c_str(), 0600), 0);
  ReadStats st = read_lines(p, {}, [](std::string_view, uint64_t) {});
  EXPECT_NE(st.error.find("is a FIFO, not a regular file"), std::string::npos) << st.error;
  unlink(p.c_str());
  st = read_lines("/dev/zero", {}, [](std::string_view, uint64_t) {});
  EXPECT_NE(st.error.find("is a character device"), std::string::npos) << st.error;
  EXPECT_EQ(st.bytes, 0u);
}

// A file read through its mapping, in windows that cut lines anywhere, gives the lines a stream gives.
TEST(LogsLineReader, MappedFileGivesTheLinesOfTheStream) {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "line " + std::to_string(i) + std::string(i % 97, 'x') + "\n";
  text += "no newline at the end";
  auto p = tmp_path("mapped");
  write_file(p, text);
  ReadOptions mapped;
  mapped.map_at_least = 1;
  mapped.map_window = 4099;  // odd: lines cross windows
  ReadOptions streamed;
  streamed.map_at_least = UINT64_MAX;
  std::vector<std::string> a, b;
  ReadStats sa = read_lines(p, mapped, [&](std::string_view l, uint64_t) { a.emplace_back(l); });
  ReadStats sb = read_lines(p, streamed, [&](std::string_view l, uint64_t) { b.emplace_back(l); });
  unlink(p.c_str());
  EXPECT_EQ(sa.error, "");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.size(), 20001u);
  EXPECT_EQ(sa.bytes, text.size());
  EXPECT_EQ(sa.last_line, "no newline at the end");
}

// logrotate's copytruncate while `logs` reads the file: it stops with a sentence, never dies of SIGBUS.
TEST(LogsLineReader, AFileTruncatedWhileReadStopsWithAReason) {
  std::string text;
  for (int i = 0; i < 100000; ++i) text += "line " + std::to_string(i) + "\n";
  auto p = tmp_path("truncated");
  write_file(p, text);
  ReadOptions opt;
  opt.map_window = 64 << 10;
  uint64_t lines = 0;
  ReadStats st = read_lines(p, opt, [&](std::string_view, uint64_t n) {
    lines = n;
    if (n == 1) {
      ASSERT_EQ(truncate(p.c_str(), 0), 0);
    }
  });
  unlink(p.c_str());
  EXPECT_NE(st.error.find("the file shrank while it was read"), std::string::npos) << st.error;
  EXPECT_LT(lines, 100000u);
}

// `logs -` from a pipe whose writer never closes it (`tail -f x | distdoctor logs -`): the lines that came
// are read, then it ends at the deadline and says so.
TEST(LogsLineReader, StdinThatNeverEndsStopsAtTheDeadline) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const std::string lines = "one\ntwo\n";
  ASSERT_EQ(write(fds[1], lines.data(), lines.size()), static_cast<ssize_t>(lines.size()));
  const int saved = dup(0);
  ASSERT_GE(saved, 0);
  ASSERT_EQ(dup2(fds[0], 0), 0);
  ReadOptions opt;
  opt.deadline = std::chrono::milliseconds(300);
  std::vector<std::string> got;
  const auto start = std::chrono::steady_clock::now();
  ReadStats st = read_lines("-", opt, [&](std::string_view l, uint64_t) { got.emplace_back(l); });
  const auto took = std::chrono::steady_clock::now() - start;
  dup2(saved, 0);  // stdin back before any assertion can return
  close(saved);
  close(fds[0]);
  close(fds[1]);
  EXPECT_EQ(got, (std::vector<std::string>{"one", "two"}));
  EXPECT_NE(st.error.find("took longer than 0.3 s"), std::string::npos) << st.error;
  EXPECT_LT(took, std::chrono::seconds(5));
}

}  // namespace
}  // namespace dd::logs
