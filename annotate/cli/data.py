"""Getting data in and out: `import`, `labels import`, `export`."""

from __future__ import annotations

from pathlib import Path

import click

from annotate.cli.common import (
    data_output,
    domain_errors,
    echo,
    file_format_hint,
    force_option,
    rel,
    session_argument,
)
from annotate.cli.group import main
from annotate.safe_text import one_line


@main.command("import")
@session_argument
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--format", "fmt", default="auto", show_default=True,
              type=click.Choice(["auto", "native", "arena", "mtbench", "csv", "tsv", "json", "jsonl"]),
              help="auto: by extension (CSV/TSV through --map; JSON and JSON Lines as the native format"
                   " unless --map is given). arena: Chatbot Arena battles; mtbench: MT-Bench judgments"
                   " (both also import the votes).")
@click.option("--map", "field_map", multiple=True, metavar="TARGET=COL[,COL...]",
              help="Which source field fills which part of an item. Targets: id, prompt, A, B, model_A, model_B,"
                   " category, gold, meta.KEY. A comma joins several fields (with a blank line). Repeatable.")
@click.option("--training", is_flag=True,
              help="FILE holds training items (native format, each with gold and an explanation), answered"
                   " before the main queue; the spec needs a [training] table (docs/annotating.md).")
@click.option("--workers", type=click.IntRange(0, 1), default=None,
              help="--format arena, JSON Lines: 1 parses the file in a second process while this one stores it,"
                   " 0 all in this one. Default: 1 for a file of 16 MiB or more on a host of two cores or more.")
@domain_errors
def import_(session: str, file: Path, fmt: str, field_map: tuple[str, ...], training: bool,
            workers: int | None) -> None:
    """Import items into a session (and, for arena / mtbench, their votes as external labels).

    FILE is our native JSON Lines (one item per line: id, prompt or conversation, responses A and
    B with their models, category, gold, metadata; see docs/importing-exporting.md, 'The native format'),
    or a CSV / JSON / JSON Lines file of any shape whose fields you map with --map. Without
    --map id=COL, ids are derived from the prompt and responses. The import is all or nothing, and
    importing the same file again changes nothing. Responses that name a model or vendor are listed as a warning.

    \b
    Example:
      annotate import evals pairs.jsonl
      annotate import evals pairs.csv --map prompt=question --map A=answer_1 --map B=answer_2
      annotate import evals alpaca.json --map id=idx --map prompt=instruction,input \\
          --map A=response1 --map B=response2 --map model_A=model1 --map model_B=model2
      annotate import evals battles.json --format arena
    """
    from annotate.collector import fewer_collections
    from annotate.formats import import_items
    from annotate.session import load_session, open_store

    spec = load_session(session)
    if training:
        from annotate.training import import_training

        if fmt not in ("auto", "native", "json", "jsonl") or field_map:
            raise click.UsageError("--training reads the native format (JSON Lines or JSON): no --map or --format")
        with open_store(spec) as store:
            result = import_training(store, spec, file)
        _print_import(f"{result.added} training items added, {result.unchanged} unchanged from {one_line(file.name)}",
                      ())
        return
    file_format_hint(file, reading="items", fmt=fmt, mapped=bool(field_map), command=["import", session],
                     items_command=["import", session])
    _reuse_freed_memory()
    _one_blas_thread()
    with open_store(spec) as store, fewer_collections():
        report = import_items(store, spec.schema, file, format=fmt, field_map=field_map, workers=workers)
    _print_import(f"{report.summary()} from {one_line(file.name)}", report.warnings)


_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
"""glibc's `mallopt` parameters (malloc.h)."""


def _reuse_freed_memory() -> None:
    """Have glibc's malloc keep freed memory for the next allocation instead of giving it back to the
    system: an import makes and frees numpy arrays of a batch's texts (megabytes each) batch after
    batch, and with the defaults each new one is fresh pages the kernel zero-fills on first touch
    (74,000 page faults at 10k items, 24,000 so). The peak memory stays the same (what is kept is
    what the next batch takes again). Nothing changes where there is no glibc `mallopt`."""
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, TypeError):  # no C library by that name, or no mallopt in it
        return
    mallopt(_M_TRIM_THRESHOLD, 256 << 20)
    mallopt(_M_MMAP_THRESHOLD, 32 << 20)  # glibc's largest; above it mallopt refuses


def _one_blas_thread() -> None:
    """An import does no linear algebra: numpy's OpenBLAS need not start a thread per core when the
    import loads numpy (its start costs 40-60 ms of CPU on this 2-core host). Left as it is when the
    user has set it, or when numpy is loaded already."""
    import os
    import sys

    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _print_import(summary: str, warnings: tuple[str, ...]) -> None:
    """An import's summary line, then its warnings, one line each (on standard error)."""
    echo(summary)
    for warning in warnings:
        echo(f"warning: {one_line(warning)}", err=True)


