// read_pickle: runs the machine (pickle_machine.h, opcodes in pickle_ops.cc) to STOP, measures the value's
// JSON (pickle_json.cc) and builds it; GLOBAL and REDUCE are accepted only for the torch.jit._pickle wrappers
// pickle_reader.h names.
#include "logs/fr/pickle_reader.h"

#include "logs/fr/pickle_machine.h"

namespace dd::logs {

namespace pickle {

Result<uint32_t> Machine::run() {
  if (in_.size() > lim_.max_input_bytes)
    return Error::invalid(
        fmt::format("pickle: {} bytes, more than the {} allowed", in_.size(), lim_.max_input_bytes));
  while (error_.empty()) {
    if (pos_ >= in_.size()) {
      fail("input ends before STOP (truncated)");
      break;
    }
    op_at_ = pos_;
    uint8_t op = static_cast<uint8_t>(in_[pos_++]);
    if (op == '.') {
      if (stack_.size() != 1 || !marks_.empty()) fail("STOP with a malformed stack");
      break;
    }
    step(op);
  }
  if (!error_.empty()) return Error::invalid(error_);
  return stack_.back();
}

// The exact globals older PyTorch picklers write around plain values (torch/jit/_pickle.py): applied with
// REDUCE they only return their first argument; reduce() does the same and calls nothing.
bool Machine::global() {
  std::string mod, name;
  if (!line(mod, 256) || !line(name, 256)) return false;
  std::string g = mod + "." + name;
  bool allowed = g == "torch.jit._pickle.restore_type_tag" || g == "torch.jit._pickle.build_intlist" ||
                 g == "torch.jit._pickle.build_doublelist" || g == "torch.jit._pickle.build_boollist";
  if (!allowed)
    return fail("GLOBAL " + utf8_or_replacement(g) + " refused: this reader imports and calls nothing");
  Node n;
  n.kind = Kind::global;
  n.aux = static_cast<uint32_t>(a_.strings.size());
  a_.strings.push_back(g);
  return push_node(n);
}

bool Machine::reduce() {
  uint32_t args, fn;
  if (!pop(args) || !pop(fn)) return false;
  if (a_.nodes[fn].kind != Kind::global)
    return fail("REDUCE of something other than an allowed global: refused");
  if (a_.nodes[args].kind != Kind::tuple || a_.kids(args).empty())
    return fail("REDUCE without its argument tuple");
  uint32_t arg0 = a_.kids(args)[0];
  bool tag = a_.text(fn) == "torch.jit._pickle.restore_type_tag";
  if (!tag && a_.nodes[arg0].kind != Kind::list)
    return fail(a_.text(fn) + " applied to something other than a list");
  stack_.push_back(arg0);  // the plain value the wrapper carries; nothing is called
  return true;
}

}  // namespace pickle

bool looks_like_pickle(std::string_view b) {
  return b.size() >= 3 && static_cast<uint8_t>(b[0]) == 0x80 && b[1] >= 2 && b[1] <= 5;
}

Result<DecodedPickle> decode_pickle(std::string_view bytes, const PickleLimits& limits) {
  try {
    pickle::Machine m(bytes, limits);
    auto root = m.run();
    if (!root) return root.error();
    auto arena = std::make_shared<const pickle::Arena>(std::move(m.arena()));
    auto size = pickle::measure_expansion(*arena, *root, limits);
    if (!size) return size.error();
    return DecodedPickle(std::move(arena), *root, size->values, size->text_bytes, limits);
  } catch (const std::exception& e) {  // std::bad_alloc and the like: still an error value
    return Error::invalid(std::string("pickle: ") + e.what());
  }
}

Result<nlohmann::json> DecodedPickle::to_json() const {
  try {
    return pickle::arena_to_json(*arena_, root_, limits_);
  } catch (const std::exception& e) {
    return Error::invalid(std::string("pickle: ") + e.what());
  }
}

Result<nlohmann::json> read_pickle(std::string_view bytes, const PickleLimits& limits) {
  auto d = decode_pickle(bytes, limits);
  if (!d) return d.error();
  return d->to_json();
}

}  // namespace dd::logs
