// Long forms of the launch.* finding ids (for `distdoctor explain`): data only, one row per id.
#include "launch/failure_report.h"
#include "launch/failure_report_ids.h"

namespace dd::launch {

const std::vector<report::FindingDoc>& launch_finding_docs() {
  static const std::vector<report::FindingDoc> docs = {
      {ids::kRankFailed, "The first rank to fail: the root cause of the job's end",
       "A worker exited non-zero or was killed by a signal while the others still ran. It is named as the "
       "root "
       "cause because it failed first; the ranks that failed afterwards usually did so because it was gone "
       "(launch.rank.also_failed) and launch stopped the rest within half a second (launch.rank.stopped). "
       "The "
       "evidence gives the command (secrets redacted), the log file with every byte the worker wrote, its "
       "Python "
       "traceback and its last lines. When the log matches the known-error catalogue its fix is repeated "
       "here "
       "and the diagnosis is folded into this finding: one failure, one FAIL (the diagnosis stays in the "
       "report as info, \"same failure as launch.rank.failed\", consequence_of in --json). SIGKILL without a "
       "traceback is most often the kernel's OOM "
       "killer (dmesg shows it); SIGSEGV, SIGBUS and SIGABRT are native crashes (PYTHONFAULTHANDLER=1 prints "
       "the "
       "Python stack at the crash). The launcher exits with the worker's status, or 128+signal.",
       "Read that rank's error in the report (its traceback and last lines, and the known-error diagnosis "
       "with its fix when the log matched one); its full log is the file the evidence names. SIGKILL without "
       "a traceback: dmesg for the OOM killer."},
      {"launch.rank.also_failed", "Ranks that failed by themselves after the root cause",
       "These ranks ended with an error of their own after the root-cause rank had failed, before launch "
       "could "
       "stop them. Most often they only report the loss of their peer (NCCL \"remote process exited or there "
       "was "
       "a network error\", Gloo \"Connection reset by peer\", a store timeout). Fix the root cause first and "
       "look "
       "at these only if they still fail."},
      {"launch.rank.stopped", "Ranks that launch stopped",
       "After the job's first failure (or a hang, an interrupt, a lost node) launch sent SIGTERM to every "
       "other "
       "worker on every node and SIGKILL after the grace period (--grace), so that nobody waits 10-30 "
       "minutes in "
       "a collective for a peer that is gone. These ranks did nothing wrong; they are listed as ranges per "
       "node."},
      {"launch.rank.left_early", "A rank left the job early, and another failed when it lost it",
       "A rank exited with status 0 while the other ranks still ran, and the failure that stopped the job "
       "came after it and reads as a lost peer (Gloo's \"Connection closed by peer\", NCCL's remote error, a "
       "broken pipe). The rank that failed only noticed; the one that left is the cause: a return, a break "
       "or a sys.exit() on one rank (uneven batches, a rank-dependent condition) while the others go on "
       "calling collectives.",
       "Make every rank run the same steps: the rank that left returned or called sys.exit early (an "
       "exception caught and swallowed, a rank-dependent loop length); the other rank's failure follows from "
       "it."},
      {"launch.rank.differs", "One rank runs with another NCCL or other NCCL settings than the rest",
       "While the workers start, launch reads each one's environment and the libraries it has loaded from "
       "/proc (following a wrapper script to the process that loaded NCCL): its NCCL_*, CUDA_*, TORCH_*, "
       "PYTORCH_*, NVIDIA_* and UCX_* variables, LD_PRELOAD, LD_LIBRARY_PATH and the libnccl file. The ranks "
       "are compared across the whole job; a value held by fewer ranks than the rest names those ranks (with "
       "two ranks, both are listed). Variables launch sets per rank (RANK, CUDA_VISIBLE_DEVICES, ...) and "
       "values that differ on every rank are left out. A warning is printed on the node as soon as its ranks "
       "are read; when the job then hangs, the hang report names the odd rank as the cause. Different NCCL "
       "builds, protocols (NCCL_PROTO), algorithms or disabled transports (NCCL_P2P_DISABLE, "
       "NCCL_SHM_DISABLE) "
       "on some ranks make ranks wait for each other in init or in the first collective."},
      {"launch.env.differs", "The environment differs between nodes",
       "The launcher's environment on the root-cause rank's node is compared with every other node's, "
       "leaving "
       "out the variables launch sets itself (RANK, MASTER_ADDR, ...) and those that name the node or "
       "session "
       "(HOSTNAME, SSH_*, Slurm's per-node ids). A variable set on one node and not another, or set to "
       "another "
       "value, is listed with each node's value; secrets are shown as <redacted>. Different NCCL_*, "
       "LD_LIBRARY_PATH, PYTHONPATH or CUDA_* settings are a common cause of crashes and hangs that hit one "
       "node "
       "only. Use the same image, modules and exports on every node."},
      {"launch.hang", "The job hung: a collective timed out, or every worker stopped printing",
       "A hang is declared when a worker prints that a collective already failed (PyTorch's watchdog "
       "timeout, "
       "its dump signal, an aborted NCCL communicator: launch acts on the first such line instead of waiting "
       "for PyTorch's teardown), or, with --hang-timeout S, when no worker prints anything for S seconds "
       "(even "
       "when every rank spins inside NCCL). Before stopping the job (exit code 124), launch asks every live "
       "worker for its Python stacks (faulthandler on SIGUSR2, registered by the sitecustomize.py launch "
       "puts "
       "on PYTHONPATH; py-spy when that is missing) and for a Flight Recorder dump (PyTorch's ring of the "
       "last "
       "collectives, which launch turns on: --no-flight-recorder leaves both off). The culprit is named "
       "from, "
       "strongest first: the process state (a rank stopped, state T: SIGSTOP, Ctrl-Z, a scheduler's suspend, "
       "or t: a debugger, runs nothing while the others wait), the Flight Recorder (the first sequence "
       "number "
       "where ranks disagree), the watchdog "
       "lines (at one SeqNum the odd one out whose op differs took another code path; ranks that printed no "
       "timeout while the others did never reached the collective), the stacks (a rank outside any "
       "collective "
       "while the others wait in one, or waiting at another line of your code), the NCCL collective counts "
       "(NCCL_DEBUG_SUBSYS=COLL: the rank behind) and CPU use (a rank idle while the others spin). The ranks "
       "that only waited are never named as the cause. Each rank's /proc state, CPU, silence, last line and "
       "stack follow.",
       "Read the rank the report names and its stack: it shows where that rank was while the others waited; "
       "then fix that code path (the same collectives on every rank) or its slowness (I/O, data loading)."},
      {"launch.node.lost", "A node stopped answering during the job",
       "A node's launcher stopped sending heartbeats through the store. The machine may have rebooted or "
       "lost "
       "its network, or its `distdoctor launch` was killed (OOM killer, the scheduler, a person). The other "
       "nodes "
       "stopped their workers at once; the lost node's logs stay on that node. Exit code 2."},
      {"launch.master.lost", "The master node stopped answering during the job",
       "Node 0 runs the store every node coordinates through. When it stops answering no node can learn of a "
       "failure elsewhere, so each stops its workers rather than run on blind. Check node 0 as for a lost "
       "node. "
       "Exit code 2."},
      {"launch.interrupted", "The launch was interrupted",
       "The launcher received SIGINT (Ctrl-C), SIGTERM or SIGHUP. Before passing it to every worker on every "
       "node, each node takes the Python stacks of its ranks still running (at most 1.5 s): the finding "
       "names "
       "them, with where each one was, and the ranks that had already ended. Then it stopped them all. "
       "Nothing is left behind. A SIGTERM you did not send usually comes from the "
       "scheduler (time limit, preemption). Exit code 128 + the signal's number (130 for Ctrl-C)."},
      {"launch.node.silent", "A node sent no record for the report",
       "Every node sends its account of the attempt (how each of its ranks ended, log tails) through the "
       "store; "
       "this node's did not arrive before the deadline, so its ranks are missing from the report. Its "
       "launcher "
       "may be gone or its network down: read its output and logs on that node."},
      {"launch.logs.full", "The log directory is full",
       "Each worker writes its own log file directly (every byte, no pipe through launch), so when the "
       "filesystem of --log-dir fills up the worker's writes fail with ENOSPC and its log ends early, while "
       "the job itself may go on. At the end of each attempt every node reports the free space there; under "
       "4 "
       "KiB is reported as full. Free space or point --log-dir at a filesystem with room."},
      {"launch.logs.cannot_write", "A node could not create its workers' log files",
       "Before it starts any worker, each node makes the attempt's folder under --log-dir and creates every "
       "log file of its ranks. When that fails (a filesystem with no free inodes, no space, a read-only "
       "mount, a folder of another user, a device or FIFO where a log should be) nothing is started there, "
       "every node stops its workers, and the launch exits 3; the finding names the file and, for ENOSPC, "
       "whether the inodes (`df -i`) or the bytes ran out. Free them or point --log-dir elsewhere."},
      {"launch.join.failed", "This node could not meet the other nodes",
       "The node reached no agreement with the others before --join-timeout: the store on node rank 0 was "
       "not "
       "there or went away, or the other nodes never started. The evidence gives the store's last error."},
      {"launch.join.rank_taken", "Two nodes claimed the same node rank",
       "Every node of a by-hand launch needs its own --node-rank, 0 .. nnodes-1; a second claim is refused."},
      {"launch.join.nnodes_differ", "Nodes of one job were started with different --nnodes",
       "Node rank 0 publishes its --nnodes with the job settings and every node its own with its hello. A "
       "node "
       "whose count differs from node rank 0's stops at once instead of waiting for nodes that never come, "
       "and "
       "node rank 0 stops when such a node's hello arrives; each names the other. Start every node with the "
       "same --nnodes (the command node rank 0 printed)."},
      {"launch.join.command_differs", "Nodes of one job were started with different commands",
       "No node runs a command it read from the store: each runs the command given on its own command line, "
       "and publishes only its SHA-256 (node rank 0 with the job settings, every node with its hello). A "
       "node "
       "whose digest differs from node rank 0's stops before starting any worker, and node rank 0 stops when "
       "such a hello arrives; each names the other. A digest the store holds that no node sent (someone else "
       "wrote the key) stops the job the same way instead of running another command. Start every node with "
       "the same command after -- (the one node rank 0 printed)."},
      {"launch.mindspore.scheduler", "MindSpore's scheduler process failed, or did not end by itself",
       "With --mindspore, node rank 0 starts the job's command once more as MindSpore's scheduler (MS_ROLE="
       "MS_SCHED, as msrun does). It is not a rank: it waits in mindspore.communication.init() until every "
       "worker "
       "has joined and left MindSpore's cluster, then exits 0. When it exits non-zero or is killed before "
       "the "
       "workers finish, the workers cannot form or keep the cluster, so launch stops them and names the "
       "scheduler (fail: its exit status, the last lines of its log DIR/JOB/ATTEMPT/node0.scheduler.log), "
       "not a "
       "rank; the exit code is its status (128+signal). The script runs in the scheduler up to init(), so an "
       "error in the imports or set_context() shows here first; \"MS_SCHED_PORT is occupied\" means another "
       "process holds MASTER_PORT. After every worker exited 0, a scheduler that exits non-zero or does not "
       "exit "
       "within 5 s (launch then stops it) is a warning: the exit code stays 0."},
      {"launch.job.ok", "Every worker exited 0", "The job ran to the end on every node. Exit code 0."},
      {"launch.job.strays", "Processes the workers started outlived them",
       "launch is a child subreaper: what a worker starts and leaves behind when it exits comes back to it. "
       "A process that left the worker's process group (setsid, a daemon that double-forks) escapes the "
       "group kill that ends a job, and would keep running (often holding a GPU) into the next attempt or "
       "job. At the end of each attempt launch finds them (every process below it, and what is in the "
       "process groups and sessions they made), names them (pid and command line), sends SIGTERM to each "
       "and its group, and SIGKILL after up to 2 s (at once after a second Ctrl-C), scanning again until a "
       "scan finds nothing, so a process that forks and exits to change its pid is caught too. End helpers "
       "before the worker exits."},
      {ids::kJobStraggler, "One rank made the others wait, collective after collective",
       "From the Flight Recorder dumps the workers wrote as they exited: the rank that created most "
       "collectives last (by 5 ms or more, median), compared with the other ranks of its node on that node's "
       "clock, with the share of their time the others spent waiting for it, and, for a rank that turned "
       "slow during the run (fail-slow), the collective and time it began. The job itself ended well (the "
       "exit code stays 0): this is the step time it lost. See logs.fr.straggler for the method."},
      {"launch.job.mismatch", "The job ended, but its ranks passed different sizes or types to a collective",
       "Every worker exited 0, and the Flight Recorder dumps launch's hook wrote as they exited show, at one "
       "collective sequence number of a process group, ranks that passed different sizes or dtypes, or "
       "called "
       "different collectives. NCCL does not compare counts across ranks, so such a call can complete and "
       "leave wrong or partly written buffers (4x H100: rank 3 all_gathered twice the elements of the others "
       "and the job exited 0). The rank on the smaller side is named, with its Python call where the dump "
       "has it. Uneven all_gather (own input size, the same list of outputs everywhere), reduce_scatter, "
       "all_to_all, gather/scatter roots and point-to-point ops are not compared. The exit code stays 0; "
       "check the run's results before using them. --no-flight-recorder turns the exit dumps off."},
      {"launch.attempt.failed", "An earlier attempt of a restarted job",
       "With --max-restarts K launch restarts the whole job on every node after a failure, up to K times; "
       "each "
       "earlier attempt is listed with how it ended and its length. Each attempt's logs are under "
       "{log_dir}/{job_id}/{attempt}/ ({job_id}.2 and on when the job id was used before), and workers see "
       "the attempt as TORCHELASTIC_RESTART_COUNT. A job that "
       "fails the same way every time will not be saved by restarts: fix the cause the attempts share."},
  };
  return docs;
}

}  // namespace dd::launch
