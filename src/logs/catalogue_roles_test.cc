// The catalogue's roles (catalogue_roles.h): the needle lists that lived in C++ before issue 42 are covered
// by role entries, a bad role is refused naming its entry, and a new log pattern is one entry (and its
// fixture).
#include "logs/catalogue_roles.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <utility>

#include "logs/file_scan.h"
#include "logs/hang_trigger.h"
#include "logs/known_errors_data.h"

namespace dd::logs {
namespace {

const std::string kRoleFixtures = std::string(DD_FIXTURE_DIR) + "/logs/catalogue/";

// Whether a needle of an entry with `role` (and, for hang triggers, of `kind`) is `text` itself.
bool role_has_needle(const Catalogue& cat, CatalogueRole role, std::string_view text,
                     const std::function<bool(const CatalogueEntry&)>& fits) {
  for (const RoleNeedle& n : cat.role_needles(role))
    if (n.text == text && fits(cat.entries()[n.entry])) return true;
  return false;
}

// hang_trigger.cc's kPatterns on main before the catalogue held them: each is a hang_trigger entry's needle
// of the same kind, and a line holding it is that trigger.
TEST(CatalogueRoles, OldHangTriggerNeedlesAreCatalogueEntries) {
  const std::pair<const char*, HangTriggerKind> old[] = {
      {"Watchdog caught collective operation timeout", HangTriggerKind::watchdog_timeout},
      {"failure detected by watchdog at work sequence id", HangTriggerKind::watchdog_timeout},
      {"Received a dump signal due to a collective timeout", HangTriggerKind::dump_signal},
      {"Observed flight recorder dump signal from another rank", HangTriggerKind::dump_signal},
      {"Process group watchdog thread terminated with exception", HangTriggerKind::abort},
      {"Terminating the process after attempting to dump debug info", HangTriggerKind::abort},
      {"watchdog got stuck for", HangTriggerKind::abort},
      {"NCCL communicator was aborted", HangTriggerKind::comm_error},
      {"NCCL error: remote process exited or there was a network error", HangTriggerKind::comm_error},
      {"ncclRemoteError", HangTriggerKind::comm_error},
  };
  const Catalogue& cat = Catalogue::builtin();
  for (const auto& [needle, kind] : old) {
    EXPECT_TRUE(role_has_needle(cat, CatalogueRole::hang_trigger, needle,
                                [kind = kind](const CatalogueEntry& e) { return e.hang_kind == kind; }))
        << needle;
    auto t = hang_trigger(std::string("[rank1]:[E1127 00:28:17.99 ProcessGroupNCCL.cpp:1] ") + needle + " x");
    ASSERT_TRUE(t) << needle;
    EXPECT_EQ(t->kind, kind) << needle;
    EXPECT_EQ(t->rank, 1);
  }
  // More may come (a new wording is one entry): the old ones are all there.
  EXPECT_GE(cat.role_needles(CatalogueRole::hang_trigger).size(), std::size(old));
  // A watchdog's abort line restates the timeout: the line is a timeout (the kind that wins first).
  auto both = hang_trigger(
      "Process group watchdog thread terminated with exception: [Rank 2] Watchdog caught collective "
      "operation "
      "timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE)");
  ASSERT_TRUE(both);
  EXPECT_EQ(both->kind, HangTriggerKind::watchdog_timeout);
}

// progress_scan.cc's lists on main: the traceback list (peer_failure_text) and the three a line of any kind
// was checked for (peer_lost).
TEST(CatalogueRoles, OldPeerFailureNeedlesAreCatalogueEntries) {
  const Catalogue& cat = Catalogue::builtin();
  auto any = [](const CatalogueEntry&) { return true; };
  auto lost = [](const CatalogueEntry& e) { return e.peer_kind == PeerKind::lost_peer; };
  for (const char* n : {"ncclRemoteError", "remote process exited", "by remote peer", "reset by peer",
                        "was aborted", "Watchdog caught", "timed out", "Signal 15", "SIGTERM"})
    EXPECT_TRUE(role_has_needle(cat, CatalogueRole::peer_failure, n, any)) << n;
  size_t lost_needles = 0;
  for (const RoleNeedle& n : cat.role_needles(CatalogueRole::peer_failure))
    lost_needles += lost(cat.entries()[n.entry]);
  EXPECT_GE(lost_needles, 3u);  // more may come: a new wording is one entry
  for (const char* n : {"remote process exited", "by remote peer", "reset by peer"})
    EXPECT_TRUE(role_has_needle(cat, CatalogueRole::peer_failure, n, lost)) << n;
}

// Each entry's fixture reaches its role's reader: a hang trigger's fixture has a line of its kind, a lost
// peer's fixture sets a rank's peer_lost, a survivor error's holds one of its needles.
TEST(CatalogueRoles, FixturesOfRoleEntriesReachTheirReaders) {
  const Catalogue& cat = Catalogue::builtin();
  size_t checked = 0;
  for (const auto& e : cat.entries()) {
    if (!e.has_role(CatalogueRole::hang_trigger) && !e.has_role(CatalogueRole::peer_failure)) continue;
    ++checked;
    const std::string path = kRoleFixtures + e.id + ".log";
    std::ifstream in(path);
    bool trigger = false, needle = false;
    for (std::string line; std::getline(in, line);) {
      auto t = hang_trigger(line, cat);
      trigger |= t && t->kind == e.hang_kind;
      for (const auto& n : e.needles) needle |= line.find(n) != std::string::npos;
    }
    if (e.has_role(CatalogueRole::hang_trigger)) {
      EXPECT_TRUE(trigger) << e.id << ": " << path;
    }
    if (!e.has_role(CatalogueRole::peer_failure)) continue;
    EXPECT_TRUE(needle) << e.id << ": " << path;
    if (e.peer_kind != PeerKind::lost_peer) continue;
    FileResult r = scan_file(path, cat, ScanOptions{});
    bool lost = false;
    for (const auto& p : r.ranks) lost |= !p.peer_lost.empty();
    EXPECT_TRUE(lost) << e.id << ": " << path;
  }
  EXPECT_GE(checked, 8u);
}

// An error for `json`, or "" when it parsed.
std::string refusal(const std::string& json) {
  auto c = Catalogue::parse(json);
  return c.ok() ? "" : c.error().message();
}

TEST(CatalogueRoles, BadRolesAreRefusedNamingTheEntry) {
  const std::string ok = R"J({"id":"a.ok","title":"t","needles":["zz"]})J";
  const std::pair<std::string, std::string> bad[] = {
      {R"J({"id":"a.b","title":"t","needles":["xx"],"role":"witness"})J", "role must be one of"},
      {R"J({"id":"a.b","title":"t","needles":["xx"],"role":["cause","consequence"]})J", "not both"},
      {R"J({"id":"a.b","title":"t","needles":["xx"],"role":"hang_trigger"})J", "needs hang_kind"},
      {R"J({"id":"a.b","title":"t","needles":["xx"],"role":"hang_trigger","hang_kind":"snooze"})J",
       "not \"snooze\""},
      {R"J({"id":"a.b","title":"t","needles":["xx"],"hang_kind":"abort"})J", "hang_kind needs the role"},
      {R"J({"id":"a.b","title":"t","needles":["xx"],"role":"peer_failure"})J", "needs peer_kind"},
      {R"J({"id":"a.b","title":"t","needles":["xx"],"consequence_of":["a.ok"]})J",
       "consequence_of needs the role consequence"},
      {R"J({"id":"a.b","title":"t","needles":["xx"],"role":"consequence","consequence_of":["a.gone"]})J",
       "names a.gone, which is no entry"},
      {R"J({"id":"a.b","title":"t","needles":["xx"],"role":"consequence","consequence_of":["a.b"]})J",
       "not another entry's finding"},
  };
  for (const auto& [entry, why] : bad) {
    const std::string msg = refusal("[" + ok + "," + entry + "]");
    EXPECT_NE(msg.find("catalogue entry a.b"), std::string::npos) << entry << " -> " << msg;
    EXPECT_NE(msg.find(why), std::string::npos) << entry << " -> " << msg;
  }
  EXPECT_EQ(refusal("[" + ok + R"J(,{"id":"a.c","title":"t","needles":["yy"],"role":"consequence",
    "consequence_of":["a.ok"]},{"id":"a.d","title":"t","needles":["ww"],"role":["peer_failure","hang_trigger"],
    "peer_kind":"lost_peer","hang_kind":"abort"}])J"),
            "");
}

