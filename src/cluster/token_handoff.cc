// hand_off_token (see token_handoff.h): the token in the pasted command, in a private file, or not at all.
#include "cluster/token_handoff.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace dd::cluster {

namespace {

// Writes the token to a new file under $TMPDIR (else /tmp), mode 0600 (mkstemp); "" when that fails.
std::string write_token_file(const std::string& token) {
  std::error_code ec;
  std::string path = (std::filesystem::temp_directory_path(ec) / "distdoctor-token-XXXXXX").string();
  if (ec) path = "/tmp/distdoctor-token-XXXXXX";
  int fd = ::mkstemp(path.data());
  if (fd < 0) return "";
  std::string text = token + "\n";
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ok = ::close(fd) == 0 && ok;
  if (!ok) ::unlink(path.c_str());
  return ok ? path : "";
}

}  // namespace

TokenHandoff hand_off_token(const std::string& token, bool generated, bool stderr_is_terminal) {
  if (!generated)
    return {"DISTDOCTOR_TOKEN=<the job token>", "Give every node the job token this node was given."};
  if (stderr_is_terminal) return {"DISTDOCTOR_TOKEN=" + token, ""};
  std::string file = write_token_file(token);
  if (file.empty())
    return {
        "DISTDOCTOR_TOKEN=<a token>",
        "The generated job token could not be written to a file and stderr is not a terminal: start again "
        "with a token of your own on every node (--token-file FILE or DISTDOCTOR_TOKEN)."};
  return {fmt::format("DISTDOCTOR_TOKEN=\"$(cat {})\"", file),
          fmt::format("The job token is in {} (only you can read it; stderr is not a terminal, so it is not "
                      "printed). Remove the file when the job is done.",
                      file)};
}

}  // namespace dd::cluster
