"""`annotate serve` in a real browser: Debian's headless Chromium driven by Playwright.

Opens an annotator's private link, waits for the first item, judges three items with keys and
checks the session file; a wrong secret gets a 403; two annotators work in two pages at once, and
one link opened in a second page is told the queue is open elsewhere; the lead's page shows the
status and the report. Screenshots stay in each test's temporary folder (their paths are printed;
`pytest -s` shows them, `pytest --basetemp=DIR` keeps them somewhere chosen).

Skipped, saying why, only where no Chromium is installed (.ci/run installs Debian's package).
Nothing is installed at run time and Playwright's own browser download is never used.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from serve_util import ServeProcess, chromium_missing, launch_chromium, planned_session, screen_text, wait_for_screen

from annotate.session import open_store
from annotate.store.links import issue_link

pytestmark = pytest.mark.skipif(chromium_missing() is not None, reason=chromium_missing() or "")


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = launch_chromium(playwright)
        yield launched
        launched.close()


@pytest.fixture
def spec(project: Path):
    return planned_session(project, ["alice", "bob"], items=6)


def link(spec, base: str, name: str | None) -> tuple[str, str]:
    """A new private link (and its secret) for `name`, or the lead's for None."""
    with open_store(spec) as store:
        issued = issue_link(store, "annotator", name) if name else issue_link(store, "lead")
    path = f"/a/{name}" if name else "/lead"
    return f"{base}{path}?key={issued.secret}", issued.secret


def open_page(browser, url: str):
    from serve_util import SCREEN_HOOK

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.add_init_script(SCREEN_HOOK)
    response = page.goto(url)
    return context, page, response


def judge(page, position: int, key: str = "1") -> None:
    """On item `position` (1-based): choose `key`, then submit with Enter."""
    wait_for_screen(page, f"Item {position} of")
    page.keyboard.press(key)
    wait_for_screen(page, "Enter  submit")
    page.keyboard.press("Enter")


def shoot(page, path: Path) -> None:
    page.screenshot(path=str(path))
    print(f"screenshot: {path}")


def test_an_annotator_judges_three_items_in_a_browser(browser, spec, tmp_path: Path) -> None:
    with ServeProcess(spec, tmp_path) as server:
        url, secret = link(spec, server.base, "alice")
        context, page, response = open_page(browser, url)
        try:
            assert response.status == 200 and page.url == f"{server.base}/a/alice"  # the key left the address bar
            wait_for_screen(page, "Item 1 of 6")
            assert secret not in page.content() and secret not in page.url
            assert page.evaluate("() => document.cookie") == ""  # HttpOnly: no script on the page reads it
            shoot(page, tmp_path / "browser-first-item.png")
            page.click("#terminal")
            wait_for_screen(page, "Guideline")  # open on an annotator's first item: close it
            page.keyboard.press("g")
            for position in (1, 2, 3):
                judge(page, position, "1" if position != 2 else "2")
            wait_for_screen(page, "Item 4 of 6")
            wait_for_screen(page, "3 of 6 done")
            shoot(page, tmp_path / "browser-after-three.png")
            page.keyboard.press("q")
            page.wait_for_selector("#ended", state="visible", timeout=30_000)
        finally:
            context.close()
        deadline = time.monotonic() + 30
        while server.children() and time.monotonic() < deadline:
            time.sleep(0.1)
    with open_store(spec) as store:
        judgments = store.judgments("alice")
        assert len(judgments) == 3
        assert all(j.label in ("A", "B") for j in judgments)  # slot space, as in the terminal
        assert all(j.timings.submit_ms is not None and j.timings.submit_ms > 0 for j in judgments)
        sitting = store.db.execute(
            "SELECT s.id, s.display, s.end_reason FROM sittings s JOIN annotators n ON n.id = s.annotator_id"
            " WHERE n.name = 'alice'").fetchall()
        assert [(display, reason) for _, display, reason in sitting] == [("browser", "quit")]
        assert {r[0] for r in store.db.execute("SELECT sitting_id FROM judgments")} == {sitting[0][0]}
        assert store.events()
    assert secret not in server.log()
    assert (tmp_path / "browser-after-three.png").stat().st_size > 10_000


def test_a_wrong_secret_gets_403_and_starts_nothing(browser, spec, tmp_path: Path) -> None:
    with ServeProcess(spec, tmp_path) as server:
        link(spec, server.base, "alice")
        context, page, response = open_page(browser, f"{server.base}/a/alice?key=not-the-secret")
        try:
            assert response.status == 403
            assert "403 Forbidden" in page.inner_text("body")
            shoot(page, tmp_path / "browser-403.png")
            context.close()
            context, page, response = open_page(browser, f"{server.base}/a/alice")
            assert response.status == 403  # no link at all
            time.sleep(1)
            assert server.children() == []
        finally:
            context.close()


def test_two_annotators_at_once_and_one_link_opened_twice(browser, spec, tmp_path: Path) -> None:
    with ServeProcess(spec, tmp_path) as server:
        alice_url, _ = link(spec, server.base, "alice")
        bob_url, _ = link(spec, server.base, "bob")
        alice = open_page(browser, alice_url)
        bob = open_page(browser, bob_url)
        try:
            for _, page, _ in (alice, bob):
                wait_for_screen(page, "Item 1 of 6")
                page.click("#terminal")
                page.keyboard.press("g")
            for _, page, _ in (alice, bob):
                page.keyboard.press("1")
            for _, page, _ in (alice, bob):
                wait_for_screen(page, "Enter  submit")
                page.keyboard.press("Enter")
            for _, page, _ in (alice, bob):
                wait_for_screen(page, "1 of 6 done")
            again = open_page(browser, alice_url)  # alice's link in a second page: one sitting at a time
            try:
                wait_for_screen(again[1], "alice already has this session open in a browser")
                shoot(again[1], tmp_path / "browser-open-elsewhere.png")
                assert "Item 2 of 6" in screen_text(alice[1])  # the first page goes on untouched
            finally:
                again[0].close()
            for _, page, _ in (alice, bob):
                page.keyboard.press("q")
                page.wait_for_selector("#ended", state="visible", timeout=30_000)
        finally:
            alice[0].close()
            bob[0].close()
    with open_store(spec) as store:
        assert len(store.judgments("alice")) == 1 and len(store.judgments("bob")) == 1
        displays = store.db.execute("SELECT display, count(*) FROM sittings GROUP BY display").fetchall()
        assert displays == [("browser", 2)]  # the refused second page opened no sitting


def test_the_lead_sees_status_and_report(browser, spec, tmp_path: Path) -> None:
    with ServeProcess(spec, tmp_path) as server:
        url, secret = link(spec, server.base, None)
        context, page, response = open_page(browser, url)
        try:
            assert response.status == 200 and page.url == f"{server.base}/lead"
            assert "alice" in page.inner_text("#status")
            frame = page.frame_locator("#report")
            assert "annotate report: s" in frame.locator("body").inner_text(timeout=60_000)
            page.click("#regenerate")
            assert "annotate report: s" in frame.locator("body").inner_text(timeout=60_000)
            assert secret not in page.content()
            shoot(page, tmp_path / "browser-lead.png")
        finally:
            context.close()
