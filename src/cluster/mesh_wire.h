// Mesh wire helpers shared by the listener (mesh_server.cc) and the prober (mesh.cc): the handshake layout
// (magic, job tag, rank), exact socket I/O under SO_RCVTIMEO/SO_SNDTIMEO, and errno -> mesh error names.
#pragma once
#include <sys/socket.h>

#include <cstdint>
#include <string>

namespace dd::cluster::mesh_wire {

inline constexpr char kMagic[8] = {'D', 'D', 'M', 'E', 'S', 'H', '0', '1'};
inline constexpr size_t kHello = 16;           // magic + tag
inline constexpr size_t kReply = 20;           // magic + tag + rank
inline constexpr uint64_t kMaxBw = 64u << 20;  // bandwidth bytes a listener accepts per direction

bool to_sockaddr(const std::string& addr, int port, sockaddr_storage* ss, socklen_t* len);
void put64(char* p, uint64_t v);
uint64_t get64(const char* p);
bool read_all(int fd, char* p, size_t n);
bool write_all(int fd, const char* p, size_t n);
bool sink(int fd, uint64_t n);  // reads and drops n bytes
bool pump(int fd, uint64_t n);  // writes n bytes
void set_timeouts(int fd, int ms);
std::string classify(int err);  // "refused", "timeout", "unreachable", "no route", "reset", "error"

}  // namespace dd::cluster::mesh_wire
