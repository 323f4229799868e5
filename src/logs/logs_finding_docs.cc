// Long forms of the logs.* finding ids (for `distdoctor explain`): data only, one row per id.
#include "logs/analyze.h"
#include "logs/fr/fr_rules.h"
#include "logs/log_finding_ids.h"

namespace dd::logs {

namespace {

// The logs.* ids read from the log lines (the Flight Recorder's ids are in fr_finding_docs.cc).
const std::vector<report::FindingDoc>& log_line_docs() {
  static const std::vector<report::FindingDoc> docs = {
      {"logs.init.incomplete", "A process printed NCCL INFO output but never reached Init COMPLETE",
       "NCCL prints '... - Init COMPLETE' (an INFO line) when a communicator is ready. A process that "
       "printed INFO lines of init (bootstrap, version, comm lines) but never that one stopped or hung "
       "inside ncclCommInitRank: a peer never arrived, sockets could not connect, or it crashed. Its last "
       "line and first WARN are the evidence. Under NCCL_DEBUG=WARN no INFO line is printed, so nothing is "
       "judged."},
      {"logs.init.partial", "A communicator init began without its Init COMPLETE",
       "More communicator inits started than completed in one process: the job stopped while creating a "
       "process "
       "group (often ranks creating different groups), or the log was cut."},
      {"logs.init.complete", "Every NCCL process reached Init COMPLETE",
       "Initialisation finished on every rank seen."},
      {"logs.net.transport_mismatch", "Ranks use different network transports",
       "'Using network X' differs between ranks (e.g. IB on most, Socket on one): that rank lacks IB devices "
       "or "
       "drivers in its container, or runs with different NCCL_IB_DISABLE / NCCL_NET settings."},
      {"logs.net.plugin_mismatch", "Ranks load different NCCL net plugins",
       "Some ranks load an external net plugin and others do not; install the same plugin (or none) "
       "everywhere."},
      {"logs.net.bootstrap_if_mismatch", "Ranks bootstrap over different interfaces",
       "NCCL chose different bootstrap interfaces on different ranks; fine when names differ by node type, "
       "wrong "
       "when one of them cannot reach the others. Pin NCCL_SOCKET_IFNAME."},
      {"logs.net.bad_interface", "NCCL uses a loopback or container-bridge interface",
       "lo, docker*, veth*, virbr* or br-* do not route between nodes; NCCL_SOCKET_IFNAME should name the "
       "real "
       "data interface."},
      {"logs.net.bond_interface", "NCCL uses a bonded interface", "Informational: traffic goes over a bond."},
      {"logs.net.socket_with_ib", "NCCL fell back to TCP sockets although IB devices exist",
       "NCCL listed IB HCAs but used the Socket transport; check NCCL_IB_DISABLE, NCCL_NET, NCCL_IB_HCA, "
       "/dev/infiniband in the container and libibverbs."},
      {"logs.net.gdr_mismatch", "GPU Direct RDMA is on for some ranks and off for others",
       "Usually nvidia-peermem (or DMA-BUF support) is missing on some nodes."},
      {"logs.nccl.version_mismatch", "Ranks print different NCCL versions",
       "Processes of one job loaded different libnccl builds; use one container image / framework build."},
      {"logs.cuda.driver_mismatch", "Ranks run different CUDA drivers",
       "cudaDriverVersion differs between nodes."},
      {"logs.coll.desync", "Ranks issued different numbers of collectives",
       "Counted from NCCL_DEBUG_SUBSYS=COLL lines per rank and operation; with --iteration-pattern the first "
       "iteration where the counts split is named. A rank-dependent branch or an uneven last batch is the "
       "usual "
       "cause; the job hangs at the first unmatched call."},
      {"logs.nccl.warn", "NCCL WARN lines the catalogue does not know",
       "NCCL printed WARN lines that no catalogue entry explains; the first WARN of the first failing rank "
       "is "
       "usually the cause."},
      {"logs.pytorch.watchdog_summary", "ProcessGroupNCCL watchdog timeouts, per rank",
       "Collects the watchdog lines of all ranks: op, SeqNum, timeout, last enqueued and completed work. The "
       "rank that caused them is named by the logs.hang.* finding; the summary itself is a consequence."},
      {ids::kTorchrunFailures, "torchrun's ChildFailedError summary",
       "Rank, local rank, exit code, pid and host of each failed worker, from the summary torchrun prints."},
      {"logs.input.unreadable", "An input could not be read (completely)",
       "A path does not exist, cannot be opened, or a .gz is truncated or corrupt (its readable part is "
       "used)."},
      {"logs.input.empty", "An input file is empty", "Nothing was logged, or logging went elsewhere."},
      {"logs.input.binary", "An input holds binary data", "NUL bytes were found; lines are still scanned."},
      {"logs.input.long_lines", "Over-long lines were cut",
       "Lines longer than --max-line-bytes are cut there."},
      {"logs.input.capped", "An input passed a limit that holds for the whole run",
       "One run keeps at most 65,536 processes over all its files and threads together (a cap per file "
       "would multiply by the number of files: twenty such files took 2.76 GB). Past it, each file's further "
       "processes are counted with its last one, so their facts are merged and findings about them may be "
       "wrong. Likewise at most 65,536 PyTorch watchdog records are kept over all files (1,024 per rank in "
       "one "
       "file); the rest are left out. The evidence names the files, the limit and the line where it was "
       "reached."},
      {ids::kRankStoppedFirst, "One rank stopped first while the others waited",
       "Read across ranks: one rank ended by itself (a Python traceback, an exit code or signal a launcher "
       "reported, or a log that simply stops: SIGKILL and the OOM killer leave no trace) while the others "
       "waited (a watchdog timeout, a lost peer, NCCL init without Init COMPLETE). The first rank to stop is "
       "the root cause; the others' timeouts, connection resets and SIGTERMs follow from it and are listed "
       "after it as its consequences. When the error it stopped on is a known one (an out-of-memory, an "
       "invalid "
       "device ordinal), that error leads and this finding is folded into it as its evidence (info, \"same "
       "failure as ID\").",
       "Start from that rank's own output: its first error (a traceback, an NCCL WARN) is the root cause; "
       "when it printed none, its exit status says how it ended (a signal: dmesg for the OOM killer; an exit "
       "code: the launcher's summary). The other ranks' timeouts, connection errors and SIGTERMs follow from "
       "it."},
      {"logs.init.stuck", "No rank got through NCCL init",
       "Every rank that started NCCL init stopped inside it and none printed Init COMPLETE, or a launcher "
       "waited for peers that never came ('Waiting peer start...'). ncclCommInitRank blocks until all ranks "
       "join: a rank missing from the logs (named when NCCL printed nranks) never arrived.",
       "Find the rank missing from the logs (its host, its launcher's output); check that every node reaches "
       "MASTER_ADDR:MASTER_PORT and that all nodes were started with the same world size."},
      {"logs.gpu.shared", "Two ranks of one communicator on the same GPU",
       "NCCL's Init START lines show two ranks of one communicator (same commId) on the same host with the "
       "same busId: both use one GPU, which NCCL refuses (ncclInvalidUsage) or which halves the memory and "
       "speed of each. Usually set_device was not called before the first NCCL call, so every process "
       "stayed on device 0, or CUDA_VISIBLE_DEVICES gives every process the same GPU. Named even when the "
       "'Duplicate GPU detected' warning is not in the logs."},
      {"logs.rank.behind", "One rank never reached the collective the others are in",
       "The ranks' collective counts (NCCL_DEBUG_SUBSYS=COLL) differ: the rank with the fewest calls is "
       "stuck before the next collective, or skipped it on another code path."},
      {"logs.hang.desync",
       "One rank called another collective, or other sizes, at the SeqNum the others wait in",
       "At the same sequence number of one process group, the watchdog lines show one rank (the odd one out) "
       "with another OpType, NumelIn or NumelOut than the others, or one rank left behind in a collective "
       "the "
       "others completed: it took another code path (a rank-dependent branch, an uneven last batch, a "
       "collective only some ranks call). The others' timeouts, aborts and SIGTERMs follow from it.",
       "Find the branch where that rank's collectives differ from the others' (a rank-dependent if, an "
       "uneven last batch, a collective only some ranks call) at the sequence number named: every rank must "
       "call the same collectives, with the same sizes, in the same order."},
      {"logs.hang.ahead", "One rank went past the collective the others wait in",
       "The ranks' first watchdog timeouts came together, but one rank timed out at a higher sequence "
       "number: "
       "it completed the collective the others still wait in with a call of its own (another op or group), "
       "so "
       "it took another code path at the first number where it differs."},
      {"logs.hang.late", "One rank was late to the collective the others timed out in",
       "The other ranks timed out waiting in a collective the rank had not issued yet (its last enqueued "
       "work "
       "was lower), and its own watchdog fired much later at a higher sequence number: it was slow before "
       "the "
       "collective (I/O, data loading, a sleep, a long step on one rank), not on another path.",
       "Find what that rank did before the collective (slow I/O or data loading, a long step on one rank, a "
       "sleep, a checkpoint only it writes): a py-spy or faulthandler dump of it while the others wait shows "
       "where. Raise the process-group timeout only for work that is slow by design."},
      {"logs.hang.missing", "One rank never issued the collective the others timed out in",
       "The other ranks timed out in a collective while this rank reported a lower last enqueued work and no "
       "timeout of its own, or printed no watchdog line at all: it was blocked outside that process group "
       "(another group's collective or init, a Python loop, I/O, a lock) or had stopped.",
       "Look at that rank's stack while the others wait (py-spy dump, faulthandler, or `distdoctor launch`, "
       "which takes every rank's stack at a hang): it shows what blocked it outside the process group; "
       "collectives of different groups must be called in the same order on every rank."},
      {"logs.rank.env_differs", "One rank runs with an NCCL setting or an NCCL library of its own",
       "NCCL prints one INFO line per variable it takes from the environment ('NCCL_PROTO set by environment "
       "to LL') and its version at init. Compared across ranks (the comparison `launch` makes from each "
       "worker's environment), a rank whose setting or library differs from the others' is named: another "
       "protocol, algorithm, transport or NCCL build on one rank can hang the first collective, and then the "
       "watchdog timeouts only follow from it. A rank that printed no INFO lines through init "
       "(NCCL_DEBUG=WARN, or it never finished init) is left out: its settings are unknown, not unset."},
      {"logs.init.late_rank", "A rank never started NCCL init while the others waited in it",
       "The other ranks printed NCCL's init lines (Init START, bootstrap) without Init COMPLETE, so they "
       "waited in init for a peer; this rank printed no NCCL line at all, or stopped before init: it was "
       "late (slow data loading or checkpoint reading, a sleep, a hang before init_process_group) or never "
       "got there. The ranks that waited only followed it.",
       "Look at what that rank did before init_process_group (data or checkpoint loading, a sleep, a hang): "
       "its own output and stack show where; start every rank's init at about the same time, or raise the "
       "init timeout for work that is slow by design."},
      {ids::kHangSamePlace, "Every rank timed out in the same collective: the log cannot tell them apart",
       "Each rank's watchdog timed out in the same collective with the same sequence number, op and element "
       "counts, so PyTorch's lines do not say which rank differs (a dtype mismatch, a protocol setting or a "
       "fault inside NCCL look like this). PyTorch's Flight Recorder records each rank's collectives with "
       "dtypes and Python stacks; when the log says a dump was prepared, the dumps are at "
       "TORCH_FR_DUMP_TEMP_FILE (older: TORCH_NCCL_DEBUG_INFO_TEMP_FILE) followed by the rank, by default "
       "/tmp/nccl_trace_rank_<rank> on each node; `distdoctor logs` reads them and compares the ranks."},
      {"logs.pytorch.dump_requested", "A debug-info dump was requested while no rank timed out",
       "ProcessGroupNCCL printed 'preparing to dump debug info' (the Flight Recorder's state, asked on "
       "demand "
       "or by another rank) but no watchdog timeout followed. A rank of the job that printed no such line "
       "had no "
       "process group yet (it was before or in init_process_group) or was not asked."},
  };
  return docs;
}

}  // namespace

const std::vector<report::FindingDoc>& logs_finding_docs() {
  static const std::vector<report::FindingDoc> all = [] {
    std::vector<report::FindingDoc> v = log_line_docs();
    v.insert(v.end(), fr_finding_docs().begin(), fr_finding_docs().end());
    return v;
  }();
  return all;
}

}  // namespace dd::logs
