// The pieces of joining a multi-node run that `check` and `launch` share: who this process is (ClusterPlan),
// the job token, this process's Member record, and the finding for a store that cannot be opened.
#pragma once
#include <string>

#include "cluster/job_spec.h"
#include "cluster/launcher_env.h"
#include "cluster/view.h"
#include "common/progress_sink.h"
#include "common/result.h"
#include "probe/facts.h"
#include "report/finding.h"

namespace dd::cluster {

// Who this process is in the run and where the job meets (pure: from the options and the environment).
struct ClusterPlan {
  LauncherInfo launcher;
  JobSpec spec;
  // The first local rank of each node (every node by hand) publishes its node's facts; the other ranks
  // publish only their identity.
  bool publishes_facts() const { return spec.by_hand || spec.local_rank == 0; }
};

Result<ClusterPlan> plan_cluster(const ClusterArgs& args, const EnvMap& env);

struct TokenChoice {
  std::string token;
  std::string note;         // where it came from, for the report
  bool generated = false;   // made by this node (the first of a by-hand job): hand it off (token_handoff.h)
  std::string secret_path;  // derived from this per-user secret file (a launcher job with no token given)
};

// The token of a launcher job that was given none: HMAC of the job id and user id, keyed by the user's secret
// (probe/user_secret.h). Anyone can compute the job id; only this user (on every node, through a shared home)
// holds the secret.
std::string derived_job_token(const std::string& user_secret, const std::string& job_id);

// Token: flag, file, env; the first node of a by-hand job makes one; a launcher job derives one from the
// user's secret (made on first use), or stops with the command that makes it. What the person should know
// (a token file others can read, --token on the command line, a short token) goes to `progress`.
Result<TokenChoice> choose_token(const ClusterArgs& args, const JobSpec& spec, const ProgressSink& progress);

// The store url this node opens: the master of a by-hand job that prints the command binds the address it
// prints (every address with --listen-all); everyone else the spec's url.
std::string store_open_url(const ClusterArgs& args, const JobSpec& spec, const probe::NodeFacts& facts);

// This process as it announces itself at join time.
Member make_self(const ClusterPlan& plan, const probe::NodeFacts& facts);

// The finding for a store that could not be opened: refused token, port taken, master unreachable.
report::Finding store_finding(const Error& e, const std::string& url, double timeout_s, bool serve);

// A refused token that was derived from the per-user secret: the likely reason (nodes that do not share that
// file) added to the finding's fix.
void add_secret_hint(report::Finding& f, const TokenChoice& token);

}  // namespace dd::cluster
