// What a file type is, as a noun phrase ("a FIFO", "a character device"), for messages that refuse a path:
// the readers (probe/regular_file.h) and the writers (common/write_target.h) say it the same way.
#pragma once
#include <sys/types.h>

#include <string>

namespace dd {

// "a regular file", "a directory", "a FIFO", "a character device", "a block device", "a socket",
// "a symbolic link", else "a special file".
std::string file_type_phrase(mode_t mode);

}  // namespace dd
