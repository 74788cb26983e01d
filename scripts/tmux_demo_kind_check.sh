#!/usr/bin/env bash
# Smoke test of one demo kind in a real terminal: run `annotate demo --kind KIND` inside a detached
# tmux session (COLSxROWS, default 100x30), answer the first item with KEYS (digits, sent one by
# one), submit, quit, and check that the session file holds one judgment whose answer is valid for
# the session's label schema (printed in slot space).
#
# A private tmux server (-L) and a temp folder (ANNOTATE_DEMO_DIR): neither the user's tmux
# sessions nor their demo cache are touched. Exits non-zero on failure, printing the last screen.
# Usage: scripts/tmux_demo_kind_check.sh KIND KEYS [COLS ROWS [READY]]
#   e.g. scripts/tmux_demo_kind_check.sh aspects 1132
#        scripts/tmux_demo_kind_check.sh ranking 3=142 80 24 "Enter submits"
# READY: the text on screen once the answer is complete (default "Enter  submit", the label bar's).
set -euo pipefail

kind="$1"
keys="$2"
cols="${3:-100}"
rows="${4:-30}"
ready="${5:-Enter  submit}"
source "$(dirname "${BASH_SOURCE[0]}")/tmux_common.sh" kind

tmux -L "$socket" -f /dev/null new-session -d -s check -x "$cols" -y "$rows" \
    "cd '$work' && TERM=xterm-256color ANNOTATE_DEMO_DIR='$work/demo' '$ANNOTATE' demo --kind '$kind' --fresh --annotator tmuxcheck; echo \$? > '$work/exit'; sleep 30"

wait_for "Item 1 of" 20
tmux -L "$socket" send-keys -t check g   # the guideline is open on an annotator's first item
sleep 0.3
for (( i = 0; i < ${#keys}; i++ )); do
    tmux -L "$socket" send-keys -t check -l "${keys:$i:1}"  # -l: the character itself, never a key name
    sleep 0.1
done
wait_for "$ready"
screen > "$work/answered.txt"
tmux -L "$socket" send-keys -t check Enter
wait_for "Item 2 of"
tmux -L "$socket" send-keys -t check q

for _ in $(seq 1 75); do
    [ -s "$work/exit" ] && break
    sleep 0.2
done
[ -s "$work/exit" ] || { echo "FAIL: the app did not quit on q" >&2; screen >&2; exit 1; }
[ "$(cat "$work/exit")" = "0" ] || { echo "FAIL: annotate demo exited with $(cat "$work/exit")" >&2; exit 1; }

"$PYTHON" - "$work/demo/sessions" "$kind" <<'PY'
import sys
from pathlib import Path

from annotate.demo import DEMOS
from annotate.spec import load_spec
from annotate.store import Store

folder, kind = Path(sys.argv[1]), sys.argv[2]
spec = load_spec(folder / f"{DEMOS[kind][0]}.toml")
with Store.open(spec.db) as store:
    judgments = store.judgments("tmuxcheck")
    if len(judgments) != 1:
        sys.exit(f"FAIL: expected 1 judgment, found {len(judgments)}")
    (judgment,) = judgments
    answers = spec.schema.decode(judgment.label, judgment.scores)
    for question in spec.schema.questions:
        value = answers.get(question.name)
        if value is None or question.parse(value) is None:
            sys.exit(f"FAIL: {question.name}: {value!r} is not an answer of {question.summary()}")
    (assignment,) = [a for a in store.assignments("tmuxcheck") if a.id == judgment.assignment_id]
    shown = (f"shown in the order {''.join(assignment.order)}" if assignment.order
             else "B on the left" if assignment.swapped else "A on the left")
    print(f"ok: {kind}: 1 judgment ({shown}): " + ", ".join(f"{k} {v}" for k, v in answers.items()))
PY
