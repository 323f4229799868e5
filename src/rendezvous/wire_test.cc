// Wire protocol: round trips, truncation at every byte, caps, and a fuzz-style run over random and mutated
// bytes.
#include "rendezvous/wire.h"

#include <gtest/gtest.h>

#include <random>

namespace dd::rendezvous::wire {
namespace {

std::vector<Message> samples() {
  std::vector<Message> v;
  Message m;
  m.op = Op::kHello;
  m.nonce = std::string(32, 'n');
  v.push_back(m);
  m = {};
  m.op = Op::kChallenge;
  m.nonce = std::string(32, 's');
  v.push_back(m);
  m = {};
  m.op = Op::kSet;
  m.key = "facts/3";
  m.value = std::string("va\0lue", 6);
  v.push_back(m);
  m = {};
  m.op = Op::kAdd;
  m.key = "count";
  m.number = -42;
  v.push_back(m);
  m = {};
  m.op = Op::kWait;
  m.keys = {"a", "", "ccc"};
  m.number = 1500;
  v.push_back(m);
  m = {};
  m.op = Op::kBools;
  m.bools = {true, false, true};
  v.push_back(m);
  m = {};
  m.op = Op::kAuthResult;
  m.number = 1;
  m.value = "welcome";
  m.proof = std::string(32, 'p');
  v.push_back(m);
  m = {};
  m.op = Op::kOk;
  v.push_back(m);
  return v;
}

TEST(StoreWire, RoundTrip) {
  for (const auto& m : samples()) {
    std::string f = encode(m);
    Parsed p = parse_frame(f, Limits{});
    ASSERT_EQ(p.state, Parsed::kFrame) << op_name(m.op) << ": " << p.reason;
    EXPECT_EQ(p.consumed, f.size());
    EXPECT_EQ(p.message.op, m.op);
    EXPECT_EQ(p.message.key, m.key);
    EXPECT_EQ(p.message.value, m.value);
    EXPECT_EQ(p.message.keys, m.keys);
    EXPECT_EQ(p.message.bools, m.bools);
    EXPECT_EQ(p.message.nonce, m.nonce);
    EXPECT_EQ(p.message.number, m.number) << op_name(m.op);
  }
}

TEST(StoreWire, EveryTruncationNeedsMore) {
  for (const auto& m : samples()) {
    std::string f = encode(m);
    for (size_t n = 0; n < f.size(); ++n)
      EXPECT_EQ(parse_frame(std::string_view(f).substr(0, n), Limits{}).state, Parsed::kNeedMore)
          << op_name(m.op) << " cut at " << n;
  }
}

TEST(StoreWire, ReaderResumesAcrossSplits) {
  std::string stream;
  for (const auto& m : samples()) stream += encode(m);
  for (size_t chunk : {1, 2, 3, 7, 64}) {
    FrameReader r;
    size_t frames = 0;
    for (size_t i = 0; i < stream.size(); i += chunk) {
      r.feed(stream.data() + i, std::min(chunk, stream.size() - i));
      for (Parsed p = r.next(); p.state == Parsed::kFrame; p = r.next()) ++frames;
    }
    EXPECT_EQ(frames, samples().size()) << "chunk " << chunk;
    EXPECT_EQ(r.buffered(), 0u);
  }
}

TEST(StoreWire, OversizedLengthRejectedFromHeaderAlone) {
  std::string hdr = "\x7f\xff\xff\xff";
  Parsed p = parse_frame(hdr, Limits{});
  EXPECT_EQ(p.state, Parsed::kBad);
  EXPECT_NE(p.reason.find("frame length"), std::string::npos) << p.reason;
  EXPECT_EQ(parse_frame(std::string("\0\0\0\0", 4), Limits{}).state, Parsed::kBad);
  // An HTTP request is garbage too, and says so at once.
  EXPECT_EQ(parse_frame("GET / HTTP/1.1\r\n", Limits{}).state, Parsed::kBad);
}

TEST(StoreWire, CapsOnKeyValueAndCount) {
  Limits small;
  small.max_key = 8;
  small.max_value = 16;
  small.max_keys = 2;
  Message m;
  m.op = Op::kSet;
  m.key = "123456789";
  Parsed p = parse_frame(encode(m), small);
  EXPECT_EQ(p.state, Parsed::kBad);
  EXPECT_NE(p.reason.find("key of 9 bytes"), std::string::npos) << p.reason;
  m.key = "k";
  m.value = std::string(17, 'v');
  EXPECT_EQ(parse_frame(encode(m), small).state, Parsed::kBad);
  m = {};
  m.op = Op::kCheck;
  m.keys = {"a", "b", "c"};
  p = parse_frame(encode(m), small);
  EXPECT_EQ(p.state, Parsed::kBad);
  EXPECT_NE(p.reason.find("over the cap"), std::string::npos) << p.reason;
}

TEST(StoreWire, TrailingBytesAndUnknownOp) {
  Message m;
  m.op = Op::kRemove;
  m.key = "k";
  std::string f = encode(m);
  f[3] = static_cast<char>(f[3] + 1);  // claim one more byte than the fields use
  f += 'x';
  EXPECT_EQ(parse_frame(f, Limits{}).state, Parsed::kBad);
  std::string unknown = std::string("\0\0\0\1", 4) + '\x99';
  EXPECT_EQ(parse_frame(unknown, Limits{}).state, Parsed::kBad);
}

// Thousands of random and mutated buffers: the parser must never crash, read out of bounds (run under ASan to
// be sure), or claim to consume more bytes than it was given.
TEST(StoreWire, FuzzRandomAndMutated) {
  std::mt19937 rng(12345);
  auto base = samples();
  Limits lim;
  lim.max_frame = 4096;
  size_t frames = 0, bad = 0, more = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string buf;
    if (i % 2) {
      buf.resize(rng() % 96);
      for (auto& c : buf) c = static_cast<char>(rng());
      if (i % 4 == 1 && buf.size() >= 5) buf[0] = buf[1] = 0;  // plausible lengths reach the payload decoder
    } else {
      buf = encode(base[rng() % base.size()]);
      for (int k = 0, flips = 1 + rng() % 4; k < flips; ++k) {
        switch (rng() % 3) {
          case 0:
            buf[rng() % buf.size()] = static_cast<char>(rng());
            break;
          case 1:
            buf.resize(rng() % (buf.size() + 1));
            break;
          case 2:
            buf.insert(rng() % (buf.size() + 1), 1, static_cast<char>(rng()));
            break;
        }
        if (buf.empty()) break;
      }
    }
    Parsed p = parse_frame(buf, lim);
    if (p.state == Parsed::kFrame) {
      ++frames;
      ASSERT_LE(p.consumed, buf.size());
    } else if (p.state == Parsed::kBad) {
      ++bad;
      ASSERT_FALSE(p.reason.empty());
    } else {
      ++more;
    }
    FrameReader r(lim);  // the same bytes fed one at a time reach the same verdict
    Parsed last;
    for (char c : buf) {
      r.feed(&c, 1);
      last = r.next();
      if (last.state != Parsed::kNeedMore) break;
    }
    if (p.state == Parsed::kBad && last.state == Parsed::kFrame) FAIL() << "split feed accepted a bad frame";
  }
  // The mix exercises every outcome.
  EXPECT_GT(frames, 100u);
  EXPECT_GT(bad, 1000u);
  EXPECT_GT(more, 100u);
}

}  // namespace
}  // namespace dd::rendezvous::wire
