# Test worker for launch's Flight Recorder hook, with the stand-in torch of tests/launch/faketorch. CASE:
#   hang       import torch.distributed, print one line, then spin silently (launch asks for dumps at the hang)
#   clean      import torch.distributed and exit 0 (the hook writes each rank's exit dump)
#   raise      import torch.distributed and raise (no exit dump: the job failed anyway)
#   notorch    print one line and spin without torch (the hook answers with PATH.none at once)
import os

case = os.environ.get("CASE", "hang")
if case != "notorch":
    import torch.distributed  # noqa: F401
print(f"rank {os.environ['RANK']} up", flush=True)
if case == "raise" and os.environ["RANK"] == "1":
    raise RuntimeError("rank 1 gave up")
if case in ("hang", "notorch"):
    while True:
        pass
