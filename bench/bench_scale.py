"""Arena-scale sessions: import, status, app start, report and exports at 10k / 100k / 1M items, and the
public Chatbot Arena counts expanded to 1.67M battles.

Every step runs the real command in a process of its own (`annotate ...` as a lead types it; the app
start through the real app, headless), timed by wall clock, with the peak RSS of that process (from
`os.wait4`, what `/usr/bin/time -v` prints as "Maximum resident set size"). Anchors run in the same
benchmark run, side by side, and each figure is printed with its ratio to the anchor:

* import: `sqlite-utils insert DB items FILE --nl` of the same file into a plain table (the library's
  own bulk path);
* with `--baseline DIR` (a checkout of another version, e.g. `git archive main | tar -x -C DIR`),
  every step also runs with that code on a session of its own built from the same data, and the
  exports of both are compared byte for byte.

The synthetic session: N pairwise items (prompt of a sentence or two, responses of 1,000 to 2,000
characters of Markdown-like text, 12 models, 8 categories, 2 % gold), imported by `annotate import`;
then five annotators, each assigned every item, who answered 100 %, 95 %, 90 %, 85 % and 80 % of their
queues (1 % skips, 1 % revised answers, three events per answer). The answers are written straight
into the file (the shape `Store.submit` writes, in bulk: submitting millions one by one would take
hours), so only the commands are measured.

    python bench/bench_scale.py                            # 10k items
    python bench/bench_scale.py --sizes 10k,100k --baseline /tmp/annotate-main
    python bench/bench_scale.py --sizes 1m                 # ~3.3 GB JSONL, ~10 GB of session: check df -h
    python bench/bench_scale.py --sizes none --arena       # 1.67M Arena battles from ../shared/data
    python bench/bench_scale.py --steps import,status      # only some steps
    python bench/bench_scale.py --sizes 100k --steps report --keep --dir /work/scale/100k   # build, keep
    python bench/bench_scale.py --sizes 100k --steps report --reuse --dir /work/scale/100k   # time it again
    python bench/bench_scale.py --sizes 1m --steps status,report --dir /work/scale/1m \
        --replicate-from /work/scale/100k/current/sessions/bench.db   # 1M items from the 100k's, x10, kept

Beside the wall clock each command's CPU time (user + system) is printed, and for the
import its ratio to the anchor's: on a shared host the load inflates wall clock far more than CPU time.

Commands run on a warmed install: annotate's modules (and a baseline's) are compiled to `.pyc` before
the first step, as `pip install` of a wheel does and as sqlite-utils' installed package is; on a host
with PYTHONDONTWRITEBYTECODE set, each command would otherwise compile annotate's modules anew
(0.1-0.15 s of CPU a command). `--cold` leaves them as they are.

Everything is written under --dir (default: a temporary folder), removed at the end unless --keep.
The load average is printed beside every figure: on a shared machine the ratios matter more than
the seconds.
"""

from __future__ import annotations

import argparse
import compileall
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
ARENA = ROOT.parent.parent / "shared" / "data" / "arena_pair_counts_20240814.json"
if not ARENA.exists():
    ARENA = ROOT.parent / "shared" / "data" / "arena_pair_counts_20240814.json"

STEPS = ("import", "reimport", "status", "start", "report", "export")
ANNOTATORS = ("ann1", "ann2", "ann3", "ann4", "ann5")
DONE_SHARE = (1.0, 0.95, 0.9, 0.85, 0.8)
MODELS = (
    "atlas-7b", "borealis-13b", "cirrus-70b", "dorado-34b", "eridani-8x7b", "fornax-2-chat", "gemma-ish-9b",
    "hydra-v3", "indus-1.5", "juniper-mini", "kestrel-pro", "lyra-instruct",
)
CATEGORIES = ("writing", "roleplay", "reasoning", "math", "coding", "extraction", "stem", "humanities")
_TEXT = (
    "the model returns a value when each list item is sorted by key and then printed to the output stream because "
    "a careful reader checks every claim against the source before trusting an answer that sounds right while "
    "data flows through small functions that do one thing and tests name the behaviour they protect so that "
    "errors point at the line the reader can fix in seconds rather than hours of guessing what went wrong here"
)
_WORDS = tuple(_TEXT.split(" "))


# -- measuring -----------------------------------------------------------------------------------------


