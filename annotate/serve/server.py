"""`annotate serve`: the annotation app in a browser, behind one private link per annotator.

Built on textual-serve, Textualize's server for Textual apps. For every browser that connects,
textual-serve's `AppService` starts the app in a process of its own under Textual's web driver
and relays that process's terminal stream over a websocket to textual-serve's front-end
(xterm.js in `textual.js`), which is served from textual-serve's static folder. So the browser
runs the same screens, keys and timings as a terminal, writing through the same store.

We do not run textual-serve's `Server` itself, but aiohttp routes of our own around its
`AppService`: that Server starts one fixed command for whoever opens its websocket (no
authentication, and no way to start a different command per visitor), builds its routes in a
private method, and its page loads a web font from a third-party host. Here:

- `/a/NAME?key=SECRET` checks the secret against the hash of NAME's live link (403 otherwise),
  trades it for an HttpOnly cookie scoped to `/a/NAME`, and redirects to `/a/NAME`, so the secret
  is neither in the address bar nor in the page. `/a/NAME/ws` needs that cookie, checked again
  against NAME's link, and a same-origin `Origin`; it then starts `python -m annotate.serve.child
  SPEC NAME` (the name, never the secret, is all the process is told).
- `/lead?key=SECRET` likewise opens the lead's read-only page: live status, report on request.
- The access log names method, path (never the query) and status; revoking a link closes the
  apps opened with it within `WATCH_S`.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import logging
import shlex
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import textual_serve
from aiohttp import WSMsgType, web
from aiohttp.abc import AbstractAccessLogger
from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

from annotate.serve import pages
from annotate.serve.links import KEY_PARAM, ServeError, annotator_path, lead_path, path_prefix
from annotate.spec import SessionSpec
from annotate.store import Store
from annotate.store.links import Role, live_hash, same_hash, secret_hash

COOKIE = "annotate_key"
"""The cookie that holds a link's secret once the link has been opened (HttpOnly: no script reads it)."""
WATCH_S = 3.0
"""How often open apps are checked against their link (a revoked or renewed link closes them)."""
MAX_APPS_PER_LINK = 3
"""Apps one link may have running at once: the first, a second tab that is told it is open
elsewhere, and a reload racing the first's end. More are refused (429)."""
STOP_GRACE_S = 40.0
"""How long stopping the server waits for the apps to write what they hold and quit."""
STDIN_MAX = 64 * 1024
"""The longest keyboard message a browser may send at once (a paste)."""
TEXTUAL_SERVE_STATIC = Path(textual_serve.__file__).parent / "static"
"""textual-serve's front-end: textual.js (xterm.js and its protocol), xterm.css, the Roboto Mono fonts."""

log = logging.getLogger("annotate.serve")


class AccessLog(AbstractAccessLogger):
    """One line per request: client, method, path and status; never the query string (a link's
    key travels there) and never a header (the cookie)."""

    def log(self, request: web.BaseRequest, response: web.StreamResponse, elapsed: float) -> None:
        self.logger.info("%s %s %s %s %.0f ms", request.remote, request.method, request.path, response.status,
                         elapsed * 1000)


class AppProcess(AppService):
    """textual-serve's AppService, closing the browser's websocket also when the app process ends
    without saying so (a crash), so the page says the session ended instead of going blank."""

    async def run(self) -> None:
        try:
            await super().run()
        finally:
            with contextlib.suppress(Exception):
                await self.remote_close()


@dataclass(eq=False)
class OpenApp:
    """One browser connected to one app process."""

    role: Role
    annotator: str
    hashed: str
    """The hash of the secret it was opened with (to notice the link being revoked)."""
    socket: web.WebSocketResponse
    started: float = field(default_factory=time.time)


