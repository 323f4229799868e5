// MemFs (mem_fs.h): a map from absolute path to node (file, folder, link, FIFO) under one mutex.
#include "probe/mem_fs.h"

#include <algorithm>
#include <cerrno>

namespace dd::probe {

namespace {

std::string parent_of(const std::string& path) {
  const size_t cut = path.find_last_of('/');
  return cut == 0 || cut == std::string::npos ? "/" : path.substr(0, cut);
}

std::string normal(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

Error missing(const std::string& what, const std::string& path) {
  return Error::make(ErrorKind::not_found, what + " " + path, "", ENOENT);
}

}  // namespace

MemFs::MemFs() { nodes_["/"] = Node{.kind = FileKind::directory, .mode = 0755}; }

void MemFs::put(const std::string& path, const std::string& content, mode_t mode) {
  put_dir(parent_of(normal(path)));
  std::lock_guard lock(mu_);
  nodes_[normal(path)] = Node{.kind = FileKind::regular, .content = content, .mode = mode, .mtime = tick()};
}

void MemFs::put_dir(const std::string& path) {
  const std::string p = normal(path);
  if (p != "/") put_dir(parent_of(p));
  std::lock_guard lock(mu_);
  nodes_.try_emplace(p, Node{.kind = FileKind::directory, .mode = 0755, .mtime = tick()});
}

void MemFs::put_link(const std::string& path, const std::string& target) {
  put_dir(parent_of(normal(path)));
  std::lock_guard lock(mu_);
  nodes_[normal(path)] = Node{.kind = FileKind::symlink, .content = target, .mtime = tick()};
}

const MemFs::Node* MemFs::find(const std::string& path) const {
  std::string p = normal(path);
  for (int hops = 0; hops < 40; ++hops) {
    auto it = nodes_.find(p);
    if (it == nodes_.end()) return nullptr;
    if (it->second.kind != FileKind::symlink) return &it->second;
    const std::string& t = it->second.content;
    p = normal(t.starts_with("/") ? t : parent_of(p) + "/" + t);
  }
  return nullptr;  // a loop of links
}

Status MemFs::can_write(const std::string& path) const {
  const Node* up = find(parent_of(path));
  if (!up || up->kind != FileKind::directory) return missing("cannot write", path);
  auto it = nodes_.find(path);
  if (it != nodes_.end() && it->second.kind != FileKind::regular)
    return Error::make(ErrorKind::invalid, "cannot write " + path + ": not a regular file");
  return Ok{};
}

Result<std::string> MemFs::read(const std::string& path) const {
  auto r = read_capped(path, kMaxConfigBytes);
  if (!r) return r.error();
  return std::move(r->text);
}

Result<FileText> MemFs::read_capped(const std::string& path, uint64_t max_bytes) const {
  std::lock_guard lock(mu_);
  const Node* n = find(path);
  if (!n) return missing("cannot read", path);
  if (n->kind != FileKind::regular)
    return Error::make(ErrorKind::invalid, "cannot read " + path + ": not a regular file");
  FileText t{.text = n->content.substr(0, max_bytes), .file_size = n->content.size()};
  t.truncated = n->content.size() > max_bytes;
  return t;
}

Result<std::vector<std::string>> MemFs::list(const std::string& dir) const {
  std::lock_guard lock(mu_);
  const Node* d = find(dir);
  if (!d || d->kind != FileKind::directory) return missing("opendir", dir);
  const std::string p = normal(dir), prefix = p == "/" ? "/" : p + "/";
  std::vector<std::string> out;  // nodes_ is sorted, so the names come out sorted
  for (auto it = nodes_.lower_bound(prefix); it != nodes_.end() && it->first.starts_with(prefix); ++it)
    if (it->first.size() > prefix.size() && it->first.find('/', prefix.size()) == std::string::npos)
      out.push_back(it->first.substr(prefix.size()));
  return out;
}

bool MemFs::exists(const std::string& path) const {
  std::lock_guard lock(mu_);
  return find(path) != nullptr;
}

Result<std::string> MemFs::readlink(const std::string& path) const {
  std::lock_guard lock(mu_);
  auto it = nodes_.find(normal(path));
  if (it == nodes_.end() || it->second.kind != FileKind::symlink) return missing("readlink", path);
  return it->second.content;
}

Result<std::string> MemFs::realpath(const std::string& path) const {
  if (!exists(path)) return missing("realpath", path);
  return normal(path);  // links inside the path are not resolved: enough for the tests that use it
}

bool MemFs::is_dir(const std::string& path) const {
  std::lock_guard lock(mu_);
  const Node* n = find(path);
  return n && n->kind == FileKind::directory;
}

Result<FileInfo> MemFs::stat(const std::string& path) const {
  std::lock_guard lock(mu_);
  const Node* n = find(path);
  if (!n) return FileInfo{};
  return FileInfo{.kind = n->kind, .size = n->content.size(), .mtime = n->mtime, .mode = n->mode};
}

Status MemFs::can_add_to(const std::string& dir) const {
  if (is_dir(dir)) return Ok{};
  return missing("cannot add a file to", dir);
}

Result<std::string> MemFs::write_target(const std::string& path, Symlinks symlinks) const {
  std::lock_guard lock(mu_);
  std::string p = normal(path);
  auto it = nodes_.find(p);
  if (it != nodes_.end() && it->second.kind == FileKind::symlink && symlinks == Symlinks::follow) {
    const Node* n = find(p);
    if (n && n->kind == FileKind::regular) {
      for (auto& [name, node] : nodes_)  // the link's final target: the regular file it leads to
        if (&node == n) return name;
    }
  }
  if (it == nodes_.end() || it->second.kind == FileKind::regular) return p;
  return Error::make(ErrorKind::invalid, "cannot write " + path + ": not a regular file");
}

Status MemFs::write_atomically(const std::string& path, std::string_view content,
                               const AtomicWriteOptions& o) {
  std::lock_guard lock(mu_);
  if (auto ok = can_write(normal(path)); !ok) return ok;
  nodes_[normal(path)] = Node{.content = std::string(content), .mode = o.mode, .mtime = tick()};
  return Ok{};
}

Status MemFs::append(const std::string& path, std::string_view text, const AppendOptions& o) {
  std::lock_guard lock(mu_);
  const std::string p = normal(path);
  if (auto ok = can_write(p); !ok) return ok;
  auto it = nodes_.find(p);
  if (it == nodes_.end() && !o.create) return missing("cannot write", path);
  Node& n = it == nodes_.end() ? nodes_[p] = Node{.mode = o.mode} : it->second;
  if (o.own_line && !n.content.empty() && n.content.back() != '\n') n.content += '\n';
  n.content += text;
  n.mtime = tick();
  return Ok{};
}

Status MemFs::make_dir(const std::string& path, mode_t mode, bool) {
  std::lock_guard lock(mu_);
  const std::string p = normal(path);
  const Node* up = find(parent_of(p));
  if (!up || up->kind != FileKind::directory) return missing("cannot create the folder", path);
  auto it = nodes_.find(p);
  if (it != nodes_.end() && it->second.kind != FileKind::directory)
    return Error::make(ErrorKind::io, "cannot create the folder " + path, "", EEXIST);
  nodes_.try_emplace(p, Node{.kind = FileKind::directory, .mode = mode, .mtime = tick()});
  return Ok{};
}

Status MemFs::make_new_dir(const std::string& path, mode_t mode) {
  std::lock_guard lock(mu_);
  const std::string p = normal(path);
  const Node* up = find(parent_of(p));
  if (!up || up->kind != FileKind::directory) return missing("cannot create the folder", path);
  if (nodes_.contains(p)) return Error::make(ErrorKind::io, "cannot create the folder " + path, "", EEXIST);
  nodes_[p] = Node{.kind = FileKind::directory, .mode = mode, .mtime = tick()};
  return Ok{};
}

Status MemFs::remove(const std::string& path) {
  std::lock_guard lock(mu_);
  const std::string p = normal(path);
  auto it = nodes_.find(p);
  if (it == nodes_.end()) return Ok{};
  auto next = std::next(it);
  if (next != nodes_.end() && next->first.starts_with(p + "/"))
    return Error::make(ErrorKind::io, "cannot remove " + path, "", ENOTEMPTY);
  nodes_.erase(it);
  return Ok{};
}

Status MemFs::remove_tree(const std::string& path) {
  std::lock_guard lock(mu_);
  const std::string p = normal(path);
  nodes_.erase(p);
  for (auto it = nodes_.lower_bound(p + "/"); it != nodes_.end() && it->first.starts_with(p + "/");)
    it = nodes_.erase(it);
  return Ok{};
}

Result<std::string> MemFs::make_temp_dir(const std::string& prefix) {
  put_dir("/tmp");
  std::string path;
  {
    std::lock_guard lock(mu_);
    path = "/tmp/" + prefix + std::to_string(100000 + ++temp_serial_);
  }
  if (auto made = make_dir(path, 0700); !made) return made.error();
  return path;
}

Result<std::string> MemFs::write_temp_file(const std::string& prefix, std::string_view content) {
  put_dir("/tmp");
  std::string path;
  {
    std::lock_guard lock(mu_);
    path = "/tmp/" + prefix + std::to_string(100000 + ++temp_serial_);
  }
  if (auto made = write_atomically(path, content, {.mode = 0600}); !made) return made.error();
  return path;
}

Status MemFs::make_fifo(const std::string& path, mode_t mode) {
  std::lock_guard lock(mu_);
  const std::string p = normal(path);
  const Node* up = find(parent_of(p));
  if (!up || up->kind != FileKind::directory) return missing("mkfifo", path);
  nodes_[p] = Node{.kind = FileKind::fifo, .mode = mode, .mtime = tick()};
  return Ok{};
}

Status MemFs::write_fifo(const std::string& path, std::string_view bytes) {
  std::lock_guard lock(mu_);
  auto it = nodes_.find(normal(path));
  if (it == nodes_.end() || it->second.kind != FileKind::fifo) return missing("nobody reads", path);
  it->second.content += bytes;
  return Ok{};
}

Result<FileLock> MemFs::lock(const std::string& path) {
  std::mutex* m = nullptr;
  {
    std::lock_guard lock(mu_);
    auto& slot = locks_[normal(path)];
    if (!slot) slot = std::make_unique<std::mutex>();
    m = slot.get();
  }
  m->lock();
  return FileLock([m] { m->unlock(); });
}

}  // namespace dd::probe