@dataclass
class Run:
    wall_s: float
    peak_mb: float
    load: float
    out: str = ""
    cpu_s: float = float("nan")
    """User + system CPU of the command (on a busy host wall clock is several times this)."""
    sys_s: float = float("nan")
    """The system part of `cpu_s`: mostly the kernel handing the command fresh memory. On a VM whose freed
    pages go back to its host at once (virtio free page reporting) a page never touched before costs far
    more than on bare metal, so this tells a slow host apart from slow code."""


def loadavg() -> float:
    return os.getloadavg()[0]


TIME = Path("/usr/bin/time")
"""GNU time reports the peak RSS of the command alone. `os.wait4` on a child of this process would not:
a child started by vfork and exec keeps this process's own high-water mark as its floor."""


def run(argv: list[str], *, cwd: Path, env: dict[str, str] | None = None, stdout_path: Path | None = None,
        check: bool = True) -> Run:
    """Run one command; its wall clock and peak RSS (output to files, so nothing waits on a pipe)."""
    load = loadavg()
    output = stdout_path.open("wb") if stdout_path else tempfile.TemporaryFile()  # noqa: SIM115 (entered below)
    with tempfile.TemporaryFile() as err, output as out, tempfile.NamedTemporaryFile() as peak:
        wrapped = [str(TIME), "-f", "%M", "-o", peak.name, *argv] if TIME.exists() else argv
        start = time.perf_counter()
        proc = subprocess.Popen(wrapped, cwd=cwd, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
        if stdout_path is None:
            out.seek(0)
            text = out.read().decode("utf-8", "replace") + text
        reported = Path(peak.name).read_text().split() if TIME.exists() else []
        peak_kb = int(reported[-1]) if reported and reported[-1].isdigit() else usage.ru_maxrss
    if check and code != 0:
        raise RuntimeError(f"{' '.join(argv[-6:])} failed ({code}): {text[-3000:]}")
    return Run(wall, peak_kb / 1024, load, text, usage.ru_utime + usage.ru_stime, usage.ru_stime)


def annotate_argv(code: Path | None) -> list[str]:
    """The `annotate` command for this checkout, or for the code in `code` (a baseline)."""
    if code is None:
        return [sys.executable, "-c", "import sys; from annotate.cli import main; sys.argv[0] = 'annotate'; main()"]
    return [sys.executable, "-c",
            f"import sys; sys.path.insert(0, {str(code)!r}); from annotate.cli import main;"
            " sys.argv[0] = 'annotate'; main()"]


def warm_install(code: Path | None) -> int:
    """Compile the `annotate` package of this checkout (or of `code`) to `.pyc` beside its sources, so
    that every command reads them instead of compiling the sources again; the number of `.pyc` files
    found after is returned (compileall does not say how many it wrote)."""
    package = (code or ROOT) / "annotate"
    compileall.compile_dir(str(package), quiet=1)
    return sum(1 for _ in package.rglob("*.cpython-*.pyc"))


def env_for(code: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = str(code)
    return env


# -- the data ------------------------------------------------------------------------------------------


def paragraphs(rng: np.random.Generator, count: int) -> list[str]:
    """A pool of Markdown-ish paragraphs (sentences, a list, a code line) to build responses from."""
    pool = []
    words = np.array(_WORDS)
    for k in range(count):
        n = int(rng.integers(30, 70))
        text = " ".join(words[rng.integers(0, len(words), n)]).capitalize() + "."
        if k % 5 == 1:
            text = "\n".join(f"- **{w}**: {text[:60]}" for w in words[rng.integers(0, len(words), 3)])
        elif k % 7 == 2:
            text = f"```python\ndef step_{k}(xs):\n    return sorted(xs)  # {text[:40]}\n```"
        pool.append(text)
    return pool


def write_items(path: Path, n: int, seed: int = 0) -> int:
    """N native items, responses of 1,000-2,000 characters; returns the file's size in bytes."""
    rng = np.random.default_rng(seed)
    pool = paragraphs(rng, 4096)
    sizes = rng.integers(1000, 2001, size=(n, 2))
    picks = rng.integers(0, len(pool), size=(n, 2, 12))
    models = rng.integers(0, len(MODELS), size=(n, 2))
    models[:, 1] = (models[:, 0] + 1 + models[:, 1] % (len(MODELS) - 1)) % len(MODELS)
    categories = rng.integers(0, len(CATEGORIES), size=n)
    gold = rng.random(n) < 0.02
    leaks = rng.random(n) < 0.001
    with path.open("w", encoding="utf-8") as handle:
        for i in range(n):
            responses = {}
            for s, slot in enumerate(("A", "B")):
                body = f"Answer {i}{slot}. " + "\n\n".join(pool[j] for j in picks[i, s])
                if leaks[i] and s == 0:
                    body = "As an AI model trained by OpenAI, I can help. " + body
                responses[slot] = {"text": body[: sizes[i, s]], "model": MODELS[models[i, s]]}
            record = {
                "id": f"item-{i:07d}", "prompt": f"Question {i}: explain how the helper sorts {_WORDS[i % 40]} data.",
                "responses": responses, "category": CATEGORIES[categories[i]],
            }
            if gold[i]:
                record["gold"] = "A" if i % 2 else "B"
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path.stat().st_size


def fabricate_answers(db: Path, n: int, events_per: int = 3, seed: int = 1) -> int:
    """Five annotators' assignments, judgments and events, written in bulk; returns the judgments stored."""
    rng = np.random.default_rng(seed)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA synchronous = OFF")
    ids = [r[0] for r in conn.execute("SELECT id FROM items ORDER BY rowid")]
    assert len(ids) == n, (len(ids), n)
    strength = {m: float(s) for m, s in zip(MODELS, rng.normal(0, 1, len(MODELS)), strict=True)}
    models = conn.execute(
        "SELECT json_extract(responses, '$[0].model'), json_extract(responses, '$[1].model') FROM items ORDER BY rowid"
    ).fetchall()
    p_a = np.array([1 / (1 + np.exp(strength[b] - strength[a])) for a, b in models])
    latent = np.where(rng.random(n) < p_a, 0, 1)
    stored = 0
    next_assignment = 1 + (conn.execute("SELECT coalesce(max(id), 0) FROM assignments").fetchone()[0])
    next_judgment = 1 + (conn.execute("SELECT coalesce(max(id), 0) FROM judgments").fetchone()[0])
    conn.execute("BEGIN")
    for k, (name, share) in enumerate(zip(ANNOTATORS, DONE_SHARE, strict=True)):
        conn.execute("INSERT INTO annotators (name, cohort, created) VALUES (?, 'expert', '2024-01-01T00:00:00')",
                     [name])
        who = conn.execute("SELECT id FROM annotators WHERE name = ?", [name]).fetchone()[0]
        done = int(n * share)
        noise = rng.random(n)
        labels = np.where(noise < 0.75, latent, np.where(noise < 0.85, 1 - latent, np.where(noise < 0.97, 2, 3)))
        names = np.array(["A", "B", "tie", "both_bad"])[labels]
        active = rng.integers(4000, 90000, size=n)
        for start in range(0, n, 50_000):
            stop = min(n, start + 50_000)
            assignments, judgments, events = [], [], []
            for i in range(start, stop):
                aid = next_assignment
                next_assignment += 1
                assignments.append((aid, who, ids[i], i, (i + k) % 2, "none", "main", None, seed, "2024-01-01"))
                if i >= done:
                    continue
                skipped = (i * 7 + k) % 100 == 0
                revised = (i * 13 + k) % 100 == 1
                label = None if skipped else str(names[i])
                base = (aid, None, "{}", "", 4, "pairwise-chat", "1.0", "expertise" if skipped else None,
                        f"2024-02-01T10:{i % 60:02d}:00.000+00:00", 900, int(active[i]) + 500, int(active[i]),
                        '{"guideline_ms":0,"pane_max_scroll":{"A":1.0,"B":0.5},"pane_view_ms":{"A":900,"B":800},'
                        '"suggestion_ms":null}', f"2024-02-01T10:{i % 60:02d}:30.000+00:00", "0.1.0")
                if revised:
                    old = next_judgment
                    judgments.append((old, f"{old:032x}", *base[:1], "B" if label == "A" else "A", *base[1:],
                                      old + 1, ids[i]))
                    next_judgment += 1
                jid = next_judgment
                next_judgment += 1
                judgments.append((jid, f"{jid:032x}", *base[:1], label, *base[1:], None, ids[i]))
                stored += 1
                for e, kind in enumerate(("item.shown", "key.label", "key.submit")[:events_per]):
                    events.append((f"e{jid:030x}{e}", aid, who, jid, jid * 10 + e, "2024-02-01T10:00:00.000+00:00",
                                   kind, f'{{"n":{e}}}'))
            conn.executemany("INSERT INTO assignments (id, annotator_id, item_id, position, swapped, condition,"
                             " purpose, suggestion_id, seed, created) VALUES (?,?,?,?,?,?,?,?,?,?)", assignments)
            conn.executemany(
                "INSERT INTO judgments (id, uid, assignment_id, label, initial_label, scores, rationale, confidence,"
                " guideline_id, guideline_version, skip_reason, shown_at, first_input_ms, submit_ms, active_ms,"
                " timings, submitted_at, app_version, superseded_by, item_id) VALUES"
                " (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", judgments)
            conn.executemany("INSERT INTO events (uid, assignment_id, annotator_id, judgment_id, mono_ns, wall_time,"
                             " kind, payload) VALUES (?,?,?,?,?,?,?,?)", events)
    newest = conn.execute("SELECT max(rowid) FROM items").fetchone()[0]
    conn.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",  # their default queues are made
                     [(f"default_queue_upto:{name}", str(newest)) for name in ANNOTATORS])
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return stored


def replicate_session(folder: Path, source: Path, copies: int, batch: int = 2_000) -> int:
    """A session `copies` times the session file `source` (a bench session whose items are in rowid order
    and whose answers `fabricate_answers` wrote; read only): its file copied, then copy k = 1, 2, ... of
    every item (id `{id}~r{k}`, the content hash the import gives the item with that id), assignment
    (queue position + k x the items), judgment and event added by SQL with ids shifted past the
    earlier copies, so the session's triggers keep their tallies and open queue as they would. Item
    facts (models, lengths, style counts) are stored for every item as the import stores them (counted
    once per source item). Returns the items. The same shape as `write_items` + `annotate import` +
    `fabricate_answers` at copies x the items, except that each annotator's unanswered entries are at
    the end of every copy's stretch of the queue instead of at the end of the queue; minutes instead of
    hours at 1M."""
    from annotate.store.codec import content_hash, item_from_row
    from annotate.store.item_facts import FACT_COLUMNS
    from annotate.style_features import item_facts

    sessions = folder / "sessions"
    sessions.mkdir(parents=True)
    shutil.copy(source.with_suffix(".toml"), sessions / "bench.toml")
    db = sessions / "bench.db"
    with sqlite3.connect(f"file:{source}?mode=ro", uri=True) as src, sqlite3.connect(db) as out:
        src.backup(out)
    run([*annotate_argv(None), "status", "bench"], cwd=folder)  # brings the copy to this schema (v14: style counts)
    item_columns = ("id", "kind", "conversation", "responses", "category", "gold", "metadata")

    def rehash(new_id: str, *row: str) -> str:
        return content_hash(item_from_row({**dict(zip(item_columns, (new_id, *row), strict=True))}))

    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA synchronous = OFF")
    conn.create_function("rehash", len(item_columns), rehash, deterministic=True)
    conn.execute(f"ATTACH 'file:{source}?mode=ro' AS src")
    conn.execute("BEGIN")
    cursor = conn.execute(f"SELECT {', '.join(item_columns)}, content_hash FROM src.items ORDER BY rowid")
    marks = ", ".join("?" * (2 + len(FACT_COLUMNS)))
    while rows := cursor.fetchmany(batch):
        items = [item_from_row(dict(zip(item_columns, row[:-1], strict=True))) for row in rows]
        conn.executemany(f"INSERT OR REPLACE INTO main.item_facts VALUES ({marks})",
                         [(rows[p][0], rows[p][-1], *facts) for p, facts in item_facts(items)])
    conn.execute("COMMIT")
    n_items, n_assign, n_judg, n_events = (conn.execute(f"SELECT count(*) FROM src.{t}").fetchone()[0]
                                           for t in ("items", "assignments", "judgments", "events"))
    tops = [conn.execute(f"SELECT max(id) FROM src.{t}").fetchone()[0] for t in ("assignments", "judgments", "events")]
    assert tops == [n_assign, n_judg, n_events], "ids of the source are not 1..n"
    facts = ", ".join(FACT_COLUMNS)
    for k in range(1, copies):
        a, j, e, p = k * n_assign, k * n_judg, k * n_events, k * n_items
        began = time.perf_counter()
        conn.execute("BEGIN")
        conn.execute(
            "INSERT INTO main.items (id, kind, conversation, responses, category, gold, metadata, content_hash,"
            " source, created) SELECT id || ?1, kind, conversation, responses, category, gold, metadata,"
            " rehash(id || ?1, kind, conversation, responses, category, gold, metadata), source, created"
            " FROM src.items ORDER BY rowid", [f"~r{k}"])
        conn.execute(f"INSERT INTO main.item_facts (item_id, content_hash, {facts}) SELECT i.id, i.content_hash,"
                     f" {facts} FROM main.item_facts c JOIN main.items i ON i.id = c.item_id || ?"
                     " WHERE c.item_id NOT LIKE '%~r%'", [f"~r{k}"])
        conn.execute(
            "INSERT INTO main.assignments (id, annotator_id, item_id, position, swapped, condition, purpose,"
            " suggestion_id, seed, created, display_order) SELECT id + ?, annotator_id, item_id || ?, position + ?,"
            " swapped, condition, purpose, suggestion_id, seed, created, display_order FROM src.assignments"
            " ORDER BY id", [a, f"~r{k}", p])
        conn.execute(
            "INSERT INTO main.judgments (id, uid, assignment_id, label, initial_label, scores, rationale, confidence,"
            " guideline_id, guideline_version, skip_reason, shown_at, first_input_ms, submit_ms, active_ms, timings,"
            " submitted_at, app_version, superseded_by, item_id, sitting_id) SELECT id + ?1, printf('%032x', id + ?1),"
            " assignment_id + ?2, label, initial_label, scores, rationale, confidence, guideline_id,"
            " guideline_version, skip_reason, shown_at, first_input_ms, submit_ms, active_ms, timings, submitted_at,"
            " app_version, superseded_by + ?1, item_id || ?3, sitting_id FROM src.judgments ORDER BY id",
            [j, a, f"~r{k}"])
        conn.execute(
            "INSERT INTO main.events (id, uid, assignment_id, annotator_id, judgment_id, mono_ns, wall_time, kind,"
            " payload) SELECT id + ?1, 'e' || printf('%030x', judgment_id + ?2) || substr(uid, 32),"
            " assignment_id + ?3, annotator_id, judgment_id + ?2, (judgment_id + ?2) * 10 + mono_ns % 10,"
            " wall_time, kind, payload FROM src.events ORDER BY id", [e, j, a])
        conn.execute("COMMIT")
        print(f"{'':<34} {'':>6}  (copy {k} of {copies - 1}: {time.perf_counter() - began:.0f} s, load "
              f"{loadavg():.2f})", flush=True)
    newest = conn.execute("SELECT max(rowid) FROM items").fetchone()[0]
    conn.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                     [(f"default_queue_upto:{name}", str(newest)) for name in ANNOTATORS])
    conn.execute("DETACH src")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return copies * n_items


