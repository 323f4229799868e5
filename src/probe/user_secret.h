// The per-user secret a launcher job derives its job token from when none was given: a file only this user
// can read (mode 0600, in a folder of mode 0700), created on first use with 32 random bytes. On a home shared
// by the nodes (the usual cluster) every rank of every node reads the same secret, so the token derived from
// it and the job id is the same for the job's ranks and unknown to any other user, who can compute the job
// id and port from squeue but not the secret.
#pragma once
#include <string>

#include "common/result.h"

namespace dd::probe {

struct UserSecret {
  std::string secret;    // 64 hex digits
  std::string path;      // where it lives (for notes and fixes; not secret)
  bool created = false;  // this call made the file
};

// Where the secret lives: $XDG_CONFIG_HOME/distdoctor/job-secret, else $HOME/.config/distdoctor/job-secret;
// "" when neither variable is set.
std::string user_secret_path(const std::string& xdg_config_home, const std::string& home);

// Reads the secret at path, creating it (and its folder, mode 0700) when absent; random_hex gives the new
// secret's 64 hex digits. The file must be a regular file of this user with no group or other permission
// bits, holding 32-256 hex digits; anything else is an Error whose message says what to do. Several ranks
// creating it at once (on one node or on a shared home over NFS) all end up reading the one that was linked
// into place first.
Result<UserSecret> read_or_create_user_secret(const std::string& path, const std::string& random_hex);

// The command a user runs to make the secret by hand (shown when it could not be created).
std::string user_secret_command(const std::string& path);

}  // namespace dd::probe
