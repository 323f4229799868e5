// Job token: sources and their order, generation, and the HMAC proofs.
#include "rendezvous/auth.h"

#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "probe/mem_fs.h"
#include "rendezvous/http.h"

namespace dd::rendezvous {
namespace {

// resolve_token with a plain reader (the CLI passes probe::read_regular_file: bad_files_test.sh).
Result<JobToken> resolve_token(const std::string& flag, const std::string& file, const std::string& env) {
  return rendezvous::resolve_token(flag, file, env, [](const std::string& path) -> Result<std::string> {
    std::ifstream in(path);
    if (!in) return Error{"cannot open", 0};
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  });
}

TEST(StoreAuth, TokenSourcesInOrder) {
  const std::string env = "from-env";  // DISTDOCTOR_TOKEN's value, as the caller passes it
  std::string file =
      (std::filesystem::temp_directory_path() / ("dd-token-" + std::to_string(::getpid()))).string();
  { std::ofstream(file) << "  from-file\n"; }
  ::chmod(file.c_str(), 0600);
  EXPECT_EQ(resolve_token("flag", file, env)->token, "flag");
  EXPECT_EQ(resolve_token("flag", file, env)->source, "--token");
  auto f = resolve_token("", file, env);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->token, "from-file");
  EXPECT_TRUE(f->warning.empty());
  ::chmod(file.c_str(), 0644);
  EXPECT_NE(resolve_token("", file, env)->warning.find("readable by other users"), std::string::npos);
  EXPECT_EQ(resolve_token("", "", env)->token, "from-env");
  EXPECT_EQ(resolve_token("", "", env)->source, "DISTDOCTOR_TOKEN");
  EXPECT_TRUE(resolve_token("", "", "")->token.empty());
  EXPECT_FALSE(resolve_token("", file + ".missing", env).ok());
  { std::ofstream(file) << "\n"; }
  EXPECT_FALSE(resolve_token("", file, env).ok());
  ::unlink(file.c_str());
}

// The mode warning is read through the Fs it is given (the real filesystem unless a test hands it a MemFs).
TEST(StoreAuth, TokenFileModeComesFromTheFs) {
  probe::MemFs fs;
  fs.put("/job/token", "t0k\n", 0640);
  fs.put("/job/private", "t0k\n", 0600);
  const auto read = [&fs](const std::string& path) { return fs.read(path); };
  auto open = rendezvous::resolve_token("", "/job/token", "", read, fs);
  ASSERT_TRUE(open.ok());
  EXPECT_EQ(open->token, "t0k");
  EXPECT_EQ(open->warning, "token file /job/token is readable by other users (mode 640); chmod 600 it");
  EXPECT_EQ(rendezvous::resolve_token("", "/job/private", "", read, fs)->warning, "");
}

TEST(StoreAuth, GeneratedTokensAreRandomHex) {
  std::string a = generate_token(), b = generate_token();
  EXPECT_EQ(a.size(), 64u);
  EXPECT_NE(a, b);
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST(StoreAuth, ProofsDependOnTokenNoncesAndDirection) {
  std::string cn(32, 'c'), sn(32, 's');
  EXPECT_TRUE(proofs_equal(client_proof("t", cn, sn), client_proof("t", cn, sn)));
  EXPECT_FALSE(proofs_equal(client_proof("t", cn, sn), client_proof("u", cn, sn)));
  EXPECT_FALSE(proofs_equal(client_proof("t", cn, sn), server_proof("t", cn, sn)));
  EXPECT_FALSE(proofs_equal(client_proof("t", cn, sn), client_proof("t", sn, cn)));
  EXPECT_FALSE(proofs_equal(client_proof("t", cn, sn), ""));
  // RFC 4231 test case 2.
  std::string mac = hmac_sha256("Jefe", "what do ya want for nothing?");
  EXPECT_EQ(base64_encode(mac), "W9zBRr9gdU5qBCQmCJV1x1oAPwidJzmDnexYuWTsOEM=");
  // The thread's context is keyed once per key: another key between two uses must not leak into either.
  std::string other = hmac_sha256("Jeff", "what do ya want for nothing?");
  EXPECT_NE(other, mac);
  EXPECT_EQ(hmac_sha256("Jefe", "what do ya want for nothing?"), mac);
  EXPECT_EQ(hmac_sha256("Jeff", "what do ya want for nothing?"), other);
  // RFC 4231 test case 1 (a 20-byte key of 0x0b, "Hi There") after those.
  EXPECT_EQ(base64_encode(hmac_sha256(std::string(20, '\x0b'), "Hi There")),
            "sDRMYdjbOFNcqK/OrwvxK4gdwgDJgz2nJuk3bC4yz/c=");
}

TEST(StoreHttp, Base64AndResponses) {
  for (const std::string& s :
       std::vector<std::string>{"", "a", "ab", "abc", "abcd", std::string("\0\xff\x10", 3)})
    EXPECT_EQ(*base64_decode(base64_encode(s)), s);
  EXPECT_FALSE(base64_decode("a$b").ok());
  auto r = parse_http_response("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}xx");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "{}");
  r = parse_http_response(
      "HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(r->body, "abcde");
  EXPECT_FALSE(parse_http_response("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nff\r\nab").ok());
  EXPECT_FALSE(parse_http_response("garbage").ok());
}

// Found by fuzz/etcd_http.cc: a chunk size near 2^64 wrapped the bounds check and sent the reader back to an
// earlier chunk line (a loop that grows the body without end); a head without a space read before the text.
TEST(StoreHttp, HostileAnswersEndInAnError) {
  EXPECT_FALSE(parse_http_response("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                                   "1\r\nX\r\nffffffffffffffec\r\nabc\r\n0\r\n\r\n")
                   .ok());
  EXPECT_FALSE(parse_http_response("HTTP/1.1-200\r\n\r\n{}").ok());
  auto r = parse_http_response("HTTP/1.1 99999999999999999999 OK\r\n\r\n{}");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 0);
  EXPECT_EQ(r->body, "{}");
}

}  // namespace
}  // namespace dd::rendezvous