def write_arena_battles(path: Path) -> int:
    """The Arena pair counts (wins of each side, ties, ties both bad) expanded to one record per battle."""
    data = json.loads(ARENA.read_text())
    names = data["models"]
    outcomes = ("model_a", "model_b", "tie", "tie (bothbad)")
    n = 0
    with path.open("w", encoding="utf-8") as handle:
        for (i, j), counts in zip(data["X"], data["Y"], strict=True):
            for outcome, count in zip(outcomes, counts, strict=True):
                for _ in range(int(count)):
                    a, b = names[i], names[j]
                    qid = f"{n:012x}"
                    prompt = f"question {n % 50_000}: say something helpful"
                    record = {
                        "question_id": qid, "model_a": a, "model_b": b, "winner": outcome,
                        "judge": f"arena_user_{(n * 7919) % 40_000}", "turn": 1, "anony": True, "language": "English",
                        "conversation_a": [{"role": "user", "content": prompt},
                                           {"role": "assistant", "content": f"reply {n} from the first model"}],
                        "conversation_b": [{"role": "user", "content": prompt},
                                           {"role": "assistant", "content": f"reply {n} from the second model"}],
                        "tstamp": 1_700_000_000 + n,
                    }
                    handle.write(json.dumps(record) + "\n")
                    n += 1
    return n


