#!/bin/bash
# Slurm Prolog (or Epilog) for GPU nodes: runs `distdoctor check` on this node and, when the check fails,
# drains the node with distdoctor's one-line reason (`scontrol update ... State=DRAIN Reason=...`) and exits 1,
# so Slurm requeues the job instead of running it on a broken node. A check that could not run (exit 3: a bad
# install, an unreadable file) or overran its time drains nothing: the script says so on stderr and exits 0.
# Settings, from the environment (slurm.conf's Prolog runs it with none; edit the defaults here if needed):
#   DISTDOCTOR          the binary (default: distdoctor on PATH)
#   DISTDOCTOR_FAIL_ON  fail (default: only failing findings drain) or warn (warnings drain too)
#   DISTDOCTOR_TIMEOUT  seconds for the check (default 30; Slurm's own PrologEpilogTimeout is separate)
#   DISTDOCTOR_METRICS  also write Prometheus metrics to this file (node_exporter's textfile directory)
#   DISTDOCTOR_ARGS     more check options, split on spaces (e.g. "--nccl-lib /opt/nccl/lib/libnccl.so.2")
#   SCONTROL            the scontrol to call (default: scontrol on PATH)
# See docs/slurm.md.
set -u
PATH=${PATH:-/usr/bin:/bin}:/usr/local/bin:/usr/bin:/bin
dd=${DISTDOCTOR:-distdoctor}
node=${SLURMD_NODENAME:-$(hostname -s)}
args=(check --local --summary --fail-on "${DISTDOCTOR_FAIL_ON:-fail}")
[ -n "${DISTDOCTOR_METRICS:-}" ] && args+=(--metrics "$DISTDOCTOR_METRICS")
read -r -a extra <<<"${DISTDOCTOR_ARGS:-}"
line=$(timeout -k 5 "${DISTDOCTOR_TIMEOUT:-30}" "$dd" "${args[@]}" "${extra[@]}" 2>/dev/null)
rc=$?
case $rc in
  0) exit 0 ;;
  1 | 2)
    echo "$line" >&2
    if ! "${SCONTROL:-scontrol}" update NodeName="$node" State=DRAIN Reason="$line"; then
      echo "distdoctor prolog: scontrol could not drain $node" >&2
    fi
    exit 1 ;;
  *)
    echo "distdoctor prolog: the check could not run on $node (exit $rc${line:+: $line}); $node is not drained" >&2
    exit 0 ;;
esac
