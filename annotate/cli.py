"""The `annotate` command line: each command parses its options, calls the core, prints.

Domain errors (a bad spec, a bad input file, a refused write) become click errors with the
message the core wrote, which names the file, line or field.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from annotate import __version__
from annotate.text import plural

F = TypeVar("F", bound=Callable[..., Any])


def domain_errors(func: F) -> F:
    """Turn the core's ValueError / StoreError / OSError into a clean one-line error."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from annotate.store import StoreError

        try:
            return func(*args, **kwargs)
        except (ValueError, StoreError, KeyError) as exc:
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
            raise click.ClickException(str(message)) from None
        except OSError as exc:
            raise click.ClickException(f"{exc.filename or ''}: {exc.strerror or exc}") from None

    return wrapper  # type: ignore[return-value]


session_argument = click.argument("session", metavar="SESSION")


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="annotate")
def main() -> None:
    """Expert annotation of LLM outputs, and how far the judgments can be trusted.

    A session is a spec `sessions/NAME.toml` plus one SQLite file. SESSION arguments take the
    name (looked up in ./sessions/) or a path to the .toml.

    \b
    Quick start:
      annotate demo                       # try the annotation screen on demo data
      annotate init evals --kind pairwise # a new session in ./sessions/
      annotate import evals pairs.jsonl   # load items
      annotate start evals --annotator alice
    """


@main.command()
@click.argument("name")
@click.option("--kind", type=click.Choice(["pairwise", "single", "rubric"]), required=True,
              help="pairwise: A / B / tie / both_bad; single: a 1..N grade; rubric: criteria.")
@click.option("--guideline", default=None, metavar="ID",
              help="Guideline id (a file guidelines/ID.md). Default: the kind's shipped one.")
@click.option("--seed", type=int, default=None,
              help="Seed for every random choice. Default: derived from the name.")
@domain_errors
def init(name: str, kind: str, guideline: str | None, seed: int | None) -> None:
    """Create a session: sessions/NAME.toml and sessions/NAME.db.

    \b
    Example:
      annotate init chat-evals --kind pairwise
      annotate init essays --kind single --guideline single-grade
    """
    import zlib

    from annotate.guidelines import load_guideline
    from annotate.session import create_session
    from annotate.spec import DEFAULT_GUIDELINE

    guideline = guideline or DEFAULT_GUIDELINE[kind]
    load_guideline(guideline, Path.cwd())  # found and readable (front matter), or an error naming the file
    seed = seed if seed is not None else zlib.crc32(name.encode("utf-8"))
    spec = create_session(name, kind, guideline, seed)
    click.echo(f"created {_rel(spec.path)} and {_rel(spec.db)} ({kind}, guideline {guideline})")
    click.echo(f"next: annotate import {name} FILE")


@main.command()
@session_argument
@domain_errors
def status(session: str) -> None:
    """Show a session: its spec, items, annotators and their progress.

    \b
    Example:
      annotate status chat-evals
    """
    from annotate.session import load_session, open_store
    from annotate.status import session_status

    spec = load_session(session)
    with open_store(spec) as store:
        click.echo(session_status(spec, store))


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
@domain_errors
def import_(session: str, file: Path, fmt: str, field_map: tuple[str, ...]) -> None:
    """Import items into a session (and, for arena / mtbench, their votes as external labels).

    FILE is our native JSON Lines (one item per line: id, prompt or conversation, responses A and
    B with their models, category, gold, metadata; see README, 'Getting data in and out'), or a CSV / JSON / JSON
    Lines file of any shape whose fields you map with --map. Without --map id=COL, ids are derived
    from the prompt and responses. The import is all or nothing, and importing the same file again
    changes nothing. Responses that name a model or vendor are listed as a warning.

    \b
    Example:
      annotate import evals pairs.jsonl
      annotate import evals pairs.csv --map prompt=question --map A=answer_1 --map B=answer_2
      annotate import evals alpaca.json --map id=idx --map prompt=instruction,input \\
          --map A=response1 --map B=response2 --map model_A=model1 --map model_B=model2
      annotate import evals battles.json --format arena
    """
    from annotate.formats import import_items
    from annotate.session import load_session, open_store

    spec = load_session(session)
    with open_store(spec) as store:
        report = import_items(store, spec.schema, file, format=fmt, field_map=field_map)
    click.echo(f"{report.summary()} from {file.name}")
    for warning in report.warnings:
        click.echo(f"warning: {warning}", err=True)


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
              help="Foreign codes to labels, e.g. 0=tie,1=A,2=B (pairwise: A, B, tie, both_bad; single: grades).")
