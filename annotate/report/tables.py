"""Turn the analysis results (`AgreementTable`, `Estimate`, ...) into report `Table`s.

Each function takes results already computed and lays them out; none computes a statistic.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from annotate.analysis.agreement import AgreementTable, interpret_alpha
from annotate.analysis.estimate import Estimate, json_number
from annotate.report.cells import estimate_cell, interval_cell
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
ITEM_CI_NOTE = ("Intervals: 95 % percentile bootstrap over items ({n_boot} resamples of items, each with all its "
                "votes; seed {seed}).")


def ci(estimate: Estimate | None) -> tuple[float | None, float | None] | None:
    """An estimate's interval as a plain pair (None when there is no estimate)."""
    if estimate is None:
        return None
    return (json_number(estimate.ci_low), json_number(estimate.ci_high))


def _num(value: float | None) -> float | None:
    return json_number(value)


def undefined_reason(e: Estimate, n_boot: int, both: bool = False) -> str | None:
    """Why a dash stands where an estimate or its interval would be, or None when both are there.

    both: the estimate is about a pair of raters (units both rated) rather than all raters.
    """
    from annotate.analysis.bootstrap import MIN_UNITS_FOR_INTERVAL

    units = plural(e.n_units, "unit")
    if not e.defined:
        if e.n_units == 0:
            rated = "by both raters" if both else "by two or more raters"
            return f"not enough data (n = 0 units): no unit is rated {rated}"
        return (f"not enough data (n = {units}): every rating has the same label, so there is no disagreement "
                "to expect by chance and the coefficient is undefined")
    if ci(e) is not None and all(v is not None for v in ci(e) or ()):
        return None
    if n_boot == 0:
        return None  # no interval was asked for; the intervals note says so
    if e.n_units < MIN_UNITS_FOR_INTERVAL:
        return f"no interval: not enough data (n = {units}) to resample"
    return f"no interval (n = {units}): fewer than half of the resamples had enough variation for a value"


def undefined_notes(named: list[tuple[str, Estimate | None]], n_boot: int, both: bool = False,
                    cap: int = 6) -> list[str]:
    """One note per reason (`undefined_reason`) naming what it applies to (at most `cap` names).

    named: (our own name for the figure, never untrusted text such as a rater id, the estimate).
    """
    by_reason: dict[str, list[str]] = {}
    for name, estimate in named:
        reason = None if estimate is None else undefined_reason(estimate, n_boot, both)
        if reason is not None:
            by_reason.setdefault(reason, []).append(name)
    notes = []
    for reason, names in by_reason.items():
        unique = list(dict.fromkeys(names))
        shown = ", ".join(unique[:cap]) + (f" and {len(unique) - cap} more" if len(unique) > cap else "")
        notes.append(f"–: {shown}: {reason}.")
    return notes


def reading(alpha: Estimate) -> str:
    """The reliability reading of alpha (`interpret_alpha`), with a dash when alpha is undefined."""
    return interpret_alpha(alpha.estimate) if alpha.defined else None


COEFFICIENT_COLUMNS = (
    Column("coefficient"), Column("estimate", "num"), Column("95 % CI", "ci"), Column("units", "int"),
    Column("raters", "int"), Column("pairable values", "int"), Column("reading"),
)


def coefficient_rows(table: AgreementTable) -> tuple[tuple[Any, ...], ...]:
    """One row per multi-rater coefficient: name, estimate, CI, units, raters, pairable values, reading."""
    named = (
        (f"Krippendorff's alpha ({table.level})", table.krippendorff_alpha,
         None if table.krippendorff_alpha is None else reading(table.krippendorff_alpha)),
        ("Fleiss' kappa", table.fleiss_kappa, None),
        ("Gwet's AC1", table.gwet_ac1, None),
        ("percent agreement", table.percent_agreement, None),
    )
    return tuple(
        (name, estimate_cell(e), interval_cell(e), e.n_units, e.n_raters, e.n_pairable, read)
        for name, e, read in named if e is not None
    )


