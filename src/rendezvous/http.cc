// Minimal HTTP/1.1 POST over our own socket (Connection: close) and base64 for etcd's gRPC-gateway.
#include "rendezvous/http.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>

namespace dd::rendezvous {
namespace {
constexpr size_t kMaxResponse = 64u << 20;
const char* kB64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}
}  // namespace

std::string base64_encode(const std::string& in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += kB64[(v >> s) & 63];
  }
  if (i < in.size()) {
    uint32_t v = uint8_t(in[i]) << 16;
    if (i + 1 < in.size()) v |= uint8_t(in[i + 1]) << 8;
    out += kB64[(v >> 18) & 63];
    out += kB64[(v >> 12) & 63];
    out += i + 1 < in.size() ? kB64[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

Result<std::string> base64_decode(const std::string& in) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=') break;
    const char* p = std::strchr(kB64, c);
    if (!p || !c) return Error::protocol("bad base64 in etcd answer");
    acc = (acc << 6) | static_cast<uint32_t>(p - kB64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}

Result<HttpResponse> parse_http_response(const std::string& raw) {
  auto head_end = raw.find("\r\n\r\n");
  if (head_end == std::string::npos) return Error::protocol("truncated HTTP answer (no end of headers)");
  HttpResponse r;
  auto space = raw.find(' ');  // "HTTP/1.1 200 OK": the status code follows the first space of the head
  if (raw.compare(0, 5, "HTTP/") != 0 || raw.size() < 12 || space > head_end)
    return Error::protocol("not an HTTP answer");
  std::from_chars(raw.data() + space + 1, raw.data() + head_end, r.status);  // 0 when not a number
  std::string head = lower(raw.substr(0, head_end));
  std::string body = raw.substr(head_end + 4);
  if (head.find("transfer-encoding: chunked") != std::string::npos) {
    size_t pos = 0;
    while (true) {
      auto eol = body.find("\r\n", pos);
      if (eol == std::string::npos) return Error::protocol("truncated chunked HTTP answer");
      size_t n = std::strtoul(body.c_str() + pos, nullptr, 16);
      if (n == 0) break;
      // Compared without adding to n: a chunk size near 2^64 must not wrap around (the loop would go back).
      if (n > body.size() - (eol + 2)) return Error::protocol("truncated chunked HTTP answer");
      r.body += body.substr(eol + 2, n);
      pos = eol + 2 + n + 2;
    }
    return r;
  }
  if (auto cl = head.find("content-length:"); cl != std::string::npos) {
    size_t n = std::strtoul(head.c_str() + cl + 15, nullptr, 10);
    if (body.size() < n) return Error::protocol("truncated HTTP answer body");
    body.resize(n);
  }
  r.body = std::move(body);
  return r;
}

Result<HttpResponse> http_post(const HostPort& server, const std::string& path, const std::string& body,
                               Deadline deadline) {
  auto addrs = resolve(server, deadline);
  if (!addrs) return addrs.error();
  auto fd = connect_once(addrs->front(), deadline);
  if (!fd) return fd.error();
  std::string req = fmt::format(
      "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n"
      "Connection: close\r\n\r\n",
      path, server.str(), body.size());
  req += body;
  std::string peer = server.str();
  auto sent = send_all(*fd, req, deadline, peer);
  if (!sent) {
    ::close(*fd);
    return sent.error();
  }
  std::string raw;
  char buf[65536];
  while (raw.size() < kMaxResponse) {
    auto n = recv_some(*fd, buf, sizeof buf, deadline, peer);
    if (!n) {
      if (n.error().kind == ErrorKind::closed && !raw.empty())
        break;  // "closed the connection": the answer is complete
      ::close(*fd);
      return n.error();
    }
    raw.append(buf, *n);
  }
  ::close(*fd);
  auto r = parse_http_response(raw);
  if (!r) return Error::protocol(fmt::format("etcd at {}: {}", peer, r.error().what), peer);
  return r;
}

}  // namespace dd::rendezvous