@click.option("--source", default=None, help="Name the votes are filed under. Default: the file name.")
@click.option("--format", "fmt", type=click.Choice(["csv", "tsv", "json", "jsonl"]), default=None,
              help="The file's format when its extension does not say.")
@click.option("--as-suggestions", is_flag=True,
              help="An LLM judge's precomputed labels: store them as suggestions to show annotators (the rater"
                   " is the model), not as votes. See README, 'Precomputed LLM labels'.")
@domain_errors
def labels_import(
    session: str, file: Path, cohort: str | None, layout: str, raters: str | None, field_map: tuple[str, ...],
    label_map: tuple[str, ...], source: str | None, fmt: str | None, as_suggestions: bool = False,
) -> None:
    """Import ratings made elsewhere into a session as external labels of a cohort.

    The items must already be in the session. Empty cells are missing votes. A label must be
    valid for the session after --label-map (pairwise: A, B, tie, both_bad; single: a grade).
    All or nothing; importing the same file again changes nothing.

    \b
    Example:
      annotate labels import evals votes.csv --cohort crowd
      annotate labels import evals votes.csv --cohort expert --map item=pair_id --map rater=who \\
          --map label=choice --label-map 0=tie,1=A,2=B
      annotate labels import evals sheet.csv --cohort expert --layout wide --raters ann1,ann2,ann3
    """
    from annotate.formats import import_labels
    from annotate.session import load_session, open_store

    spec = load_session(session)
    rater_columns = [r.strip() for r in raters.split(",") if r.strip()] if raters else None
    if as_suggestions:
        from annotate.suggest.imported import import_suggestions

        with open_store(spec) as store:
            imported = import_suggestions(
                store, spec.schema, file, layout=layout, raters=rater_columns, field_map=field_map,
                label_map=label_map, source=source, format=fmt,
            )
        click.echo(f"{imported.summary()} in {file.name}")
        for warning in imported.warnings:
            click.echo(f"warning: {warning}", err=True)
        return
    if cohort is None:
        raise click.UsageError("--cohort is required (expert, crowd or llm), unless --as-suggestions")
    with open_store(spec) as store:
        report = import_labels(
            store, spec.schema, file, cohort=cohort, layout=layout, raters=rater_columns, field_map=field_map,
            label_map=label_map, source=source, format=fmt,
        )
    click.echo(f"{report.summary()} from {file.name}")
    for warning in report.warnings:
        click.echo(f"warning: {warning}", err=True)


@main.command()
@session_argument
@click.option("--what", type=click.Choice(["items", "judgments", "labels", "suggestions"]), default="judgments",
              show_default=True, help="items (with model names: for leads), judgments, imported labels, or LLM"
                                      " suggestions (with their model names: for leads).")
@click.option("--format", "fmt", type=click.Choice(["csv", "jsonl", "parquet"]), default="csv", show_default=True,
              help="parquet needs pyarrow (pip install 'annotate[parquet]') and -o.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write to this file (replaced whole). Default: standard output.")
@click.option("--include-superseded", is_flag=True, help="Also judgments later replaced by a new answer.")
@click.option("--include-planted", is_flag=True, help="Also judgments made under planted (wrong) suggestions.")
@domain_errors
def export(
    session: str, what: str, fmt: str, output: Path | None, include_superseded: bool, include_planted: bool,
) -> None:
    """Export a session's items, judgments, imported labels or suggestions as CSV, JSON Lines or Parquet.

    Judgments: one row per current judgment, label in slot space (A/B) and label_side as seen on
    screen (left/right), with timings, confidence, guideline version, condition, and the suggestion
    linked to it (label, model, whether it was on screen). Items as JSON Lines are in the native
    import format. Columns: README, 'Export: annotate export'.

    \b
    Example:
      annotate export evals > judgments.csv
      annotate export evals --what items --format jsonl -o items.jsonl
      annotate export evals --what labels --format parquet -o labels.parquet
    """
    import sys

    from annotate.formats import export as write_export
    from annotate.session import load_session, open_store

    spec = load_session(session)
    try:
        with open_store(spec) as store:
            count = write_export(
                store, what, fmt, output=output, stream=sys.stdout,
                include_superseded=include_superseded, include_planted=include_planted,
            )
    except BrokenPipeError:  # the reader stopped early (`| head`): not an error
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return
    if output is not None:
        click.echo(f"wrote {count} {what} rows to {output}", err=True)


