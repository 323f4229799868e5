// Included only by tests: reads a whole file (a fixture, a log a test wrote) into a string; "" when unreadable.
#pragma once
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace dd::test_files {

inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace dd::test_files
