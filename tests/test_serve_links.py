"""Private links for `annotate serve`: only hashes stored, one live link per person, renew and
revoke; and the command's bad input, each a one-line error."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from formats_util import cli
from serve_util import planned_session

from annotate.serve.links import ServeError, check_public_url, link_url, links_at_start, renew_link
from annotate.session import create_session, open_store
from annotate.store.links import (
    SECRET_BYTES,
    check_secret,
    issue_link,
    live_links,
    planned_annotators,
    revoke_link,
    secret_hash,
)


@pytest.fixture
def spec(project: Path):
    return planned_session(project, ["alice", "bob"])


def session_bytes(spec) -> bytes:
    return b"".join(p.read_bytes() for p in spec.db.parent.glob(spec.db.name + "*"))


def test_a_link_opens_its_annotator_only_and_the_file_keeps_only_its_hash(spec) -> None:
    with open_store(spec) as store:
        alice = issue_link(store, "annotator", "alice")
        bob = issue_link(store, "annotator", "bob")
        lead = issue_link(store, "lead")
        assert len(alice.secret) >= 43 and SECRET_BYTES * 8 >= 128  # token_urlsafe(32): 256 bits
        assert check_secret(store, "annotator", "alice", alice.secret)
        assert not check_secret(store, "annotator", "bob", alice.secret)  # alice's link never opens bob's queue
        assert not check_secret(store, "annotator", "alice", bob.secret)
        assert not check_secret(store, "lead", None, alice.secret)
        assert not check_secret(store, "annotator", "alice", lead.secret)
        assert check_secret(store, "lead", None, lead.secret)
        assert not check_secret(store, "annotator", "alice", "")
        assert not check_secret(store, "annotator", "nobody", alice.secret)
        stored = [r[0] for r in store.db.execute("SELECT secret_sha256 FROM links").fetchall()]
    assert secret_hash(alice.secret) in stored
    raw = session_bytes(spec)
    for secret in (alice.secret, bob.secret, lead.secret):
        assert secret.encode() not in raw


def test_renewing_a_link_ends_the_old_one_and_revoking_ends_it(spec) -> None:
    with open_store(spec) as store:
        first = issue_link(store, "annotator", "alice")
        second = issue_link(store, "annotator", "alice")
        assert second.replaced and not first.replaced
        assert not check_secret(store, "annotator", "alice", first.secret)
        assert check_secret(store, "annotator", "alice", second.secret)
        assert revoke_link(store, "annotator", "alice")
        assert not check_secret(store, "annotator", "alice", second.secret)
        assert not revoke_link(store, "annotator", "alice")  # nothing live left
        assert not revoke_link(store, "annotator", "nobody")
        reasons = [r[0] for r in store.db.execute("SELECT revoke_reason FROM links ORDER BY id").fetchall()]
        assert reasons == ["renewed", "revoked"]
        assert live_links(store) == []


def test_links_at_start_issue_only_for_those_without_one(spec) -> None:
    with open_store(spec) as store:
        kept = issue_link(store, "annotator", "bob")
        lines = links_at_start(spec, store, "https://x.example/annotate")
        assert [line.who for line in lines] == ["lead", "alice", "bob"]
        lead, alice, bob = lines
        assert alice.url is not None and alice.url.startswith("https://x.example/annotate/a/alice?key=")
        assert lead.url is not None and lead.url.startswith("https://x.example/annotate/lead?key=")
        assert bob.url is None and bob.since  # still works; its secret is not kept to print again
        assert check_secret(store, "annotator", "bob", kept.secret)
        assert check_secret(store, "annotator", "alice", alice.url.split("key=")[1])
        again = links_at_start(spec, store, "https://x.example/annotate")
        assert all(line.url is None for line in again)
        not_issued = links_at_start(spec, store, "http://h:1", issue=False)
        assert all(line.url is None for line in not_issued)


def test_planned_annotators_come_from_the_plan(spec, project: Path) -> None:
    with open_store(spec) as store:
        assert planned_annotators(store) == ["alice", "bob"]
        with pytest.raises(ServeError, match="'carol' is not in the plan of session 's'"):
            renew_link(spec, store, "http://h:1", "carol")
    unplanned = create_session("u", "pairwise", folder=project / "sessions")
    with open_store(unplanned) as store, pytest.raises(ServeError, match="plan it first: annotate plan u"):
        links_at_start(unplanned, store, "http://h:1")


@pytest.mark.parametrize("url, expected", [
    ("https://annotate.example.org", "https://annotate.example.org"),
    ("https://annotate.example.org/", "https://annotate.example.org"),
    ("http://10.1.2.3:8080/team/annotate/", "http://10.1.2.3:8080/team/annotate"),
    ("http://[::1]:8000", "http://[::1]:8000"),
])
def test_public_urls_accepted(url: str, expected: str) -> None:
    assert check_public_url(url) == expected


@pytest.mark.parametrize("url", [
    "annotate.example.org", "foo", "ftp://example.org", "https://", "https://example.org/?x=1",
    "https://example.org/#top", "https://user:pw@example.org", "http://example.org:99999", "http://example.org:0", "",
])
def test_public_urls_refused(url: str) -> None:
    with pytest.raises(ServeError, match="--public-url"):
        check_public_url(url)


def test_link_url_quotes_nothing_it_need_not() -> None:
    from annotate.store.links import IssuedLink

    assert link_url("http://h:1", IssuedLink("annotator", "a.b@c-d_e", "S", False)) == "http://h:1/a/a.b@c-d_e?key=S"


# -- the command ---------------------------------------------------------------------------------


def one_line_error(result) -> str:
    error = result.stderr.strip()
    assert result.exit_code != 0, result.output
    assert error.startswith("Error: ") and "\n" not in error, result.stderr
    return error


def test_cli_prints_renews_and_revokes_a_link(spec) -> None:
    first = cli("serve", "s", "--link", "alice", "--port", "8123")
    assert first.exit_code == 0, first.output
    url = first.stdout.split()[1]
    assert url.startswith("http://127.0.0.1:8123/a/alice?key=")
    second = cli("serve", "s", "--link", "alice", "--public-url", "https://a.example/x/")
    assert second.stdout.split()[1].startswith("https://a.example/x/a/alice?key=")
    with open_store(spec) as store:
        assert not check_secret(store, "annotator", "alice", url.split("key=")[1])
        assert check_secret(store, "annotator", "alice", second.stdout.split()[1].split("key=")[1])
    lead = cli("serve", "s", "--lead-link")
    assert lead.stdout.startswith("lead  http://127.0.0.1:8000/lead?key=")
    revoked = cli("serve", "s", "--revoke", "alice")
    assert revoked.exit_code == 0 and "revoked alice's link" in revoked.stdout
    assert "no live link to revoke" in one_line_error(cli("serve", "s", "--revoke", "alice"))
    assert cli("serve", "s", "--revoke-lead").exit_code == 0
    assert "at a time" in cli("serve", "s", "--link", "alice", "--revoke", "bob").stderr


def test_cli_bad_input_each_a_clear_error(spec, project: Path) -> None:
    assert "no session 'nosuch'" in one_line_error(cli("serve", "nosuch"))
    assert "'carol' is not in the plan of session 's' (planned: alice, bob)" in one_line_error(
        cli("serve", "s", "--link", "carol"))
    bad_name = cli("serve", "s", "--link", "../x")  # a usage error, as for `start --annotator`
    assert bad_name.exit_code == 2 and "--link" in bad_name.stderr and "--annotator" not in bad_name.stderr
    for bad in ("foo", "annotate.example.org", "https://x.org/?key=1"):
        error = one_line_error(cli("serve", "s", "--public-url", bad))
        assert "--public-url" in error and ("not a URL" in error or "no place" in error), error
    create_session("u", "pairwise", folder=project / "sessions")
    error = one_line_error(cli("serve", "u"))
    assert error == "Error: session 'u' has no plan yet, so nobody has a queue to open: plan it first: annotate plan" \
                    " u --annotators NAME,NAME,..."


def test_a_port_in_use_is_one_line_and_a_wildcard_host_warns(spec) -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        error = one_line_error(cli("serve", "s", "--port", str(port)))
        assert error == f"Error: port {port} on 127.0.0.1 is already in use (another server?): stop it, or choose" \
                        " another port with --port"
    with socket.socket() as held:
        held.bind(("0.0.0.0", 0))
        held.listen()
        port = held.getsockname()[1]
        result = cli("serve", "s", "--host", "0.0.0.0", "--port", str(port))
        warning, error = result.stderr.strip().split("\n")
        assert error.startswith("Error: ") and "already in use" in error
        assert warning.startswith("warning: listening on 0.0.0.0 without TLS")
        assert "reverse proxy with TLS" in warning and "--public-url https://" in warning
    with open_store(spec) as store:
        assert live_links(store) == []  # nothing was issued by a server that never listened
