"""The addresses `annotate serve` hands out: one private link per planned annotator, one for the lead.

No web framework here: this is what the CLI needs before (and without) starting a server, to
print, renew and revoke links. A link is `PUBLIC_URL/a/NAME?key=SECRET` (the lead's:
`PUBLIC_URL/lead?key=SECRET`); the server trades the key for a cookie and sends the browser on to
the same address without it.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

from annotate.plan import PLAN_META_KEY
from annotate.spec import SessionSpec
from annotate.store import Store
from annotate.store.links import IssuedLink, issue_link, live_links, planned_annotators, revoke_link

KEY_PARAM = "key"
"""The query parameter that carries a link's secret."""


class ServeError(ValueError):
    """Something `annotate serve` cannot do, said in one line."""


def check_public_url(url: str) -> str:
    """The address annotators reach the server at, as given with --public-url (no trailing slash).

    http or https, a host, an optional port and path; no query, fragment or user name."""
    hint = "expected http:// or https://, a host and an optional port and path, e.g. https://annotate.example.org"
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        raise ServeError(f"--public-url {url!r}: not a URL; {hint}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ServeError(f"--public-url {url!r}: not a URL; {hint}")
    if parts.query or parts.fragment or parts.username or parts.password:
        raise ServeError(f"--public-url {url!r}: a query, fragment or user name has no place in it; {hint}")
    if port == 0:
        raise ServeError(f"--public-url {url!r}: port 0; {hint}")
    return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"


def default_public_url(host: str, port: int) -> str:
    """The address to print when no --public-url is given: the host and port the server binds."""
    if is_wildcard(host):
        import socket

        host = socket.gethostname()
    try:
        if ipaddress.ip_address(host).version == 6:
            host = f"[{host}]"
    except ValueError:
        pass
    return f"http://{host}:{port}"


def is_wildcard(host: str) -> bool:
    return host in ("", "0.0.0.0", "::")


def is_loopback(host: str) -> bool:
    """Only this machine can reach `host` (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def path_prefix(public_url: str) -> str:
    """The path the server's routes live under ('' or '/annotate'): a proxy passes paths unchanged."""
    return urlsplit(public_url).path.rstrip("/")


def annotator_path(prefix: str, name: str) -> str:
    return f"{prefix}/a/{quote(name, safe='@')}"


def lead_path(prefix: str) -> str:
    return f"{prefix}/lead"


def link_url(public_url: str, issued: IssuedLink) -> str:
    """The private link of a link just issued."""
    prefix = public_url.rstrip("/")
    base = f"{prefix}/lead" if issued.role == "lead" else f"{prefix}/a/{quote(issued.annotator or '', safe='@')}"
    return f"{base}?{KEY_PARAM}={issued.secret}"


@dataclass(frozen=True)
class LinkLine:
    """One line of what `annotate serve` prints about a link."""

    who: str
    """An annotator's name, or `lead`."""
    url: str | None
    """The new private link; None when an earlier one still works (its secret is not kept)."""
    since: str = ""
    """When the link that still works was issued."""


def require_plan(spec: SessionSpec, store: Store) -> list[str]:
    """The planned annotators; ServeError saying how to plan when the session has no plan yet."""
    if not store.get_meta(PLAN_META_KEY):
        raise ServeError(
            f"session {spec.name!r} has no plan yet, so nobody has a queue to open: plan it first:"
            f" annotate plan {spec.name} --annotators NAME,NAME,..."
        )
    names = planned_annotators(store)
    if not names:
        raise ServeError(f"session {spec.name!r}: the plan gives nobody a queue; plan it again with --annotators")
    return names


def links_at_start(spec: SessionSpec, store: Store, public_url: str, *, issue: bool = True) -> list[LinkLine]:
    """A line for the lead and every planned annotator: a new link for those without a live one
    (none when `issue` is False: nobody would see it); for the others, when theirs was issued
    (only its hash is stored, so it cannot be shown again)."""
    names = require_plan(spec, store)
    live = {(link.role, link.annotator): link for link in live_links(store)}
    lines = []
    for role, name in [("lead", None), *(("annotator", n) for n in names)]:
        existing = live.get((role, name))
        if existing is not None:
            lines.append(LinkLine(name or "lead", None, existing.created))
        elif issue:
            lines.append(LinkLine(name or "lead", link_url(public_url, issue_link(store, role, name))))  # type: ignore[arg-type]
        else:
            lines.append(LinkLine(name or "lead", None))
    return lines


def link_line_text(line: LinkLine, session: str, width: int = 0) -> str:
    """What `annotate serve` prints for `line`: the link, or how to get a new one."""
    import shlex

    option = ["--lead-link"] if line.who == "lead" else ["--link", line.who]
    renew = shlex.join(["annotate", "serve", session, *option])
    who = f"{line.who:<{width}}"
    if line.url is not None:
        return f"{who}  {line.url}"
    if line.since:
        return f"{who}  link issued {line.since[:16].replace('T', ' ')} UTC still works; a new one: {renew}"
    return f"{who}  no link yet (links are printed only on a terminal): {renew}"


def renew_link(spec: SessionSpec, store: Store, public_url: str, name: str | None) -> LinkLine:
    """A new link for annotator `name` (None: the lead), the old one revoked."""
    if name is None:
        return LinkLine("lead", link_url(public_url, issue_link(store, "lead")))
    names = require_plan(spec, store)
    if name not in names:
        raise ServeError(f"{name!r} is not in the plan of session {spec.name!r} (planned: {', '.join(names)})")
    return LinkLine(name, link_url(public_url, issue_link(store, "annotator", name)))


def revoke(spec: SessionSpec, store: Store, name: str | None) -> str:
    """Revoke the live link of annotator `name` (None: the lead's); the line to print."""
    who = "the lead's link" if name is None else f"{name}'s link"
    if revoke_link(store, "lead" if name is None else "annotator", name):
        return f"revoked {who} in session {spec.name!r}; an app open with it is closed within seconds"
    raise ServeError(f"{who} in session {spec.name!r}: there is no live link to revoke")
