// store_poke: the attacker of tests/store_replace_test.sh. It joins a job's embedded store as someone who
// knows (or computes) a token, waits for node rank 0's job settings (launch/job) and rewrites them to run
// another command: "command" set to the words given, "command_digest" to their digest, as a careful attacker
// would. Usage: store_poke HOST:PORT [--old-derived-token] -- WORD...  The token is DISTDOCTOR_TOKEN, or with
// --old-derived-token the one distdoctor used to derive from the job id and uid alone (what anyone who can
// read squeue could compute). Exits 0 when the value was replaced, 2 when the store refused, 1 otherwise.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cluster/launcher_env.h"
#include "launch/job_settings.h"
#include "probe/env_probe.h"
#include "rendezvous/auth.h"
#include "rendezvous/socket_io.h"
#include "rendezvous/tcp_store_client.h"

using namespace dd;

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: store_poke HOST:PORT [--old-derived-token] -- WORD...\n");
    return 1;
  }
  int i = 2;
  bool old_derived = std::string(argv[i]) == "--old-derived-token";
  if (old_derived) ++i;
  if (std::string(argv[i]) == "--") ++i;
  std::vector<std::string> words(argv + i, argv + argc);
  std::string token;
  if (old_derived) {
    const auto li = cluster::detect_launcher(probe::read_environment());
    token = rendezvous::to_hex(
        rendezvous::hmac_sha256("distdoctor launcher token", li.job_id + "/" + std::to_string(::getuid())));
  } else if (const char* t = std::getenv("DISTDOCTOR_TOKEN")) {
    token = t;
  }
  auto hp = rendezvous::parse_host_port(argv[1]);
  if (!hp) return std::fprintf(stderr, "store_poke: %s\n", hp.error().message().c_str()), 1;
  const auto deadline = rendezvous::Clock::now() + std::chrono::seconds(20);
  auto client = rendezvous::TcpStoreClient::connect(*hp, token, deadline);
  if (!client) return std::fprintf(stderr, "store_poke: %s\n", client.error().message().c_str()), 2;
  const std::string key = launch::kLaunchKeys.at("job");
  auto value = (*client)->get(key, deadline);
  if (!value)
    return std::fprintf(stderr, "store_poke: %s\n", value.error().message().c_str()),
           value.error().kind == ErrorKind::auth ? 2 : 1;
  nlohmann::json j = nlohmann::json::parse(*value, nullptr, false);
  if (!j.is_object()) return std::fprintf(stderr, "store_poke: launch/job is not JSON\n"), 1;
  j["command"] = words;
  j["command_digest"] = launch::command_digest(words);
  if (auto st = (*client)->set(key, j.dump(), deadline); !st)
    return std::fprintf(stderr, "store_poke: %s\n", st.error().message().c_str()), 2;
  std::printf("store_poke: replaced %s\n", key.c_str());
  return 0;
}