@main.group()
def labels() -> None:
    """Ratings made elsewhere (experts' spreadsheets, crowd votes, LLM judges) as external labels.

    \b
    Example:
      annotate labels import evals ratings.csv --cohort expert
    """


@labels.command("import")
@session_argument
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--cohort", type=click.Choice(["expert", "crowd", "llm"]), default=None,
              help="Who made the ratings; every rater in the file joins this cohort. Required unless --as-suggestions.")
@click.option("--layout", type=click.Choice(["long", "wide"]), default="long", show_default=True,
              help="long: one row per vote (item, rater, label); wide: one row per item, one column per rater.")
@click.option("--raters", default=None, metavar="COL1,COL2,...",
              help="Wide layout: the rater columns (default: every column but the item column).")
@click.option("--map", "field_map", multiple=True, metavar="TARGET=COL",
              help="Column names when they differ: item=COL, rater=COL, label=COL (wide: item only). Repeatable.")
@click.option("--label-map", multiple=True, metavar="CODE=LABEL,...",
              help="Foreign codes to labels, e.g. 0=tie,1=A,2=B (pairwise: A, B, tie, both_bad; single: grades)."
                   " CODE=invalid: the rater gave no usable answer (stored and counted, never a vote).")
@click.option("--skip-unmapped", is_flag=True,
              help="Leave out (and count) labels that are neither the session's nor in --label-map, instead of"
                   " refusing the file.")
@click.option("--shown-first", type=click.Choice(["A", "B"], case_sensitive=False), default=None,
              help="Every rater saw this slot first (an LLM judge always given A first): the report then measures"
                   " their position bias.")
@click.option("--shown-first-column", default=None, metavar="COL",
              help="The column saying which slot this row's rater saw first: A or B (any case), or codes mapped with"
                   " --shown-first-map; an empty cell is unknown.")
@click.option("--shown-first-map", multiple=True, metavar="CODE=A|B,...",
              help="Codes of --shown-first-column to slots, e.g. false=A,true=B for a 'swapped' column.")
@click.option("--source", default=None, help="Name the votes are filed under. Default: the file name.")
@click.option("--format", "fmt", type=click.Choice(["csv", "tsv", "json", "jsonl"]), default=None,
              help="The file's format when its extension does not say.")
@click.option("--as-suggestions", is_flag=True,
              help="An LLM judge's precomputed labels: store them as suggestions to show annotators (the rater"
                   " is the model), not as votes. See docs/suggestions.md, 'Precomputed LLM labels'.")
@domain_errors
def labels_import(
    session: str, file: Path, cohort: str | None, layout: str, raters: str | None, field_map: tuple[str, ...],
    label_map: tuple[str, ...], source: str | None, fmt: str | None, as_suggestions: bool = False,
    skip_unmapped: bool = False, shown_first: str | None = None, shown_first_column: str | None = None,
    shown_first_map: tuple[str, ...] = (),
) -> None:
    """Import ratings made elsewhere into a session as external labels of a cohort.

    The items must already be in the session. Empty cells are missing votes. A label must be
    valid for the session after --label-map (pairwise: A, B, tie, both_bad; single: a grade), or
    mapped to invalid, or left out with --skip-unmapped; both are counted in the summary. With
    --shown-first or --shown-first-column the report measures the raters' position bias. All or
    nothing; importing the same file again changes nothing.

    \b
    Example:
      annotate labels import evals votes.csv --cohort crowd
      annotate labels import evals votes.csv --cohort expert --map item=pair_id --map rater=who \\
          --map label=choice --label-map 0=tie,1=A,2=B
      annotate labels import evals sheet.csv --cohort expert --layout wide --raters ann1,ann2,ann3
      annotate labels import evals judge.csv --cohort llm --label-map garbage=invalid --shown-first A
      annotate labels import evals judge.jsonl --cohort llm --skip-unmapped --shown-first-column order
    """
    from annotate.formats import import_labels
    from annotate.session import load_session, open_store

    spec = load_session(session)
    file_format_hint(file, reading="labels", fmt=fmt, mapped=bool(field_map), command=["labels", "import", session],
                     items_command=["import", session])
    rater_columns = [r.strip() for r in raters.split(",") if r.strip()] if raters else None
    if as_suggestions:
        from annotate.suggest.imported import import_suggestions

        if shown_first or shown_first_column or shown_first_map:
            raise click.UsageError("--shown-first options are for votes, not --as-suggestions")
        with open_store(spec) as store:
            imported = import_suggestions(
                store, spec.schema, file, layout=layout, raters=rater_columns, field_map=field_map,
                label_map=label_map, source=source, format=fmt, skip_unmapped=skip_unmapped,
            )
        _print_import(f"{imported.summary()} in {one_line(file.name)}", imported.warnings)
        return
    if cohort is None:
        raise click.UsageError("--cohort is required (expert, crowd or llm), unless --as-suggestions")
    with open_store(spec) as store:
        report = import_labels(
            store, spec.schema, file, cohort=cohort, layout=layout, raters=rater_columns, field_map=field_map,
            label_map=label_map, source=source, format=fmt, skip_unmapped=skip_unmapped,
            shown_first=shown_first, shown_first_column=shown_first_column, shown_first_map=shown_first_map,
        )
    _print_import(f"{report.summary()} from {one_line(file.name)}", report.warnings)


