// The writes of the real filesystem behind probe::Fs (probe/fs.h), on paths as the OS sees them: the careful
// openers of common/ (atomic_file, own_dir, write_target) do the rest. Code outside probe/ calls them
// through an Fs, so a test can hand it a MemFs.
#pragma once
#include <sys/types.h>

#include <string>
#include <string_view>

#include "common/result.h"
#include "probe/fs.h"

namespace dd::probe {

FileInfo stat_path(const std::string& path);  // kind none when nothing is there (or stat fails)
Status append_to_file(const std::string& path, std::string_view text, const AppendOptions& o);
Status make_folder(const std::string& path, mode_t mode, bool own);
Status make_new_folder(const std::string& path, mode_t mode, const std::string& named);  // named: for errors
Status remove_path(const std::string& path);
Status remove_path_tree(const std::string& path);
std::string temp_root();  // $TMPDIR, else /tmp
Result<std::string> make_temp_folder(const std::string& in, const std::string& prefix);
Result<std::string> write_temp(const std::string& in, const std::string& prefix, std::string_view content);
Status make_fifo_at(const std::string& path, mode_t mode);
Status write_to_fifo(const std::string& path, std::string_view bytes);
Result<FileLock> lock_path(const std::string& path);

}  // namespace dd::probe
