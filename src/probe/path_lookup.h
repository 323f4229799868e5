// Where a program is: the PATH search of execvp, done on a PATH value the caller read (probe::SelfProcess or
// the workers' environment), so the launcher can name a missing program before it starts anything.
#pragma once
#include <string>

namespace dd::probe {

// name with a '/': returned as is when it is an executable regular file. Otherwise the first executable
// regular file name in the ':'-separated entries of path_env (empty entries are skipped: no implicit current
// directory). "" when none.
std::string find_on_path(const std::string& name, const std::string& path_env);

}  // namespace dd::probe
