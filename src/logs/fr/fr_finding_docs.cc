// Long forms of the logs.fr.* finding ids (Flight Recorder analysis): the docs of fr_log_rule; data only.
#include "logs/fr/fr_rules.h"
#include "logs/log_finding_ids.h"

namespace dd::logs {

const std::vector<report::FindingDoc>& fr_finding_docs() {
  static const std::vector<report::FindingDoc> docs = {
      {"logs.fr.desync", "Ranks called different collectives at the same sequence number",
       "Read from PyTorch's Flight Recorder dumps: every rank numbers the collectives of each process group, "
       "and "
       "at the first number where they disagree the odd rank out (the minority; on a tie, the side that went "
       "further) called another op than the rest. It took another code path there; the others wait in the "
       "collective it never joined. Its Python stack at that collective is in the evidence.",
       "Make every rank call the same collectives in the same order: the stack in the evidence shows where "
       "that rank took another path."},
      {"logs.fr.size_mismatch", "Ranks called one collective with different tensor sizes",
       "The Flight Recorder shows the same op at the same sequence number on every rank, but one rank's "
       "input "
       "or output sizes differ from the others' (ops whose sizes may differ by design, gather/scatter roots "
       "and "
       "all_to_all, are not compared). NCCL then hangs, fails, or silently reads the wrong amount of data.",
       "Pass tensors of the same shape on every rank (pad an uneven last batch, or use all_gather_object / "
       "uneven-size collectives where sizes differ by design)."},
      {"logs.fr.dtype_mismatch", "Ranks called one collective with different dtypes",
       "The same op at the same sequence number, but one rank passed tensors of another dtype (e.g. BFloat16 "
       "against Float): the collective hangs or returns garbage."},
      {"logs.fr.pg_desync", "A rank entered a collective of another process group",
       "The others wait in a collective of one process group that this rank never issued; its latest "
       "recorded "
       "op is in another group (often a subgroup the others never entered). Collectives of different groups "
       "must be called in the same order on the ranks they share.",
       "Call the collectives of the process groups in the same order on every rank they share; a subgroup's "
       "collective must be called by all of its members."},
      {"logs.fr.behind", "A rank never reached the collective the others wait in",
       "Its last recorded collective completed and it issued nothing more, while the others wait for it in "
       "the "
       "next one: it is busy or blocked outside NCCL (a slow or stuck data loader, I/O, a sleep, a deadlock "
       "in "
       "Python). Its own stack (faulthandler, py-spy) shows where; the Flight Recorder shows where it was "
       "last "
       "seen.",
       "Take that rank's Python stack while the others wait (py-spy dump, faulthandler, or `distdoctor "
       "launch`, which takes them at a hang): it shows what kept it outside NCCL (a data loader, I/O, a "
       "sleep, a deadlock)."},
      {"logs.fr.missing_dump", "Ranks wait for ranks that left no Flight Recorder dump",
       "Members of the process group have no dump among the inputs while the others wait in a collective: "
       "the "
       "missing ranks died, hung before dumping, or ran without the Flight Recorder; they are the likely "
       "cause."},
      {"logs.fr.stuck", "Every rank is inside the same collective and none completed it",
       "The ranks issued the same matching collective and all wait in it: the records show no desync and no "
       "straggler. The hang is in the transport or the hardware (network, NVLink/P2P, a GPU that stopped).",
       "Look below the framework: run `distdoctor check --collectives` on the nodes, check the network "
       "(NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET) and the GPUs (nvidia-smi -q: Xid errors, ECC)."},
      {"logs.fr.no_collectives", "The Flight Recorder dumps hold no collectives",
       "The dumps were written but no collective was recorded: the job stopped before or during "
       "init_process_group or its first collective (a late or missing rank at rendezvous)."},
      {"logs.fr.complete", "Every recorded collective completed",
       "No rank has an unfinished collective in its Flight Recorder dump and the ranks agree on every op: "
       "the "
       "dumps show no hang."},
      {ids::kFrStraggler, "One rank makes the others wait, collective after collective",
       "For each collective every rank of a process group took part in, the Flight Recorder keeps when each "
       "rank's Python issued it (time_created_ns). A rank that comes last at 60% or more of at least 8 of "
       "them, by 5 ms or more (median), is named with its lateness and the share of their time the other "
       "ranks spent waiting for it; when it kept up at first and came last only later (fail-slow), with the "
       "collective and the time it began. Times are compared on one node's clock (launch says which node); "
       "dumps given to logs without their nodes are compared as one clock."},
      {"logs.fr.unreadable", "A Flight Recorder dump could not be read",
       "The file looks like a dump (a pickle or JSON naming pg_config) but could not be decoded: cut off "
       "while "
       "being written, or it uses pickle opcodes that would run code, which distdoctor refuses."},
  };
  return docs;
}

}  // namespace dd::logs
