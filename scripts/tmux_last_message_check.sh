#!/usr/bin/env bash
# The question answered is in view in a real terminal: a session of three items (a multi-turn
# conversation with a long earlier answer, an MT-Bench-style turn 2 with each side's first answer
# in its history, a prompt far longer than its pane), opened in a detached tmux session at
# COLSxROWS (default 80x24). On each item the last user message's end marker must be on screen,
# the earlier turns folded; `e` shows them with the marker still in view; `e` folds them again.
#
# A private tmux server (-L), a temp project (ANNOTATE_HOME): nothing of the user's is touched.
# Exits non-zero on failure, printing the last screen. Usage: scripts/tmux_last_message_check.sh [COLS ROWS]
set -euo pipefail

cols="${1:-80}"
rows="${2:-24}"
source "$(dirname "${BASH_SOURCE[0]}")/tmux_common.sh" last

"$PYTHON" - "$work/items.jsonl" <<'PY'
import json
import sys

earlier = "\n".join(f"Earlier answer line {i}." for i in range(40))
long_prompt = "\n\n".join(f"Context paragraph {i}." for i in range(60)) + "\n\nSo which is right? LONG-END"
follow_up = "Rewrite your previous response; start every sentence with A. FOLLOW-END"
items = [
    {"id": "multi", "conversation": [
        {"role": "user", "content": "Explain how to bake bread, in detail."},
        {"role": "assistant", "content": earlier},
        {"role": "user", "content": "Now for a child of ten,\nkeeping every step. MULTI-END"}],
     "responses": {"A": {"text": "Child version A."}, "B": {"text": "Child version B."}}},
    {"id": "mt", "prompt": "Write a travel blog post about Hawaii.",
     "responses": {
         "A": {"text": "Aloha, said A.", "history": [{"role": "assistant", "content": "SIDE-FIRST " * 40},
                                                      {"role": "user", "content": follow_up}]},
         "B": {"text": "A trip, said B.", "history": [{"role": "assistant", "content": "SIDE-FIRST " * 40},
                                                       {"role": "user", "content": follow_up}]}}},
    {"id": "long", "prompt": long_prompt,
     "responses": {"A": {"text": "Answer A."}, "B": {"text": "Answer B."}}},
]
with open(sys.argv[1], "w", encoding="utf-8") as out:
    for item in items:
        out.write(json.dumps(item) + "\n")
PY

mkdir -p "$work/sessions"
export ANNOTATE_HOME="$work"
"$ANNOTATE" init lastmsg --kind pairwise >/dev/null
"$ANNOTATE" import lastmsg "$work/items.jsonl" >/dev/null

tmux -L "$socket" -f /dev/null new-session -d -s check -x "$cols" -y "$rows" \
    "cd '$work' && TERM=xterm-256color ANNOTATE_HOME='$work' '$ANNOTATE' start lastmsg --annotator tmuxcheck; echo \$? > '$work/exit'; sleep 30"

wait_for "Item 1 of" 20
wait_for "Guideline"
tmux -L "$socket" send-keys -t check g   # the guideline is open on an annotator's first item
sleep 0.3
seen=""
for n in 1 2 3; do
    wait_for "Item $n of"
    sleep 0.3
    now="$(screen)"
    marker=""
    for m in MULTI-END FOLLOW-END LONG-END; do
        if grep -qF -- "$m" <<<"$now"; then marker="$m"; fi
    done
    [ -n "$marker" ] || fail "item $n: no question end marker on screen"
    case "$marker" in
        MULTI-END)
            ! grep -qF "Earlier answer line" <<<"$now" || fail "multi: earlier turns not folded"
            grep -qF "earlier turn folded" <<<"$now" || fail "multi: no folded heading" ;;
        FOLLOW-END)
            ! grep -qF "SIDE-FIRST" <<<"$now" || fail "mt: the sides' first answers not folded" ;;
        LONG-END)
            grep -qF "lines above" <<<"$now" || fail "long: the title does not say lines are above" ;;
    esac
    if [ "$marker" != LONG-END ]; then
        tmux -L "$socket" send-keys -t check e
        wait_for "earlier turns shown"
        grep -qF -- "$marker" <<<"$(screen)" || fail "$marker: not in view with the earlier turns shown"
        tmux -L "$socket" send-keys -t check e
        wait_for "earlier turns folded"
    fi
    seen="$seen $marker"
    tmux -L "$socket" send-keys -t check 1
    wait_for "Enter  submit"
    tmux -L "$socket" send-keys -t check Enter
done
wait_for "have an answer"
tmux -L "$socket" send-keys -t check q

for _ in $(seq 1 75); do
    [ -s "$work/exit" ] && break
    sleep 0.2
done
[ -s "$work/exit" ] || fail "the app did not quit on q"
[ "$(cat "$work/exit")" = "0" ] || fail "annotate start exited with $(cat "$work/exit")"
for m in MULTI-END FOLLOW-END LONG-END; do
    grep -qF -- "$m" <<<"$seen" || fail "never saw $m"
done
echo "ok: ${cols}x${rows}: the question in view on 3 items:$seen"
