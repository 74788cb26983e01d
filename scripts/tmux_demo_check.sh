#!/usr/bin/env bash
# Smoke test in a real terminal: run `annotate demo` inside a detached tmux session (120x40),
# judge three items with keys, quit, and check the session file holds three judgments.
#
# Uses a private tmux server (-L) and a temp folder (ANNOTATE_DEMO_DIR), so it touches neither
# the user's tmux sessions nor their demo cache. Exits non-zero on failure; prints the last
# screen it saw. Usage: scripts/tmux_demo_check.sh   (ANNOTATE=..., PYTHON=... to override)
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/tmux_common.sh" check

tmux -L "$socket" -f /dev/null new-session -d -s check -x 120 -y 40 \
    "cd '$work' && TERM=xterm-256color ANNOTATE_DEMO_DIR='$work/demo' '$ANNOTATE' demo --fresh --annotator tmuxcheck; echo \$? > '$work/exit'; sleep 30"

wait_for "Item 1 of" 20
wait_for "Guideline"          # open on an annotator's first item
tmux -L "$socket" send-keys -t check g
for n in 1 2 3; do
    wait_for "Item $n of"
    tmux -L "$socket" send-keys -t check "$n"
    wait_for "Enter  submit"
    tmux -L "$socket" send-keys -t check Enter
done
wait_for "Item 4 of"
wait_for "3 of"
tmux -L "$socket" send-keys -t check q

for _ in $(seq 1 75); do
    [ -s "$work/exit" ] && break
    sleep 0.2
done
[ -s "$work/exit" ] || { echo "FAIL: the app did not quit on q" >&2; screen >&2; exit 1; }
[ "$(cat "$work/exit")" = "0" ] || { echo "FAIL: annotate demo exited with $(cat "$work/exit")" >&2; exit 1; }

"$PYTHON" - "$work/demo/sessions/demo.db" <<'PY'
import sys

from annotate.store import Store

with Store.open(sys.argv[1]) as store:
    judgments = store.judgments("tmuxcheck")
    labels = sorted(j.label for j in judgments)
    if len(judgments) != 3:
        sys.exit(f"FAIL: expected 3 judgments, found {len(judgments)}")
    if any(label not in ("A", "B", "tie") for label in labels) or "tie" not in labels:
        sys.exit(f"FAIL: unexpected labels {labels}")
    if not store.events():
        sys.exit("FAIL: no events recorded")
    print(f"ok: 3 judgments ({', '.join(labels)}) in {sys.argv[1]}")
PY
