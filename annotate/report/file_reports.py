"""`annotate agreement`'s reports of one ratings file: its agreement table, or agreement on its rankings.

Apart from build.py so that the command imports only what a file's report needs (not the session
report's context, designs and sections).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from annotate.report.cells import label_text
from annotate.report.model import Report, Section
from annotate.report.tables import agreement_json, agreement_tables
from annotate.text import plural

if TYPE_CHECKING:
    from annotate.analysis.ratings_io import FileAgreement


def file_agreement_report(path: Path | str, result: FileAgreement, n_boot: int, seed: int | None) -> Report:
    """The agreement table of one ratings file as a report (``data`` is the documented JSON object)."""
    table = result.table
    meta = (
        ("file", str(path)),
        ("ratings", f"{result.n_ratings} from {plural(len(result.raters), 'rater')} on "
                    f"{plural(len(result.units), 'unit')}"),
        ("level", table.level),
        ("categories", ", ".join(label_text(c) for c in result.categories[:20])
         + (f" … ({len(result.categories)} in all)" if len(result.categories) > 20 else "")),
    )
    tables = agreement_tables(table, "agreement", "Coefficients", n_boot, seed,
                              pairs_title="Cohen's kappa per rater pair")
    section = Section("agreement", "Agreement", tables, tuple(result.warnings))
    return Report("Inter-rater agreement", meta, (section,), agreement_json(table))


def file_ranking_report(path: Path | str, result: Any, n_boot: int, seed: int | None) -> Report:
    """Agreement on the rankings of one ratings file (`annotate agreement --level ranking`) as a report;
    ``data`` is `FileRankingAgreement.to_json`."""
    from annotate.report.cells import estimate_cell, interval_cell, number_cell
    from annotate.report.model import Column, Table
    from annotate.report.sections.rankings import ALPHA_NOTE, W_NOTE
    from annotate.report.tables import CI_NOTE

    low, high = result.k
    meta = (
        ("file", str(path)),
        ("rankings", f"{result.n_rankings} from {plural(len(result.raters), 'rater')} on "
                     f"{plural(result.n_units, 'unit')}, {low if low == high else f'{low} to {high}'} responses each"),
        ("level", "ranking (Kendall's W; alpha at the ordinal level on the ranks)"),
    )
    w, alpha = result.kendall_w, result.alpha
    why = "no unit ranked by two raters" if w.mean.n_units == 0 else "every ranking of every unit ties all responses"
    row = (estimate_cell(w.mean, "units", why), interval_cell(w.mean, "units"),
           number_cell(w.chance, w.mean.n_units, "units", "no unit ranked by two raters"),
           estimate_cell(alpha, "units"), interval_cell(alpha, "units"), w.mean.n_units, w.mean.n_raters,
           w.mean.n_pairable, w.tied_rankings)
    columns = (Column("Kendall's W", "num"), Column("W 95 % CI", "ci"), Column("chance", "num"),
               Column("alpha (ordinal, ranks)", "num"), Column("alpha 95 % CI", "ci"), Column("units", "int"),
               Column("raters", "int"), Column("rankings", "int"), Column("tied rankings", "int"))
    notes = (W_NOTE.replace("item", "unit"), ALPHA_NOTE.replace("item", "unit"),
             CI_NOTE.format(n_boot=n_boot, seed=seed))
    table = Table("ranking_agreement", "Agreement on the rankings", columns, (row,), notes)
    section = Section("agreement", "Agreement", (table,), tuple(result.warnings))
    return Report("Agreement on rankings", meta, (section,), result.to_json())
