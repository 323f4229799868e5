// The pickle machine's state and its small helpers (internal to pickle_reader.cc and pickle_ops.cc): an
// explicit stack of arena indexes, a mark stack and the memo; no recursion, every size checked.
#pragma once
#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "logs/fr/pickle_arena.h"

namespace dd::logs::pickle {

class Machine {
 public:
  Machine(std::string_view in, const PickleLimits& lim) : in_(in), lim_(lim) {}

  Result<uint32_t> run();  // pickle_reader.cc: the root value's index in arena()
  Arena& arena() { return a_; }

 private:
  bool fail(const std::string& why) {
    if (error_.empty()) error_ = fmt::format("pickle: {} (at byte {})", why, op_at_);
    return false;
  }

  bool need(size_t n) { return pos_ + n <= in_.size() || fail("input ends inside an opcode (truncated)"); }
  uint64_t le(size_t n) {  // little-endian unsigned of n bytes; need(n) checked by the caller
    uint64_t v = 0;
    for (size_t k = 0; k < n; ++k) v |= static_cast<uint64_t>(static_cast<uint8_t>(in_[pos_ + k])) << (8 * k);
    pos_ += n;
    return v;
  }
  bool line(std::string& out, size_t max) {
    size_t nl = in_.find('\n', pos_);
    if (nl == std::string_view::npos || nl - pos_ > max) return fail("a text argument without its newline");
    out.assign(in_.substr(pos_, nl - pos_));
    pos_ = nl + 1;
    return true;
  }

  bool push_node(Node n) {
    if (a_.nodes.size() >= lim_.max_nodes) return fail(fmt::format("more than {} values", lim_.max_nodes));
    if (stack_.size() >= lim_.max_stack) return fail("stack deeper than the limit");
    a_.nodes.push_back(n);
    stack_.push_back(static_cast<uint32_t>(a_.nodes.size() - 1));
    return true;
  }
  bool push_scalar(Kind k, int64_t i) {
    Node n;
    n.kind = k;
    n.i = i;
    return push_node(n);
  }
  bool push_text(Kind k, size_t len) {
    if (len > lim_.max_string_bytes) return fail(fmt::format("a string of {} bytes, over the limit", len));
    if (!need(len)) return false;
    Node n;
    n.kind = k;
    n.aux = static_cast<uint32_t>(a_.strings.size());
    a_.strings.emplace_back(in_.substr(pos_, len));
    pos_ += len;
    return push_node(n);
  }
  bool push_container(Kind k, std::vector<uint32_t> kids) {
    Node n;
    n.kind = k;
    n.aux = static_cast<uint32_t>(a_.items.size());
    a_.items.push_back(std::move(kids));
    return push_node(n);
  }
  bool push_long(size_t len) {  // two's complement little-endian, as LONG1/LONG4 write it
    if (len > 9) return fail(fmt::format("an integer of {} bytes, wider than 64 bits", len));
    if (!need(len)) return false;
    bool top_zero = len == 9 && in_[pos_ + 8] == 0;
    if (len == 9 && !top_zero) return fail("an integer wider than 64 bits");
    uint64_t v = le(len == 9 ? 8 : len);
    if (len == 9) return ++pos_, push_scalar(Kind::uint64, static_cast<int64_t>(v));
    if (len > 0 && len < 8 && (v >> (8 * len - 1)) & 1) v |= ~0ull << (8 * len);  // sign-extend
    return push_scalar(Kind::int64, static_cast<int64_t>(v));
  }
  bool push_text_number(bool is_float) {
    std::string s;
    if (!line(s, 64)) return false;
    if (!is_float && (s == "00" || s == "01")) return push_scalar(Kind::boolean, s == "01");
    if (!s.empty() && s.back() == 'L') s.pop_back();
    char* end = nullptr;
    errno = 0;
    Node n;
    n.kind = is_float ? Kind::float64 : Kind::int64;
    if (is_float)
      n.d = std::strtod(s.c_str(), &end);
    else
      n.i = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end != 0 || errno == ERANGE) return fail("a malformed text number");
    return push_node(n);
  }

  bool pop(uint32_t& v) {
    if (stack_.size() <= (marks_.empty() ? 0 : marks_.back())) return fail("pop from an empty stack");
    v = stack_.back();
    stack_.pop_back();
    return true;
  }
  bool pop_mark(std::vector<uint32_t>& items) {
    if (marks_.empty()) return fail("no MARK before this opcode");
    size_t m = marks_.back();
    marks_.pop_back();
    items.assign(stack_.begin() + static_cast<std::ptrdiff_t>(m), stack_.end());
    stack_.resize(m);
    return true;
  }
  bool top_is(Kind k, size_t below, uint32_t& idx) {
    size_t floor = marks_.empty() ? 0 : marks_.back();
    if (stack_.size() < floor + below + 1) return fail("missing container on the stack");
    idx = stack_[stack_.size() - 1 - below];
    return a_.nodes[idx].kind == k || fail("opcode applied to the wrong kind of value");
  }
  bool add_items(
      Kind k, std::vector<uint32_t> items) {  // APPENDS / SETITEMS / ADDITEMS: into the value below the mark
    uint32_t c;
    if (stack_.empty() || !top_is(k, 0, c)) return fail("missing container below MARK");
    if (k == Kind::dict && items.size() % 2) return fail("SETITEMS with an odd number of values");
    auto& kids = a_.kids(c);
    kids.insert(kids.end(), items.begin(), items.end());
    return true;
  }
  bool memo_put(uint64_t slot) {
    if (slot >= lim_.max_memo) return fail(fmt::format("memo slot {} over the limit", slot));
    if (stack_.empty()) return fail("PUT with an empty stack");
    if (memo_.size() <= slot) memo_.resize(slot + 1, UINT32_MAX);
    if (memo_[slot] == UINT32_MAX) ++memo_count_;
    memo_[slot] = stack_.back();
    return true;
  }
  bool memo_get(uint64_t slot) {
    if (slot >= memo_.size() || memo_[slot] == UINT32_MAX)
      return fail(fmt::format("GET of unset memo slot {}", slot));
    if (stack_.size() >= lim_.max_stack) return fail("stack deeper than the limit");
    stack_.push_back(memo_[slot]);
    return true;
  }
  bool global();          // pickle_reader.cc: GLOBAL, allowed names only
  bool reduce();          // pickle_reader.cc: REDUCE of an allowed global only
  void step(uint8_t op);  // pickle_ops.cc: one opcode
  // pickle_ops.cc: one family of opcodes each; false when op is not of it (true when handled, failed or not).
  bool stack_op(uint8_t op);
  bool scalar_op(uint8_t op);
  bool text_op(uint8_t op);
  bool container_op(uint8_t op);
  bool fill_op(uint8_t op);
  bool memo_op(uint8_t op);
  bool push_binfloat();
  bool push_small_tuple(size_t n);

  std::string_view in_;
  const PickleLimits& lim_;
  size_t pos_ = 0, op_at_ = 0;
  Arena a_;
  std::vector<uint32_t> stack_;
  std::vector<size_t> marks_;
  std::vector<uint32_t> memo_;
  size_t memo_count_ = 0;
  std::string error_;
};

}  // namespace dd::logs::pickle