@main.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--layout", type=click.Choice(["long", "wide"]), default="long", show_default=True,
              help="long: columns unit, rater, label (one row per rating). wide: one row per unit, its id in the "
                   "first column, one column per rater.")
@click.option("--raters-as-rows", is_flag=True,
              help="Wide files with one row per rater (names in the first column) and one column per unit, as in "
                   "Krippendorff's papers.")
@click.option("--level", type=click.Choice(["nominal", "ordinal", "interval", "ratio"]), default="nominal",
              show_default=True, help="Level of measurement for alpha; ordinal and above also weight Cohen's kappa.")
@click.option("--order", default=None, metavar="L1,L2,...",
              help="Order of text labels at --level ordinal, lowest first (e.g. low,mid,high).")
@click.option("--bootstrap", "n_boot", type=click.IntRange(0, 100_000), default=1000, show_default=True,
              metavar="B", help="Bootstrap resamples of units for the 95 % intervals (0: no intervals).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap.")
@click.option("--map", "field_map", multiple=True, metavar="TARGET=COL",
              help="Long layout: which column holds the unit, rater or label when its name is not one the reader"
                   " knows: unit=COL, rater=COL, label=COL (as in labels import --map). Repeatable.")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object (keys in README, 'annotate agreement FILE').")
@domain_errors
def agreement(file: Path, layout: str, raters_as_rows: bool, level: str, order: str | None, n_boot: int,
              seed: int, field_map: tuple[str, ...], as_json: bool) -> None:
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
    """
    from annotate.analysis.ratings_io import agreement_from_file, parse_column_map
    from annotate.report.build import file_agreement_report

    labels = None if order is None else [o for o in order.split(",") if o.strip()]
    if labels is not None and level not in ("nominal", "ordinal"):
        raise click.UsageError(f"--order applies to --level nominal or ordinal, not {level}")
    columns = parse_column_map(field_map) if field_map else None
    result = agreement_from_file(file, layout, level, raters_as_rows, labels, n_boot=n_boot, seed=seed,
                                 columns=columns)
    if as_json:  # the text report shows the warnings itself; the JSON object has exactly its documented keys
        for warning in result.warnings:
            click.echo(f"warning: {warning}", err=True)
    report = file_agreement_report(file, result, n_boot, seed)
    _print_report(report, "json" if as_json else "text")


def _print_report(report: Any, fmt: str) -> None:
    """Print a report: Rich tables on the terminal for text, the rendered string otherwise."""
    if fmt == "text":
        from annotate.report.render_text import render_to_console

        render_to_console(report)
        return
    from annotate.report.render import render

    click.echo(render(report, fmt), nl=False)


@main.command()
@session_argument
@click.option("--endpoint", metavar="URL", help="An OpenAI-compatible server: its base URL (http://127.0.0.1:8000/v1)"
              " or the full .../chat/completions URL. vLLM, llama.cpp's server, Ollama, hosted APIs.")
@click.option("--model", metavar="NAME", help="The served model's name (the request's `model` field); also names"
              " the suggestions.")
@click.option("--api-key-env", metavar="VAR", default=None,
              help="Environment variable holding the API key (sent as a Bearer token, never stored or printed)."
                   " Omit for local servers that need none.")
@click.option("--concurrency", type=click.IntRange(1, 256), default=4, show_default=True,
              help="Requests in flight at once.")
@click.option("--prompt", "prompt_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Your own judge prompt (start from --print-prompt). Default: the shipped one.")
@click.option("--timeout", type=click.FloatRange(0.1, 3600), default=120.0, show_default=True,
              help="Seconds to wait for one reply before retrying.")
@click.option("--max-retries", type=click.IntRange(0, 20), default=5, show_default=True,
              help="Retries per request after timeouts, connection errors, 5xx and 429 (with backoff).")
@click.option("--limit", type=click.IntRange(1), default=None, help="Ask about at most this many items now.")
@click.option("--print-prompt", is_flag=True, help="Print the judge prompt this session would use, and stop.")
@domain_errors
def suggest(
    session: str, endpoint: str | None, model: str | None, api_key_env: str | None, concurrency: int,
    prompt_file: Path | None, timeout: float, max_retries: int, limit: int | None, print_prompt: bool,
) -> None:
    """Ask an LLM judge for a verdict on each item, to show annotators as suggestions.

    Each pairwise item is asked twice, with the answers in both orders; the verdicts are mapped
    back to slots and both are stored (position consistency). Replies are kept verbatim; a reply
    without a readable verdict is recorded as a failure, never as a label. Items that already
    have a suggestion from this model and prompt are skipped, so running the command again
    resumes. Suggestions are only shown under an experiment (spec section [experiment]; README,
    'LLM suggestions and anchoring experiments').

    \b
    Example:
      annotate suggest evals --endpoint http://127.0.0.1:8000/v1 --model qwen2.5-0.5b-instruct
      OPENAI_API_KEY=... annotate suggest evals --endpoint https://api.openai.com/v1 \\
          --model gpt-4o-mini --api-key-env OPENAI_API_KEY --concurrency 8
      annotate suggest evals --print-prompt > my-judge.txt   # edit, then --prompt my-judge.txt
    """
    from annotate.safe_text import sanitize
    from annotate.session import load_session, open_store
    from annotate.suggest.client import ClientConfig, SuggestError
    from annotate.suggest.prompts import load_prompt
    from annotate.suggest.run import suggest_session

    spec = load_session(session)
    if print_prompt:
        path = prompt_file
        if path is None:
            from annotate.suggest.prompts import shipped_prompt_text

            click.echo(shipped_prompt_text(spec.kind), nl=False)
            return
        click.echo(path.read_text(encoding="utf-8"), nl=False)
        return
    if not endpoint or not model:
        raise click.UsageError("--endpoint and --model are required (or --print-prompt)")
    prompt = load_prompt(spec.kind, prompt_file, spec.schema.scale)
    config = ClientConfig(endpoint=endpoint, model=model, api_key_env=api_key_env, timeout=timeout,
                          max_retries=max_retries)
    import sys

    bar: Any = None
    err = sys.stderr

    def on_start(n: int) -> None:
        nonlocal bar
        bar = click.progressbar(length=n, label=f"asking about {plural(n, 'item')}", file=err, show_pos=True)
        bar.__enter__()

    try:
        with open_store(spec) as store:
            summary = suggest_session(
                store, prompt, config, scale=spec.schema.scale, concurrency=concurrency, limit=limit,
                on_start=on_start, progress=lambda _outcome: bar.update(1),
            )
    except SuggestError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    asked = summary.stored + summary.failed
    unanswered = f", {summary.request_failed} without a reply" + (
        " (server unreachable or HTTP error)" if summary.request_failed else ""
    )
    click.echo(
        f"asked about {plural(asked, 'item')}: {plural(summary.stored, 'suggestion')},"
        f" {summary.no_verdict} without a verdict{unanswered}; {summary.skipped} already done (of {summary.total})"
    )
    if spec.kind == "pairwise" and summary.stored:
        both = summary.consistent + summary.inconsistent
        click.echo(f"position consistency: {summary.consistent} of {plural(both, 'item')} got the same verdict"
                   " in both orders")
    click.echo(f"prompt {summary.prompt_hash[:12]} ({prompt.source})")
    for line in summary.request_errors:
        click.echo(f"  no reply: {sanitize(line)[:200]}", err=True)
    for line in summary.errors:
        click.echo(f"  no verdict: {sanitize(line)[:200]}", err=True)
    if summary.aborted:
        raise click.ClickException(summary.aborted)


@main.command()
@session_argument
@click.option("--format", "fmt", type=click.Choice(["text", "md", "html", "json"]), default="text",
              show_default=True, help="text: tables on the terminal; md: Markdown; html: one self-contained file "
                                      "with charts; json: every figure under stable keys (README, 'Agreement and "
                                      "reports').")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True, path_type=Path), default=None,
              help="Write to FILE instead of printing (text becomes plain text).")
@click.option("--bootstrap", "n_boot", type=click.IntRange(0, 100_000), default=1000, show_default=True,
              metavar="B", help="Bootstrap resamples for the 95 % intervals (0: no intervals).")
@click.option("--seed", type=int, default=None, help="Seed of the bootstrap. Default: the session's seed.")
@click.option("--include-planted", is_flag=True,
              help="Also count judgments made under planted (deliberately wrong) suggestions.")
@domain_errors
def report(session: str, fmt: str, output: Path | None, n_boot: int, seed: int | None,
           include_planted: bool) -> None:
    """A lead's report on a session: agreement, MT-Bench pairwise agreement, biases, quality, ranking.

    Agreement per cohort, per annotator against the rest, per category (and per rubric criterion);
    crowd-expert, human-LLM and majority agreement; position and length bias; gold accuracy, repeat
    consistency and time per item; a Bradley-Terry ranking of the models per cohort. Every figure
    carries its n and, where one exists, a 95 % interval.

    \b
    Example:
      annotate report chat-evals
      annotate report chat-evals --format html -o report.html
      annotate report chat-evals --format json --bootstrap 2000 > report.json
    """
    from annotate.report.build import build_report
    from annotate.session import load_session, open_store

    spec = load_session(session)
    with open_store(spec) as store:
        built = build_report(spec, store, n_boot=n_boot, seed=seed, include_planted=include_planted)
    if output is None:
        _print_report(built, fmt)
        return
    from annotate.report.render import render

    output.write_text(render(built, fmt), encoding="utf-8")
    click.echo(f"wrote {_rel(output)} ({fmt})", err=True)


@main.command()
@session_argument
@click.option("--dry-run", is_flag=True, help="Show what the design would be; write nothing.")
@domain_errors
def experiment(session: str, dry_run: bool) -> None:
    """Set up the suggestion experiment of the spec's [experiment] section over the planned queues.

    Gives each assignment its display mode (none, upfront, after, on_request: between annotators
    or within each queue, balanced over items and queue position), links it to its item's
    suggestion, plants wrong suggestions on a share of gold items, and stores the design's hash.
    Seeded by the session seed. Assignments already shown keep theirs, so it is safe to run
    again after `annotate plan` adds work or `annotate suggest` adds suggestions.
    Rules: README, 'The experiment in the spec'.

    \b
    Example (spec):
      [experiment]
      modes = ["none", "upfront"]   # none | upfront | after | on_request
      assign = "between"            # or "within"
      planted_rate = 0.2            # share of gold items given a wrong suggestion
    \b
      annotate suggest evals --endpoint http://127.0.0.1:8000/v1 --model judge
      annotate plan evals ...
      annotate experiment evals
    """
    from annotate.experiment import apply_experiment, experiment_summary
    from annotate.session import load_session, open_store

    spec = load_session(session)
    with open_store(spec) as store:
        applied = apply_experiment(store, spec, dry_run=dry_run)
    for line in experiment_summary(applied, spec):
        click.echo(line, err=line.startswith("note:"))


@main.command()
@session_argument
@click.option("--annotator", required=True, help="Whose debrief to show.")
@domain_errors
def debrief(session: str, annotator: str) -> None:
    """Show an annotator the debrief of a suggestion experiment: that some suggestions were planted
    wrong on purpose, and how often they went along with wrong ones. Model names are never shown.

    \b
    Example:
      annotate debrief evals --annotator alice
    """
    from annotate.safe_text import sanitize
    from annotate.session import load_session, open_store
    from annotate.store.suggestion_frames import anchoring_frame
    from annotate.suggest.debrief import debrief as make_debrief

    spec = load_session(session)
    with open_store(spec) as store:
        if store.annotator(annotator) is None:
            raise click.ClickException(f"no annotator {sanitize(annotator)!r} in this session")
        frame = anchoring_frame(store)
    click.echo(sanitize(make_debrief(frame, annotator).text()))


_rate_type = click.FloatRange(0.0, 1.0, max_open=True)
"""A share of a queue: from 0 to below 1 (plan --gold-rate, --attention-rate, --repeat-rate)."""


@main.command()
@session_argument
@click.option("--annotators", default=None, metavar="NAME,NAME,...",
              help="Who annotates. Default: the spec's [plan] annotators.")
@click.option("--overlap", type=click.IntRange(1), default=None, metavar="K",
              help="Annotators per item (2 or more for agreement). Default: the spec's.")
@click.option("--gold-rate", type=_rate_type, default=None, metavar="R",
              help="Share of each queue given to gold items (items with a known answer). Default: the spec's.")
@click.option("--attention-rate", type=_rate_type, default=None, metavar="R",
              help="Share given to attention checks (metadata {\"attention\": true}). Default: the spec's.")
@click.option("--repeat-rate", type=_rate_type, default=None, metavar="R",
              help="Share given to repeats (an item seen before, sides swapped). Default: the spec's.")
@click.option("--seed", type=int, default=None, help="Seed of the plan. Default: the last plan's, else the session's.")
@click.option("--dry-run", is_flag=True, help="Show the plan; write nothing.")
@click.option("--no-spec", is_flag=True, help="Leave the spec file as it is (the plan is stored in the session file).")
@click.option("--verify", is_flag=True,
              help="Check the stored plan hash against the stored inputs and assignments; change nothing.")
@domain_errors
def plan(session: str, annotators: str | None, overlap: int | None, gold_rate: float | None,
         attention_rate: float | None, repeat_rate: float | None, seed: int | None, dry_run: bool,
         no_spec: bool, verify: bool) -> None:
    """Decide who sees which item, in which order, on which side; store it with its hash.

    Every item goes to K annotators with balanced loads; sides are counterbalanced per item and
    per annotator; gold items, attention checks and repeats are mixed in at the given rates. The
    same inputs always give the same plan. Running it again after adding items or annotators
    extends the plan: nothing already assigned moves. The [plan] table of the spec is updated to
    the options used (unless --no-spec). Rules: README, 'Planning: annotate plan'.

    \b
    Example:
      annotate plan evals --annotators alice,bob,carol --overlap 2 --gold-rate 0.1
      annotate plan evals                   # again after importing more items: extends the plan
      annotate plan evals --verify
    """
    from annotate.plan import (
        apply_plan,
        plan_summary,
        plan_table_values,
        resolve_plan_options,
        verify_plan,
        write_plan_to_spec,
    )
    from annotate.session import load_session, open_store

    spec = load_session(session)
    with open_store(spec) as store:
        if verify:
            verified = verify_plan(store)
            if verified is None:
                raise click.ClickException("the session has no plan yet")
            if not verified:
                raise click.ClickException(
                    f"plan {store.get_meta('plan_hash')} does NOT match the assignments in {_rel(spec.db)}"
                )
            click.echo(f"plan {store.get_meta('plan_hash')} verified: it matches its inputs and assignments")
            return
        names = None if annotators is None else [n.strip() for n in annotators.split(",") if n.strip()]
        names, k, rates, chosen_seed = resolve_plan_options(
            store, spec, names, overlap, gold_rate, attention_rate, repeat_rate, seed
        )
        applied = apply_plan(store, spec, names, k, rates, chosen_seed, dry_run=dry_run)
        designed = None
        if not dry_run and spec.experiment.modes != ("none",):  # the spec's [experiment], over the new plan
            from annotate.experiment import apply_experiment

            designed = apply_experiment(store, spec)
    for line in plan_summary(applied):
        click.echo(line, err=line.startswith("note:"))
    if designed is not None:
        from annotate.experiment import experiment_summary

        for line in experiment_summary(designed, spec):
            click.echo(line, err=line.startswith("note:"))
    if not dry_run and not no_spec and write_plan_to_spec(spec.path, plan_table_values(names, k, rates)):
        click.echo(f"spec: [plan] in {_rel(spec.path)} now says what was planned")


@main.command()
@session_argument
@click.argument("others", nargs=-1, required=True, metavar="OTHER.db...",
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--strict", is_flag=True, help="Merge nothing from a file that has any conflict left.")
@click.option("--prefer", type=click.Choice(["copy", "here"]), default=None,
              help="Settle assignments judged differently in both files: copy: the copy's answer becomes current;"
                   " here: this file's stays current. Both answers are kept either way.")
@click.pass_context
@domain_errors
def merge(ctx: click.Context, session: str, others: tuple[Path, ...], strict: bool, prefer: str | None) -> None:
    """Bring back judgments and events from copies of the session file (offline annotators).

    Assignments are matched by annotator, item and queue position; judgments and events by their
    unique ids, so merging the same file twice changes nothing. A conflict (one assignment judged
    differently in both files) is listed and that assignment is left alone; the rest is merged
    (with --strict, nothing from that file). Settle conflicts by merging again with --prefer copy
    or --prefer here: the copy's judgment comes in either way, and the one not preferred is kept
    as history, never deleted. The copy is only read. Exit status 1 on conflicts left.

    \b
    Example:
      cp sessions/evals.db /media/usb/evals-dave.db     # hand this to dave
      annotate merge evals /media/usb/evals-dave.db     # when dave is back
      annotate merge evals /media/usb/evals-dave.db --prefer copy   # take dave's answers
    """
    from annotate.safe_text import sanitize
    from annotate.session import load_session, open_store
    from annotate.store.merge import MergeConflictError, merge_session

    spec = load_session(session)
    left: list[Any] = []
    with open_store(spec) as store:
        for other in others:
            try:
                report = merge_session(store, other, strict=strict, prefer=prefer)
            except MergeConflictError as exc:
                report = exc.report
            verb = "merged" if report.written else "NOT merged (strict)"
            added = ", ".join(plural(n, noun) for n, noun in (
                (report.judgments, "judgment"), (report.events, "event"), (report.assignments, "assignment"),
                (report.items, "item"), (report.annotators, "annotator"),
            ))
            click.echo(
                f"{verb} {_rel(other)} (sha256 {report.sha256[:12]}): {added} added;"
                f" {plural(report.already, 'judgment')} already here"
                + (f"; {report.duplicates} judged the same in both (kept as history)" if report.duplicates else "")
                + (f"; {plural(len(report.settled), 'conflict')} settled (--prefer {prefer})" if report.settled else "")
            )
            for c in report.conflicts:
                click.echo(
                    f"  conflict: {sanitize(c.annotator)}, item {sanitize(c.item_id)}, position {c.position}:"
                    f" here {sanitize(c.ours)}, in the copy {sanitize(c.theirs)} ({c.reason})", err=True,
                )
            for t in report.settled:
                current, history = ("the copy's", "here") if t.kept == "copy" else ("here", "the copy's")
                answers = {"the copy's": sanitize(t.theirs), "here": sanitize(t.ours)}
                click.echo(
                    f"  settled: {sanitize(t.annotator)}, item {sanitize(t.item_id)}, position {t.position}:"
                    f" {current} {answers[current]} is current; {history} {answers[history]} is kept as history"
                )
            left += report.conflicts
    if left:
        click.echo(_conflicts_advice(left), err=True)
        ctx.exit(1)


def _conflicts_advice(conflicts: list[Any]) -> str:
    """The closing line of `annotate merge` when conflicts are left: what happened, how to settle."""
    n = len(conflicts)
    answers = sum(1 for c in conflicts if c.settleable)
    places = n - answers
    left = "that assignment was left as it is" if n == 1 else "those assignments were left as they are"
    text = f"{plural(n, 'conflict')}: {left} here."
    if answers:
        which = "it" if n == 1 else "the ones judged differently"
        text += (
            f" To settle {which}, merge the file again with --prefer copy (the copy's answer becomes current)"
            " or --prefer here (this file's stays current); both answers are kept either way."
        )
    if places:
        text += (
            f" {plural(places, 'conflict')} of place (the files differ on the queue, the sides or the cohort)"
            " cannot be settled by --prefer."
        )
    return text


@main.command()
@session_argument
@click.option("--annotator", required=True, envvar="ANNOTATE_ANNOTATOR", metavar="NAME",
              help="The adjudicator (also from $ANNOTATE_ANNOTATOR).")
@click.option("--list", "list_only", is_flag=True,
              help="Print the items in disagreement and every answer on them; open no screen.")
@domain_errors
def adjudicate(session: str, annotator: str, list_only: bool) -> None:
    """Settle the items where annotators disagree; the adjudicated label becomes their gold.

    Opens the annotation screen on every item whose annotators gave different labels (and that
    NAME did not judge), with their answers and rationales shown to NAME as Left/Right in NAME's
    own side mapping. NAME's answer is stored as an `adjudication` judgment; reports and exports
    use it as the item's gold. Run it again later for items that came into disagreement since.

    \b
    Example:
      annotate adjudicate evals --annotator carol
      annotate adjudicate evals --annotator carol --list
    """
    from annotate.session import load_session

    spec = load_session(session)
    name = _annotator_name(annotator)
    if list_only:
        from annotate.adjudication import adjudicated_labels, disagreements
        from annotate.safe_text import sanitize
        from annotate.session import open_store

        with open_store(spec) as store:
            found = disagreements(store)
            settled = adjudicated_labels(store)
        for d in found:
            votes = ", ".join(f"{sanitize(v.annotator)} {sanitize(v.label)}" for v in d.votes)
            done = f"  -> adjudicated {sanitize(settled[d.item_id])}" if d.item_id in settled else ""
            click.echo(f"{sanitize(d.item_id)}: {votes}{done}")
        adjudicated = sum(d.item_id in settled for d in found)
        click.echo(f"{plural(len(found), 'item')} in disagreement, {adjudicated} adjudicated")
        return
    from annotate.tui.screens.adjudicate import run_adjudication

    summary = run_adjudication(spec, name)
    click.echo(summary.line(_command("adjudicate", session, "--annotator", name)))


def _rel(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


# -- the annotation app (annotate/tui) ----------------------------------------------------------


def _command(*args: str) -> str:
    """`annotate ARGS...` as one would type it again (quoted for a POSIX shell)."""
    import shlex

    return shlex.join(["annotate", *args])


def _annotator_name(name: str) -> str:
    import re

    if not re.match(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$", name):
        raise click.BadParameter(
            f"{name!r}: letters, digits, '.', '_', '@' or '-' (at most 64), starting with a letter or digit",
            param_hint="--annotator",
        )
    return name


@main.command()
@session_argument
@click.option("--annotator", required=True, envvar="ANNOTATE_ANNOTATOR", metavar="NAME",
              help="Who is annotating (also from $ANNOTATE_ANNOTATOR). Each name has its own queue.")
@domain_errors
def start(session: str, annotator: str) -> None:
    """Open the annotation screen on ANNOTATOR's queue in SESSION.

    Starting again resumes at the first item without an answer. Press ? in the app for every key.

    \b
    Example:
      annotate start chat-evals --annotator alice
    """
    from annotate.session import load_session
    from annotate.tui import run_app

    name = _annotator_name(annotator)
    summary = run_app(load_session(session), name)
    click.echo(summary.line(_command("start", session, "--annotator", name)))


@main.command()
@click.option("--annotator", default=None, metavar="NAME",
              help="Who is annotating. Default: your login name, or 'demo'.")
@click.option("--fresh", is_flag=True, help="Start the demo over, forgetting earlier demo answers.")
@click.option("--dir", "folder", type=click.Path(file_okay=False, path_type=Path), default=None,
              envvar="ANNOTATE_DEMO_DIR",
              help="Where the demo session lives (also $ANNOTATE_DEMO_DIR). Default: ~/.cache/annotate/demo.")
@domain_errors
def demo(annotator: str | None, fresh: bool, folder: Path | None) -> None:
    """Try the annotation screen on a demo session of pairwise chat items.

    The demo lives in a cache folder, not in ./sessions; running it again resumes where you
    stopped. Keys: 1 Left better, 2 Right better, 3 Tie, 4 Both bad, Enter to submit, ? for help.

    \b
    Example:
      annotate demo
      annotate demo --fresh
    """
    import getpass

    from annotate.demo import prepare_demo
    from annotate.tui import run_app

    resume = ["demo"] + (["--annotator", annotator] if annotator is not None else [])
    resume += ["--dir", str(folder)] if folder is not None else []
    if annotator is None:
        try:
            annotator = getpass.getuser()
        except (KeyError, OSError):
            annotator = "demo"
        if not annotator or not annotator[0].isalnum():
            annotator = "demo"
    spec = prepare_demo(folder, fresh=fresh)
    summary = run_app(spec, _annotator_name(annotator))
    click.echo(summary.line(_command(*resume)))
