// Wire protocol of the embedded TCP store: length-prefixed frames, hard caps, and a parser that never trusts
// input.
//
// Frame: u32 length (big endian, counts the op byte and payload) | u8 op | payload.
// Payload fields, per op, are fixed: u32/u16/u8/i64 big endian, strings as u32 length + bytes, lists as u32
// count. A connection starts: client HELLO(magic, version, client nonce) -> server CHALLENGE(magic, version,
// server nonce) -> client AUTH(client proof) -> server AUTH_RESULT(ok, text, server proof). Only then
// requests. The client proves first: a stranger never sees a proof it could test token guesses against.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dd::rendezvous::wire {

constexpr uint32_t kMagic = 0x44445253;  // "DDRS": distdoctor rendezvous store
constexpr uint16_t kVersion = 2;         // 2: the client proves first
constexpr size_t kHeaderBytes = 5;

struct Limits {
  size_t max_key = 4096;                 // bytes per key
  size_t max_value = 4u << 20;           // bytes per value
  size_t max_keys = 65536;               // keys in one request or answer
  size_t max_frame = (4u << 20) + 8192;  // length field cap: one value plus room for its key
  size_t max_nonce = 64;                 // nonces and proofs
};

enum class Op : uint8_t {
  kHello = 1,
  kChallenge = 2,
  kAuth = 3,
  kAuthResult = 4,
  kSet = 10,
  kGet = 11,
  kAdd = 12,
  kWait = 13,
  kCheck = 14,
  kRemove = 15,
  kList = 16,
  kOk = 32,
  kValue = 33,
  kInteger = 34,
  kTimeout = 35,
  kBools = 36,
  kKeys = 37,
  kError = 38,
};

// One message; which fields matter depends on op (see kSchema in wire.cc).
struct Message {
  Op op = Op::kOk;
  uint32_t magic = kMagic;
  uint16_t version = kVersion;
  std::string nonce;              // hello, challenge
  std::string proof;              // auth, auth-result
  std::string key;                // set/get/add/remove; list: the prefix
  std::string value;              // set, value; error and auth_result: the text
  int64_t number = 0;             // add: delta; integer; get/wait: timeout ms; auth_result: 1 = accepted
  std::vector<std::string> keys;  // wait, check, timeout (the missing ones), keys
  std::vector<bool> bools;        // bools
};

const char* op_name(Op op);

// Encodes a message as one complete frame (header included).
std::string encode(const Message& m);

struct Parsed {
  enum State { kNeedMore, kFrame, kBad } state = kNeedMore;
  size_t consumed = 0;  // bytes of input the frame used (kFrame only)
  Message message;      // kFrame only
  std::string reason;   // kBad only: why the bytes are not a valid frame
};

// Looks at the front of buf: a whole valid frame, not enough bytes yet, or garbage. Pure: no state, no I/O.
// An oversized length is rejected as soon as the header is in, before any payload is buffered.
Parsed parse_frame(std::string_view buf, const Limits& limits);

// Decodes a payload for op (without the header). Returns false and sets reason on any violation.
bool decode_payload(Op op, std::string_view payload, const Limits& limits, Message* out, std::string* reason);

// Resumable reader: feed bytes as they arrive, take frames out one at a time.
class FrameReader {
 public:
  explicit FrameReader(Limits limits = {}) : limits_(limits) {}
  void feed(const char* data, size_t n) { buf_.append(data, n); }
  Parsed next();
  size_t buffered() const { return buf_.size() - pos_; }

 private:
  Limits limits_;
  std::string buf_;
  size_t pos_ = 0;
};

}  // namespace dd::rendezvous::wire
