// Where the master's embedded store listens: the address --master names, so a store meant for 127.0.0.1 or
// one network is not reachable from every other one; every address only when asked (--listen-all) or when the
// name is not an address of this machine (a NAT or Kubernetes service address), and then with a note.
#pragma once
#include <string>
#include <vector>

#include "rendezvous/socket_io.h"

namespace dd::rendezvous {

struct ListenPlan {
  std::vector<std::string> hosts;  // IP literals to bind, in order; {"0.0.0.0"} or {"::"} for every address
  bool every_address = false;
  std::string note;  // why every address when that was not asked for; "" otherwise
};

// master: the HOST:PORT the nodes were told. A wildcard host ("0.0.0.0", "::", "") means every address. A
// name that resolves only to loopback while it is not itself a loopback name (Debian maps the hostname to
// 127.0.1.1) also means every address: the other nodes resolve it to the real one.
ListenPlan plan_listen(const HostPort& master, bool listen_all, Deadline deadline);

// Every address ("0.0.0.0", or "::" for an IPv6 master), with the note saying why.
ListenPlan every_address(const HostPort& master, std::string note);

// The note for a master whose every address failed to bind with EADDRNOTAVAIL.
std::string not_local_note(const HostPort& master);

}  // namespace dd::rendezvous
