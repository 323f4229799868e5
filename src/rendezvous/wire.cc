// Wire protocol: schema-driven encoding and a bounds-checked decoder for store frames.
#include "rendezvous/wire.h"

#include <fmt/format.h>

namespace dd::rendezvous::wire {
namespace {

enum class F : uint8_t {
  kMagic,
  kVersion,
  kNonce,
  kProof,
  kKey,
  kValue,
  kText,
  kNumber,
  kFlag,
  kKeys,
  kBools
};

struct Schema {
  Op op;
  const char* name;
  std::vector<F> fields;
};

const std::vector<Schema>& schemas() {
  static const std::vector<Schema> s = {
      {Op::kHello, "hello", {F::kMagic, F::kVersion, F::kNonce}},
      {Op::kChallenge, "challenge", {F::kMagic, F::kVersion, F::kNonce}},
      {Op::kAuth, "auth", {F::kProof}},
      {Op::kAuthResult, "auth-result", {F::kFlag, F::kText, F::kProof}},
      {Op::kSet, "set", {F::kKey, F::kValue}},
      {Op::kGet, "get", {F::kKey, F::kNumber}},
      {Op::kAdd, "add", {F::kKey, F::kNumber}},
      {Op::kWait, "wait", {F::kKeys, F::kNumber}},
      {Op::kCheck, "check", {F::kKeys}},
      {Op::kRemove, "remove", {F::kKey}},
      {Op::kList, "list", {F::kKey}},
      {Op::kOk, "ok", {}},
      {Op::kValue, "value", {F::kValue}},
      {Op::kInteger, "integer", {F::kNumber}},
      {Op::kTimeout, "timeout", {F::kKeys}},
      {Op::kBools, "bools", {F::kBools}},
      {Op::kKeys, "keys", {F::kKeys}},
      {Op::kError, "error", {F::kText}},
  };
  return s;
}

const Schema* find_schema(uint8_t op) {
  for (const auto& s : schemas())
    if (static_cast<uint8_t>(s.op) == op) return &s;
  return nullptr;
}

void put_u32(std::string& out, uint32_t v) {
  for (int i = 3; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_u64(std::string& out, uint64_t v) {
  for (int i = 7; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_str(std::string& out, const std::string& s) {
  put_u32(out, static_cast<uint32_t>(s.size()));
  out += s;
}

// Bounds-checked cursor over a payload; the first failure sticks and is reported once.
struct Reader {
  std::string_view in;
  size_t pos = 0;
  std::string error;
  bool need(size_t n, const char* what) {
    if (!error.empty()) return false;
    if (in.size() - pos < n) {
      error = fmt::format("truncated {} (needs {} bytes, {} left)", what, n, in.size() - pos);
      return false;
    }
    return true;
  }
  uint64_t uint(size_t bytes, const char* what) {
    if (!need(bytes, what)) return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < bytes; ++i) v = (v << 8) | static_cast<uint8_t>(in[pos + i]);
    pos += bytes;
    return v;
  }
  std::string str(size_t cap, const char* what) {
    uint64_t n = uint(4, what);
    if (!error.empty()) return {};
    if (n > cap) {
      error = fmt::format("{} of {} bytes is over the cap of {}", what, n, cap);
      return {};
    }
    if (!need(n, what)) return {};
    std::string s(in.substr(pos, n));
    pos += n;
    return s;
  }
};

}  // namespace

const char* op_name(Op op) {
  const Schema* s = find_schema(static_cast<uint8_t>(op));
  return s ? s->name : "unknown";
}

std::string encode(const Message& m) {
  std::string out(kHeaderBytes, '\0');
  const Schema* s = find_schema(static_cast<uint8_t>(m.op));
  for (F f : s ? s->fields : std::vector<F>{}) {
    switch (f) {
      case F::kMagic:
        put_u32(out, m.magic);
        break;
      case F::kVersion:
        out.push_back(char(m.version >> 8));
        out.push_back(char(m.version & 0xff));
        break;
      case F::kNonce:
        put_str(out, m.nonce);
        break;
      case F::kProof:
        put_str(out, m.proof);
        break;
      case F::kKey:
        put_str(out, m.key);
        break;
      case F::kValue:
      case F::kText:
        put_str(out, m.value);
        break;
      case F::kNumber:
        put_u64(out, static_cast<uint64_t>(m.number));
        break;
      case F::kFlag:
        out.push_back(m.number ? 1 : 0);
        break;
      case F::kKeys:
        put_u32(out, static_cast<uint32_t>(m.keys.size()));
        for (const auto& k : m.keys) put_str(out, k);
        break;
      case F::kBools:
        put_u32(out, static_cast<uint32_t>(m.bools.size()));
        for (bool b : m.bools) out.push_back(b ? 1 : 0);
        break;
    }
  }
  uint32_t len = static_cast<uint32_t>(out.size() - 4);
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((len >> (8 * (3 - i))) & 0xff);
  out[4] = static_cast<char>(m.op);
  return out;
}

namespace {

// A key list: a count, then each key with its length. The count is checked against the cap and the bytes
// left.
void read_keys(Reader& r, const Limits& limits, std::vector<std::string>* keys) {
  uint64_t n = r.uint(4, "key count");
  if (r.error.empty() && n > limits.max_keys)
    r.error = fmt::format("{} keys is over the cap of {}", n, limits.max_keys);
  // Every key needs at least its 4-byte length: a count larger than the bytes left is garbage.
  if (r.error.empty() && n * 4 > r.in.size() - r.pos) r.error = fmt::format("truncated list of {} keys", n);
  for (uint64_t i = 0; i < n && r.error.empty(); ++i) keys->push_back(r.str(limits.max_key, "key"));
}

// A bool list: a count, then one byte (0 or 1) each.
void read_bools(Reader& r, const Limits& limits, std::vector<bool>* bools) {
  uint64_t n = r.uint(4, "bool count");
  if (r.error.empty() && n > limits.max_keys)
    r.error = fmt::format("{} answers is over the cap of {}", n, limits.max_keys);
  if (!r.need(n, "bool list")) return;
  for (uint64_t i = 0; i < n && r.error.empty(); ++i) {
    uint64_t v = r.uint(1, "bool");
    if (v > 1) r.error = fmt::format("bool byte {} is not 0 or 1", v);
    bools->push_back(v != 0);
  }
}

// Reads one field into m; a failure is left in r.error.
void read_field(F f, Reader& r, const Limits& limits, Message& m) {
  switch (f) {
    case F::kMagic:
      m.magic = static_cast<uint32_t>(r.uint(4, "magic"));
      break;
    case F::kVersion:
      m.version = static_cast<uint16_t>(r.uint(2, "version"));
      break;
    case F::kNonce:
      m.nonce = r.str(limits.max_nonce, "nonce");
      break;
    case F::kProof:
      m.proof = r.str(limits.max_nonce, "proof");
      break;
    case F::kKey:
      m.key = r.str(limits.max_key, "key");
      break;
    case F::kValue:
      m.value = r.str(limits.max_value, "value");
      break;
    case F::kText:
      m.value = r.str(limits.max_value, "text");
      break;
    case F::kNumber:
      m.number = static_cast<int64_t>(r.uint(8, "number"));
      break;
    case F::kFlag: {
      uint64_t v = r.uint(1, "flag");
      if (v > 1 && r.error.empty()) r.error = fmt::format("flag byte {} is not 0 or 1", v);
      m.number = static_cast<int64_t>(v);
      break;
    }
    case F::kKeys:
      read_keys(r, limits, &m.keys);
      break;
    case F::kBools:
      read_bools(r, limits, &m.bools);
      break;
  }
}

}  // namespace

bool decode_payload(Op op, std::string_view payload, const Limits& limits, Message* out,
                    std::string* reason) {
  const Schema* s = find_schema(static_cast<uint8_t>(op));
  if (!s) {
    *reason = fmt::format("unknown op {}", static_cast<int>(op));
    return false;
  }
  Reader r{payload};
  Message m;
  m.op = op;
  for (F f : s->fields) read_field(f, r, limits, m);
  if (r.error.empty() && r.pos != payload.size()) {
    r.error = fmt::format("{} trailing bytes after {}", payload.size() - r.pos, s->name);
  }
  if (!r.error.empty()) {
    *reason = fmt::format("bad {} frame: {}", s->name, r.error);
    return false;
  }
  *out = std::move(m);
  return true;
}

Parsed parse_frame(std::string_view buf, const Limits& limits) {
  Parsed p;
  if (buf.size() < 4) return p;
  uint32_t len = 0;
  for (int i = 0; i < 4; ++i) len = (len << 8) | static_cast<uint8_t>(buf[i]);
  if (len == 0 || len > limits.max_frame) {
    p.state = Parsed::kBad;
    p.reason = fmt::format("frame length {} outside 1..{}", len, limits.max_frame);
    return p;
  }
  if (buf.size() < kHeaderBytes) return p;
  uint8_t op = static_cast<uint8_t>(buf[4]);
  if (!find_schema(op)) {
    p.state = Parsed::kBad;
    p.reason = fmt::format("unknown op {}", op);
    return p;
  }
  if (buf.size() - 4 < len) return p;
  if (!decode_payload(static_cast<Op>(op), buf.substr(kHeaderBytes, len - 1), limits, &p.message,
                      &p.reason)) {
    p.state = Parsed::kBad;
    return p;
  }
  p.state = Parsed::kFrame;
  p.consumed = 4 + static_cast<size_t>(len);
  return p;
}

Parsed FrameReader::next() {
  Parsed p = parse_frame(std::string_view(buf_).substr(pos_), limits_);
  if (p.state == Parsed::kFrame) {
    pos_ += p.consumed;
    if (pos_ == buf_.size()) {
      if (buf_.capacity() > (1u << 20))
        std::string().swap(buf_);  // a large frame's room goes back, not kept per connection
      else
        buf_.clear();
      pos_ = 0;
    } else if (pos_ > (1u << 16) && pos_ * 2 > buf_.size()) {
      buf_.erase(0, pos_);
      pos_ = 0;
    }
  }
  return p;
}

}  // namespace dd::rendezvous::wire
