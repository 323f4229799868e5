// torchrun's flag spellings (see torchrun_flags.h).
#include "cli/torchrun_flags.h"

#include <fmt/format.h>

#include <memory>

#include "cli/flag_values.h"

namespace dd::cli {

Result<std::string> torchrun_master(const std::string& addr, int port, const std::string& alone_port_hint) {
  if (addr.empty() && port == 0) return std::string();
  if (port == 0)
    return Error{
        fmt::format("--master-addr {} needs --master-port (together they are --master HOST:PORT, "
                    "where the nodes meet)",
                    addr)};
  if (addr.empty())
    return Error{
        fmt::format("--master-port {} needs --master-addr (together they are --master HOST:PORT, "
                    "where the nodes meet){}",
                    port, alone_port_hint.empty() ? "" : "; " + alone_port_hint)};
  const bool bare_v6 = addr.find(':') != std::string::npos && addr.front() != '[';
  auto master = parse_master((bare_v6 ? "[" + addr + "]" : addr) + ":" + std::to_string(port));
  if (!master) return Error{"--master-addr: " + master.error().message()};
  return *master;
}

void add_torchrun_master(CLI::App& sub, CLI::Option* master, std::string& master_value,
                         const std::string& alone_port_hint) {
  struct Given {
    std::string addr;
    int port = 0;
  };
  auto given = std::make_shared<Given>();
  const std::string group = "torchrun's spellings";
  sub.add_option("--master-addr,--master_addr", given->addr,
                 "As torchrun: with --master-port, --master HOST:PORT")
      ->excludes(master)
      ->group(group);
  sub.add_option("--master-port,--master_port", given->port,
                 "As torchrun: with --master-addr, --master HOST:PORT")
      ->check(CLI::Range(1, 65535))
      ->excludes(master)
      ->group(group);
  sub.parse_complete_callback([given, &master_value, alone_port_hint] {
    auto m = torchrun_master(given->addr, given->port, alone_port_hint);
    if (!m) throw CLI::ValidationError(m.error().message());
    if (!m->empty()) master_value = *m;
  });
}

}  // namespace dd::cli