def agreement_tables(
    table: AgreementTable, key: str, title: str, n_boot: int, seed: int | None, max_pairs: int | None = None,
    *, pairs_title: str | None = None, alpha_note: bool = True, n_pairs_sharing: int | None = None,
    ci_note: str = CI_NOTE,
) -> tuple[Table, ...]:
    """The coefficients table and the Cohen's kappa pairs table of one `AgreementTable`.

    pairs_title: the second table's title (default ``"{title}: Cohen's kappa per rater pair"``);
    alpha_note: put Krippendorff's reading thresholds under the coefficients (leave it out when the
    section already says it); n_pairs_sharing: how many rater pairs share a unit, when the table
    holds kappa for only some of them (the note then says how many were left out); ci_note: how the
    intervals were made (`CI_NOTE` for a ratings file's units, `ITEM_CI_NOTE` for a session's items).
    """
    notes = ((ALPHA_NOTE,) if alpha_note else ()) + (ci_note.format(n_boot=n_boot, seed=seed),)
    named = [(f"Krippendorff's alpha ({table.level})", table.krippendorff_alpha), ("Fleiss' kappa", table.fleiss_kappa),
             ("Gwet's AC1", table.gwet_ac1), ("percent agreement", table.percent_agreement)]
    named = [(name, e) for name, e in named if e is not None]  # not asked for (`annotate agreement --only`)
    notes += tuple(undefined_notes(named, n_boot))
    if table.krippendorff_alpha is None:
        notes = tuple(note for note in notes if note != ALPHA_NOTE)
    coefficients = Table(key, title, COEFFICIENT_COLUMNS, coefficient_rows(table), notes)
    kappas = pair_table(table, f"{key}_cohen", pairs_title or f"{title}: Cohen's kappa per rater pair", max_pairs,
                        n_pairs_sharing, n_boot=n_boot)
    if not named:  # the pairs alone: they say how their intervals were made
        kappas = replace(kappas, notes=(*kappas.notes, ci_note.format(n_boot=n_boot, seed=seed)))
    return tuple(t for t, wanted in ((coefficients, bool(named)), (kappas, "cohen" in table.asked)) if wanted)


def pair_table(
    table: AgreementTable, key: str, title: str, max_pairs: int | None = None, n_pairs_sharing: int | None = None,
    n_boot: int | None = None,
) -> Table:
    """Cohen's kappa of each rater pair of one `AgreementTable` (the ``max_pairs`` with most units).

    n_boot: the resamples behind the intervals; when given, a dash gets a note saying why (`undefined_notes`).
    """
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
        row: list[Any] = [str(pair.raters[0]), str(pair.raters[1]), estimate_cell(pair.estimate),
                          interval_cell(pair.estimate)]
        if weighted:
            wl, wq = pair.weighted_linear, pair.weighted_quadratic
            row += [estimate_cell(wl), interval_cell(wl), estimate_cell(wq), interval_cell(wq)]
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
    if n_boot is not None:  # rater ids are untrusted: the notes name the columns, the rows show the units
        named: list[tuple[str, Estimate | None]] = []
        for pair in shown:
            named.append(("kappa", pair.estimate))
            if weighted:
                named += [("linear", pair.weighted_linear), ("quadratic", pair.weighted_quadratic)]
        pair_notes += undefined_notes(named, n_boot, both=True)
    return Table(key, title, tuple(columns), tuple(rows), tuple(pair_notes))


def agreement_json(table: AgreementTable) -> dict[str, Any]:
    """The documented JSON object of `annotate agreement --json`.

    Keys ``krippendorff_alpha``, ``fleiss_kappa``, ``gwet_ac1``, ``percent_agreement`` (each
    ``{"estimate", "ci": [lo, hi], "n_units", "n_raters", "n_pairable"}``) and ``cohen_kappa`` (a list
    of ``{"raters": [a, b], "estimate", "ci", "weighted_linear", "weighted_linear_ci",
    "weighted_quadratic", "weighted_quadratic_ci", "n_units"}``); the level is what was asked for.
    Only the keys of the coefficients asked for (`annotate agreement --only`).
    """
    full = table.to_json()
    return {key: full[key] for key in ("krippendorff_alpha", "fleiss_kappa", "gwet_ac1", "percent_agreement",
                                       "cohen_kappa") if key in full}
