"""`annotate serve` over HTTP and websockets, from a plain client (no browser): who gets a 403,
what the link is traded for, where the secret never goes, and what the lead's page shows.

The server is the real command in a process of its own; the websocket client speaks
textual-serve's protocol (JSON envelopes such as ["stdin", "1"]) as textual.js does.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import aiohttp
import pytest
from serve_util import ServeProcess, planned_session

from annotate.serve.server import WATCH_S
from annotate.session import open_store
from annotate.store.links import issue_link, revoke_link


@pytest.fixture
def spec(project: Path):
    return planned_session(project, ["alice", "bob"], items=5)


def links(spec, *names: str) -> dict[str, str]:
    with open_store(spec) as store:
        found = {n: issue_link(store, "annotator", n).secret for n in names}
        found["lead"] = issue_link(store, "lead").secret
    return found


async def get(session: aiohttp.ClientSession, url: str, **kwargs) -> tuple[int, dict, str]:
    async with session.get(url, allow_redirects=False, **kwargs) as reply:
        return reply.status, dict(reply.headers), await reply.text()


async def screen_bytes(ws: aiohttp.ClientWebSocketResponse, until: bytes, timeout: float = 60) -> bytes:
    """What the app wrote until `until` appears in it (the stream is the terminal's bytes)."""
    seen = b""
    deadline = time.monotonic() + timeout
    while until not in seen:
        message = await ws.receive(timeout=max(0.1, deadline - time.monotonic()))
        if message.type == aiohttp.WSMsgType.BINARY:
            seen += message.data
        elif message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING):
            raise AssertionError(f"closed before {until!r}: {seen[-400:]!r}")
    return seen


def cookie(secret: str) -> dict[str, str]:
    return {"Cookie": f"annotate_key={secret}"}


def test_only_a_valid_link_opens_a_page_and_the_key_becomes_a_cookie(spec, tmp_path: Path) -> None:
    secrets = links(spec, "alice", "bob")
    with ServeProcess(spec, tmp_path) as server:
        async def run() -> None:
            base = server.base
            async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as http:
                assert (await get(http, f"{base}/"))[0] == 403
                assert (await get(http, f"{base}/a/alice"))[0] == 403  # no link
                assert (await get(http, f"{base}/a/alice?key=wrong"))[0] == 403
                assert (await get(http, f"{base}/a/alice?key="))[0] == 403
                assert (await get(http, f"{base}/a/bob?key={secrets['alice']}"))[0] == 403  # alice's key, bob's queue
                assert (await get(http, f"{base}/a/nobody?key={secrets['alice']}"))[0] == 403
                assert (await get(http, f"{base}/lead?key={secrets['alice']}"))[0] == 403
                assert (await get(http, f"{base}/a/alice", headers=cookie(secrets["bob"])))[0] == 403
                status, headers, body = await get(http, f"{base}/a/alice?key={secrets['alice']}")
                assert status == 303 and headers["Location"] == "/a/alice"
                set_cookie = headers["Set-Cookie"]
                assert f"annotate_key={secrets['alice']}" in set_cookie
                for attribute in ("HttpOnly", "Path=/a/alice", "SameSite=Lax"):
                    assert attribute in set_cookie
                assert "Secure" not in set_cookie  # plain http on loopback; https public URLs get it
                status, headers, body = await get(http, f"{base}/a/alice", headers=cookie(secrets["alice"]))
                assert status == 200 and "textual-terminal" in body
                assert secrets["alice"] not in body
                assert "script-src 'self'" in headers["Content-Security-Policy"]
                assert headers["Referrer-Policy"] == "no-referrer" and headers["Cache-Control"] == "no-store"
                assert "unsafe-inline" not in headers["Content-Security-Policy"].split("script-src")[1].split(";")[0]
                with open_store(spec) as store:
                    revoke_link(store, "annotator", "alice")
                assert (await get(http, f"{base}/a/alice", headers=cookie(secrets["alice"])))[0] == 403
                assert (await get(http, f"{base}/a/alice?key={secrets['alice']}"))[0] == 403  # revoked
                assert (await get(http, f"{base}/a/bob", headers=cookie(secrets["bob"])))[0] == 200

        asyncio.run(run())
        assert server.children() == []  # nothing was started by pages alone
    log = server.log()
    for secret in secrets.values():
        assert secret not in log
    assert "GET /a/alice 403" in log and "GET /a/alice 303" in log