# -- the steps -----------------------------------------------------------------------------------------


LAUNCH_CHILD = """
import sys, time
from annotate.session import load_session
from annotate.store import Store
from annotate.tui import make_app
spec = load_session(sys.argv[1])
with Store.open(spec.db) as store:
    app = make_app(spec, store, sys.argv[2], open_guideline=False)
    def painted(ns):
        print(ns, flush=True)
        app.exit()
    app.painted_hooks.append(painted)
    app.run(headless=True, size=(160, 48))
"""


def start_to_first_item(folder: Path, code: Path | None, annotator: str) -> Run:
    """Launch of the real app (headless) to the first item painted, for an annotator part-way through."""
    child = LAUNCH_CHILD if code is None else f"import sys; sys.path.insert(0, {str(code)!r})\n" + LAUNCH_CHILD
    start_ns = time.monotonic_ns()
    result = run([sys.executable, "-c", child, str(folder / "sessions" / "bench.toml"), annotator], cwd=folder,
                 env=env_for(code))
    painted = int(result.out.strip().splitlines()[0])
    return Run((painted - start_ns) / 1e9, result.peak_mb, result.load)


@dataclass
class Row:
    step: str
    size: str
    run: Run
    anchor: Run | None = None
    anchor_name: str = ""
    note: str = ""


