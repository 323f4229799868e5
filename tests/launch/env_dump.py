# Test worker: writes the launcher variables it got to $ENV_OUT/rank<RANK>.json.
import json
import os

names = [
    "RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "NODE_RANK", "ROLE_RANK",
    "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_RUN_ID", "PADDLE_TRAINER_ID",
    "PADDLE_TRAINERS_NUM", "PADDLE_TRAINER_ENDPOINTS", "PADDLE_CURRENT_ENDPOINT", "PADDLE_RANK_IN_NODE",
    "FLAGS_selected_gpus", "CUDA_VISIBLE_DEVICES", "PYTHONUNBUFFERED", "OMP_NUM_THREADS",
]
with open(os.path.join(os.environ["ENV_OUT"], "rank%s.json" % os.environ["RANK"]), "w") as f:
    json.dump({n: os.environ.get(n) for n in names}, f)
print("rank", os.environ["RANK"], "wrote its env")