def test_a_websocket_needs_the_cookie_of_its_own_annotator_and_our_origin(spec, tmp_path: Path) -> None:
    secrets = links(spec, "alice", "bob")
    with ServeProcess(spec, tmp_path) as server:
        async def refused(path: str, **headers: str) -> int:
            async with aiohttp.ClientSession() as http:
                try:
                    async with http.ws_connect(f"{server.base}{path}", headers=headers):
                        return 101
                except aiohttp.WSServerHandshakeError as exc:
                    return exc.status

        async def run() -> None:
            assert await refused("/a/alice/ws") == 403
            assert await refused("/a/alice/ws", Cookie="annotate_key=wrong") == 403
            assert await refused("/a/bob/ws", Cookie=f"annotate_key={secrets['alice']}") == 403
            assert await refused("/a/alice/ws", Cookie=f"annotate_key={secrets['alice']}",
                                 Origin="https://evil.example") == 403

        asyncio.run(run())
        assert server.children() == []
    assert all(secret not in server.log() for secret in secrets.values())


def test_an_app_runs_in_a_browser_sitting_and_the_secret_reaches_no_process(spec, tmp_path: Path) -> None:
    secrets = links(spec, "alice", "bob")
    with ServeProcess(spec, tmp_path) as server:
        async def run() -> None:
            async with aiohttp.ClientSession() as http, http.ws_connect(
                f"{server.base}/a/alice/ws?width=120&height=40", headers={
                    "Cookie": f"annotate_key={secrets['alice']}", "Origin": server.base},
            ) as ws:
                await screen_bytes(ws, b"Item")
                await ws.send_str(json.dumps(["ping", "123"]))
                await ws.send_str("not json")  # ignored, the app goes on
                await ws.send_str(json.dumps({"stdin": "1"}))  # not an envelope: ignored
                children = server.children()
                assert len(children) == 1
                pid = children[0]
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                assert b"annotate.serve.child" in argv and b"alice" in argv
                environ = Path(f"/proc/{pid}/environ").read_bytes()
                for secret in secrets.values():
                    assert secret.encode() not in b"".join(argv) and secret.encode() not in environ
                await ws.send_str(json.dumps(["stdin", "g"]))  # the guideline covers the first item: close it
                for _ in range(2):  # answer two items: 1 (Left better), then Enter
                    await asyncio.sleep(0.5)
                    await ws.send_str(json.dumps(["stdin", "1"]))
                    await asyncio.sleep(0.3)
                    await ws.send_str(json.dumps(["stdin", "\r"]))
                await screen_bytes(ws, b"2 of 5 done")
                await ws.send_str(json.dumps(["stdin", "q"]))
                await ws.receive(timeout=30)  # closed once the app has quit

        asyncio.run(run())
        deadline = time.monotonic() + 30
        while server.children() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert server.children() == []
    with open_store(spec) as store:
        judgments = store.judgments("alice")
        assert len(judgments) == 2
        sittings = store.db.execute(
            "SELECT s.id, s.display, s.end_reason, s.terminal FROM sittings s"
            " JOIN annotators n ON n.id = s.annotator_id WHERE n.name = 'alice'").fetchall()
        assert [(display, reason, terminal) for _, display, reason, terminal in sittings] == [("browser", "quit", None)]
        ids = {r[0] for r in store.db.execute("SELECT sitting_id FROM judgments").fetchall()}
        assert ids == {sittings[0][0]}
    raw = b"".join(p.read_bytes() for p in spec.db.parent.glob(spec.db.name + "*"))
    for secret in secrets.values():
        assert secret.encode() not in raw
        assert secret not in server.log()


def test_revoking_a_link_closes_the_app_opened_with_it(spec, tmp_path: Path) -> None:
    secrets = links(spec, "alice")
    with ServeProcess(spec, tmp_path) as server:
        async def run() -> float:
            async with aiohttp.ClientSession() as http, http.ws_connect(
                f"{server.base}/a/alice/ws", headers=cookie(secrets["alice"]),
            ) as ws:
                await screen_bytes(ws, b"Item")
                with open_store(spec) as store:
                    revoke_link(store, "annotator", "alice")
                revoked = time.monotonic()
                while True:
                    message = await ws.receive(timeout=WATCH_S * 4)
                    if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                        return time.monotonic() - revoked

        assert asyncio.run(run()) < WATCH_S * 4
        deadline = time.monotonic() + 30
        while server.children() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert server.children() == []
    assert "alice: link revoked or renewed; closing the app" in server.log()
    with open_store(spec) as store:
        reasons = [r[0] for r in store.db.execute("SELECT end_reason FROM sittings").fetchall()]
    assert reasons == ["quit"]  # the app was closed as by q: everything written, the sitting ended


HOSTILE = "<img src=x onerror=alert(1)><script>alert(2)</script>"


