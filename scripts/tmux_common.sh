# Shared by the tmux checks in this folder (sourced, not run): finds annotate and Python (the
# project's .venv first; ANNOTATE=... and PYTHON=... override), makes a temp folder `$work` and a
# private tmux server (-L, named after NAME and the pid) that are removed on exit, and defines
# `screen` (the window's text), `fail MESSAGE` and `wait_for TEXT [SECONDS]`.
# Usage: source "$(dirname "${BASH_SOURCE[0]}")/tmux_common.sh" NAME   (the window is `check`)

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ANNOTATE="${ANNOTATE:-$here/.venv/bin/annotate}"
PYTHON="${PYTHON:-$here/.venv/bin/python}"
[ -x "$ANNOTATE" ] || ANNOTATE="$(command -v annotate)"
[ -x "$PYTHON" ] || PYTHON="$(command -v python3)"
command -v tmux >/dev/null || { echo "tmux is not installed" >&2; exit 2; }

work="$(mktemp -d)"
socket="annotate-$1-$$"
cleanup() {
    tmux -L "$socket" kill-server 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

screen() { tmux -L "$socket" capture-pane -p -t check 2>/dev/null || true; }

fail() {
    echo "FAIL: $1" >&2
    echo "---- last screen ----" >&2
    screen >&2
    exit 1
}

wait_for() {  # wait_for TEXT [SECONDS]
    local text="$1" limit="${2:-15}" waited=0
    while ! screen | grep -qF -- "$text"; do
        sleep 0.2
        waited=$((waited + 1))
        [ "$waited" -lt $((limit * 5)) ] || fail "timed out waiting for: $text"
    done
}
