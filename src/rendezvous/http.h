// Minimal HTTP/1.1 client (one POST per connection, Content-Length or chunked answers) and base64, for etcd's
// JSON gateway. Every step is bounded by the caller's deadline.
#pragma once
#include <string>

#include "rendezvous/socket_io.h"

namespace dd::rendezvous {

struct HttpResponse {
  int status = 0;
  std::string body;
};

Result<HttpResponse> http_post(const HostPort& server, const std::string& path, const std::string& body,
                               Deadline deadline);

// Parses a complete response (status line, headers, body by Content-Length, chunked, or until close).
Result<HttpResponse> parse_http_response(const std::string& raw);

std::string base64_encode(const std::string& in);
Result<std::string> base64_decode(const std::string& in);

}  // namespace dd::rendezvous
