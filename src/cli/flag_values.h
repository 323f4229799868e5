// One validated parser per kind of flag value (seconds, HOST:PORT masters, byte sizes, enumerations), each
// with a CLI11 validator wrapping it, so every bad value is refused with one line that names the flag and the
// value (exit code 3) before anything starts. NaN and infinities are refused explicitly (CLI::Range lets NaN
// through).
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"

namespace dd::cli {

// Nodes one job may have: the store takes at most this many connections (one per node).
inline constexpr int kMaxNodes = 60000;

// A finite number of seconds in [min_s, max_s].
Result<double> parse_seconds(const std::string& text, double min_s, double max_s);
// "8", "64K", "256M", "8G" (binary units, optional B/iB) -> bytes; digits with an optional fraction only.
Result<uint64_t> parse_byte_size(const std::string& text);
// Comma list of sizes ("256M,1G,8G"), at least one, each as parse_byte_size.
Result<std::vector<uint64_t>> parse_byte_size_list(const std::string& text);
// Comma list of whole numbers in [0, max] ("0,1,3"): digits only, no empty item ("0,x,1" and "0,,1" refused).
Result<std::vector<int>> parse_index_list(const std::string& text, int max);
// HOST:PORT, [V6]:PORT, or etcd://HOST:PORT[/prefix]; port 1..65535, host not empty.
Result<std::string> parse_master(const std::string& text);
// text is one of choices.
Result<std::string> parse_choice(const std::string& text, const std::vector<std::string>& choices);
// Comma list, each item one of choices (empty items refused).
Result<std::vector<std::string>> parse_choice_list(const std::string& text,
                                                   const std::vector<std::string>& choices);

// The CLI11 validators over the parsers above (the message CLI11 prints starts with the flag's name).
CLI::Validator seconds_in(double min_s, double max_s);
CLI::Validator finite_in(double min, double max);  // any finite number in [min, max]
CLI::Validator byte_size();
CLI::Validator byte_size_list();
CLI::Validator index_list(int max);  // parse_index_list
CLI::Validator master_address();
CLI::Validator one_of(std::vector<std::string> choices);
CLI::Validator list_of(std::vector<std::string> choices);
CLI::Validator node_count();
CLI::Validator worker_count();                           // 1 .. 4096, or "gpu"
CLI::Validator rank_or(std::vector<std::string> words);  // a rank (0, 1, ...) or one of words
CLI::Validator job_name();

// The help group of old flag names that keep working (bench's --nproc, --timeout where it meant one thing:
// docs/cli.md): left out of --help by help_formatter, so out of the man page and the bash completion, while
// their errors still name them (CLI11 names no option of the hidden group "").
inline constexpr const char* kOldNamesGroup = "Old names";
std::shared_ptr<CLI::Formatter>
help_formatter();  // a folder name: 1-128 of [A-Za-z0-9._-], not starting with '.' or '-' ("../x" is not)

}  // namespace dd::cli
