// One pickle opcode (protocols 0-5, plain values only): what each pushes, pops or stores. Opcodes that would
// import, call or build an object are refused by name; unknown opcodes are errors.
#include "logs/fr/pickle_machine.h"

namespace dd::logs::pickle {

namespace {

const char* pickle_refused_opcode(uint8_t op) {
  switch (op) {
    case 0x93:
      return "STACK_GLOBAL";
    case 'b':
      return "BUILD";
    case 'i':
      return "INST";
    case 'o':
      return "OBJ";
    case 0x81:
      return "NEWOBJ";
    case 0x92:
      return "NEWOBJ_EX";
    case 'P':
      return "PERSID";
    case 'Q':
      return "BINPERSID";
    case 0x82:
    case 0x83:
    case 0x84:
      return "EXT";
    case 0x97:
      return "NEXT_BUFFER";
    case 0x98:
      return "READONLY_BUFFER";
    default:
      return nullptr;
  }
}

}  // namespace

void Machine::step(uint8_t op) {
  std::vector<uint32_t> items;
  uint32_t v = 0, c = 0;
  std::string s;
  switch (op) {
    case 0x80:  // PROTO
      if (need(1) && le(1) > 5) fail("unknown protocol");
      return;
    case 0x95:  // FRAME: a length hint only
      if (need(8)) le(8);
      return;
    case '(':  // MARK
      if (marks_.size() >= lim_.max_stack)
        fail("too many MARKs");
      else
        marks_.push_back(stack_.size());
      return;
    case '0':
      pop(v);
      return;  // POP
    case '1':
      pop_mark(items);
      return;  // POP_MARK
    case '2':  // DUP
      if (stack_.size() >= lim_.max_stack)
        fail("stack deeper than the limit");
      else if (pop(v))
        stack_.insert(stack_.end(), {v, v});
      return;
    case 'N':
      push_scalar(Kind::none, 0);
      return;
    case 0x88:
      push_scalar(Kind::boolean, 1);
      return;  // NEWTRUE
    case 0x89:
      push_scalar(Kind::boolean, 0);
      return;  // NEWFALSE
    case 'K':
      if (need(1)) push_scalar(Kind::int64, static_cast<int64_t>(le(1)));
      return;  // BININT1
    case 'M':
      if (need(2)) push_scalar(Kind::int64, static_cast<int64_t>(le(2)));
      return;  // BININT2
    case 'J':
      if (need(4)) push_scalar(Kind::int64, static_cast<int32_t>(le(4)));
      return;  // BININT
    case 0x8a:
      if (need(1)) push_long(le(1));
      return;  // LONG1
    case 0x8b:
      if (need(4)) push_long(le(4));
      return;  // LONG4
    case 'I':
      push_text_number(false);
      return;  // INT
    case 'L':
      push_text_number(false);
      return;  // LONG
    case 'F':
      push_text_number(true);
      return;    // FLOAT
    case 'G': {  // BINFLOAT, big endian
      if (!need(8)) return;
      uint64_t bits = 0;
      for (int k = 0; k < 8; ++k) bits = (bits << 8) | static_cast<uint8_t>(in_[pos_ + k]);
      pos_ += 8;
      Node n;
      n.kind = Kind::float64;
      std::memcpy(&n.d, &bits, 8);
      push_node(n);
      return;
    }
    case 'X':
      if (need(4)) push_text(Kind::str, le(4));
      return;  // BINUNICODE
    case 0x8c:
      if (need(1)) push_text(Kind::str, le(1));
      return;  // SHORT_BINUNICODE
    case 0x8d:
      if (need(8)) push_text(Kind::str, le(8));
      return;  // BINUNICODE8
    case 'T':
      if (need(4)) push_text(Kind::str, le(4));
      return;  // BINSTRING (Python 2 str)
    case 'U':
      if (need(1)) push_text(Kind::str, le(1));
      return;  // SHORT_BINSTRING
    case 'B':
      if (need(4)) push_text(Kind::bytes, le(4));
      return;  // BINBYTES
    case 'C':
      if (need(1)) push_text(Kind::bytes, le(1));
      return;  // SHORT_BINBYTES
    case 0x8e:
      if (need(8)) push_text(Kind::bytes, le(8));
      return;  // BINBYTES8
    case 0x96:
      if (need(8)) push_text(Kind::bytes, le(8));
      return;  // BYTEARRAY8
    case ']':
      push_container(Kind::list, {});
      return;  // EMPTY_LIST
    case ')':
      push_container(Kind::tuple, {});
      return;  // EMPTY_TUPLE
    case '}':
      push_container(Kind::dict, {});
      return;  // EMPTY_DICT
    case 0x8f:
      push_container(Kind::set, {});
      return;  // EMPTY_SET
    case 'l':
      if (pop_mark(items)) push_container(Kind::list, std::move(items));
      return;  // LIST
    case 't':
      if (pop_mark(items)) push_container(Kind::tuple, std::move(items));
      return;  // TUPLE
    case 0x91:
      if (pop_mark(items)) push_container(Kind::set, std::move(items));
      return;  // FROZENSET
    case 'd':  // DICT
      if (pop_mark(items) && items.size() % 2 == 0)
        push_container(Kind::dict, std::move(items));
      else
        fail("DICT with an odd number of values");
      return;
    case 0x85:
    case 0x86:
    case 0x87: {  // TUPLE1..3
      size_t n = op - 0x84u;
      size_t floor = marks_.empty() ? 0 : marks_.back();
      if (stack_.size() < floor + n) {
        fail("TUPLE with too few values");
        return;
      }
      items.assign(stack_.end() - static_cast<std::ptrdiff_t>(n), stack_.end());
      stack_.resize(stack_.size() - n);
      push_container(Kind::tuple, std::move(items));
      return;
    }
    case 'a':  // APPEND
      if (pop(v) && top_is(Kind::list, 0, c)) a_.kids(c).push_back(v);
      return;
    case 's': {  // SETITEM
      uint32_t k;
      if (pop(v) && pop(k) && top_is(Kind::dict, 0, c)) a_.kids(c).insert(a_.kids(c).end(), {k, v});
      return;
    }
    case 'e':
      if (pop_mark(items)) add_items(Kind::list, std::move(items));
      return;  // APPENDS
    case 'u':
      if (pop_mark(items)) add_items(Kind::dict, std::move(items));
      return;  // SETITEMS
    case 0x90:
      if (pop_mark(items)) add_items(Kind::set, std::move(items));
      return;  // ADDITEMS
    case 'q':
      if (need(1)) memo_put(le(1));
      return;  // BINPUT
    case 'r':
      if (need(4)) memo_put(le(4));
      return;  // LONG_BINPUT
    case 0x94:
      memo_put(memo_count_);
      return;  // MEMOIZE
    case 'h':
      if (need(1)) memo_get(le(1));
      return;  // BINGET
    case 'j':
      if (need(4)) memo_get(le(4));
      return;  // LONG_BINGET
    case 'p':
    case 'g': {  // PUT, GET (text)
      if (!line(s, 20)) return;
      char* end = nullptr;
      unsigned long long slot = std::strtoull(s.c_str(), &end, 10);
      if (s.empty() || *end != 0)
        fail("a malformed memo slot");
      else if (op == 'p')
        memo_put(slot);
      else
        memo_get(slot);
      return;
    }
    case 'c':
      global();
      return;
    case 'R':
      reduce();
      return;
    default:
      break;
  }
  if (const char* name = pickle_refused_opcode(op))
    fail(std::string(name) + " refused: this reader imports, calls and builds no objects");
  else
    fail(fmt::format("unsupported opcode 0x{:02x}", op));
}

}  // namespace dd::logs::pickle
