"""The report says where the style-controlled ranking's intervals come from, and `--style-intervals`
chooses it (the small fixture session: auto takes the bootstrap)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from annotate.analysis.style_control import SANDWICH_ABOVE
from annotate.cli import main
from annotate.report.build import build_report
from annotate.report.render import render


def test_the_style_section_names_its_interval_method(session) -> None:
    spec, store = session
    auto = build_report(spec, store, n_boot=50)
    data = json.loads(render(auto, "json"))["style_control"]["humans"]
    assert data["interval_method"] == "bootstrap" and data["n_boot"] == 50
    assert data["interval_method_reason"] == "6 items <= 20,000: 50 item resamples, both fits refitted on each"
    assert "sandwich" not in render(auto, "text")
    asked = build_report(spec, store, n_boot=50, style_intervals="sandwich")
    data = json.loads(render(asked, "json"))["style_control"]["humans"]
    assert data["interval_method"] == "sandwich" and data["n_boot"] == 50
    assert data["interval_method_reason"].startswith("asked for: normal approximation")
    assert all(None not in m["controlled"]["ci"] for m in data["models"])
    header = " ".join(render(asked, "text").split())
    assert "the style-controlled ranking's: normal approximation, item-clustered sandwich" in header
    assert "item-clustered sandwich" not in render(auto, "md")  # the header names it only when it was used
    for fmt in ("text", "md", "html"):
        out = render(asked, fmt)
        line = "Intervals: 95 %, asked for: normal approximation, estimate +- 1.96 se from the item-clustered"
        assert line in out, fmt


def test_style_intervals_is_an_option(session) -> None:
    _spec, store = session
    store.close()
    run = CliRunner().invoke
    out = run(main, ["report", "rep", "--format", "json", "--bootstrap", "40", "--style-intervals", "sandwich"],
              catch_exceptions=False)
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["style_control"]["humans"]["interval_method"] == "sandwich"
    out = run(main, ["report", "rep", "--format", "json", "--bootstrap", "40"], catch_exceptions=False)
    assert json.loads(out.output)["style_control"]["humans"]["interval_method"] == "bootstrap"
    bad = run(main, ["report", "rep", "--style-intervals", "jackknife"])
    assert bad.exit_code == 2 and "'jackknife' is not one of 'auto', 'bootstrap', 'sandwich'" in bad.output
    helped = run(main, ["report", "--help"], terminal_width=200)
    assert f"bootstrap up to {SANDWICH_ABOVE:,} items" in " ".join(helped.output.split())
