// DirStore: file-per-key store for processes of one node; every wait polls (backing off to 1 ms, so a
// waiting rank sees a key within about 1 ms) with a deadline.
#include "rendezvous/dir_store.h"

#include <algorithm>
#include <cctype>
#include <thread>

#include "rendezvous/memory_store.h"  // parse_counter, add_counter: the contract of add

namespace dd::rendezvous {

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

// A key's file, through Fs::read_capped (the one safe opener, probe/regular_file.h, on the disk): something
// other than a regular file put in the folder is refused, never opened; a value past 64 MiB is unreadable.
bool DirStore::read_key(const std::string& key, std::string* out) const {
  auto text = fs_.read_capped(path_of(key), probe::kMaxConfigBytes);
  if (!text || text->truncated) return false;
  *out = std::move(text->text);
  return true;
}

Status DirStore::set(const std::string& key, const std::string& value, rendezvous::Deadline) {
  // Replaced whole (a reader sees the old value or the new), only over a regular file, never through a link.
  return fs_.write_atomically(path_of(key), value,
                              {.mode = 0600, .symlinks = Symlinks::refuse, .sync = false});
}

Result<std::string> DirStore::get(const std::string& key, rendezvous::Deadline deadline) {
  std::string v;
  auto pause = std::chrono::microseconds(200);
  for (;;) {
    if (read_key(key, &v)) return v;
    if (rendezvous::Clock::now() >= deadline)
      return Error{"key '" + key + "' did not appear before the deadline", 0, ErrorKind::timeout};
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));  // waits end within 1 ms
  }
}

Result<int64_t> DirStore::add(const std::string& key, int64_t delta, rendezvous::Deadline deadline) {
  auto held = fs_.lock(dir_ + "/.lock");
  if (!held) return held.error();
  std::string v;
  Result<int64_t> cur = int64_t{0};
  if (read_key(key, &v)) cur = parse_counter(key, v);  // the Store contract: text is refused
  if (cur) cur = add_counter(key, *cur, delta);        // and so is an overflow
  Status st = cur ? set(key, std::to_string(*cur), deadline) : Status(cur.error());
  if (!st) return st.error();
  return cur;
}

Result<std::vector<std::string>> DirStore::list(const std::string& prefix, Deadline) {
  auto names = fs_.list(dir_);
  if (!names) return names.error();
  std::vector<std::string> keys;
  for (const std::string& name : *names) {
    auto key = key_of(name);
    if (key && key->rfind(prefix, 0) == 0) keys.push_back(std::move(*key));
  }
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
  for (const auto& k : keys) out.push_back(fs_.exists(path_of(k)));
  return out;
}

Status DirStore::remove(const std::string& key, rendezvous::Deadline) { return fs_.remove(path_of(key)); }

}  // namespace dd::rendezvous
