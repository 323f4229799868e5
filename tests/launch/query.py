# Reads the launch JSON report on stdin and prints what argv[1] asks for (used by the launch shell tests).
import json
import sys

r = json.load(sys.stdin)
what = sys.argv[1]
ids = [f["id"] for f in r.get("findings", [])]
last = r["attempts"][-1] if r.get("attempts") else {}
if what == "ids":
    print(" ".join(ids))
elif what == "root":
    s = last["stop"]
    print(s["cause"], s["rank"], s["root"].get("exit_code"), s["root"].get("signal"))
elif what == "stop_spread_ms":  # latest end of a stopped worker minus the root's end
    root = last["stop"]["root"]["end_wall_ms"]
    ends = [k["end_wall_ms"] for n in last["nodes"] for k in n["ranks"] if k.get("stopped_by_us")]
    print(max(ends) - root if ends else -1)
elif what == "attempts":
    print(len(r["attempts"]))
elif what == "finding":  # finding id -> its title, evidence and details (--verbose's), for grep
    for f in r["findings"]:
        if f["id"] == sys.argv[2]:
            print(f["title"])
            print("\n".join(f.get("evidence", [])))
            print("\n".join(f.get("details", [])))
