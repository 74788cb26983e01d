"""Statistics and reports: `agreement` on any ratings file, `report` on a session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from annotate.cli.common import domain_errors, echo, force_option, rel, session_argument
from annotate.cli.group import main


@main.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--layout", type=click.Choice(["long", "wide"]), default="long", show_default=True,
              help="long: columns unit, rater, label (one row per rating). wide: one row per unit, its id in the "
                   "first column, one column per rater.")
@click.option("--raters-as-rows", is_flag=True,
              help="Wide files with one row per rater (names in the first column) and one column per unit, as in "
                   "Krippendorff's papers.")
@click.option("--level", type=click.Choice(["nominal", "ordinal", "interval", "ratio", "ranking"]), default="nominal",
              show_default=True, help="Level of measurement for alpha; ordinal and above also weight Cohen's kappa. "
                                      "ranking: each label ranks a unit's responses (b>a=c>d): Kendall's W and alpha "
                                      "on the ranks.")
@click.option("--order", default=None, metavar="L1,L2,...",
              help="Order of text labels at --level ordinal, lowest first (e.g. low,mid,high).")
@click.option("--bootstrap", "n_boot", type=click.IntRange(0, 100_000), default=1000, show_default=True,
              metavar="B", help="Bootstrap resamples of units for the 95 % intervals (0: no intervals).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap.")
@click.option("--map", "field_map", multiple=True, metavar="TARGET=COL",
              help="Long layout: which column holds the unit, rater or label when its name is not one the reader"
                   " knows: unit=COL, rater=COL, label=COL (as in labels import --map). Repeatable.")
@click.option("--only", default=None, metavar="C1,C2,...",
              help="Compute and show only these coefficients: alpha, fleiss, ac1, percent, cohen (comma-separated;"
                   " default: all). Not with --level ranking.")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object (keys in docs/reports.md, 'annotate agreement FILE').")
@domain_errors
def agreement(file: Path, layout: str, raters_as_rows: bool, level: str, order: str | None, n_boot: int,
              seed: int, field_map: tuple[str, ...], only: str | None, as_json: bool) -> None:
    """Agreement between raters in a ratings file (CSV, TSV, JSONL or JSON); no session needed.

    Shows Krippendorff's alpha (with its reliability reading), Fleiss' kappa, Gwet's AC1, percent
    agreement and Cohen's kappa for every pair of raters, each with a 95 % bootstrap interval over
    units and its n. Empty cells (or NA, ., *) are missing ratings. The long layout finds its
    columns by name (unit: unit, item, item_id, unit_id, id; rater: rater, annotator, coder,
    observer, judge, rater_id; label: label, rating, value, score, grade), or as --map says.

    \b
    Example:
      annotate agreement labels.csv                       # unit,rater,label rows
      annotate agreement votes.csv --map unit=pair --map rater=who --map label=choice
      annotate agreement sheet.csv --layout wide          # unit,alice,bob,carol
      annotate agreement kripp.csv --layout wide --raters-as-rows --level interval
      annotate agreement grades.csv --level ordinal --order low,mid,high --json
      annotate agreement rankings.csv --level ranking     # labels such as b>a=c>d
    """
    from annotate.analysis.ratings_io import agreement_from_file, parse_column_map
    from annotate.report.file_reports import file_agreement_report

    coefficients = _coefficients(only)
    if level == "ranking":
        if order is not None:
            raise click.UsageError("--order applies to --level nominal or ordinal, not ranking")
        if coefficients is not None:
            raise click.UsageError("--only applies to labels; --level ranking gives Kendall's W and alpha on the ranks")
        _ranking_agreement(file, layout, raters_as_rows, n_boot, seed, field_map, as_json)
        return
    labels = None if order is None else [o for o in order.split(",") if o.strip()]
    if labels is not None and level not in ("nominal", "ordinal"):
        raise click.UsageError(f"--order applies to --level nominal or ordinal, not {level}")
    columns = parse_column_map(field_map) if field_map else None
    result = agreement_from_file(file, layout, level, raters_as_rows, labels, n_boot=n_boot, seed=seed,
                                 columns=columns, coefficients=coefficients)
    if as_json:  # the text report shows the warnings itself; the JSON object has exactly its documented keys
        from annotate.safe_text import one_line

        for warning in result.warnings:
            echo(f"warning: {one_line(warning)}", err=True)
    report = file_agreement_report(file, result, n_boot, seed)
    _print_report(report, "json" if as_json else "text")


def _coefficients(only: str | None) -> list[str] | None:
    """`--only alpha,cohen` as a list of coefficient names (None: all), or a usage error naming the bad one."""
    if only is None:
        return None
    from annotate.analysis.agreement.table import COEFFICIENTS

    names = [name.strip().lower() for name in only.split(",") if name.strip()]
    for name in names:
        if name not in COEFFICIENTS:
            raise click.UsageError(f"--only {only}: unknown coefficient {name!r};"
                                   f" choose from {', '.join(COEFFICIENTS)}")
    if not names:
        raise click.UsageError(f"--only: name at least one of {', '.join(COEFFICIENTS)}")
    return names


def _ranking_agreement(file: Path, layout: str, raters_as_rows: bool, n_boot: int, seed: int,
                       field_map: tuple[str, ...], as_json: bool) -> None:
    from annotate.analysis.rankings_io import ranking_agreement_from_file
    from annotate.analysis.ratings_io import parse_column_map
    from annotate.report.file_reports import file_ranking_report

    columns = parse_column_map(field_map) if field_map else None
    result = ranking_agreement_from_file(file, layout, raters_as_rows, n_boot=n_boot, seed=seed, columns=columns)
    if as_json:
        from annotate.safe_text import one_line

        for warning in result.warnings:
            echo(f"warning: {one_line(warning)}", err=True)
    _print_report(file_ranking_report(file, result, n_boot, seed), "json" if as_json else "text")


def _print_report(report: Any, fmt: str) -> None:
    """Print a report: Rich tables on the terminal for text, the rendered string otherwise."""
    if fmt == "text":
        from annotate.report.render_text import render_to_console

        render_to_console(report)
        return
    from annotate.report.render import render

    echo(render(report, fmt), nl=False)

@main.command()
@session_argument
@click.option("--format", "fmt", type=click.Choice(["text", "md", "html", "json"]), default="text",
              show_default=True, help="text: tables on the terminal; md: Markdown; html: one self-contained file "
                                      "with charts; json: every figure under stable keys "
                                      "(docs/report-json.md, 'Report JSON keys').")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write to FILE instead of printing (text becomes plain text); an existing FILE only with --force.")
@force_option
@click.option("--bootstrap", "n_boot", type=click.IntRange(0, 100_000), default=1000, show_default=True,
              metavar="B", help="Bootstrap resamples for the 95 % intervals (0: no intervals).")
@click.option("--seed", type=int, default=None, help="Seed of the bootstrap. Default: the session's seed.")
@click.option("--include-planted", is_flag=True,
              help="Also count judgments made under planted (deliberately wrong) suggestions.")
@click.option("--majority", type=click.Choice(["plurality", "mean"]), default="plurality", show_default=True,
              help="How several votes on an item give one verdict: plurality (the most frequent of A, B, tie; items "
                   "where the top count is shared are dropped and counted) or mean (the sign of the mean score, A = "
                   "+1, B = -1, tie = 0).")
@click.option("--pool-llm", is_flag=True,
              help="Pool LLM judges with the human raters in the headline agreement and ranking (labelled so). "
                   "Default: humans only; judges are compared with them apart.")
@click.option("--mtbench-human", default="expert", show_default=True, metavar="COHORT[,COHORT]",
              help="The cohorts that are 'human' in the MT-Bench per-turn table (e.g. expert,author).")
@click.option("--alt-epsilon", type=click.FloatRange(0.0, 1.0, max_open=True), default=None, metavar="EPS",
              help="Epsilon of the alternative annotator test (LLM judges as annotators). Default: 0.2 for "
                   "expert annotators, 0.15 skilled, 0.1 crowd (the paper's rule of thumb; the smallest present).")
@click.option("--style-intervals", type=click.Choice(["auto", "bootstrap", "sandwich"]), default="auto",
              show_default=True,
              help="Intervals of the style-controlled ranking: bootstrap (B item resamples, both fits refitted on "
                   "each: cost B x items), sandwich (normal approximation with the item-clustered sandwich "
                   "variance, the bootstrap's large-sample limit: one pass), or auto (the bootstrap up to 20,000 "
                   "items, the sandwich above).")
@domain_errors
def report(session: str, fmt: str, output: Path | None, force: bool, n_boot: int, seed: int | None,
           include_planted: bool, majority: str, pool_llm: bool, mtbench_human: str,
           alt_epsilon: float | None, style_intervals: str) -> None:
    """A lead's report on a session: a summary, then agreement, LLM judges against humans, MT-Bench pairwise
    agreement, biases, quality, ranking and the style-controlled ranking, LLM judges as
    annotators (alternative annotator test) and annotator competence (Dawid-Skene, along the queue).

    The summary says whether agreement is reliable, which annotators are flagged and why, which biases
    are significant, whether the ranking is stable and what was dropped. The headline figures are the
    human cohorts'; LLM judges are compared with each human cohort and with the human majority in
    their own section (--pool-llm pools them). Every figure carries its n and, where one exists, a
    95 % interval that resamples items (each with all its votes).

    \b
    Example:
      annotate report chat-evals
      annotate report chat-evals --format html -o report.html
      annotate report chat-evals --format json --bootstrap 2000 > report.json
      annotate report mtbench --majority mean --mtbench-human expert,author
    """
    from annotate.allocator import keep_large_blocks
    from annotate.outputs import atomic_output, check_output, session_files
    from annotate.report.build import build_report
    from annotate.session import load_session, open_store

    keep_large_blocks()  # the report's many large arrays reuse memory instead of faulting fresh pages in
    spec = load_session(session)
    protected = session_files(spec)
    if output is not None:
        check_output(output, protected, force=force)  # before the bootstrap runs, not after
    with open_store(spec) as store:
        built = build_report(spec, store, n_boot=n_boot, seed=seed, include_planted=include_planted,
                             majority=majority, pool_llm=pool_llm, mtbench_human=_cohorts(mtbench_human),
                             alt_epsilon=alt_epsilon, style_intervals=style_intervals)
    if output is None:
        _print_report(built, fmt)
        return
    from annotate.report.render import render

    text = render(built, fmt)
    with atomic_output(output, protected, force=force) as tmp:
        tmp.write_text(text, encoding="utf-8", newline="")
    echo(f"wrote {rel(output)} ({fmt})", err=True)


def _cohorts(text: str) -> tuple[str, ...]:
    """``expert,author`` -> a tuple of known cohort names; an unknown one is a usage error."""
    from annotate.model import HUMAN_COHORTS

    names = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    unknown = [n for n in names if n not in HUMAN_COHORTS]
    if not names or unknown:
        raise click.BadParameter(f"expected human cohorts among {', '.join(HUMAN_COHORTS)}, got {text!r}",
                                 param_hint="--mtbench-human")
    return names