class LinkServer:
    """The aiohttp application of `annotate serve` for one session."""

    def __init__(self, spec: SessionSpec, public_url: str, *, python: str = sys.executable,
                 say: Callable[[str], None] | None = None) -> None:
        self.spec = spec
        self.public_url = public_url
        self.prefix = path_prefix(public_url)
        self.secure = urlsplit(public_url).scheme == "https"
        self.python = python
        self.say = say or (lambda line: log.info("%s", line))
        """Where the server's lines go (who connected, who left): never a secret."""
        self.open_apps: set[OpenApp] = set()
        self.downloads = DownloadManager()
        self._store: Store | None = None
        self._report_lock = asyncio.Lock()
        self._watch_task: asyncio.Task[None] | None = None

    # -- the application -----------------------------------------------------------------------

    def application(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024)
        p = self.prefix
        app.add_routes([
            web.get(f"{p}/", self.no_link),
            web.get(f"{p}/a/{{name}}", self.annotator_page),
            web.get(f"{p}/a/{{name}}/ws", self.annotator_socket),
            web.get(f"{p}/lead", self.lead_page),
            web.get(f"{p}/lead/status", self.lead_status),
            web.get(f"{p}/lead/report", self.lead_report),
            web.get(f"{p}/_annotate/annotator.js", self.script(pages.ANNOTATOR_JS)),
            web.get(f"{p}/_annotate/lead.js", self.script(pages.LEAD_JS)),
            web.static(f"{p}/static", TEXTUAL_SERVE_STATIC, show_index=False, follow_symlinks=False),
        ])
        if p:
            app.add_routes([web.get(p, self.no_link)])
        app.on_response_prepare.append(self._headers)
        app.on_startup.append(self._startup)
        app.on_shutdown.append(self._shutdown)
        app.on_cleanup.append(self._cleanup)
        return app

    async def _startup(self, _app: web.Application) -> None:
        self._store = Store.open(self.spec.db)
        self._watch_task = asyncio.create_task(self._watch_links())

    async def _shutdown(self, _app: web.Application) -> None:
        if self._watch_task is not None:
            self._watch_task.cancel()
        apps = list(self.open_apps)
        if apps:
            self.say(f"stopping: closing {len(apps)} open app(s); each writes what it holds first")
        await asyncio.gather(*(a.socket.close(code=1001, message=b"server stopping") for a in apps),
                             return_exceptions=True)
        deadline = time.monotonic() + STOP_GRACE_S
        while self.open_apps and time.monotonic() < deadline:
            await asyncio.sleep(0.1)

    async def _cleanup(self, _app: web.Application) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    @staticmethod
    async def _headers(request: web.Request, response: web.StreamResponse) -> None:
        response.headers.setdefault("Cache-Control", "no-store")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Content-Security-Policy", pages.PLAIN_CSP)

    @property
    def store(self) -> Store:
        assert self._store is not None, "the server has not started"
        return self._store

    # -- checking a link ----------------------------------------------------------------------

    def _valid(self, role: Role, name: str | None, secret: str | None) -> str | None:
        """The hash of `secret` when it opens the live link of `name` (or the lead's), else None."""
        if not secret:
            return None
        hashed = secret_hash(secret)
        return hashed if same_hash(hashed, live_hash(self.store, role, name)) else None

    def _forbidden(self, why: str = "") -> web.Response:
        text = why or ("This address needs a valid private link. The link may be wrong, or it was renewed or"
                       " revoked: ask your annotation lead for a new one.")
        return web.Response(status=403, text=pages.refusal_page("403 Forbidden: no valid link", text),
                            content_type="text/html")

    def _enter(self, request: web.Request, path: str, role: Role, name: str | None) -> web.StreamResponse | None:
        """The redirect that trades a link's key for the cookie; a 403 for a bad key; None: no key."""
        if KEY_PARAM not in request.query:
            return None
        key = request.query.get(KEY_PARAM)
        if self._valid(role, name, key) is None:
            self.say(f"refused: a wrong, renewed or revoked {'lead' if role == 'lead' else name} link")
            return self._forbidden()
        response = web.HTTPSeeOther(location=path)
        response.set_cookie(COOKIE, key, path=path, httponly=True, samesite="Lax", secure=self.secure)
        return response

    def _origin_ok(self, request: web.Request) -> bool:
        """A websocket opened by our own page: its Origin is this server's (as the browser reached it)."""
        origin = request.headers.get("Origin")
        if origin is None:
            return True  # not a browser (a browser always sends one with a websocket)
        public = urlsplit(self.public_url)
        allowed = {f"{public.scheme}://{public.netloc}"}
        host = request.headers.get("Host")
        if host:
            allowed.add(f"{request.scheme}://{host}")
        return origin in allowed

    # -- routes --------------------------------------------------------------------------------

    async def no_link(self, request: web.Request) -> web.Response:
        return self._forbidden("This address needs the private link your annotation lead gave you.")

    @staticmethod
    def script(text: str) -> Callable[[web.Request], Any]:
        async def handler(_request: web.Request) -> web.Response:
            return web.Response(text=text, content_type="text/javascript")

        return handler

    async def annotator_page(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        path = annotator_path(self.prefix, name)
        entered = self._enter(request, path, "annotator", name)
        if entered is not None:
            return entered
        if self._valid("annotator", name, request.cookies.get(COOKIE)) is None:
            return self._forbidden()
        response = web.Response(text=pages.annotator_page(self.spec.name, name), content_type="text/html")
        response.headers["Content-Security-Policy"] = pages.ANNOTATOR_CSP
        return response

    async def annotator_socket(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        hashed = self._valid("annotator", name, request.cookies.get(COOKIE))
        if hashed is None or not self._origin_ok(request):
            return self._forbidden()
        if sum(1 for a in self.open_apps if a.annotator == name) >= MAX_APPS_PER_LINK:
            return web.Response(status=429, text=f"{name} already has {MAX_APPS_PER_LINK} pages open")
        socket = web.WebSocketResponse(heartbeat=15, max_msg_size=STDIN_MAX * 2)
        await socket.prepare(request)
        width = _bounded(request.query.get("width"), 80, 20, 1000)
        height = _bounded(request.query.get("height"), 24, 8, 500)
        opened = OpenApp("annotator", name, hashed, socket)
        service = AppProcess(self.child_command(name), write_bytes=socket.send_bytes, write_str=socket.send_str,
                             close=socket.close, download_manager=self.downloads)
        self.open_apps.add(opened)
        self.say(f"{name}: app opened in a browser ({width}x{height}); {len(self.open_apps)} open")
        try:
            await service.start(width, height)
            await self._relay(socket, service)
        finally:
            with contextlib.suppress(Exception):
                await service.stop()
            self.open_apps.discard(opened)
            self.say(f"{name}: app closed after {time.time() - opened.started:.0f} s; {len(self.open_apps)} open")
        return socket

    def child_command(self, name: str) -> str:
        """The shell command textual-serve runs for `name`'s app (exec: the shell becomes the app)."""
        return "exec " + shlex.join([self.python, "-m", "annotate.serve.child", str(self.spec.path), name])

    @staticmethod
    async def _relay(socket: web.WebSocketResponse, service: AppService) -> None:
        """Pass what the browser sends to the app: keys, size, focus; answer pings. Anything that
        is not one of textual-serve's messages is ignored."""
        async for message in socket:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                envelope = json.loads(message.data)
            except ValueError:
                continue
            if not isinstance(envelope, list) or not envelope or not isinstance(envelope[0], str):
                continue
            kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
            if kind == "stdin" and isinstance(data, str) and len(data) <= STDIN_MAX:
                await service.send_bytes(data.encode("utf-8"))
            elif kind == "resize" and isinstance(data, dict):
                await service.set_terminal_size(_bounded(data.get("width"), 80, 20, 1000),
                                                _bounded(data.get("height"), 24, 8, 500))
            elif kind == "ping" and isinstance(data, str):
                await socket.send_json(["pong", data[:64]])
            elif kind == "blur":
                await service.blur()
            elif kind == "focus":
                await service.focus()

    async def _watch_links(self) -> None:
        """Close apps whose link has been revoked or renewed since they were opened."""
        while True:
            await asyncio.sleep(WATCH_S)
            for opened in list(self.open_apps):
                try:
                    live = live_hash(self.store, opened.role, opened.annotator)
                except Exception as exc:  # a locked or vanished file: try again next round
                    log.warning("could not check links: %s", exc)
                    break
                if not same_hash(opened.hashed, live):
                    self.say(f"{opened.annotator}: link revoked or renewed; closing the app opened with it")
                    await opened.socket.close(code=4403, message=b"link revoked")

    async def lead_page(self, request: web.Request) -> web.StreamResponse:
        path = lead_path(self.prefix)
        entered = self._enter(request, path, "lead", None)
        if entered is not None:
            return entered
        if self._valid("lead", None, request.cookies.get(COOKIE)) is None:
            return self._forbidden()
        status = await asyncio.to_thread(self._status_text)
        response = web.Response(text=pages.lead_page(self.spec.name, status), content_type="text/html")
        response.headers["Content-Security-Policy"] = pages.LEAD_CSP
        return response

    async def lead_status(self, request: web.Request) -> web.Response:
        if self._valid("lead", None, request.cookies.get(COOKIE)) is None:
            return self._forbidden()
        return web.Response(text=await asyncio.to_thread(self._status_text), content_type="text/plain")

    async def lead_report(self, request: web.Request) -> web.Response:
        if self._valid("lead", None, request.cookies.get(COOKIE)) is None:
            return self._forbidden()
        async with self._report_lock:  # one report at a time: the annotators' apps share the cores
            html = await asyncio.to_thread(self._report_html)
        response = web.Response(text=html, content_type="text/html")
        response.headers["Content-Security-Policy"] = pages.REPORT_CSP
        return response

    def _status_text(self) -> str:
        """`annotate status`, then who has the app open now and where (read on a connection of its own)."""
        from annotate.status import session_status
        from annotate.store.sittings import live_sittings

        with Store.open(self.spec.db) as store:
            lines = [session_status(self.spec, store), ""]
            sittings = live_sittings(store)
            lines.append("open now  " + ("nobody" if not sittings else ", ".join(
                f"{s.annotator} ({'browser' if s.display == 'browser' else 'terminal'}, since {s.started[11:16]} UTC)"
                for s in sittings)))
        return "\n".join(lines)

    def _report_html(self) -> str:
        from annotate.report.build import build_report
        from annotate.report.render import render

        with Store.open(self.spec.db) as store:
            return render(build_report(self.spec, store), "html")


def _bounded(value: object, default: int, low: int, high: int) -> int:
    try:
        number = int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return default
    return max(low, min(high, number))


async def serve(server: LinkServer, host: str, port: int, ready: Callable[[], None],
                stop: asyncio.Event) -> None:
    """Bind `host`:`port` (ServeError when that fails), call `ready`, serve until `stop` is set."""
    runner = web.AppRunner(server.application(), access_log_class=AccessLog, access_log=log,
                           handle_signals=False, shutdown_timeout=5.0)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except OSError as exc:
        await runner.cleanup()
        raise ServeError(_bind_error(host, port, exc)) from None
    try:
        ready()
        await stop.wait()
    finally:
        await runner.cleanup()


def _bind_error(host: str, port: int, exc: OSError) -> str:
    where = f"port {port} on {host}"
    if exc.errno == errno.EADDRINUSE:
        return f"{where} is already in use (another server?): stop it, or choose another port with --port"
    if exc.errno == errno.EACCES:
        return f"{where}: permission denied (ports below 1024 need privileges): choose another with --port"
    if exc.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT) or exc.errno is None:
        return f"--host {host}: not an address of this machine ({exc.strerror or exc})"
    return f"cannot listen on {where}: {exc.strerror or exc}"