def test_the_lead_page_is_read_only_escaped_and_behind_its_own_link(spec, tmp_path: Path) -> None:
    secrets = links(spec, "alice")
    with open_store(spec) as store:
        from annotate.model import Suggestion

        store.add_suggestions([Suggestion(item_id="i000", source_model=HOSTILE, label="A")])
    with ServeProcess(spec, tmp_path) as server:
        async def run() -> None:
            base = server.base
            async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as http:
                for path in ("/lead", "/lead/status", "/lead/report"):
                    assert (await get(http, base + path))[0] == 403
                    assert (await get(http, base + path, headers=cookie(secrets["alice"])))[0] == 403
                status, headers, _ = await get(http, f"{base}/lead?key={secrets['lead']}")
                assert status == 303 and "Path=/lead" in headers["Set-Cookie"]
                lead = cookie(secrets["lead"])
                status, headers, page = await get(http, f"{base}/lead", headers=lead)
                assert status == 200 and "lead view (read-only)" in page
                assert HOSTILE not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
                assert secrets["lead"] not in page
                assert "<form" not in page  # nothing on it writes
                status, headers, text = await get(http, f"{base}/lead/status", headers=lead)
                assert status == 200 and headers["Content-Type"].startswith("text/plain")
                assert "alice" in text and "open now  nobody" in text
                status, headers, report = await get(http, f"{base}/lead/report", headers=lead)
                assert status == 200 and "<!DOCTYPE html>" in report
                assert headers["Content-Security-Policy"].startswith("default-src 'none'")
                assert "<script" not in report.lower()
                assert (await http.post(f"{base}/lead", headers=lead)).status == 405

        asyncio.run(run())
    assert secrets["lead"] not in server.log()


async def open_app(server: ServeProcess, name: str, secret: str, http: aiohttp.ClientSession):
    ws = await http.ws_connect(f"{server.base}/a/{name}/ws?width=120&height=40", headers=cookie(secret))
    await screen_bytes(ws, b"Item")
    return ws


async def answer_first(ws: aiohttp.ClientWebSocketResponse) -> None:
    """Close the guideline (open on a first item), choose Left better and submit."""
    for key in ("g", "1", "\r"):
        await ws.send_str(json.dumps(["stdin", key]))
        await asyncio.sleep(0.4)


def wait_gone(server: ServeProcess, pids: list[int], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(p) for p in pids), pids


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def sittings(spec) -> list[tuple[str, str | None]]:
    with open_store(spec) as store:
        return [tuple(r) for r in store.db.execute("SELECT display, end_reason FROM sittings ORDER BY id")]


def test_a_tab_closed_right_after_a_submit_loses_nothing(spec, tmp_path: Path) -> None:
    secrets = links(spec, "alice")
    with ServeProcess(spec, tmp_path) as server:
        async def run() -> list[int]:
            async with aiohttp.ClientSession() as http:
                ws = await open_app(server, "alice", secrets["alice"], http)
                pids = server.children()
                for key in ("g", "1"):
                    await ws.send_str(json.dumps(["stdin", key]))
                    await asyncio.sleep(0.4)
                await ws.send_str(json.dumps(["stdin", "\r"]))
                await ws.close()  # at once: the write may still be queued in the app
                return pids

        pids = asyncio.run(run())
        wait_gone(server, pids)
    with open_store(spec) as store:
        assert len(store.judgments("alice")) == 1
    assert sittings(spec) == [("browser", "quit")]


def test_stopping_the_server_closes_every_app_after_its_writes(spec, tmp_path: Path) -> None:
    secrets = links(spec, "alice", "bob")
    server = ServeProcess(spec, tmp_path).__enter__()
    try:
        async def run() -> list[int]:
            async with aiohttp.ClientSession() as http:
                alice = await open_app(server, "alice", secrets["alice"], http)
                bob = await open_app(server, "bob", secrets["bob"], http)
                await asyncio.gather(answer_first(alice), answer_first(bob))
                pids = server.children()
                assert len(pids) == 2
                return pids

        pids = asyncio.run(run())
    finally:
        code = server.stop()
    assert code == 0, server.log()
    wait_gone(server, pids)
    with open_store(spec) as store:
        assert len(store.judgments("alice")) == 1 and len(store.judgments("bob")) == 1
    assert sittings(spec) == [("browser", "quit"), ("browser", "quit")]
    assert "stopping: closing 2 open app(s)" in server.log()


