"""Turn the analysis results (`AgreementTable`, `Estimate`, ...) into report `Table`s.

Each function takes results already computed and lays them out; none computes a statistic.
"""

from __future__ import annotations

from typing import Any

from annotate.analysis.agreement import AgreementTable, interpret_alpha
from annotate.analysis.estimate import Estimate, json_number
from annotate.report.model import Column, Table
from annotate.text import plural

__all__ = [
    "ALPHA_NOTE",
    "agreement_json",
    "agreement_tables",
    "ci",
    "coefficient_rows",
    "pair_table",
]

ALPHA_NOTE = (
    "Krippendorff's alpha: >= 0.800 reliable; 0.667 to 0.800 tentative (draw conclusions only tentatively); "
    "below 0.667 unreliable (Krippendorff 2004, Content Analysis, section 11.4.4)."
)
CI_NOTE = "Intervals: 95 % percentile bootstrap over units ({n_boot} resamples, seed {seed})."


def ci(estimate: Estimate | None) -> tuple[float | None, float | None] | None:
    """An estimate's interval as a plain pair (None when there is no estimate)."""
    if estimate is None:
        return None
    return (json_number(estimate.ci_low), json_number(estimate.ci_high))


def _num(value: float | None) -> float | None:
    return json_number(value)


def reading(alpha: Estimate) -> str:
    """The reliability reading of alpha (`interpret_alpha`), with a dash when alpha is undefined."""
    return interpret_alpha(alpha.estimate) if alpha.defined else "undefined"


COEFFICIENT_COLUMNS = (
    Column("coefficient"), Column("estimate", "num"), Column("95 % CI", "ci"), Column("units", "int"),
    Column("raters", "int"), Column("pairable values", "int"), Column("reading"),
)


def coefficient_rows(table: AgreementTable) -> tuple[tuple[Any, ...], ...]:
    """One row per multi-rater coefficient: name, estimate, CI, units, raters, pairable values, reading."""
    named = (
        (f"Krippendorff's alpha ({table.level})", table.krippendorff_alpha, reading(table.krippendorff_alpha)),
        ("Fleiss' kappa", table.fleiss_kappa, None),
        ("Gwet's AC1", table.gwet_ac1, None),
        ("percent agreement", table.percent_agreement, None),
    )
    return tuple(
        (name, _num(e.estimate), ci(e), e.n_units, e.n_raters, e.n_pairable, read) for name, e, read in named
    )


def agreement_tables(
    table: AgreementTable, key: str, title: str, n_boot: int, seed: int | None, max_pairs: int | None = None,
    *, pairs_title: str | None = None, alpha_note: bool = True, n_pairs_sharing: int | None = None,
) -> tuple[Table, ...]:
    """The coefficients table and the Cohen's kappa pairs table of one `AgreementTable`.

    pairs_title: the second table's title (default ``"{title}: Cohen's kappa per rater pair"``);
    alpha_note: put Krippendorff's reading thresholds under the coefficients (leave it out when the
    section already says it); n_pairs_sharing: how many rater pairs share a unit, when the table
    holds kappa for only some of them (the note then says how many were left out).
    """
    notes = ((ALPHA_NOTE,) if alpha_note else ()) + (CI_NOTE.format(n_boot=n_boot, seed=seed),)
    coefficients = Table(key, title, COEFFICIENT_COLUMNS, coefficient_rows(table), notes)
    kappas = pair_table(table, f"{key}_cohen", pairs_title or f"{title}: Cohen's kappa per rater pair", max_pairs,
                        n_pairs_sharing)
    return (coefficients, kappas)


def pair_table(
    table: AgreementTable, key: str, title: str, max_pairs: int | None = None, n_pairs_sharing: int | None = None,
) -> Table:
    """Cohen's kappa of each rater pair of one `AgreementTable` (the ``max_pairs`` with most units)."""
    weighted = table.level != "nominal"
    columns = [Column("rater a"), Column("rater b"), Column("kappa", "num"), Column("95 % CI", "ci")]
    if weighted:
        columns += [
            Column("linear", "num"), Column("linear CI", "ci"), Column("quadratic", "num"),
            Column("quadratic CI", "ci"),
        ]
    columns.append(Column("units", "int"))
    pairs = list(table.cohen_kappa)
    shown = pairs if max_pairs is None or len(pairs) <= max_pairs else sorted(pairs, key=lambda p: -p.n_units)[
        :max_pairs]
    rows = []
    for pair in shown:
        row: list[Any] = [str(pair.raters[0]), str(pair.raters[1]), _num(pair.estimate.estimate), ci(pair.estimate)]
        if weighted:
            wl, wq = pair.weighted_linear, pair.weighted_quadratic
            row += [_num(wl.estimate) if wl else None, ci(wl), _num(wq.estimate) if wq else None, ci(wq)]
        row.append(pair.n_units)
        rows.append(tuple(row))
    weights_on = "the label values" if table.level in ("interval", "ratio") else "category positions"
    pair_notes = [f"Cohen's kappa on the units both raters rated (Cohen 1960; weighted: Cohen 1968, on {weights_on})."]
    if len(shown) < len(pairs):
        pair_notes.append(f"{plural(len(pairs) - len(shown), 'more pair')} with fewer units in common "
                          f"{'is' if len(pairs) - len(shown) == 1 else 'are'} in the JSON report.")
    if n_pairs_sharing is not None and n_pairs_sharing > len(pairs):
        pair_notes.append(f"Kappa was computed for the {len(pairs)} pairs with most units in common, of the "
                          f"{n_pairs_sharing} pairs of raters who share a unit.")
    return Table(key, title, tuple(columns), tuple(rows), tuple(pair_notes))


def agreement_json(table: AgreementTable) -> dict[str, Any]:
    """The documented JSON object of `annotate agreement --json`.

    Keys ``krippendorff_alpha``, ``fleiss_kappa``, ``gwet_ac1``, ``percent_agreement`` (each
    ``{"estimate", "ci": [lo, hi], "n_units", "n_raters", "n_pairable"}``) and ``cohen_kappa`` (a list
    of ``{"raters": [a, b], "estimate", "ci", "weighted_linear", "weighted_linear_ci",
    "weighted_quadratic", "weighted_quadratic_ci", "n_units"}``); the level is what was asked for.
    """
    full = table.to_json()
    return {key: full[key] for key in ("krippendorff_alpha", "fleiss_kappa", "gwet_ac1", "percent_agreement",
                                       "cohen_kappa")}
