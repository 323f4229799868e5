// The open side of the one rendezvous that `check` and `launch` share: the job token, the store url (on etcd,
// a key prefix of the job's own, named per command), the store opened as master or client, and the finding
// and notes that say how it went. The steps after it (claim, publish, wait for all) are store-level:
// rendezvous/meeting_join.h and rendezvous/meeting_wait.h, with the key scheme of rendezvous/meeting_keys.h.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/job_spec.h"
#include "cluster/session.h"
#include "common/progress_sink.h"
#include "common/result.h"
#include "probe/facts.h"
#include "rendezvous/open_store.h"
#include "report/finding.h"

namespace dd::cluster {

// Where and how this process meets the others.
struct MeetingPlace {
  const ClusterArgs& args;
  const JobSpec& spec;
  const probe::NodeFacts& facts;  // the master of a by-hand job binds the address it advertises
  // etcd outlives a run and may serve several jobs: a url without a prefix gets "/NAME-HASH" (HASH of the
  // token and job id), NAME per command ("distdoctor" for check, "distdoctor-launch" for launch).
  std::string etcd_name;
  rendezvous::Deadline deadline;  // the master must be reachable by then
  ProgressSink progress;          // the token's warnings: a file others can read, --token, a short token
  ProgressSink store_log;         // the embedded store's log when this node serves it (empty: dropped)
};

struct Meeting {
  TokenChoice token;
  std::string url;                 // where the nodes meet (etcd prefix included): for findings and notes
  rendezvous::OpenedStore opened;  // store, server (master of an embedded store), port, local url
  std::vector<std::string> notes;  // the token's source, "rendezvous: ...", the listen note
  std::optional<report::Finding> failure;  // the store could not be opened (opened is then empty)
  // Node rank 0 that made the token prints the others' command with this master: the address it advertises
  // and the port it opened, or the --master it was given; "" when it prints none.
  std::string announce_master;
};

// An Error when there is no usable token (the command line cannot work); a store that cannot be opened is a
// Meeting with `failure` set (cluster.join.refused, serve_failed, unresolvable, unreachable).
Result<Meeting> open_meeting(const MeetingPlace& place);

// "etcd://h:2379" -> "etcd://h:2379/NAME-HASH"; any other url, or an etcd url with a prefix, is returned as
// is.
std::string etcd_job_url(const std::string& url, const std::string& etcd_name, const std::string& token,
                         const std::string& job_id);

}  // namespace dd::cluster