// The embedded catalogue with one more entry (what a contributor adds to data/known_errors.json).
Catalogue builtin_plus(nlohmann::json entry) {
  nlohmann::json doc = nlohmann::json::parse(kKnownErrorsJson);
  doc.push_back(std::move(entry));
  auto c = Catalogue::parse(doc.dump());
  EXPECT_TRUE(c.ok()) << c.error().message();
  return std::move(c.value());
}

TEST(CatalogueRoles, ANewHangTriggerIsOneEntry) {
  const std::string line = "[rank3]:[E1129 03:00:00.1 ProcessGroupXCCL.cpp:9] XCCL heartbeat lost, SeqNum=12";
  EXPECT_FALSE(hang_trigger(line));
  Catalogue cat = builtin_plus({{"id", "test.xccl_heartbeat"},
                                {"title", "XCCL lost its heartbeat"},
                                {"role", "hang_trigger"},
                                {"hang_kind", "comm_error"},
                                {"needles", {"XCCL heartbeat lost"}}});
  auto t = hang_trigger(line, cat);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->kind, HangTriggerKind::comm_error);
  EXPECT_EQ(t->rank, 3);
  EXPECT_EQ(t->seq, 12);
  // A role-only entry is never a finding: `logs` says nothing new about the line.
  EXPECT_TRUE(scan_buffer("r3.log", line + "\n", cat, ScanOptions{}).hits.empty());
}

