// Input expansion for `distdoctor logs`: a regular file, every regular file under a directory (sorted, hidden
// entries and charts left out), or "-". A FIFO, device or socket named directly is refused with an input
// error (it could block or never end).
#include <algorithm>
#include <filesystem>

#include "logs/analyze.h"
#include "probe/regular_file.h"

namespace dd::logs {

namespace fs = std::filesystem;

namespace {
// Charts in a folder (launch's lateness.svg, bench --plot's): drawings, not logs. Named directly, they are
// read.
bool is_picture(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".svg" || ext == ".png";
}
}  // namespace

std::vector<std::string> expand_inputs(const std::vector<std::string>& paths,
                                       std::vector<std::string>& errors) {
  std::vector<std::string> out;
  for (const auto& p : paths) {
    if (p == "-") {
      out.push_back(p);
      continue;
    }
    std::error_code ec;
    auto st = fs::status(p, ec);
    if (ec || !fs::exists(st)) {
      errors.push_back(p + ": " + (ec ? ec.message() : std::string("no such file or directory")));
      continue;
    }
    if (fs::is_directory(st)) {
      std::vector<std::string> found;
      fs::recursive_directory_iterator it(p, fs::directory_options::skip_permission_denied, ec), end;
      if (ec) {
        errors.push_back(p + ": " + ec.message());
        continue;
      }
      for (; it != end; it.increment(ec)) {
        if (ec) {
          errors.push_back(p + ": " + ec.message());
          break;
        }
        std::error_code e2;
        // Hidden entries are tools' own files (launch's .distdoctor-run and .pyhooks/), not logs.
        if (it->path().filename().string().starts_with(".")) {
          if (it->is_directory(e2)) it.disable_recursion_pending();
          continue;
        }
        if (it->is_regular_file(e2) && !is_picture(it->path())) found.push_back(it->path().string());
      }
      std::sort(found.begin(), found.end());
      out.insert(out.end(), found.begin(), found.end());
    } else if (auto reg = probe::stat_regular_file(p); !reg) {
      errors.push_back(reg.error().message() + "; not read (pipe it into `distdoctor logs -` instead)");
    } else {
      out.push_back(p);
    }
  }
  return out;
}

}  // namespace dd::logs
