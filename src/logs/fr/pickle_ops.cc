// One pickle opcode (protocols 0-5, plain values only): what each pushes, pops or stores, by family (the
// stack and framing, scalars, strings and bytes, containers, the memo). Opcodes that would import, call or
// build an object are refused by name; unknown opcodes are errors.
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
  if (stack_op(op) || scalar_op(op) || text_op(op) || container_op(op) || memo_op(op)) return;
  if (op == 'c') {
    global();
    return;
  }
  if (op == 'R') {
    reduce();
    return;
  }
  if (const char* name = pickle_refused_opcode(op))
    fail(std::string(name) + " refused: this reader imports, calls and builds no objects");
  else
    fail(fmt::format("unsupported opcode 0x{:02x}", op));
}

// PROTO, FRAME, MARK, POP, POP_MARK, DUP.
bool Machine::stack_op(uint8_t op) {
  std::vector<uint32_t> items;
  uint32_t v = 0;
  switch (op) {
    case 0x80:  // PROTO
      if (need(1) && le(1) > 5) fail("unknown protocol");
      return true;
    case 0x95:  // FRAME: a length hint only
      if (need(8)) le(8);
      return true;
    case '(':  // MARK
      if (marks_.size() >= lim_.max_stack)
        fail("too many MARKs");
      else
        marks_.push_back(stack_.size());
      return true;
    case '0':
      pop(v);
      return true;  // POP
    case '1':
      pop_mark(items);
      return true;  // POP_MARK
    case '2':       // DUP
      if (stack_.size() >= lim_.max_stack)
        fail("stack deeper than the limit");
      else if (pop(v))
        stack_.insert(stack_.end(), {v, v});
      return true;
    default:
      return false;
  }
}

// None, booleans, integers (binary and text), floats.
bool Machine::scalar_op(uint8_t op) {
  switch (op) {
    case 'N':
      push_scalar(Kind::none, 0);
      return true;
    case 0x88:
      push_scalar(Kind::boolean, 1);
      return true;  // NEWTRUE
    case 0x89:
      push_scalar(Kind::boolean, 0);
      return true;  // NEWFALSE
    case 'K':
      if (need(1)) push_scalar(Kind::int64, static_cast<int64_t>(le(1)));
      return true;  // BININT1
    case 'M':
      if (need(2)) push_scalar(Kind::int64, static_cast<int64_t>(le(2)));
      return true;  // BININT2
    case 'J':
      if (need(4)) push_scalar(Kind::int64, static_cast<int32_t>(le(4)));
      return true;  // BININT
    case 0x8a:
      if (need(1)) push_long(le(1));
      return true;  // LONG1
    case 0x8b:
      if (need(4)) push_long(le(4));
      return true;  // LONG4
    case 'I':
    case 'L':
      push_text_number(false);
      return true;  // INT, LONG
    case 'F':
      push_text_number(true);
      return true;  // FLOAT
    case 'G':
      push_binfloat();
      return true;  // BINFLOAT
    default:
      return false;
  }
}

// BINFLOAT: a double, big endian.
bool Machine::push_binfloat() {
  if (!need(8)) return false;
  uint64_t bits = 0;
  for (int k = 0; k < 8; ++k) bits = (bits << 8) | static_cast<uint8_t>(in_[pos_ + k]);
  pos_ += 8;
  Node n;
  n.kind = Kind::float64;
  std::memcpy(&n.d, &bits, 8);
  return push_node(n);
}

// Strings (unicode and Python 2's) and bytes, by the width of their length.
bool Machine::text_op(uint8_t op) {
  switch (op) {
    case 'X':
      if (need(4)) push_text(Kind::str, le(4));
      return true;  // BINUNICODE
    case 0x8c:
      if (need(1)) push_text(Kind::str, le(1));
      return true;  // SHORT_BINUNICODE
    case 0x8d:
      if (need(8)) push_text(Kind::str, le(8));
      return true;  // BINUNICODE8
    case 'T':
      if (need(4)) push_text(Kind::str, le(4));
      return true;  // BINSTRING (Python 2 str)
    case 'U':
      if (need(1)) push_text(Kind::str, le(1));
      return true;  // SHORT_BINSTRING
    case 'B':
      if (need(4)) push_text(Kind::bytes, le(4));
      return true;  // BINBYTES
    case 'C':
      if (need(1)) push_text(Kind::bytes, le(1));
      return true;  // SHORT_BINBYTES
    case 0x8e:
      if (need(8)) push_text(Kind::bytes, le(8));
      return true;  // BINBYTES8
    case 0x96:
      if (need(8)) push_text(Kind::bytes, le(8));
      return true;  // BYTEARRAY8
    default:
      return false;
  }
}

