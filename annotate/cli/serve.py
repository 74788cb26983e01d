"""`annotate serve`: the annotation app in a browser, one private link per annotator."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from annotate.cli.common import annotator_name, domain_errors, echo, session_argument
from annotate.cli.group import main

if TYPE_CHECKING:
    from annotate.spec import SessionSpec


def _name(_ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    return None if value is None else annotator_name(value, f"--{param.name}")


@main.command()
@session_argument
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Anything but this machine (0.0.0.0) belongs behind a TLS proxy.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True, help="Port to listen on.")
@click.option("--public-url", default=None, metavar="URL",
              help="The address annotators open (the proxy's, e.g. https://annotate.example.org); links are"
                   " printed with it. Default: http://HOST:PORT.")
@click.option("--link", "link_for", callback=_name, default=None, metavar="NAME",
              help="Print a new link for NAME (the old one stops working) and exit.")
@click.option("--lead-link", is_flag=True, help="Print a new link to the lead's page and exit.")
@click.option("--revoke", callback=_name, default=None, metavar="NAME",
              help="Revoke NAME's link (an app open with it closes within seconds) and exit.")
@click.option("--revoke-lead", is_flag=True, help="Revoke the lead's link and exit.")
@click.option("--print-links/--no-print-links", default=None,
              help="Issue and print links for those without one when the server starts. Default: only on a"
                   " terminal (never into a service's log).")
@domain_errors
def serve(session: str, host: str, port: int, public_url: str | None, link_for: str | None, lead_link: bool,
          revoke: str | None, revoke_lead: bool, print_links: bool | None) -> None:
    """Serve SESSION's annotation app to browsers: each planned annotator gets a private link.

    Opening a link runs that annotator's queue exactly as `annotate start SESSION --annotator
    NAME` does (same screens, keys, timings and session file). A link carries a random secret;
    the session file keeps only its hash. The lead's link opens a read-only page with the live
    status and the report. Links that still work are not printed again (their secret is not
    kept): renew one with --link NAME. Rules and deployment: docs/serving.md, 'Annotators without a terminal'.

    \b
    Example:
      annotate serve evals                                 # http://127.0.0.1:8000, links printed
      annotate serve evals --link alice                    # a new link for alice
      annotate serve evals --revoke bob
      annotate serve evals --port 8000 --public-url https://annotate.example.org
    """
    from annotate.serve.links import check_public_url, default_public_url, link_line_text, renew_link
    from annotate.serve.links import revoke as revoke_link
    from annotate.session import load_session, open_store

    actions = [a for a in (link_for, revoke) if a is not None] + [f for f in (lead_link, revoke_lead) if f]
    if len(actions) > 1:
        raise click.UsageError("give one of --link, --lead-link, --revoke, --revoke-lead at a time")
    base = check_public_url(public_url) if public_url is not None else default_public_url(host, port)
    spec = load_session(session)
    if not actions:
        _serve(spec, session, host, port, base, sys.stdout.isatty() if print_links is None else print_links)
        return
    with open_store(spec) as store:
        if link_for is not None or lead_link:
            echo(link_line_text(renew_link(spec, store, base, link_for), session))
        else:
            echo(revoke_link(spec, store, revoke))


def _serve(spec: SessionSpec, session: str, host: str, port: int, base: str, issue: bool) -> None:
    import asyncio
    import logging
    import signal

    from annotate.serve.links import is_loopback, link_line_text, links_at_start, require_plan
    from annotate.serve.server import LinkServer, serve
    from annotate.session import open_store

    with open_store(spec) as store:
        require_plan(spec, store)
    if not is_loopback(host):
        echo(
            f"warning: listening on {host} without TLS: anyone on the network path sees links and answers in"
            " clear. Put a reverse proxy with TLS in front (Caddy or nginx:"
            " docs/serving.md, 'Deployment on one host, behind a TLS proxy')"
            " and give its address with --public-url https://...", err=True,
        )
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S", stream=sys.stderr)

    def ready() -> None:
        with open_store(spec) as store:
            lines = links_at_start(spec, store, base, issue=issue)
        echo(f"serving session {spec.name} at {base} (listening on {host}:{port}); Ctrl+C stops")
        width = max(len(line.who) for line in lines)
        for line in lines:
            echo(link_line_text(line, session, width))
        sys.stdout.flush()

    async def run() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            loop.add_signal_handler(sig, stop.set)
        await serve(LinkServer(spec, base, say=lambda line: echo(line, err=True)), host, port, ready, stop)

    asyncio.run(run())
    echo("stopped: every app closed", err=True)