ROWS: list[Row] = []


def show(row: Row) -> None:
    ROWS.append(row)
    r = row.run
    cpu = f" (CPU {r.cpu_s:7.2f} s)" if r.cpu_s == r.cpu_s else ""
    if r.sys_s == r.sys_s:
        cpu = f" (CPU {r.cpu_s:7.2f} s, sys {r.sys_s:6.2f} s)"
    text = f"{row.step:<34} {row.size:>6}  {r.wall_s:8.2f} s{cpu}  {r.peak_mb:8.0f} MB  load {r.load:5.2f}"
    if row.anchor is not None:
        a = row.anchor
        text += (f"   | {row.anchor_name}: {a.wall_s:7.2f} s {a.peak_mb:6.0f} MB (load {a.load:4.2f})"
                 f"  ratio time x{r.wall_s / a.wall_s:.2f}, memory x{r.peak_mb / a.peak_mb:.2f}")
        if r.cpu_s == r.cpu_s and a.cpu_s == a.cpu_s and a.cpu_s:
            text += f", CPU x{r.cpu_s / a.cpu_s:.2f} ({a.cpu_s:.2f} s)"
    if row.note:
        text += f"   {row.note}"
    print(text, flush=True)


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass
class Side:
    """One version of the code under test, with a session folder of its own."""

    name: str
    code: Path | None
    folder: Path

    def annotate(self, *args: str, stdout_path: Path | None = None) -> Run:
        return run([*annotate_argv(self.code), *args], cwd=self.folder, env=env_for(self.code),
                   stdout_path=stdout_path)


