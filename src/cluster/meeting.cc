// Opening the rendezvous of check and launch (see meeting.h).
#include "cluster/meeting.h"

#include <fmt/format.h>

#include "cluster/advertise.h"

namespace dd::cluster {

std::string etcd_job_url(const std::string& url, const std::string& etcd_name, const std::string& token,
                         const std::string& job_id) {
  bool etcd = url.rfind("etcd://", 0) == 0;
  if (!etcd || url.find('/', 7) != std::string::npos) return url;
  return url + fmt::format("/{}-{:016x}", etcd_name, fnv1a(token + "|" + job_id));
}

Result<Meeting> open_meeting(const MeetingPlace& p) {
  auto tok = choose_token(p.args, p.spec, p.progress);
  if (!tok) return tok.error();
  Meeting m;
  m.token = std::move(*tok);
  if (!m.token.note.empty()) m.notes.push_back(m.token.note);
  m.url = etcd_job_url(store_open_url(p.args, p.spec, p.facts), p.etcd_name, m.token.token, p.spec.job_id);
  auto opened = rendezvous::open_store(
      m.url, m.token.token, p.spec.serve ? rendezvous::StoreRole::kMaster : rendezvous::StoreRole::kClient,
      p.deadline,
      rendezvous::OpenOptions{.listen_all = p.args.listen_all,
                              .server_log = p.store_log,
                              .expected_clients = static_cast<size_t>(p.spec.world)});
  if (!opened) {
    m.failure = store_finding(opened.error(), m.url, p.args.timeout_s, p.spec.serve);
    add_secret_hint(*m.failure, m.token);
    return m;
  }
  m.opened = std::move(*opened);
  m.notes.push_back("rendezvous: " + m.opened.description);
  if (!m.opened.listen_note.empty()) m.notes.push_back(m.opened.listen_note);
  if (p.spec.print_command)
    m.announce_master = fmt::format("{}:{}", pick_advertise_addr(p.facts), m.opened.port);
  else if (m.token.generated)
    m.announce_master = p.args.master;
  return m;
}

}  // namespace dd::cluster
