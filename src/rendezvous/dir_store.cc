// DirStore: file-per-key store for processes of one node; every wait polls (backing off to 1 ms, so a
// waiting rank sees a key within about 1 ms) with a deadline.
#include "rendezvous/dir_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <thread>

#include "common/atomic_file.h"
#include "probe/regular_file.h"
#include "rendezvous/memory_store.h"  // parse_counter, add_counter: the contract of add

namespace dd::rendezvous {

namespace {
// A key's file, through the one safe opener (probe/regular_file.h): something other than a regular file put
// in the folder is refused, never opened; a value past the opener's cap (64 MiB) counts as unreadable.
bool read_file(const std::string& p, std::string* out) {
  auto text = probe::read_regular_file(p);
  if (!text || text->truncated) return false;
  *out = std::move(text->text);
  return true;
}
}  // namespace

// The key a file name holds ("k_" + key with %XX escapes), or nullopt for another file (temporaries, the
// lock).
std::optional<std::string> DirStore::key_of(const std::string& name) {
  if (name.rfind("k_", 0) != 0 || name.find(".tmp.") != std::string::npos) return std::nullopt;
  std::string key;
  for (size_t i = 2; i < name.size(); ++i) {
    if (name[i] != '%') {
      key += name[i];
      continue;
    }
    if (i + 2 >= name.size() || !std::isxdigit(static_cast<unsigned char>(name[i + 1])) ||
        !std::isxdigit(static_cast<unsigned char>(name[i + 2])))
      return std::nullopt;
    key += char(std::stoi(name.substr(i + 1, 2), nullptr, 16));
    i += 2;
  }
  return key;
}

std::string DirStore::path_of(const std::string& key) const {
  static const char* hex = "0123456789abcdef";
  std::string name = "k_";
  for (unsigned char c : key) {
    if (std::isalnum(c) || c == '_' || c == '-' || c == '.') {
      name += char(c);
    } else {
      name += '%';
      name += hex[c >> 4];
      name += hex[c & 15];
    }
  }
  return dir_ + "/" + name;
}

Status DirStore::set(const std::string& key, const std::string& value, rendezvous::Deadline) {
  // Replaced whole (a reader sees the old value or the new), only over a regular file, never through a link.
  return write_file_atomically(path_of(key), value,
                               {.mode = 0600, .symlinks = Symlinks::refuse, .sync = false});
}

Result<std::string> DirStore::get(const std::string& key, rendezvous::Deadline deadline) {
  std::string v;
  auto pause = std::chrono::microseconds(200);
  for (;;) {
    if (read_file(path_of(key), &v)) return v;
    if (rendezvous::Clock::now() >= deadline)
      return Error{"key '" + key + "' did not appear before the deadline", 0, ErrorKind::timeout};
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));  // waits end within 1 ms
  }
}

Result<int64_t> DirStore::add(const std::string& key, int64_t delta, rendezvous::Deadline deadline) {
  std::string lock = dir_ + "/.lock";
  int fd = ::open(lock.c_str(), O_CREAT | O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
  if (fd < 0) return Error::from_errno("open " + lock);
  ::flock(fd, LOCK_EX);
  std::string v;
  Result<int64_t> cur = int64_t{0};
  if (read_file(path_of(key), &v)) cur = parse_counter(key, v);  // the Store contract: text is refused
  if (cur) cur = add_counter(key, *cur, delta);                  // and so is an overflow
  Status st = cur ? set(key, std::to_string(*cur), deadline) : Status(cur.error());
  ::flock(fd, LOCK_UN);
  ::close(fd);
  if (!st) return st.error();
  return cur;
}

Result<std::vector<std::string>> DirStore::list(const std::string& prefix, Deadline) {
  std::vector<std::string> keys;
  DIR* d = ::opendir(dir_.c_str());
  if (!d) return Error::from_errno("open " + dir_);
  while (const dirent* e = ::readdir(d)) {
    auto key = key_of(e->d_name);
    if (key && key->rfind(prefix, 0) == 0) keys.push_back(std::move(*key));
  }
  ::closedir(d);
  std::sort(keys.begin(), keys.end());
  return keys;
}

Status DirStore::wait(const std::vector<std::string>& keys, rendezvous::Deadline deadline) {
  auto pause = std::chrono::microseconds(200);
  for (;;) {
    auto have = check(keys, deadline);
    if (!have) return have.error();
    std::string missing;
    for (size_t i = 0; i < keys.size(); ++i)
      if (!(*have)[i]) missing += (missing.empty() ? "" : ", ") + keys[i];
    if (missing.empty()) return ok_status();
    if (rendezvous::Clock::now() >= deadline)
      return Error{"keys still missing at the deadline: " + missing, 0, ErrorKind::timeout};
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));  // waits end within 1 ms
  }
}

Result<std::vector<bool>> DirStore::check(const std::vector<std::string>& keys, rendezvous::Deadline) {
  std::vector<bool> out;
  for (const auto& k : keys) out.push_back(::access(path_of(k).c_str(), F_OK) == 0);
  return out;
}

Status DirStore::remove(const std::string& key, rendezvous::Deadline) {
  if (::unlink(path_of(key).c_str()) != 0 && errno != ENOENT) return Error::from_errno("unlink " + key);
  return ok_status();
}

}  // namespace dd::rendezvous