@main.command()
@session_argument
@click.option("--what", type=click.Choice(["items", "judgments", "labels", "suggestions", "preferences", "answers",
                                           "flags", "spans"]),
              default="judgments", show_default=True,
              help="items (with model names: for leads), judgments, imported labels, LLM suggestions (with their model"
                   " names: for leads), preferences (chosen/rejected pairs for DPO or a reward model), answers (every"
                   " question of the label schema, per judgment), flags (items annotators flagged, open and"
                   " cleared) or spans (every error span: offsets into the original text, the text, category,"
                   " severity, note; with model names: for leads).")
@click.option("--layout", type=click.Choice(["long", "wide"]), default="long", show_default=True,
              help="answers: one row per judgment and question (long) or per judgment with a column per question"
                   " (wide).")
@click.option("--aspect", default=None, metavar="NAME",
              help="preferences: the aspect whose preference makes the pairs (default: the primary one).")
@click.option("--format", "fmt", type=click.Choice(["csv", "jsonl", "parquet"]), default="csv", show_default=True,
              help="parquet needs pyarrow (in the annotate project folder: pip install -e '.[parquet]') and -o.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write to this file, whole or not at all (an existing one only with --force). Default:"
                   " standard output.")
@force_option
@click.option("--raw-csv", is_flag=True,
              help="CSV cells exactly as stored. By default a cell starting with =, +, -, @, tab or CR (not a plain"
                   " number) gets a leading ' so a spreadsheet does not run it as a formula.")
@click.option("--include-superseded", is_flag=True, help="Also judgments later replaced by a new answer.")
@click.option("--include-planted", is_flag=True, help="Also judgments made under planted (wrong) suggestions.")
@domain_errors
def export(
    session: str, what: str, layout: str, aspect: str | None, fmt: str, output: Path | None, force: bool,
    raw_csv: bool, include_superseded: bool, include_planted: bool,
) -> None:
    """Export a session's items, judgments, labels, suggestions, preference pairs or answers (CSV, JSON Lines, Parquet).

    Judgments: one row per current judgment, label in slot space (A/B) and label_side as seen on
    screen (left/right), with timings, confidence, guideline version, condition, and the suggestion
    linked to it (label, model, whether it was on screen). Items as JSON Lines are in the native
    import format. Preferences: prompt, chosen, rejected from the gold, adjudicated or majority
    label, with the agreement behind each pair. CSV is for spreadsheets: cells that would run as
    formulas get a leading ' (use --raw-csv to import a CSV back). Standard output redirected to a
    file gets exactly the bytes of -o FILE; on a terminal, control characters are shown as visible
    symbols. Never writes over a session's spec or database files. Columns:
    docs/importing-exporting.md, 'Export: annotate export'.

    \b
    Example:
      annotate export evals > judgments.csv
      annotate export evals --what items --format jsonl -o items.jsonl
      annotate export evals --what items --raw-csv -o items.csv --force
      annotate export evals --what labels --format parquet -o labels.parquet
      annotate export evals --what preferences --format jsonl -o pairs.jsonl
      annotate export evals --what answers --layout wide -o answers.csv
      annotate export evals --what spans --format jsonl -o spans.jsonl
    """
    from annotate.formats import export as write_export
    from annotate.outputs import check_output, session_files
    from annotate.session import load_session, open_store

    spec = load_session(session)
    protected = session_files(spec)
    if output is not None:
        check_output(output, protected, force=force)  # before the session file is even opened
    try:
        with open_store(spec) as store:
            if output is not None:
                count = write_export(
                    store, what, fmt, output=output, protected=protected, force=force, raw_csv=raw_csv,
                    include_superseded=include_superseded, include_planted=include_planted,
                    schema=spec.schema, layout=layout, aspect=aspect,
                )
            else:
                with data_output() as stream:
                    count = write_export(
                        store, what, fmt, stream=stream, raw_csv=raw_csv,
                        include_superseded=include_superseded, include_planted=include_planted,
                        schema=spec.schema, layout=layout, aspect=aspect,
                    )
    except BrokenPipeError:  # the reader stopped early (`| head`): not an error
        import os
        import sys

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return
    if output is not None:
        echo(f"wrote {count} {what} rows to {rel(output)}", err=True)