def make_side(base: Path, code: Path | None) -> Side:
    name = "baseline" if code is not None else "current"
    folder = base / name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    side = Side(name, code, folder)
    side.annotate("init", "bench", "--kind", "pairwise", "--seed", "7")
    return side


def compare(step: str, label: str, runs: dict[tuple[str, str], Run], side: Side, result: Run,
            anchor: Run | None = None, anchor_name: str = "") -> None:
    """Print one figure; a baseline's with the current / baseline ratio."""
    runs[(side.name, step)] = result
    if side.code is None:
        show(Row(step, label, result, anchor, anchor_name))
        return
    show(Row(f"{step} [baseline]", label, result))
    current = runs.get(("current", step))
    if current is not None:
        print(f"{'':<34} {'':>6}  current / baseline: time x{current.wall_s / result.wall_s:.3f},"
              f" memory x{current.peak_mb / result.peak_mb:.3f}", flush=True)


EXPORTS = (("judgments", "csv"), ("judgments", "jsonl"), ("judgments", "parquet"), ("items", "jsonl"),
           ("items", "csv"), ("labels", "csv"))


def reuse_size(label: str, base: Path, steps: set[str], n_boot: int) -> bool:
    """With --reuse: the steps after the build on the session a run with --keep left in ``base/current``
    (no import, no answers written); False when there is none."""
    side = Side("current", None, base / "current")
    db = side.folder / "sessions" / "bench.db"
    if not db.exists():
        return False
    with sqlite3.connect(db) as conn:
        judged = conn.execute("SELECT count(*) FROM judgments WHERE superseded_by IS NULL").fetchone()[0]
    print(f"\n== {label}: the kept session in {side.folder} ({judged:,} current judgments; session file "
          f"{db.stat().st_size / 1e9:.2f} GB) ==", flush=True)
    session_steps(label, {}, side, None, steps, n_boot)
    return True


def session_steps(label: str, runs: dict[tuple[str, str], Run], side: Side, code: Path | None, steps: set[str],
                  n_boot: int) -> None:
    """The steps that read a built session: status, the app's start, the report."""
    if "status" in steps:
        compare("status", label, runs, side, side.annotate("status", "bench"))
    if "start" in steps:
        compare("app start to first item", label, runs, side, start_to_first_item(side.folder, code, "ann3"))
    if "report" in steps:
        result = side.annotate("report", "bench", "--format", "json", "--bootstrap", str(n_boot),
                               stdout_path=side.folder / "report.json")
        compare("report --format json", label, runs, side, result)


