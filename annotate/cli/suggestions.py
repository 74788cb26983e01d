"""LLM suggestions and anchoring experiments: `suggest`, `experiment`, `debrief`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from annotate.cli.common import domain_errors, echo, session_argument
from annotate.cli.group import main
from annotate.text import plural


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
@click.option("--max-tokens", type=click.IntRange(0, 1_000_000), default=1024, show_default=True,
              help="Longest reply, in tokens (the request's max_tokens), so a rambling model stops; a reply cut off"
                   " before its verdict counts as no verdict. 0 sends no limit.")
@click.option("--limit", type=click.IntRange(1), default=None, help="Ask about at most this many items now.")
@click.option("--print-prompt", is_flag=True, help="Print the judge prompt this session would use, and stop.")
@domain_errors
def suggest(
    session: str, endpoint: str | None, model: str | None, api_key_env: str | None, concurrency: int,
    prompt_file: Path | None, timeout: float, max_retries: int, max_tokens: int, limit: int | None,
    print_prompt: bool,
) -> None:
    """Ask an LLM judge for a verdict on each item, to show annotators as suggestions.

    Each pairwise item is asked twice, with the answers in both orders; the verdicts are mapped
    back to slots and both are stored (position consistency). Replies are kept verbatim, with the
    settings they were asked with; a reply without a verdict of its own (one that only repeats the
    prompt, is cut off at --max-tokens, or contradicts itself) is recorded as a failure, never as a
    label. Items that already
    have a suggestion from this model and prompt are skipped, so running the command again
    resumes. Suggestions are only shown under an experiment (spec section [experiment];
    docs/suggestions.md, 'LLM suggestions and anchoring experiments').

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
    from annotate.suggest.secret import env_var_problem

    if api_key_env is not None and (problem := env_var_problem(api_key_env)) is not None:
        raise click.ClickException(problem)  # before anything else can print or store the value
    spec = load_session(session)
    if print_prompt:  # as the judge would get it when redirected (`> my-judge.txt`), sanitised on a terminal
        from annotate.cli.common import data_output

        if prompt_file is None:
            from annotate.suggest.prompts import shipped_prompt_text

            text = shipped_prompt_text(spec.kind)
        else:
            text = prompt_file.read_text(encoding="utf-8")
        with data_output() as out:
            out.write(text)
        return
    if not endpoint or not model:
        raise click.UsageError("--endpoint and --model are required (or --print-prompt)")
    prompt = load_prompt(spec.kind, prompt_file, spec.schema.scale)
    config = ClientConfig(endpoint=endpoint, model=model, api_key_env=api_key_env, timeout=timeout,
                          max_retries=max_retries, max_tokens=max_tokens or None)
    import sys

    bar: Any = None
    err = sys.stderr

    def on_start(n: int) -> None:
        nonlocal bar
        bar = click.progressbar(length=n, label=f"asking about {plural(n, 'item')}", file=err, show_pos=True)
        bar.__enter__()

    try:
        with open_store(spec) as store:
            store.require_writable("suggest stores the verdicts in it")  # before asking the server anything
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
    why = [text for count, text in (
        (summary.echoed, f"{summary.echoed} only repeated the prompt"),
        (summary.cut_off, f"{summary.cut_off} cut off at --max-tokens"),
        (summary.contradictory, f"{summary.contradictory} contradicted themselves"),
    ) if count]
    echo(
        f"asked about {plural(asked, 'item')}: {plural(summary.stored, 'suggestion')},"
        f" {summary.no_verdict} without a verdict{' (' + '; '.join(why) + ')' if why else ''}{unanswered};"
        f" {summary.skipped} already done (of {summary.total})"
    )
    if spec.kind == "pairwise" and summary.stored:
        both = summary.consistent + summary.inconsistent
        alone = f"; {summary.one_order} more had no verdict in the swapped order" if summary.one_order else ""
        echo(f"position consistency: {summary.consistent} of {plural(both, 'item')} got the same verdict"
             f" in both orders{alone}")
    echo(f"prompt {summary.prompt_hash[:12]} ({prompt.source})")
    for line in summary.request_errors:
        echo(f"  no reply: {sanitize(line)[:200]}", err=True)
    for line in summary.errors:
        echo(f"  no verdict: {sanitize(line)[:200]}", err=True)
    if summary.aborted:
        raise click.ClickException(summary.aborted)

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
    Rules: docs/suggestions.md, 'The experiment in the spec'.

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
        echo(line, err=line.startswith("note:"))


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
    echo(sanitize(make_debrief(frame, annotator).text()))
