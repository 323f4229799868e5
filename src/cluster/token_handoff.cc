// hand_off_token (see token_handoff.h): the token in the pasted command, in a private file the command
// fetches from this node, or not at all.
#include "cluster/token_handoff.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "probe/fs.h"

namespace dd::cluster {

namespace {

// Token files this process wrote, removed when it exits (std::exit or a return from main; a forked child that
// exits is not the owner and leaves them). A SIGKILLed node leaves its file: mode 0600 in $TMPDIR.
std::mutex g_files_mu;
std::vector<std::string> g_files;
pid_t g_owner = 0;

void remove_token_files() {
  std::lock_guard lock(g_files_mu);
  if (::getpid() != g_owner) return;
  for (const auto& f : g_files) (void)probe::local_fs().remove(f);
  g_files.clear();
}

void remove_at_exit(const std::string& file) {
  std::lock_guard lock(g_files_mu);
  if (g_owner == 0) {
    g_owner = ::getpid();
    std::atexit(remove_token_files);
  }
  g_files.push_back(file);
}

// Writes the token to a new file under $TMPDIR (else /tmp), mode 0600 (mkstemp); "" when that fails.
std::string write_token_file(const std::string& token) {
  auto path = probe::local_fs().write_temp_file("distdoctor-token-", token + "\n");
  if (!path) return "";
  remove_at_exit(*path);
  return *path;
}

// A word for a shell command line: as is when it holds only safe characters, else in single quotes.
std::string quoted_for_shell(const std::string& s) {
  bool plain = !s.empty();
  for (char c : s)
    plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || std::strchr("/._-:+@%", c));
  if (plain) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// "198.18.0.1" of "198.18.0.1:29500", "::1" of "[::1]:29500": where the other nodes reach this one.
std::string master_host(const std::string& master) {
  std::string host = master.substr(0, master.rfind(':'));
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return host;
}

}  // namespace

TokenHandoff hand_off_token(const std::string& token, bool generated, bool stderr_is_terminal,
                            const std::string& master) {
  if (!generated)
    return {"DISTDOCTOR_TOKEN=<the job token>", "Give every node the job token this node was given."};
  if (stderr_is_terminal) return {"DISTDOCTOR_TOKEN=" + token, ""};
  std::string file = write_token_file(token);
  if (file.empty())
    return {
        "DISTDOCTOR_TOKEN=<a token>",
        "The generated job token could not be written to a file and stderr is not a terminal: start again "
        "with a token of your own on every node (--token-file FILE or DISTDOCTOR_TOKEN)."};
  // The file is on this node: the other nodes' command fetches it from here (ssh, as a user who can start
  // distdoctor there can), never from their own /tmp.
  const std::string host = master_host(master);
  return {
      fmt::format("DISTDOCTOR_TOKEN=\"$(ssh {} cat {})\"", quoted_for_shell(host), quoted_for_shell(file)),
      fmt::format("The job token is in {} on {} (only you can read it; stderr is not a terminal, so it is "
                  "not printed). The command below fetches it from {} over ssh; without ssh, copy that file "
                  "to each node and run there with --token-file FILE instead. It is removed when this "
                  "node's run ends.",
                  file, host, host)};
}

}  // namespace dd::cluster
