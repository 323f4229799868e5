// Input expansion for `distdoctor logs`: a regular file, every regular file under a directory (sorted, hidden
// entries and charts left out), or "-". A FIFO, device or socket named directly is refused with an input
// error (it could block or never end).
#include <algorithm>

#include "logs/analyze.h"
#include "probe/fs.h"
#include "probe/regular_file.h"

namespace dd::logs {

namespace {
// Charts in a folder (launch's lateness.svg, bench --plot's): drawings, not logs. Named directly, they are
// read.
bool is_picture(const std::string& p) { return p.ends_with(".svg") || p.ends_with(".png"); }

// Every regular file under a folder, sorted, hidden entries left out (tools' own files: launch's
// .distdoctor-run and .pyhooks/), charts too; an Error when the folder cannot be listed.
Result<std::vector<std::string>> logs_under(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/')
    dir.pop_back();  // "runs/" names its files "runs/x", not "runs//x"
  auto found = probe::files_under(probe::local_fs(), dir, {.skip_hidden = true});
  if (!found) return found.error();
  std::erase_if(*found, is_picture);
  return found;
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
    auto st = probe::local_fs().stat(p);
    if (!st || st->kind == probe::FileKind::none) {
      errors.push_back(p + ": " + (st ? std::string("no such file or directory") : st.error().message()));
      continue;
    }
    if (st->kind == probe::FileKind::directory) {
      auto found = logs_under(p);
      if (!found) {
        errors.push_back(p + ": " + found.error().message());
        continue;
      }
      out.insert(out.end(), found->begin(), found->end());
    } else if (auto reg = probe::stat_regular_file(p); !reg) {
      errors.push_back(reg.error().message() + "; not read (pipe it into `distdoctor logs -` instead)");
    } else {
      out.push_back(p);
    }
  }
  return out;
}

}  // namespace dd::logs
