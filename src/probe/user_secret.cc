// read_or_create_user_secret (user_secret.h): open without following links, check owner and mode, read;
// when absent, write a temporary file of mode 0600 and link() it into place (atomic and never replacing, on
// local file systems and on NFS), so concurrent ranks agree on one secret.
#include "probe/user_secret.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "probe/regular_file.h"

namespace dd::probe {

namespace {

constexpr size_t kMinHex = 32, kMaxHex = 256;

std::string folder_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// Creates the secret's folder (and missing parents: ~/.config may not exist) with mode 0700 for the last.
Status make_folder(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST) return Ok{};
  if (errno != ENOENT) return Error::from_errno("create the folder " + dir);
  if (auto up = make_folder(folder_of(dir)); !up) return up;
  if (::mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST) return Ok{};
  return Error::from_errno("create the folder " + dir);
}

bool is_hex(const std::string& s) {
  return s.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos;
}

// Reads an existing secret: Error kind not_found when there is none.
Result<std::string> read_secret(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0 && errno == ELOOP)
    return Error::invalid(path + " is a symbolic link; the secret must be a file");
  if (fd < 0) return Error::from_errno("read " + path);
  RegularFile file(fd, 0);
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Error::from_errno("read " + path);
  if (!S_ISREG(st.st_mode))
    return Error::invalid(path + " is " + file_type_phrase(st.st_mode) + ", not a file");
  if (st.st_uid != ::geteuid())
    return Error::invalid(
        fmt::format("{} belongs to uid {}, not to this user (uid {})", path, st.st_uid, ::geteuid()));
  if ((st.st_mode & 077) != 0)
    return Error::invalid(fmt::format("{} can be read or changed by other users (mode {:04o}): chmod 600 {}",
                                      path, st.st_mode & 07777, path));
  char buf[kMaxHex + 2];
  ssize_t n;
  do n = ::read(fd, buf, sizeof buf);
  while (n < 0 && errno == EINTR);
  if (n < 0) return Error::from_errno("read " + path);
  std::string s(buf, size_t(n));
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  if (s.size() < kMinHex || s.size() > kMaxHex || !is_hex(s))
    return Error::invalid(
        fmt::format("{} does not hold a secret (32 to 256 hex digits); remove it and run "
                    "again to make a new one",
                    path));
  return s;
}

// Writes a new secret beside path and links it into place; EEXIST (another rank won) is not an error.
Status create_secret(const std::string& path, const std::string& hex) {
  const std::string tmp = fmt::format("{}.new.{}.{}", path, ::getpid(), hex.substr(0, 8));
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Error::from_errno("create " + tmp);
  const std::string text = hex + "\n";
  bool ok = ::fchmod(fd, 0600) == 0 && ::write(fd, text.data(), text.size()) == ssize_t(text.size()) &&
            ::fsync(fd) == 0;
  Status st = ok ? Status(Ok{}) : Status(Error::from_errno("write " + tmp));
  if (::close(fd) != 0 && st) st = Error::from_errno("write " + tmp);
  if (st && ::link(tmp.c_str(), path.c_str()) != 0 && errno != EEXIST)
    st = Error::from_errno("create " + path);
  ::unlink(tmp.c_str());
  return st;
}

}  // namespace

std::string user_secret_path(const std::string& xdg_config_home, const std::string& home) {
  if (!xdg_config_home.empty() && xdg_config_home.front() == '/')
    return xdg_config_home + "/distdoctor/job-secret";
  if (!home.empty()) return home + "/.config/distdoctor/job-secret";
  return "";
}

std::string user_secret_command(const std::string& path) {
  return fmt::format("mkdir -p -m 700 {} && (umask 077; openssl rand -hex 32 > {})", folder_of(path), path);
}

Result<UserSecret> read_or_create_user_secret(const std::string& path, const std::string& random_hex) {
  if (path.empty()) return Error::invalid("neither HOME nor XDG_CONFIG_HOME is set");
  UserSecret out{.path = path};
  auto have = read_secret(path);
  if (!have && have.error().kind == ErrorKind::not_found) {
    if (random_hex.size() < kMinHex || !is_hex(random_hex))
      return Error::invalid("no random secret to write");
    if (auto dir = make_folder(folder_of(path)); !dir) return dir.error();
    if (auto made = create_secret(path, random_hex); !made) return made.error();
    have = read_secret(path);
    out.created = have && *have == random_hex;
  }
  if (!have) return have.error();
  out.secret = std::move(*have);
  return out;
}

}  // namespace dd::probe
