"""Hostile text through every command-line output path: nothing a terminal acts on reaches it.

Every string of tests/hostile_corpus.py (125: OSC 52 and OSC 8, CSI, DCS/APC, C0 and C1 controls,
bidi overrides, tag characters, markup, huge lines...) is put where a command prints it: item ids,
categories, model names, annotator and rater names, label sources, rationales, LLM replies, file
names, values quoted in errors and options click itself quotes. What each command writes to the
terminal is captured (click's runner for lines meant for people; a real pseudo-terminal for data
commands, which only sanitise when standard output is a terminal) and must hold no ESC, no C0
control but newline and tab, no C1 control, no bidi control, no line separator and no tag character.
A path that carried the string shows it: an ESC in the input is an `␛` in the output.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from chat_server import ChatServer
from formats_util import cli, pair, session
from hostile_corpus import contains_forbidden, hostile_strings

from annotate.model import Assignment, ExternalLabel, Judgment, Suggestion, Timings
from annotate.safe_text import is_safe
from annotate.session import open_store

CASES = hostile_strings()
IDS = [name for name, _ in CASES]
T = Timings("2026-11-30T10:00:00+00:00", 150, 4200, 4000)


def assert_inert(text: str, where: str) -> None:
    """No character of `text` acts on a terminal (the corpus's forbidden set, plus all `is_safe` checks)."""
    forbidden = contains_forbidden(text)
    assert forbidden == [], f"{where}: {forbidden} reached the terminal: {text[:300]!r}"
    assert is_safe(text), f"{where}: a terminal-active character reached the terminal: {text[:300]!r}"


def assert_shown(hostile: str, text: str, where: str) -> None:
    """The path carried the hostile string (made visible), rather than dropping it."""
    if "\x1b" in hostile[:200]:
        assert "␛" in text, f"{where}: the string never reached the output: {text[:300]!r}"


def printed(result: object, where: str) -> str:
    """Both streams of a finished command, checked inert."""
    text = result.stdout + result.stderr  # type: ignore[attr-defined]
    assert_inert(text, where)
    return text


def short(text: str, limit: int = 200) -> str:
    return text[:limit]


def file_name(index: int, text: str, suffix: str) -> str:
    """The hostile string as a file name: `/` and NUL (never allowed in a name) become `_`, at most
    ~200 bytes; prefixed with the case number so it never starts like an option."""
    name = text.replace("/", "_").replace("\x00", "_")
    encoded = name.encode("utf-8")[:200].decode("utf-8", errors="ignore")
    return f"{index:03d}-{encoded}{suffix}"


# -- a session full of hostile text --------------------------------------------------------------


@dataclass(frozen=True)
class World:
    root: Path
    """The project folder (holds sessions/)."""
    spec_path: Path
    annotators: tuple[str, ...]


def hostile_name(index: int, text: str) -> str:
    return f"{short(text)}#{index}"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    """Session `h`: one item per hostile string (in prompt, responses, model, category), imported
    through the CLI; an annotator named after each string judging it against bob (a disagreement),
    with the string as rationale; an external label and a suggestion from a source named after it."""
    root = tmp_path_factory.mktemp("hostile")
    spec = session(root, "h")
    records = []
    for i, (name, text) in enumerate(CASES):
        records.append({
            "id": f"h{i:03d}", "prompt": f"{text} [{name}]", "category": short(text, 1000) or None,
            "responses": {"A": {"text": f"{text} [{name}] As ChatGPT, I", "model": short(text, 1000)},
                          "B": {"text": f"plain {i}", "model": "m-b"}},
            "gold": "A" if i % 2 == 0 else None,  # items with gold are not adjudicated: half of them
        })
    (root / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    result = cli("import", spec.path, root / "items.jsonl")
    assert result.exit_code == 0, result.output
    assert_inert(result.stdout + result.stderr, "import (leak warning with hostile model names)")
    names = tuple(hostile_name(i, text) for i, (_, text) in enumerate(CASES))
    with open_store(spec) as store:
        assignments = store.add_assignments(
            [Assignment(0, names[i], f"h{i:03d}", 0) for i in range(len(CASES))]
            + [Assignment(0, "bob", f"h{i:03d}", i) for i in range(len(CASES))]
        )
        for a in assignments:
            text = CASES[int(a.item_id[1:])][1]
            store.submit(Judgment(a.id, "A" if a.annotator != "bob" else "B", T, rationale=text))
        store.add_items_and_labels([], [
            ExternalLabel(short(text, 1000), f"r{i}", "crowd", f"h{i:03d}", "A", raw=text)
            for i, (_, text) in enumerate(CASES)
        ])
        store.add_suggestions([
            Suggestion(f"h{i:03d}", hostile_name(i, text), "A", rationale=text) for i, (_, text) in enumerate(CASES)
        ])
    return World(root, spec.path, names)


# -- commands over the whole hostile session -------------------------------------------------------


def test_status(world: World) -> None:
    text = printed(cli("status", world.spec_path), "status")
    assert text.count("#") >= len(CASES)  # every annotator is listed
    assert "␛]52;c;aGk=␇" in text


@pytest.mark.parametrize("fmt", ["text", "md", "html", "json"])
def test_report_to_the_terminal(world: World, fmt: str) -> None:
    result = cli("report", world.spec_path, "--format", fmt, "--bootstrap", "0")
    assert result.exit_code == 0, result.output
    printed(result, f"report --format {fmt}")


def test_adjudicate_list(world: World) -> None:
    result = cli("adjudicate", world.spec_path, "--annotator", "carol", "--list")
    text = printed(result, "adjudicate --list")
    assert f"{len(CASES) // 2} items in disagreement" in text and "␛[2J" in text


def test_debrief_of_each_hostile_annotator(world: World) -> None:
    for name in world.annotators:
        result = cli("debrief", world.spec_path, "--annotator", name)
        assert result.exit_code == 0, result.output
        printed(result, f"debrief {name!r}")


def test_a_plan_for_hostile_annotator_names_is_refused_with_a_clean_error(world: World) -> None:
    for name in world.annotators:
        result = cli("plan", world.spec_path, "--annotators", f"{name},bob", "--dry-run")
        text = printed(result, f"plan --annotators {name!r}")
        assert result.exit_code == 2 and "--annotators" in text


@pytest.mark.parametrize("what", ["judgments", "items", "labels", "suggestions"])
@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_export_on_a_terminal_is_sanitised(world: World, what: str, fmt: str) -> None:
    out = run_on_terminal(["export", str(world.spec_path), "--what", what, "--format", fmt], world.root)
    assert_inert(out, f"export --what {what} --format {fmt} on a terminal")
    if fmt == "csv":  # JSON Lines writes each such character as a \u escape: nothing to show
        assert "␛" in out


def test_suggest_print_prompt_on_a_terminal(world: World) -> None:
    prompt = world.root / "judge.txt"
    prompt.write_text("".join(f"{text}\n" for _, text in CASES) + "{question}", "utf-8")
    out = run_on_terminal(["suggest", str(world.spec_path), "--print-prompt", "--prompt", str(prompt)], world.root)
    assert_inert(out, "suggest --print-prompt on a terminal")
    assert "␛]8;;" in out


# -- one command per hostile string --------------------------------------------------------------


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Session `p` (one plain item and two votes) for the commands run once per hostile string."""
    root = tmp_path_factory.mktemp("small")
    spec = session(root, "p")
    (root / "one.jsonl").write_text(json.dumps(pair("n1")) + "\n", encoding="utf-8")
    assert cli("import", spec.path, root / "one.jsonl").exit_code == 0
    return root


@pytest.fixture
def in_small(small: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(small)
    return small


@pytest.mark.parametrize(("index", "text"), list(enumerate(t for _, t in CASES)), ids=IDS)
def test_import_names_the_file_and_warns_cleanly(in_small: Path, index: int, text: str) -> None:
    name = file_name(index, text, ".jsonl")
    item = {"id": text if text.isprintable() and text.strip() and len(text) <= 256 else f"f{index:03d}",
            "prompt": f"x {text}", "category": short(text, 1000) or None,
            "responses": {"A": {"text": f"I am {short(text, 50)}, made by OpenAI", "model": short(text, 50)},
                          "B": {"text": "plain", "model": "m-b"}}}
    (in_small / name).write_text(json.dumps(item) + "\n", encoding="utf-8")
    result = cli("import", "p", name)
    assert result.exit_code == 0, result.output
    out = printed(result, "import summary and warnings")
    assert "name a model or vendor" in out
    assert_shown(name, out, "import summary")


@pytest.mark.parametrize(("index", "text"), list(enumerate(t for _, t in CASES)), ids=IDS)
def test_import_error_quoting_the_value_and_the_file(in_small: Path, index: int, text: str) -> None:
    name = file_name(index, text, ".jsonl")
    (in_small / name).write_text(json.dumps(pair("bad", gold=text)) + "\n", encoding="utf-8")
    result = cli("import", "p", name)
    assert result.exit_code == 1
    out = printed(result, "import error")
    assert out.count("\n") == 1 and 'field "gold"' in out
    assert_shown(name, out, "import error")


@pytest.mark.parametrize(("index", "text"), list(enumerate(t for _, t in CASES)), ids=IDS)
def test_labels_import_from_a_hostile_file_and_source(in_small: Path, index: int, text: str) -> None:
    name = file_name(index, text, ".csv")
    (in_small / name).write_text(f"item,rater,label\nn1,r{index},A\n", encoding="utf-8")
    result = cli("labels", "import", "p", name, "--cohort", "crowd")
    assert result.exit_code == 0, result.output
    assert_shown(name, printed(result, "labels import summary"), "labels import summary")
    result = cli("labels", "import", "p", name, "--cohort", "crowd", "--source", short(text, 1000) or "x")
    assert result.exit_code == 0, result.output
    printed(result, "labels import --source")
    (in_small / name).write_text("item,rater,label\nn1,zed,nope\n", encoding="utf-8")
    result = cli("labels", "import", "p", name, "--cohort", "crowd")
    assert result.exit_code == 1
    assert_shown(name, printed(result, "labels import error"), "labels import error")


@pytest.mark.parametrize(("index", "text"), list(enumerate(t for _, t in CASES)), ids=IDS)
def test_export_and_report_to_a_hostile_file_name(in_small: Path, index: int, text: str) -> None:
    name = file_name(index, text, ".out.csv")
    result = cli("export", "p", "-o", name)
    assert result.exit_code == 0, result.output
    assert_shown(name, printed(result, "export -o: the 'wrote' line"), "export -o")
    result = cli("export", "p", "-o", name)
    assert result.exit_code == 1 and "already exists" in result.stderr
    assert_shown(name, printed(result, "export -o: refusing an existing file"), "export -o refusal")
    result = cli("report", "p", "-o", name, "--bootstrap", "0")  # refused before the report is built
    assert result.exit_code == 1 and "already exists" in result.stderr
    printed(result, "report -o: refusing an existing file")


REPORT_SAMPLE = [i for i, (name, _) in enumerate(CASES) if name in {
    "markup-00", "csi-00", "csi-15", "osc-00", "osc-02", "osc-09", "esc-00", "ctl-06", "ctl-19", "ctl-22", "bidi-00",
    "bidi-09", "bidi-10", "script-02",
}]
"""A sample (building a report takes a while): one of each kind, C1 and the lone CR included."""


@pytest.mark.parametrize("index", REPORT_SAMPLE, ids=[IDS[i] for i in REPORT_SAMPLE])
def test_report_written_to_a_hostile_file_name(in_small: Path, index: int) -> None:
    name = file_name(index, CASES[index][1], ".md")
    result = cli("report", "p", "--format", "md", "-o", name, "--bootstrap", "0")
    assert result.exit_code == 0, result.output
    assert_shown(name, printed(result, "report -o: the 'wrote' line"), "report -o")


@pytest.mark.parametrize(("index", "text"), list(enumerate(t for _, t in CASES)), ids=IDS)
def test_errors_that_quote_what_was_typed(in_small: Path, index: int, text: str) -> None:
    typed = short(text, 1000) or "x"
    runs = {
        "status NAME": ("status", typed),
        "export --what VALUE": ("export", "p", "--what", typed),
        "import MISSING-FILE": ("import", "p", file_name(index, text, ".missing")),
        "debrief --annotator NAME": ("debrief", "p", "--annotator", typed),
        "start --annotator NAME": ("start", "p", "--annotator", typed),
        "export --format parquet with the name": ("export", "p", "--format", "parquet", "--what", "items",
                                                  "-o", file_name(index, text, "/x.parquet")),
        "agreement MISSING-FILE": ("agreement", file_name(index, text, ".missing.csv")),
        "unknown option": ("status", "p", f"--{typed}"),
    }
    for where, args in runs.items():
        result = cli(*args)
        assert result.exit_code != 0, where
        printed(result, where)


@pytest.mark.parametrize(("index", "text"), list(enumerate(t for _, t in CASES)), ids=IDS)
def test_agreement_on_a_hostile_ratings_file(in_small: Path, index: int, text: str) -> None:
    import csv

    name = file_name(index, text, ".csv")
    value = short(text, 500)
    with (in_small / name).open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\r\n")
        writer.writerow(["unit", "rater", "label"])
        for unit in range(4):
            for rater in ("alice", f"{value}#r"):
                writer.writerow([f"{value}#{unit}", rater, value if (unit + len(rater)) % 2 else "other"])
    for extra in ((), ("--json",)):
        result = cli("agreement", name, "--bootstrap", "0", *extra)
        assert result.exit_code == 0, result.output
        printed(result, f"agreement {' '.join(extra)}")


def test_merge_lists_hostile_copies_cleanly(in_small: Path) -> None:
    db = in_small / "sessions" / "p.db"
    copies = []
    for index, (_, text) in enumerate(CASES):
        copy = in_small / file_name(index, text, ".db")
        shutil.copy(db, copy)
        copies.append(copy.name)
    result = cli("merge", "p", *copies)
    text = printed(result, "merge")
    assert text.count("merged ") == len(CASES) and "␛]52;" in text


def test_suggest_with_hostile_replies_and_model_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    spec = session(tmp_path, "sg")
    records = [pair(f"case-{i:03d}", prompt=f"case-{i:03d} question") for i in range(len(CASES))]
    (tmp_path / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert cli("import", "sg", "items.jsonl").exit_code == 0
    behaviours = {f"case-{i:03d}": [("text", text)] for i, (_, text) in enumerate(CASES)}
    with ChatServer(behaviours) as server:
        result = cli("suggest", "sg", "--endpoint", server.url, "--model", "judge\x1b]52;c;aGk=\x07",
                     "--concurrency", "8", "--max-retries", "0")
    text = printed(result, "suggest")
    assert "no verdict" in text
    with open_store(spec) as store:
        assert store.suggestion_failures()


# -- a real terminal --------------------------------------------------------------------------------


def run_on_terminal(args: list[str], cwd: Path) -> str:
    """`python -m annotate ARGS` with standard output and error on a pseudo-terminal; what it wrote.

    Output post-processing is switched off, so a CR in what is read was written by the command.
    """
    import pty
    import subprocess
    import termios

    master, slave = pty.openpty()
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.OPOST
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "COLUMNS": "120"}
    process = subprocess.Popen([sys.executable, "-m", "annotate", *args], cwd=cwd, stdin=slave, stdout=slave,
                               stderr=slave, env=env, close_fds=True)
    os.close(slave)
    chunks = list(_read_all(master))
    os.close(master)
    assert process.wait(timeout=60) == 0, b"".join(chunks)[-2000:]
    return b"".join(chunks).decode("utf-8")


def _read_all(fd: int) -> Iterator[bytes]:
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the other end closed
            return
        if not chunk:
            return
        yield chunk