// Lists, tuples, dicts and sets: made empty or from the values above a MARK, and filled.
bool Machine::container_op(uint8_t op) {
  std::vector<uint32_t> items;
  switch (op) {
    case ']':
      push_container(Kind::list, {});
      return true;  // EMPTY_LIST
    case ')':
      push_container(Kind::tuple, {});
      return true;  // EMPTY_TUPLE
    case '}':
      push_container(Kind::dict, {});
      return true;  // EMPTY_DICT
    case 0x8f:
      push_container(Kind::set, {});
      return true;  // EMPTY_SET
    case 'l':
      if (pop_mark(items)) push_container(Kind::list, std::move(items));
      return true;  // LIST
    case 't':
      if (pop_mark(items)) push_container(Kind::tuple, std::move(items));
      return true;  // TUPLE
    case 0x91:
      if (pop_mark(items)) push_container(Kind::set, std::move(items));
      return true;  // FROZENSET
    case 'd':       // DICT
      if (pop_mark(items) && items.size() % 2 == 0)
        push_container(Kind::dict, std::move(items));
      else
        fail("DICT with an odd number of values");
      return true;
    case 0x85:
    case 0x86:
    case 0x87:  // TUPLE1..3
      push_small_tuple(op - 0x84u);
      return true;
    default:
      return fill_op(op);
  }
}

// TUPLE1..3: a tuple of the top n values.
bool Machine::push_small_tuple(size_t n) {
  size_t floor = marks_.empty() ? 0 : marks_.back();
  if (stack_.size() < floor + n) return fail("TUPLE with too few values");
  std::vector<uint32_t> items(stack_.end() - static_cast<std::ptrdiff_t>(n), stack_.end());
  stack_.resize(stack_.size() - n);
  return push_container(Kind::tuple, std::move(items));
}

// APPEND, SETITEM, APPENDS, SETITEMS, ADDITEMS: values into the container below them.
bool Machine::fill_op(uint8_t op) {
  std::vector<uint32_t> items;
  uint32_t v = 0, c = 0;
  switch (op) {
    case 'a':  // APPEND
      if (pop(v) && top_is(Kind::list, 0, c)) a_.kids(c).push_back(v);
      return true;
    case 's': {  // SETITEM
      uint32_t k;
      if (pop(v) && pop(k) && top_is(Kind::dict, 0, c)) a_.kids(c).insert(a_.kids(c).end(), {k, v});
      return true;
    }
    case 'e':
      if (pop_mark(items)) add_items(Kind::list, std::move(items));
      return true;  // APPENDS
    case 'u':
      if (pop_mark(items)) add_items(Kind::dict, std::move(items));
      return true;  // SETITEMS
    case 0x90:
      if (pop_mark(items)) add_items(Kind::set, std::move(items));
      return true;  // ADDITEMS
    default:
      return false;
  }
}

// PUT and GET of the memo: binary slots, MEMOIZE, and the text forms.
bool Machine::memo_op(uint8_t op) {
  std::string s;
  switch (op) {
    case 'q':
      if (need(1)) memo_put(le(1));
      return true;  // BINPUT
    case 'r':
      if (need(4)) memo_put(le(4));
      return true;  // LONG_BINPUT
    case 0x94:
      memo_put(memo_count_);
      return true;  // MEMOIZE
    case 'h':
      if (need(1)) memo_get(le(1));
      return true;  // BINGET
    case 'j':
      if (need(4)) memo_get(le(4));
      return true;  // LONG_BINGET
    case 'p':
    case 'g': {  // PUT, GET (text)
      if (!line(s, 20)) return true;
      char* end = nullptr;
      unsigned long long slot = std::strtoull(s.c_str(), &end, 10);
      if (s.empty() || *end != 0)
        fail("a malformed memo slot");
      else if (op == 'p')
        memo_put(slot);
      else
        memo_get(slot);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace dd::logs::pickle