def test_apps_of_a_server_that_was_killed_stop_by_themselves(spec, tmp_path: Path) -> None:
    import os
    import signal

    secrets = links(spec, "alice")
    server = ServeProcess(spec, tmp_path).__enter__()
    try:
        async def run() -> list[int]:
            async with aiohttp.ClientSession() as http:
                ws = await open_app(server, "alice", secrets["alice"], http)
                await answer_first(ws)
                pids = server.children()
                assert server.process is not None
                os.kill(server.process.pid, signal.SIGKILL)  # no chance to close anything
                return pids

        pids = asyncio.run(run())
        wait_gone(server, pids, timeout=20)
    finally:
        server.stop()
    with open_store(spec) as store:
        assert len(store.judgments("alice")) == 1
    assert sittings(spec) == [("browser", "quit")]  # not left open to lock alice out


def test_one_link_runs_a_bounded_number_of_apps(spec, tmp_path: Path) -> None:
    from annotate.serve.server import MAX_APPS_PER_LINK

    secrets = links(spec, "alice")
    with ServeProcess(spec, tmp_path) as server:
        async def run() -> int:
            async with aiohttp.ClientSession() as http:
                opened = [await http.ws_connect(f"{server.base}/a/alice/ws", headers=cookie(secrets["alice"]))
                          for _ in range(MAX_APPS_PER_LINK)]
                try:
                    async with http.ws_connect(f"{server.base}/a/alice/ws", headers=cookie(secrets["alice"])):
                        return 101
                except aiohttp.WSServerHandshakeError as exc:
                    return exc.status
                finally:
                    for ws in opened:
                        await ws.close()

        assert asyncio.run(run()) == 429


def test_a_public_url_with_a_path_puts_every_route_under_it(spec, tmp_path: Path) -> None:
    from serve_util import free_port

    secrets = links(spec, "alice")
    port = free_port()
    with ServeProcess(spec, tmp_path, "--public-url", "https://annotate.example.org/team/", port=port) as server:
        async def run() -> None:
            async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as http:
                status, headers, _ = await get(http, f"{server.base}/team/a/alice?key={secrets['alice']}")
                assert status == 303 and headers["Location"] == "/team/a/alice"
                assert "Path=/team/a/alice" in headers["Set-Cookie"] and "Secure" in headers["Set-Cookie"]
                assert (await get(http, f"{server.base}/team/a/alice", headers=cookie(secrets["alice"])))[0] == 200
                assert (await get(http, f"{server.base}/a/alice?key={secrets['alice']}"))[0] == 404
                assert (await get(http, f"{server.base}/team/static/js/textual.js"))[0] == 200
                try:  # a websocket opened by a page of another origin is refused
                    async with http.ws_connect(f"{server.base}/team/a/alice/ws", headers={
                            **cookie(secrets["alice"]), "Origin": "https://annotate.example.org.evil.example"}):
                        raise AssertionError("opened")
                except aiohttp.WSServerHandshakeError as exc:
                    assert exc.status == 403
                async with http.ws_connect(f"{server.base}/team/a/alice/ws", headers={
                        **cookie(secrets["alice"]), "Origin": "https://annotate.example.org"}) as ws:
                    await screen_bytes(ws, b"Item")

        asyncio.run(run())
    assert "serving session s at https://annotate.example.org/team" in server.log()


def test_the_server_prints_links_only_when_asked_or_on_a_terminal(spec, tmp_path: Path) -> None:
    (tmp_path / "quiet").mkdir()
    with ServeProcess(spec, tmp_path / "quiet") as server:  # standard output is a file here, as under systemd
        out = server.out_path.read_text()
    assert "?key=" not in out
    assert f"alice  no link yet (links are printed only on a terminal): annotate serve {spec.path} --link alice" in out
    with open_store(spec) as store:
        from annotate.store.links import live_links

        assert live_links(store) == []  # nothing issued that nobody saw
    (tmp_path / "printed").mkdir()
    with ServeProcess(spec, tmp_path / "printed", "--print-links") as server:
        out = server.out_path.read_text()
        lines = {line.split()[0]: line.split()[1] for line in out.splitlines()[1:]}
        assert sorted(lines) == ["alice", "bob", "lead"]
        assert lines["alice"].startswith(f"{server.base}/a/alice?key=")

        async def run() -> None:
            async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as http:
                for who, url in lines.items():
                    assert (await get(http, url))[0] == 303, who

        asyncio.run(run())
        log = server.log_path.read_text()
    assert all(url.split("key=")[1] not in log for url in lines.values())
    (tmp_path / "again").mkdir()
    with ServeProcess(spec, tmp_path / "again", "--print-links") as server:
        out = server.out_path.read_text()
    assert "?key=" not in out and "alice  link issued" in out and "still works; a new one:" in out
