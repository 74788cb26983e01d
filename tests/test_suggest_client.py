"""`annotate suggest` against a real chat-completions server on loopback (tests/chat_server.py).

No part of our client is mocked: requests go over TCP to a ThreadingHTTPServer that the test
starts, which answers normally, slowly, with 500s, 429s, broken JSON, replies without a verdict,
and replies full of terminal escapes.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

import pytest
from chat_server import ChatServer
from click.testing import CliRunner
from conftest import make_item

from annotate.cli import main
from annotate.model import Item, Message, Response
from annotate.spec import SessionSpec
from annotate.store import Store
from annotate.suggest.client import ClientConfig, FatalError, retry_after_seconds
from annotate.suggest.prompts import load_prompt
from annotate.suggest.run import suggest_session

KEY = "sk-test-NEVER-STORE-9f8e7d6c5b4a"
KEY_ENV = "ANNOTATE_TEST_JUDGE_KEY"


def pair(item_id: str, good: str = "A") -> Item:
    """A pairwise item whose answers carry slot markers (the server sees the order) and GOOD on one."""
    a = f"slot-A answer {'GOOD' if good == 'A' else 'meh'}"
    b = f"slot-B answer {'GOOD' if good == 'B' else 'meh'}"
    return make_item(item_id, a=a, b=b)


def config(server: ChatServer, **kwargs: object) -> ClientConfig:
    defaults: dict[str, object] = {
        "endpoint": server.url, "model": "judge-1", "api_key_env": KEY_ENV, "timeout": 2.0,
        "max_retries": 3, "backoff_base": 0.05, "backoff_max": 0.2,
    }
    defaults.update(kwargs)
    return ClientConfig(**defaults)  # type: ignore[arg-type]


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(KEY_ENV, KEY)
    return KEY


def db_bytes(spec: SessionSpec) -> bytes:
    """Every byte of the session file and its WAL / shared-memory side files."""
    data = b""
    for suffix in ("", "-wal", "-shm"):
        path = Path(str(spec.db) + suffix)
        if path.exists():
            data += path.read_bytes()
    return data


def run(store: Store, server: ChatServer, **kwargs: object):
    prompt = load_prompt("pairwise")
    cfg_kwargs = {k: kwargs.pop(k) for k in list(kwargs) if k in ClientConfig.__dataclass_fields__}
    return suggest_session(store, prompt, config(server, **cfg_kwargs), **kwargs)  # type: ignore[arg-type]


def test_normal_run_asks_both_orders_and_stores_slot_space_verdicts(store: Store, pairwise_spec: SessionSpec) -> None:
    store.add_items([pair("i1", "A"), pair("i2", "B"), make_item("i3", a="slot-A x", b="slot-B y")])
    with ChatServer() as server:
        summary = run(store, server)
        assert (summary.stored, summary.failed, summary.consistent, summary.inconsistent) == (3, 0, 3, 0)
        assert len(server.requests) == 6
        assert {r["order"] for r in server.requests} == {"AB", "BA"}
        for request in server.requests:
            assert request["headers"]["Authorization"] == f"Bearer {KEY}"
            assert request["body"]["model"] == "judge-1"
            assert request["body"]["temperature"] == 0
            assert request["body"]["messages"][0]["role"] == "system"
    by_item = {s.item_id: s for s in store.suggestions()}
    assert (by_item["i1"].label, by_item["i1"].swapped_label) == ("A", "A")
    assert (by_item["i2"].label, by_item["i2"].swapped_label) == ("B", "B")
    assert (by_item["i3"].label, by_item["i3"].swapped_label) == ("tie", "tie")
    s = by_item["i2"]
    assert s.source_model == "judge-1" and not s.planted
    assert s.prompt_hash == load_prompt("pairwise").hash and len(s.prompt_hash) == 64
    raw = json.loads(s.raw)
    assert [r["order"] for r in raw["replies"]] == ["AB", "BA"]
    assert raw["replies"][0]["content"].endswith("[[B]]")
    assert raw["replies"][1]["content"].endswith("[[A]]")  # B was shown first, so "A" means slot B
    assert raw["replies"][1]["verdict"] == "B"
    assert KEY.encode() not in db_bytes(pairwise_spec)


def test_a_second_run_resumes_and_asks_nothing_already_done(store: Store) -> None:
    store.add_items([pair(f"i{n}") for n in range(5)])
    with ChatServer() as server:
        first = run(store, server, limit=2)
        assert (first.stored, first.skipped) == (2, 0)
        second = run(store, server)
        assert (second.stored, second.skipped, second.total) == (3, 2, 5)
        third = run(store, server)
        assert (third.stored, third.skipped) == (0, 5)
        assert len(server.requests) == 10
    assert len(store.suggestions()) == 5


def test_a_new_prompt_or_model_asks_again(store: Store, tmp_path: Path) -> None:
    store.add_items([pair("i1")])
    text = load_prompt("pairwise").user
    custom = tmp_path / "mine.txt"
    custom.write_text(f"my judge\n--- system ---\nBe strict.\n--- user ---\n{text}\n", encoding="utf-8")
    with ChatServer() as server:
        run(store, server)
        prompt = load_prompt("pairwise", custom)
        summary = suggest_session(store, prompt, config(server))
        assert summary.stored == 1
        summary = suggest_session(store, prompt, config(server, model="judge-2"))
        assert summary.stored == 1
        assert server.requests[-1]["body"]["messages"][0]["content"] == "Be strict."
    assert len({(s.source_model, s.prompt_hash) for s in store.suggestions()}) == 3


def test_slow_replies_time_out_and_are_retried(store: Store) -> None:
    store.add_items([pair("slowitem")])
    with ChatServer({"slowitem": [("judge", 1.5), ("judge", 0.0)]}) as server:
        summary = run(store, server, timeout=0.4)
        assert summary.stored == 1
        assert len(server.requests) == 4  # each order: one timed out, one answered
    raw = json.loads(store.suggestions()[0].raw)
    assert [r["attempts"] for r in raw["replies"]] == [2, 2]


def test_a_500_is_retried_then_succeeds(store: Store) -> None:
    store.add_items([pair("flaky")])
    with ChatServer({"flaky": [("status", 500, {}, "oops"), ("status", 503, {}, "busy"), ("judge", 0.0)]}) as server:
        summary = run(store, server)
        assert summary.stored == 1 and summary.failed == 0
        assert len(server.requests) == 6


def test_500s_beyond_the_retries_are_a_failure_not_a_label(store: Store) -> None:
    store.add_items([pair("down")])
    with ChatServer({"down": [("status", 500, {}, "always down")]}) as server:
        summary = run(store, server, max_retries=1)
        assert summary.stored == 0 and summary.failed == 1
        assert len(server.requests) == 4
    assert store.suggestions() == []
    failure = store.suggestion_failures()[0]
    assert "server error (HTTP 500)" in failure.error and "gave up after 2 attempts" in failure.error


def test_429_waits_for_retry_after_seconds(store: Store) -> None:
    store.add_items([pair("limited")])
    behaviour = [("status", 429, {"Retry-After": "1"}, '{"error": "slow down"}'), ("judge", 0.0)]
    with ChatServer({"limited": behaviour}) as server:
        summary = run(store, server, concurrency=1, backoff_base=0.01)
        assert summary.stored == 1
        times = [r["time"] for r in server.requests]
        assert len(times) == 4
        # the retry of the first 429 came at least a second later (not the 0.01 s backoff)
        first_429, = [r["time"] for r in server.requests[:1]]
        later = [t for t in times[1:] if t - first_429 >= 0.95]
        assert len(later) >= 2


def test_429_with_an_http_date_and_retry_after_parsing() -> None:
    now = 1_700_000_000.0
    assert retry_after_seconds("3") == 3.0
    assert retry_after_seconds(" 1.5 ") == 1.5
    assert retry_after_seconds("Tue, 14 Nov 2023 22:13:30 GMT", now=now) == pytest.approx(10.0)
    assert retry_after_seconds("Tue, 14 Nov 2023 22:13:00 GMT", now=now) == 0.0  # in the past
    assert retry_after_seconds("soon") is None
    assert retry_after_seconds(None) is None


def test_429_with_an_http_date_header_end_to_end(store: Store) -> None:
    from email.utils import formatdate

    store.add_items([make_item("dated", a="slot-A GOOD", b="slot-B")])
    when = formatdate(time.time() + 2, usegmt=True)  # whole seconds: waits 1..2 s
    behaviour = [("status", 429, {"Retry-After": when}, "{}"), ("judge", 0.0)]
    with ChatServer({"dated": behaviour}) as server:
        started = time.monotonic()
        summary = run(store, server, concurrency=2, backoff_base=0.01)
        assert summary.stored == 1
        assert time.monotonic() - started >= 0.9


def test_garbled_json_is_recorded_with_its_body_and_asked_again_next_run(store: Store) -> None:
    store.add_items([pair("garbled")])
    with ChatServer({"garbled": [("raw", '{"choices": [{"mess'), ("judge", 0.0)]}) as server:
        first = run(store, server)
        assert (first.stored, first.failed) == (0, 1)
        failure = store.suggestion_failures("garbled")[0]
        assert "not JSON" in failure.error
        assert json.loads(failure.raw)["replies"][0]["content"] == '{"choices": [{"mess'
        second = run(store, server)
        assert second.stored == 1
    assert store.suggestions()[0].label == "A"


def test_a_reply_without_a_verdict_is_a_failure_with_the_raw_reply(store: Store) -> None:
    store.add_items([pair("undecided")])
    with ChatServer({"undecided": [("text", "Both have merits; I cannot decide.")]}) as server:
        summary = run(store, server)
        assert (summary.stored, summary.failed) == (0, 1)
    failure = store.suggestion_failures()[0]
    assert "no verdict found" in failure.error
    assert "I cannot decide" in failure.raw
    assert failure.source_model == "judge-1" and failure.prompt_hash == load_prompt("pairwise").hash


def test_only_the_swapped_order_without_a_verdict_keeps_the_suggestion(store: Store) -> None:
    store.add_items([pair("half")])
    with ChatServer() as server:
        server.behaviours["half"] = [("judge", 0.0)]
        original = server._step

        def step(body: dict, headers: dict) -> tuple:
            chosen = original(body, headers)
            return ("text", "no idea") if server.requests[-1]["order"] == "BA" else chosen

        server._step = step  # type: ignore[method-assign]
        summary = run(store, server)
        assert summary.stored == 1 and summary.consistent == 0 and summary.inconsistent == 0
    s = store.suggestions()[0]
    assert (s.label, s.swapped_label) == ("A", None)
    assert "no verdict found" in json.loads(s.raw)["replies"][1]["error"]


def test_escapes_and_markup_are_stored_verbatim_and_never_printed_raw(
    pairwise_spec: SessionSpec, store: Store,
) -> None:
    nasty = "\x1b[2J\x1b]52;c;ZXZpbA==\x07[bold red]pwned[/] \u202eevil\u202c **Verdict:** [[A]]"
    store.add_items([pair("nasty")])
    with ChatServer({"nasty": [("text", nasty)]}) as server:
        summary = run(store, server)
        assert summary.stored == 1
    s = store.suggestions()[0]
    assert s.rationale == nasty
    assert json.loads(s.raw)["replies"][0]["content"] == nasty
    assert (s.label, s.swapped_label) == ("A", "B")  # always "A": position-inconsistent

    store.add_items([pair("nasty2")])
    with ChatServer({"nasty2": [("text", nasty.replace("[[A]]", "no verdict"))]}) as server:
        result = CliRunner().invoke(main, [
            "suggest", "t", "--endpoint", server.url, "--model", "judge-1", "--api-key-env", KEY_ENV,
        ])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\u202e" not in result.output
    assert "1 without a verdict" in result.output


def test_position_inconsistent_judge_is_counted(store: Store) -> None:
    store.add_items([pair("i1"), pair("i2", "B")])
    with ChatServer(default=[("text", "[[A]]")]) as server:
        summary = run(store, server)
    assert (summary.consistent, summary.inconsistent) == (0, 2)
    assert {(s.label, s.swapped_label) for s in store.suggestions()} == {("A", "B")}


def test_concurrency_bounds_requests_in_flight(store: Store) -> None:
    store.add_items([pair(f"c{n}") for n in range(8)])
    with ChatServer(default=[("judge", 0.25)]) as server:
        summary = run(store, server, concurrency=4)
    assert summary.stored == 8
    # 16 requests that each take 0.25 s on the server: several run at once, never more than 4
    # (counted by the server, not timed, so a busy machine cannot make it fail)
    assert 2 <= server.most_in_flight <= 4


def test_unauthorized_stops_the_run_and_never_shows_the_key(store: Store, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    store.add_items([pair(f"u{n}") for n in range(3)])
    with ChatServer(default=[("status", 401, {}, '{"error": "bad key"}')]) as server:
        with pytest.raises(FatalError) as info:
            run(store, server)
        assert "refused the API key" in str(info.value)
        assert KEY not in str(info.value)
        result = CliRunner().invoke(main, [
            "suggest", "t", "--endpoint", server.url, "--model", "judge-1", "--api-key-env", KEY_ENV,
        ])
    assert result.exit_code == 1
    assert "refused the API key" in result.output
    assert KEY not in result.output
    assert KEY not in caplog.text
    assert store.suggestions() == []


def test_an_unset_key_variable_fails_before_any_request(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_ENV)
    store.add_items([pair("i1")])
    with ChatServer() as server:
        result = CliRunner().invoke(main, [
            "suggest", "t", "--endpoint", server.url, "--model", "judge-1", "--api-key-env", KEY_ENV,
        ])
        assert server.requests == []
    assert result.exit_code == 1
    assert f"environment variable {KEY_ENV} is not set" in result.output


def test_no_key_variable_sends_no_authorization(store: Store) -> None:
    store.add_items([pair("i1")])
    with ChatServer() as server:
        summary = run(store, server, api_key_env=None)
        assert summary.stored == 1
        assert all("Authorization" not in r["headers"] for r in server.requests)


def test_an_unreachable_server_stops_after_a_streak(store: Store) -> None:
    store.add_items([pair(f"x{n}") for n in range(8)])
    with ChatServer() as server:
        url = server.url
    summary = suggest_session(
        store, load_prompt("pairwise"),
        ClientConfig(endpoint=url, model="m", max_retries=0, timeout=1.0), concurrency=1,
    )
    assert summary.stored == 0
    assert "unavailable for 5 items in a row" in summary.aborted
    assert "cannot reach" in store.suggestion_failures()[0].error


def test_single_grades(project: Path) -> None:
    from annotate.session import create_session, open_store

    spec = create_session("g", "single", seed=1, folder=project / "sessions")
    items = [
        Item(id=f"s{g}", kind="single", conversation=(Message("user", "q"),),
             responses=(Response("A", f"answer GRADE={g}"),))
        for g in (3, 9)
    ] + [Item(id="off", kind="single", conversation=(Message("user", "q"),), responses=(Response("A", "GRADE=12"),))]
    with open_store(spec) as store, ChatServer() as server:
        store.add_items(items)
        summary = suggest_session(store, load_prompt("single", scale=(1, 10)), config(server), scale=(1, 10))
        assert (summary.stored, summary.failed) == (2, 1)
        assert len(server.requests) == 3
        assert "from 1 to 10" in server.requests[0]["body"]["messages"][1]["content"]
        assert {s.item_id: s.label for s in store.suggestions()} == {"s3": "3", "s9": "9"}
        assert all(s.swapped_label is None for s in store.suggestions())
        assert "off the scale" in store.suggestion_failures()[0].error


def test_cli_suggest_with_progress_and_summary(store: Store, pairwise_spec: SessionSpec) -> None:
    store.add_items([pair("i1"), pair("i2", "B")])
    with ChatServer() as server:
        result = CliRunner().invoke(main, [
            "suggest", "t", "--endpoint", server.url + "/chat/completions", "--model", "judge-1",
            "--api-key-env", KEY_ENV, "--concurrency", "2",
        ])
    assert result.exit_code == 0, result.output
    assert "asked about 2 items: 2 suggestions, 0 without a verdict, 0 without a reply; 0 already done (of 2)" \
        in result.output
    assert "position consistency: 2 of 2" in result.output
    assert KEY not in result.output
    assert KEY.encode() not in db_bytes(pairwise_spec)


def test_cli_print_prompt_and_usage_errors(store: Store) -> None:
    result = CliRunner().invoke(main, ["suggest", "t", "--print-prompt"])
    assert result.exit_code == 0
    assert "--- system ---" in result.output and "{answer_a}" in result.output
    result = CliRunner().invoke(main, ["suggest", "t"])
    assert result.exit_code == 2 and "--endpoint and --model are required" in result.output
    result = CliRunner().invoke(main, ["suggest", "t", "--endpoint", "ftp://x", "--model", "m"])
    assert result.exit_code == 1 and "expected an http(s) URL" in result.output


def test_a_failed_request_is_counted_apart_from_a_reply_without_a_verdict(store: Store) -> None:
    store.add_items([pair("fine"), pair("mute"), pair("refused"), pair("broken")])
    behaviours = {
        "mute": [("text", "Both have merits.")],
        "refused": [("status", 400, {}, '{"error": "context too long"}')],
        "broken": [("raw", "<html>proxy error</html>")],
    }
    with ChatServer(behaviours) as server:
        summary = run(store, server)
    assert (summary.stored, summary.no_verdict, summary.request_failed, summary.failed) == (1, 1, 2, 3)
    assert [e.split(":")[0] for e in summary.errors] == ["mute"]
    assert sorted(e.split(":")[0] for e in summary.request_errors) == ["broken", "refused"]
    assert {f.item_id for f in store.suggestion_failures()} == {"mute", "refused", "broken"}


def test_cli_says_an_unreachable_server_gave_no_reply_not_no_verdict(store: Store) -> None:
    store.add_items([pair("e1"), pair("e2")])
    with ChatServer() as server:
        url = server.url  # closed when the block ends: nothing listens there any more
    result = CliRunner().invoke(main, [
        "suggest", "t", "--endpoint", url, "--model", "judge-1", "--max-retries", "0", "--timeout", "2",
    ])
    assert result.exit_code == 0, result.output
    assert (
        "asked about 2 items: 0 suggestions, 0 without a verdict, 2 without a reply"
        " (server unreachable or HTTP error); 0 already done (of 2)"
    ) in result.stdout
    assert "no verdict" not in result.stderr
    assert "  no reply: e1: cannot reach" in result.stderr and "  no reply: e2: cannot reach" in result.stderr


def test_cli_summary_for_one_item_is_singular(store: Store) -> None:
    store.add_items([pair("only")])
    with ChatServer() as server:
        result = CliRunner().invoke(main, ["suggest", "t", "--endpoint", server.url, "--model", "judge-1",
                                           "--api-key-env", KEY_ENV])
    assert result.exit_code == 0, result.output
    assert "asked about 1 item: 1 suggestion, 0 without a verdict, 0 without a reply;" in result.stdout
    assert "position consistency: 1 of 1 item got the same verdict" in result.stdout


def test_a_reply_nested_too_deeply_is_a_failed_reply_not_a_traceback(store: Store) -> None:
    store.add_items([pair("deep")])
    deep = "[" * 200_000 + "]" * 200_000
    with ChatServer({"deep": [("raw", deep)]}) as server:
        summary = run(store, server, max_retries=0)
    assert (summary.stored, summary.request_failed) == (0, 1)
    (failure,) = store.suggestion_failures("deep")
    assert "nested too deeply" in failure.error
