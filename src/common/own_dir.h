// A folder the tool makes for files it writes (a run's logs, the job's Python start-up hook): its mode is set
// with fchmod, so a umask of 002 never leaves it group-writable (a member of the group could otherwise put
// code where the job's Python picks it up). One that is already there is used only when it is a real folder
// (not a symbolic link) owned by this user; it is given the mode too.
#pragma once
#include <sys/types.h>

#include <string>

#include "common/result.h"

namespace dd {

// Makes `path` (its parent must exist) or accepts it as above; an Error whose message is
// "cannot create the folder PATH: <why>" otherwise.
Status make_own_dir(const std::string& path, mode_t mode);

}  // namespace dd
