#!/usr/bin/env bash
# Smoke test of error spans in a real terminal: run `annotate demo --kind spans` inside a detached
# tmux session (COLSxROWS, default 100x30), mark one error in the Left response with the keyboard
# (m, w, Space, e, Enter, category 1, severity 2, a note, Enter), answer Left better, submit, quit,
# and check the session file: one judgment with one span on the slot shown on the left, whose
# offsets into the original response text give exactly the text the dialog quoted on screen.
#
# A private tmux server (-L) and a temp folder (ANNOTATE_DEMO_DIR): neither the user's tmux
# sessions nor their demo cache are touched. Exits non-zero on failure, printing the last screen.
# Usage: scripts/tmux_demo_spans_check.sh [COLS ROWS]
set -euo pipefail

cols="${1:-100}"
rows="${2:-30}"
source "$(dirname "${BASH_SOURCE[0]}")/tmux_common.sh" spans

send() { tmux -L "$socket" send-keys -t check "$@"; sleep 0.15; }

tmux -L "$socket" -f /dev/null new-session -d -s check -x "$cols" -y "$rows" \
    "cd '$work' && TERM=xterm-256color ANNOTATE_DEMO_DIR='$work/demo' '$ANNOTATE' demo --kind spans --fresh --annotator tmuxcheck; echo \$? > '$work/exit'; sleep 30"

wait_for "Item 1 of" 20
send g                      # the guideline is open on an annotator's first item
wait_for "m mark errors"
send m
wait_for "Marking errors in Left"
send w
send Space
send e
send Enter
wait_for "Mark an error in Left"
screen > "$work/dialog.txt"
send 1
send 2
send -l "checked"
send Enter
wait_for "▶ factual · major"
send Escape
send 1
wait_for "Enter  submit"
screen > "$work/answered.txt"
send Enter
wait_for "Item 2 of"
send q

for _ in $(seq 1 75); do
    [ -s "$work/exit" ] && break
    sleep 0.2
done
[ -s "$work/exit" ] || { echo "FAIL: the app did not quit on q" >&2; screen >&2; exit 1; }
[ "$(cat "$work/exit")" = "0" ] || { echo "FAIL: annotate demo exited with $(cat "$work/exit")" >&2; exit 1; }

"$PYTHON" - "$work/demo/sessions" "$work/dialog.txt" <<'PY'
import re
import sys
from pathlib import Path

from annotate.demo import DEMOS
from annotate.spec import load_spec
from annotate.store import Store

folder, dialog = Path(sys.argv[1]), Path(sys.argv[2]).read_text(encoding="utf-8")
quoted = re.search(r"“(.*)” \((\d+) characters?\)", dialog)
if quoted is None:
    sys.exit("FAIL: the dialog did not quote the marked text:\n" + dialog)
spec = load_spec(folder / f"{DEMOS['spans'][0]}.toml")
with Store.open(spec.db) as store:
    judgments = store.judgments("tmuxcheck")
    if len(judgments) != 1:
        sys.exit(f"FAIL: expected 1 judgment, found {len(judgments)}")
    (judgment,) = judgments
    (assignment,) = [a for a in store.assignments("tmuxcheck") if a.id == judgment.assignment_id]
    left = "B" if assignment.swapped else "A"
    expected_label = left  # Left better, in slot space
    if judgment.label != expected_label:
        sys.exit(f"FAIL: label {judgment.label!r}, expected {expected_label!r} (Left better, swapped={assignment.swapped})")
    if len(judgment.spans) != 1:
        sys.exit(f"FAIL: expected 1 span, found {judgment.spans}")
    (span,) = judgment.spans
    text = store.item(assignment.item_id).response(span.slot).text
    marked = text[span.start:span.end]
    if span.slot != left or (span.category, span.severity, span.note) != ("factual", "major", "checked"):
        sys.exit(f"FAIL: span {span} (expected slot {left}, factual, major, note 'checked')")
    if marked != quoted.group(1) or len(marked) != int(quoted.group(2)):
        sys.exit(f"FAIL: stored offsets give {marked!r}, the dialog quoted {quoted.group(1)!r}")
    print(f"ok: spans: 1 judgment ({'B' if assignment.swapped else 'A'} on the left), label {judgment.label},"
          f" span {span.slot} {span.start}..{span.end} {marked!r} {span.category}/{span.severity}")
PY
