// Finds the last Python traceback in a worker's output: the chained blocks ("During handling of the above
// exception...", "The above exception was the direct cause..."), the frames, the exception line and a few
// lines of a multi-line message (torch's NCCL errors), with "[rank1]: " / "[default0]:" prefixes removed.
#include "logs/python_traceback.h"

#include <cctype>

namespace dd::logs {

namespace {

constexpr const char* kTracebackHeader = "Traceback (most recent call last):";
constexpr size_t kMaxMessageLines = 10;  // continuation lines kept after the exception line
constexpr int kMaxStrayLines = 5;        // other processes' lines tolerated among the frames

// "[rank1]: x" -> "x" (PyTorch's rank prefix, one space), "[default0]:x" -> "x" (torchrun --tee), repeated.
std::string without_rank_prefix(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  while (line.size() > 3 && line[0] == '[') {
    const size_t close = line.find("]:");
    if (close == std::string::npos || close > 32) break;
    size_t letters = 1;
    while (letters < close &&
           (std::isalpha(static_cast<unsigned char>(line[letters])) || line[letters] == '_'))
      ++letters;
    if (letters == close) break;  // a digit must end the tag
    for (size_t k = letters; k < close; ++k)
      if (!std::isdigit(static_cast<unsigned char>(line[k]))) return line;
    const bool torch_style = line.compare(1, 4, "rank") == 0;
    size_t cut = close + 2;
    if (torch_style && cut < line.size() && line[cut] == ' ') ++cut;
    line.erase(0, cut);
  }
  return line;
}

bool is_header(const std::string& l) { return l.rfind(kTracebackHeader, 0) == 0; }
bool is_indented(const std::string& l) { return !l.empty() && (l[0] == ' ' || l[0] == '\t'); }

bool is_chain_message(const std::string& l) {
  return l.rfind("During handling of the above exception", 0) == 0 ||
         l.rfind("The above exception was the direct cause", 0) == 0;
}

bool is_blank(const std::string& l) { return l.find_first_not_of(" \t") == std::string::npos; }

// "ValueError: bad shape", "torch.distributed.DistBackendError: NCCL error", "KeyboardInterrupt".
bool is_exception_line(const std::string& l) {
  const size_t colon = l.find(':');
  const std::string name = l.substr(0, colon);
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) return false;
  return true;
}

// A line that starts another record rather than continuing the exception's message: glog ("E1123 ...",
// "[W1123 ..."), a timestamp ("[2026-11-23 ...", "2026-11-23 ..."), NCCL's "host:pid:tid [0] NCCL INFO",
// python logging.
bool starts_new_record(const std::string& l) {
  auto digit = [&](size_t i) { return i < l.size() && std::isdigit(static_cast<unsigned char>(l[i])); };
  const size_t g = l[0] == '[' ? 1 : 0;  // glog, bare or bracketed as torch's C++ warnings are: "[W1123 ..."
  if (l.size() > g + 5 && std::string("IWEF").find(l[g]) != std::string::npos && digit(g + 1) &&
      digit(g + 2) && digit(g + 3) && digit(g + 4))
    return true;
  if ((l[0] == '[' && digit(1)) ||
      (digit(0) && digit(1) && digit(2) && digit(3) && l.size() > 4 && l[4] == '-'))
    return true;
  if (l.find(" NCCL INFO ") != std::string::npos || l.find(" NCCL WARN ") != std::string::npos) return true;
  for (const char* p : {"INFO:", "WARNING:", "ERROR:", "DEBUG:", "CRITICAL:"})
    if (l.rfind(p, 0) == 0) return true;
  return is_header(l) || is_chain_message(l);
}

// The lines of the block that starts at header `h`: its frames, the exception line and the message's
// continuation lines; lines of other records met among the frames are left out.
std::vector<std::string> last_block(const std::vector<std::string>& ls, size_t h) {
  std::vector<std::string> out = {ls[h]};
  size_t frames = 0, i = h + 1;
  int stray = 0;
  for (; i < ls.size(); ++i) {
    const std::string& l = ls[i];
    if (is_indented(l) && !is_blank(l)) {
      out.push_back(l);
      ++frames;
    } else if (frames > 0 && !is_blank(l) && is_exception_line(l)) {
      out.push_back(l);
      break;
    } else if (is_blank(l) || ++stray > kMaxStrayLines) {
      return out;  // cut short: no exception line
    }
  }
  for (size_t k = 0; ++i < ls.size() && k < kMaxMessageLines; ++k) {
    if (is_blank(ls[i]) || starts_new_record(ls[i])) break;
    out.push_back(ls[i]);
  }
  return out;
}

// The first line of the chain that ends with the block at `h`: walks back over "During handling of the
// above exception..." / "The above exception was the direct cause..." to the header of each earlier block.
size_t chain_start(const std::vector<std::string>& ls, size_t h) {
  for (;;) {
    size_t j = h;
    while (j > 0 && is_blank(ls[j - 1])) --j;
    if (j == 0 || !is_chain_message(ls[j - 1])) return h;
    size_t k = j - 1;
    while (k > 0 && !is_header(ls[k - 1])) --k;
    if (k == 0) return h;
    h = k - 1;
  }
}

}  // namespace

std::string last_python_traceback(const std::vector<std::string>& lines) {
  std::vector<std::string> ls;
  ls.reserve(lines.size());
  for (const auto& l : lines) ls.push_back(without_rank_prefix(l));
  size_t h = ls.size();
  while (h > 0 && !is_header(ls[h - 1])) --h;
  if (h == 0) return "";
  const size_t last = h - 1, first = chain_start(ls, last);
  std::string tb;
  for (size_t i = first; i < last; ++i) tb += ls[i] + "\n";
  for (const auto& l : last_block(ls, last)) tb += l + "\n";
  tb.pop_back();
  return tb;
}

std::string traceback_exception(const std::string& traceback) {
  std::vector<std::string> ls;
  for (size_t p = 0; p <= traceback.size();) {
    size_t nl = traceback.find('\n', p);
    if (nl == std::string::npos) nl = traceback.size();
    ls.push_back(without_rank_prefix(traceback.substr(p, nl - p)));
    p = nl + 1;
  }
  size_t h = ls.size();
  while (h > 0 && !is_header(ls[h - 1])) --h;
  if (h == 0) return "";
  bool frames = false;
  for (size_t i = h; i < ls.size(); ++i) {
    if (is_indented(ls[i]) && !is_blank(ls[i]))
      frames = true;
    else if (frames && !is_blank(ls[i]) && is_exception_line(ls[i]))
      return ls[i];
  }
  return "";
}

}  // namespace dd::logs
