"""The JSON report says which version of its keys it follows, and the documentation lists that version."""

from __future__ import annotations

from pathlib import Path

from annotate.report.build import REPORT_VERSION, build_report

DOC = Path(__file__).resolve().parents[2] / "docs" / "report-json.md"


def test_the_report_and_its_documentation_name_the_same_version(session) -> None:
    spec, store = session
    assert build_report(spec, store, n_boot=20, seed=1).data["report_version"] == REPORT_VERSION
    text = DOC.read_text(encoding="utf-8")
    assert f"(`report_version` {REPORT_VERSION};" in text
    assert f"Version {REPORT_VERSION} (from {REPORT_VERSION - 1}):" in text