TEST(CatalogueRoles, ANewPeerFailureIsOneEntry) {
  const std::string tb =
      "[rank1]: Traceback (most recent call last):\n"
      "[rank1]:   File \"train.py\", line 3, in <module>\n"
      "[rank1]:     dist.all_reduce(t)\n"
      "[rank1]: RuntimeError: fabric partner vanished\n"
      "[rank0]: link to fabric partner vanished mid-step\n";
  auto ranks = [&](const Catalogue& cat) { return scan_buffer("console.log", tb, cat, ScanOptions{}).ranks; };
  auto before = ranks(Catalogue::builtin());
  ASSERT_EQ(before.size(), 2u);
  EXPECT_EQ(before[1].exception, "RuntimeError: fabric partner vanished");
  EXPECT_EQ(before[0].peer_lost, "");
  // lost_peer: read on every line, also one without "peer" or "remote".
  Catalogue cat = builtin_plus({{"id", "test.partner_vanished"},
                                {"title", "a fabric partner vanished"},
                                {"role", "peer_failure"},
                                {"peer_kind", "lost_peer"},
                                {"needles", {"partner vanished"}}});
  auto after = ranks(cat);
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(after[1].exception, "");
  EXPECT_EQ(after[1].peer_lost, "RuntimeError: fabric partner vanished");
  EXPECT_EQ(after[0].peer_lost, "link to fabric partner vanished mid-step");
}

TEST(CatalogueRoles, ExplainSaysTheRoles) {
  const Catalogue& cat = Catalogue::builtin();
  const CatalogueEntry* aborted = cat.find("pytorch.comm_aborted");
  const CatalogueEntry* lost = cat.find("nccl.peer_connection_lost");
  ASSERT_TRUE(aborted && lost);
  const std::string a = role_words(*aborted), l = role_words(*lost);
  EXPECT_NE(a.find("a consequence"), std::string::npos) << a;
  EXPECT_NE(a.find("such as pytorch.watchdog_timeout, nccl.remote_closed"), std::string::npos) << a;
  EXPECT_NE(a.find("a hang trigger (comm_error)"), std::string::npos) << a;
  EXPECT_NE(l.find("a peer failure (lost_peer)"), std::string::npos) << l;
  EXPECT_NE(l.find("never a finding"), std::string::npos) << l;
  EXPECT_EQ(role_words(*cat.find("nccl.duplicate_gpu")), "");  // a plain cause says nothing more
}

}  // namespace
}  // namespace dd::logs