def replicated_size(label: str, n: int, base: Path, source: Path, steps: set[str], n_boot: int) -> None:
    """--replicate-from: the session of n items built as copies of a kept bench session (`replicate_session`),
    then the steps after the build on it (no import is measured)."""
    folder = base / "current"
    if folder.exists():
        shutil.rmtree(folder)
    with sqlite3.connect(f"file:{source}?mode=ro", uri=True) as conn:
        n_source = conn.execute("SELECT count(*) FROM items").fetchone()[0]
    if n % n_source:
        raise SystemExit(f"--replicate-from: {n:,} items is not a multiple of the {n_source:,} of {source}")
    began = time.perf_counter()
    written = replicate_session(folder, source, n // n_source)
    db = folder / "sessions" / "bench.db"
    print(f"\n== {label}: {written:,} items, {n // n_source} copies of {source}, built in "
          f"{time.perf_counter() - began:.0f} s; session file {db.stat().st_size / 1e9:.2f} GB;"
          f" load {loadavg():.2f} ==",
          flush=True)
    reuse_size(label, base, steps - {"import", "reimport", "export"}, n_boot)


def bench_size(label: str, n: int, base: Path, steps: set[str], baseline: Path | None, n_boot: int) -> None:
    data = base / f"items-{label}.jsonl"
    began = time.perf_counter()
    size = write_items(data, n)
    print(f"\n== {label}: {n:,} items, {size / 1e6:,.0f} MB of JSON Lines (written in "
          f"{time.perf_counter() - began:.0f} s); disk free {shutil.disk_usage(base).free / 1e9:.0f} GB ==", flush=True)
    anchor = None
    if "import" in steps:
        anchor_db = base / "anchor.db"
        anchor = run([str(Path(sys.executable).with_name("sqlite-utils")), "insert", str(anchor_db), "items",
                      str(data), "--nl"], cwd=base)
        anchor_db.unlink()
        show(Row("anchor: sqlite-utils insert --nl", label, anchor))
    digests: dict[str, dict[str, str]] = {}
    runs: dict[tuple[str, str], Run] = {}
    for code in [None, baseline] if baseline is not None else [None]:
        side = make_side(base, code)
        compare("import", label, runs, side, side.annotate("import", "bench", str(data)), anchor, "sqlite-utils")
        if "reimport" in steps:
            compare("import again (all unchanged)", label, runs, side, side.annotate("import", "bench", str(data)))
        if not steps & {"status", "start", "report", "export"}:
            continue  # only the import was asked for: no answers to write
        began = time.perf_counter()
        db = side.folder / "sessions" / "bench.db"
        judged = fabricate_answers(db, n)
        print(f"{'':<34} {'':>6}  ({side.name}: {judged:,} current judgments of {len(ANNOTATORS)} annotators written"
              f" in {time.perf_counter() - began:.0f} s; session file {db.stat().st_size / 1e9:.2f} GB)", flush=True)
        session_steps(label, runs, side, code, steps, n_boot)
        if "export" in steps:
            digests[side.name] = {}
            for what, fmt in EXPORTS:
                out = side.folder / f"export-{what}.{fmt}"
                compare(f"export {what} {fmt}", label, runs, side,
                        side.annotate("export", "bench", "--what", what, "--format", fmt, "-o", str(out)))
                digests[side.name][f"{what}.{fmt}"] = parquet_digest(out) if fmt == "parquet" else sha256(out)
                out.unlink()
    if baseline is not None and "export" in steps:
        for name, digest in digests["current"].items():
            same = digests["baseline"].get(name) == digest
            print(f"export {name}: {'the same' if same else 'DIFFERENT'} as the baseline's"
                  + (" (Parquet: the same rows)" if name.endswith("parquet") else " (bytes)"), flush=True)
    if baseline is not None and "report" in steps:
        a = json.loads((base / "current" / "report.json").read_text())
        b = json.loads((base / "baseline" / "report.json").read_text())
        print(f"report JSON: {'identical' if a == b else 'DIFFERENT'} to the baseline's", flush=True)
    data.unlink()


def parquet_digest(path: Path) -> str:
    """A digest of a Parquet file's rows (its bytes carry the writer's version and row groups, and an
    empty column's type may differ: annotate declares the types since the exports stream)."""
    import pyarrow.parquet as pq

    return hashlib.sha256(repr(pq.read_table(path).to_pylist()).encode()).hexdigest()


def bench_arena(base: Path, steps: set[str], n_boot: int) -> None:
    if not ARENA.exists():
        print(f"(no Arena counts at {ARENA}: skipped)")
        return
    data = base / "arena-battles.jsonl"
    began = time.perf_counter()
    n = write_arena_battles(data)
    print(f"\n== Arena: {n:,} battles expanded from the 2024-08-14 pair counts, {data.stat().st_size / 1e6:,.0f} MB "
          f"(written in {time.perf_counter() - began:.0f} s) ==", flush=True)
    anchor_db = base / "anchor.db"
    anchor = run([str(Path(sys.executable).with_name("sqlite-utils")), "insert", str(anchor_db), "battles", str(data),
                  "--nl"], cwd=base)
    anchor_db.unlink()
    show(Row("anchor: sqlite-utils insert --nl", "arena", anchor))
    side = make_side(base, None)
    runs: dict[tuple[str, str], Run] = {}
    compare("import --format arena", "arena", runs, side,
            side.annotate("import", "bench", str(data), "--format", "arena"), anchor, "sqlite-utils")
    if "status" in steps:
        compare("status", "arena", runs, side, side.annotate("status", "bench"))
    if "report" in steps:
        compare("report --format json", "arena", runs, side,
                side.annotate("report", "bench", "--format", "json", "--bootstrap", str(n_boot),
                              stdout_path=side.folder / "report.json"))
    data.unlink()


def parse_size(text: str) -> int:
    text = text.strip().lower()
    scale = {"k": 1_000, "m": 1_000_000}.get(text[-1:], 1)
    return int(float(text[:-1] if scale > 1 else text) * scale)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10k", help="Comma-separated item counts (10k, 100k, 1m) or 'none'.")
    parser.add_argument("--arena", action="store_true", help="Also the 1.67M Arena battles.")
    parser.add_argument("--steps", default=",".join(STEPS), help=f"Which of {', '.join(STEPS)}.")
    parser.add_argument("--baseline", type=Path, default=None, help="Also run every step with the code in DIR.")
    parser.add_argument("--bootstrap", type=int, default=1000, help="Resamples for the report (default 1000).")
    parser.add_argument("--dir", type=Path, default=None, help="Where to write (default: a temporary folder).")
    parser.add_argument("--keep", action="store_true", help="Keep the files.")
    parser.add_argument("--reuse", action="store_true",
                        help="Run the steps after the build (status, start, report) on the session a run with --keep "
                             "left in --dir, instead of building it again, and keep it (one size per --dir).")
    parser.add_argument("--replicate-from", type=Path, default=None, metavar="DB",
                        help="Build each size's session as copies of the kept bench session file DB (read only; "
                             "the size a multiple of its items) by SQL instead of writing, importing and answering "
                             "a JSON Lines file, then run the steps after the build (status, start, report) on it. "
                             "Kept in --dir.")
    parser.add_argument("--cold", action="store_true", help="Do not compile annotate's modules to .pyc first.")
    args = parser.parse_args()
    steps = {s.strip() for s in args.steps.split(",") if s.strip()}
    base = args.dir or Path(tempfile.mkdtemp(prefix="annotate-scale-"))
    base.mkdir(parents=True, exist_ok=True)
    print(f"bench_scale: {os.cpu_count()} cores, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())},"
          f" SQLite {sqlite3.sqlite_version}, Python {sys.version.split()[0]}; folder {base}", flush=True)
    if not args.cold:
        for code in [None, args.baseline] if args.baseline is not None else [None]:
            print(f"warm install: {warm_install(code)} .pyc files in {(code or ROOT) / 'annotate'}", flush=True)
    try:
        for text in [s for s in args.sizes.split(",") if s.strip() and s.strip() != "none"]:
            if args.replicate_from is not None:
                replicated_size(text.strip(), parse_size(text), base, args.replicate_from, steps, args.bootstrap)
            elif not (args.reuse and reuse_size(text.strip(), base, steps, args.bootstrap)):
                bench_size(text.strip(), parse_size(text), base, steps, args.baseline, args.bootstrap)
        if args.arena:
            bench_arena(base, steps, args.bootstrap)
    finally:
        if not args.keep and not args.reuse and args.replicate_from is None:  # a reused or replicated session is kept
            shutil.rmtree(base, ignore_errors=True)
    print(f"\nload average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
