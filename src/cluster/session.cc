// Shared join pieces of check and launch (see session.h).
#include "cluster/session.h"

#include <fmt/format.h>
#include <unistd.h>

#include "cluster/advertise.h"
#include "probe/regular_file.h"
#include "probe/tool_env.h"
#include "probe/user_secret.h"
#include "rendezvous/auth.h"
#include "rendezvous/lockout.h"
#include "rules/rule_util.h"

namespace dd::cluster {

using report::Finding;
using report::Severity;

std::string derived_job_token(const std::string& user_secret, const std::string& job_id) {
  return rendezvous::to_hex(rendezvous::hmac_sha256(
      user_secret, "distdoctor launcher token|" + job_id + "/" + std::to_string(::geteuid())));
}

Result<ClusterPlan> plan_cluster(const ClusterArgs& args, const EnvMap& env) {
  ClusterPlan plan;
  plan.launcher = detect_launcher(env);
  auto spec = resolve_job(args, plan.launcher, env);
  if (!spec) return spec.error();
  plan.spec = std::move(*spec);
  return plan;
}

Finding store_finding(const Error& e, const std::string& url, double timeout_s, bool serve) {
  std::string m = e.message();
  if (auto lock = rendezvous::find_lockout(m); lock && e.kind == ErrorKind::auth)
    return Finding{
        "cluster.join.locked_out",
        Severity::fail,
        fmt::format("the master {} locked this node out: too many wrong tokens came from its address {} "
                    "(for {} s more)",
                    url, lock->addr, lock->seconds),
        {m},
        fmt::format(
            "Another process on {} (an old run, a script with a stale token, another user of a shared "
            "host) sent wrong tokens to the master: find it (`ss -tnp` there), then run again after the "
            "pause with the token the master printed. The master's log names the address too.",
            lock->addr)};
  if (e.kind == ErrorKind::auth)
    return Finding{"cluster.join.refused",
                   Severity::fail,
                   fmt::format("the master {} refused this node: wrong job token", url),
                   {m},
                   "Use the token the master printed (--token, --token-file or DISTDOCTOR_TOKEN); every node "
                   "of one job needs the same token."};
  if (serve)
    return Finding{"cluster.join.serve_failed",
                   Severity::fail,
                   fmt::format("could not start the rendezvous store on {}", url),
                   {m},
                   "Pick a free port (--master HOST:PORT with another PORT) or stop the process holding it."};
  if (e.kind == ErrorKind::not_found && m.rfind("resolve ", 0) == 0)
    return Finding{
        "cluster.join.unresolvable",
        Severity::fail,
        fmt::format("the master's host name does not resolve ({})", url),
        {m},
        "Check the host in --master (a typo, or a name only some machines know): give node rank 0's "
        "IP address, or make the name resolve on every node (DNS, /etc/hosts). `getent hosts NAME` "
        "shows what this node gets."};
  return Finding{
      "cluster.join.unreachable",
      Severity::fail,
      fmt::format("cannot reach the master {} within {:.0f} s", url, timeout_s),
      {m},
      "Start node rank 0 first, check the address and port (nc -zv HOST PORT), and that no firewall "
      "blocks it."};
}

void add_secret_hint(Finding& f, const TokenChoice& token) {
  if (token.secret_path.empty() || f.id != "cluster.join.refused") return;
  f.fix += fmt::format(
      " This node derived its token from your secret in {}: every node of the job must read the same file "
      "(a home shared by the nodes), or every rank needs the same DISTDOCTOR_TOKEN.",
      token.secret_path);
}

// Token: flag, file, env; the first node of a by-hand job makes one; a launcher job derives one.
Result<TokenChoice> choose_token(const ClusterArgs& args, const JobSpec& spec, const ProgressSink& progress) {
  auto tok = rendezvous::resolve_token(
      args.token, args.token_file, probe::tool_env().token,
      [](const std::string& path) -> Result<std::string> {
        constexpr uint64_t kMaxTokenBytes = 4096;  // a token is 64 hex digits; /dev/zero is refused anyway
        auto f = probe::read_regular_file(path,
                                          {.max_bytes = kMaxTokenBytes, .deadline = std::chrono::seconds(2)});
        if (!f) return f.error();
        if (f->truncated) return Error::invalid("it holds more than 4 KiB: not a job token");
        return std::move(f->text);
      });
  if (!tok) return tok.error();
  TokenChoice c{tok->token, tok->source.empty() ? "" : "job token from " + tok->source};
  if (!tok->warning.empty()) say(progress, ProgressKind::progress, tok->warning);
  if (!args.token.empty())
    say(progress, ProgressKind::progress,
        "--token is visible to every user of this machine (ps, /proc); pass it with --token-file or "
        "DISTDOCTOR_TOKEN instead");
  if (c.token.empty() && spec.make_token) {
    c.token = rendezvous::generate_token();
    c.generated = true;
    c.note = "job token generated by this node (printed on a terminal, else in a file only you can read)";
  } else if (c.token.empty() && !spec.by_hand) {
    // The job id and port are public (squeue): the token is keyed by this user's secret, which is not.
    const std::string path = probe::user_secret_path(probe::tool_env().config_home, probe::tool_env().home);
    auto secret = probe::read_or_create_user_secret(path, rendezvous::generate_token());
    if (!secret)
      return Error::invalid(fmt::format(
          "no job token: under {} with no DISTDOCTOR_TOKEN, distdoctor derives one from your secret in {}, "
          "and {}. Make it once (on a home every node shares): {}; or give every rank the same "
          "DISTDOCTOR_TOKEN "
          "(64 random hex digits, as openssl rand -hex 32 prints)",
          spec.launcher, path.empty() ? "~/.config/distdoctor/job-secret" : path, secret.error().message(),
          probe::user_secret_command(path.empty() ? "$HOME/.config/distdoctor/job-secret" : path)));
    c.token = derived_job_token(secret->secret, spec.job_id);
    c.secret_path = secret->path;
    c.note = fmt::format(
        "job token derived from the job id and your secret in {}{} (every node must read the "
        "same file: a shared home)",
        secret->path, secret->created ? ", made now" : "");
  } else if (c.token.empty()) {
    return Error::invalid(
        "there is no job token, and this node needs the one node rank 0 printed: set DISTDOCTOR_TOKEN as in "
        "the command it printed, or give the file that holds it (the token-file option). The store refuses "
        "nodes without it");
  }
  // A token anyone can guess lets anyone join (and read the job's facts): say so once, do not refuse it.
  constexpr size_t kWeakTokenChars = 16;
  if (!c.generated && c.token.size() < kWeakTokenChars && !tok->source.empty())
    say(progress, ProgressKind::progress,
        fmt::format("the job token from {} is only {} character{}: easy to guess; use 16 or more random "
                    "characters (or let node rank 0 make one)",
                    tok->source, c.token.size(), c.token.size() == 1 ? "" : "s"));
  return c;
}

std::string store_open_url(const ClusterArgs& args, const JobSpec& spec, const probe::NodeFacts& facts) {
  if (!spec.print_command || args.listen_all) return spec.store_url;
  return fmt::format("{}:0", pick_advertise_addr(facts));
}

// This process as it announces itself at join time.
Member make_self(const ClusterPlan& plan, const probe::NodeFacts& facts) {
  const JobSpec& spec = plan.spec;
  Member self;
  self.rank = spec.rank;
  self.local_rank = spec.local_rank;
  self.local_world = spec.local_world;
  self.node_rank = spec.node_rank;
  self.pid = getpid();
  self.launcher = spec.by_hand ? "" : plan.launcher.launcher;
  self.notes = spec.notes;
  self.nccl_ifname_setting = rules::socket_ifname_setting(facts);
  self.hostname = facts.host.hostname;
  self.boot_id = facts.host.boot_id;
  self.netns = facts.host.netns;
  self.has_facts = plan.publishes_facts();
  self.world = spec.world;
  return self;
}

}  // namespace dd::cluster
