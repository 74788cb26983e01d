"""Every string of the hostile corpus (tests/hostile_corpus.py, the 1 MB line included) in every report
format: as item text, item id, category, expert, crowd and LLM rater names, model names and suggestion
sources. No crash, and nothing from the strings acts on a terminal or a browser:

- text on a colour terminal (Rich, forced truecolor, as `annotate report` prints): every escape
  sequence in the bytes is a Rich SGR colour code (`ESC [ ... m`), none comes from the strings; no
  C0/C1 control, no bidi override; Rich markup in names shows literally;
- plain text, Markdown and HTML: no escape, control or bidi character at all; HTML has no tag from
  the strings (`<script>` shows as `&lt;script&gt;`), no resource loaded from anywhere;
- JSON: ASCII only, and every name comes back whole and exact.
"""

from __future__ import annotations

import io
import json
import re

import pytest
from hostile_corpus import contains_forbidden, hostile_strings
from rich.console import Console

from annotate.model import Assignment, ExternalLabel, Item, Judgment, Message, Response, Suggestion, Timings
from annotate.report.build import build_report
from annotate.report.render import render
from annotate.report.render_text import render_to_console
from annotate.session import create_session, open_store

CORPUS = hostile_strings()
TEXTS = [text for _, text in CORPUS]
LABELS = ("A", "B", "tie", "both_bad")
SGR = re.compile(r"\x1b\[[0-9;]*m")
BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _name(text: str, n: int) -> str:
    """A distinct rater / model name made from a corpus string (the long ones kept long)."""
    return f"{text} #{n}"


@pytest.fixture(scope="module")
def hostile_report(tmp_path_factory: pytest.TempPathFactory):
    """A pairwise session whose every untrusted field is a corpus string; its report built once."""
    folder = tmp_path_factory.mktemp("hostile-report")
    spec = create_session("evil", "pairwise", seed=3, folder=folder / "sessions")
    n = len(TEXTS)
    items = [
        Item(id=f"h{k:03d} {text[:200]}", kind="pairwise",
             conversation=(Message("system", text), Message("user", TEXTS[(k + 1) % n])),
             responses=(Response("A", text, _name(TEXTS[(k + 2) % n], 0)),
                        Response("B", TEXTS[(k + 3) % n], f"baseline {k % 3}",
                                 history=(Message("user", text), Message("assistant", text)))),
             category=TEXTS[k % n], gold=LABELS[k % 2] if k % 9 == 0 else None,
             metadata={"note": text})
        for k, text in enumerate(TEXTS)
    ]
    timings = Timings("2026-11-30T10:00:00+00:00", 100, 3000, 2500)
    with open_store(spec) as store:
        store.add_items(items)
        ids = [item.id for item in items]
        assignments = []
        for k, text in enumerate(TEXTS):  # every string is an expert's name; each judges 3 items
            name = _name(text, k)
            assignments += [Assignment(0, name, ids[(k + j) % n], j, swapped=bool((k + j) % 2)) for j in range(3)]
        stored = store.add_assignments(assignments)
        for a in stored:
            store.submit(Judgment(a.id, LABELS[(a.id * 7) % 4], timings, rationale=TEXTS[a.id % n]))
        store.add_external_labels(
            [ExternalLabel(f"crowd {TEXTS[k % n][:50]}", _name(TEXTS[k], 1000 + k), "crowd", ids[(k + 5) % n],
                           LABELS[k % 4], raw=TEXTS[k]) for k in range(n)]
            + [ExternalLabel("judge", _name(TEXTS[k], 2000 + k), "llm", ids[(k + 9) % n], LABELS[(k + 1) % 4])
               for k in range(0, n, 3)]
        )
        store.add_suggestions([Suggestion(ids[k], _name(TEXTS[k], 3000), LABELS[k % 4], rationale=TEXTS[k],
                                          raw=TEXTS[k]) for k in range(0, n, 4)])
        report = build_report(spec, store, n_boot=0)
    return report


@pytest.fixture(scope="module")
def rendered(hostile_report) -> dict[str, str]:
    out = {fmt: render(hostile_report, fmt) for fmt in ("text", "md", "html", "json")}
    console = Console(file=io.StringIO(), width=140, force_terminal=True, color_system="truecolor",
                      legacy_windows=False)
    render_to_console(hostile_report, console)
    out["terminal"] = console.file.getvalue()  # type: ignore[attr-defined]
    return out


def test_the_whole_corpus_is_in_play() -> None:
    assert len(TEXTS) >= 125 and any(len(t) >= 1 << 20 for t in TEXTS)


def test_colour_terminal_output_has_only_rich_colour_codes(rendered: dict[str, str]) -> None:
    raw = rendered["terminal"]
    assert "\x1b" in raw  # it is the colour output
    outside_sgr = SGR.sub("", raw)
    assert "\x1b" not in outside_sgr, "an escape sequence that is not a colour code reached the terminal"
    assert contains_forbidden(outside_sgr) == []
    assert not BIDI.search(raw)
    assert "␛]52;c;aGk=␇" in outside_sgr  # the OSC 52 write shows as text
    assert "[bold red]x[/]" in outside_sgr  # markup in a name shows literally


@pytest.mark.parametrize("fmt", ["text", "md", "html"])
def test_files_have_no_control_escape_or_bidi_character(rendered: dict[str, str], fmt: str) -> None:
    out = rendered[fmt]
    assert contains_forbidden(out) == []
    assert not BIDI.search(out)
    assert len(out) < 4_000_000  # the 1 MB names are cut, not repeated in every table


def test_html_has_no_tag_or_resource_from_the_strings(rendered: dict[str, str]) -> None:
    from html.parser import HTMLParser

    tags: set[str] = set()
    attributes: list[tuple[str, str, str | None]] = []

    class Collect(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            tags.add(tag)
            attributes.extend((tag, name, value) for name, value in attrs)

    out = rendered["html"]
    Collect().feed(out)
    assert not tags & {"script", "img", "iframe", "object", "embed", "link", "base", "form", "input", "meta-refresh"}
    assert all(not name.startswith("on") for _, name, _ in attributes), "an event handler attribute"
    assert all((value or "").startswith("#") for _, name, value in attributes if name in ("href", "src", "xlink:href"))
    assert "&lt;script&gt;" in out and "&lt;img src=x onerror=alert(1)&gt;" in out  # shown as typed
    assert "@import" not in out and "url(" not in out


def test_json_keeps_every_name_whole(rendered: dict[str, str]) -> None:
    out = rendered["json"]
    assert out.isascii()
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f]", out)  # controls only as \\u escapes
    data = json.loads(out)
    raters = {r["rater"] for r in data["agreement"]["per_annotator"]}
    assert {_name(text, k) for k, text in enumerate(TEXTS)} <= raters
    models = {m["model"] for m in data["ranking"]["overall"]["models"]}
    assert {_name(t, 0) for t in TEXTS} | {"baseline 0", "baseline 1", "baseline 2"} == models
    assert {c["category"] for c in data["agreement"]["per_category"]} <= set(TEXTS)
