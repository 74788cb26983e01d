#!/usr/bin/env bash
# End-to-end: LLM suggestions from a real small model served locally by llama-cpp-python's
# OpenAI-compatible server, on loopback. Not run in CI (it needs a model file and a few minutes).
#
#   pip install 'llama-cpp-python[server]'
#   examples/suggest_llama_cpp.sh /path/to/qwen2.5-1.5b-instruct-q4_k_m.gguf
#
# Any small instruction-tuned GGUF model works. The script makes a throw-away project in a
# temporary folder, imports the demo items, asks the model for a verdict on each (both orders),
# sets up a two-arm experiment (none vs upfront, 20 % planted) and prints the plan.
set -euo pipefail
MODEL=${1:?usage: $0 MODEL.gguf [PORT]}
PORT=${2:-8765}
ANNOTATE=${ANNOTATE:-annotate}
PYTHON=${PYTHON:-python3}
WORK=$(mktemp -d)
trap 'kill "${SERVER_PID:-}" 2>/dev/null || true; rm -rf "$WORK"' EXIT

"$PYTHON" -m llama_cpp.server --model "$MODEL" --host 127.0.0.1 --port "$PORT" --n_ctx 4096 \
    --model_alias judge >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
echo "waiting for the model server on 127.0.0.1:$PORT ..."
for _ in $(seq 1 120); do
    if curl -fsS "http://127.0.0.1:$PORT/v1/models" >/dev/null 2>&1; then break; fi
    sleep 1
done

cd "$WORK"
"$ANNOTATE" init bench --kind pairwise --seed 1
"$PYTHON" - <<'PY'
import json
from importlib import resources
text = resources.files("annotate.demo").joinpath("items.jsonl").read_text(encoding="utf-8")
lines = [json.loads(line) for line in text.splitlines() if line.strip()][:12]
with open("items.jsonl", "w", encoding="utf-8") as out:
    for record in lines:
        out.write(json.dumps(record) + "\n")
PY
"$ANNOTATE" import bench items.jsonl
# A very small model often repeats the prompt instead of judging: those replies are counted as
# "only repeated the prompt" and stored as failures, never as labels; --max-tokens stops a model
# that rambles on (a reply cut off before its verdict is no verdict either).
time "$ANNOTATE" suggest bench --endpoint "http://127.0.0.1:$PORT/v1" --model judge --concurrency 1 --timeout 300 \
    --max-tokens 512
"$ANNOTATE" suggest bench --endpoint "http://127.0.0.1:$PORT/v1" --model judge   # resumes: nothing left to ask
sed -i 's/^modes = \["none"\]$/modes = ["none", "upfront"]\nassign = "within"/; s/^planted_rate = 0.0$/planted_rate = 0.2/' \
    sessions/bench.toml
"$ANNOTATE" plan bench --annotators alice,bob --overlap 2
