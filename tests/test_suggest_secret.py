"""The judge's API key never reaches the session file or the terminal, however a server echoes
it and even when the key itself is passed where its variable's name belongs; and every
suggestion carries the settings it was asked with.

End to end against the loopback server (tests/chat_server.py), whose `leak` step puts the
Authorization header into one field of an otherwise normal reply.
"""

from __future__ import annotations

import json
import logging
import traceback
from pathlib import Path

import pytest
from chat_server import LEAK_PLACES, ChatServer
from click.testing import CliRunner
from conftest import make_item

from annotate.cli import main
from annotate.spec import SessionSpec
from annotate.store import Store
from annotate.suggest.client import ChatClient, ClientConfig, FatalError
from annotate.suggest.prompts import load_prompt
from annotate.suggest.run import suggest_session
from annotate.suggest.secret import PLACEHOLDER, Redactor, env_var_problem, looks_like_key

KEY = "sk-live-Secret-KEY-7d6c5b4a39281706"
KEY_ENV = "ANNOTATE_TEST_SECRET_KEY"


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)


def session_bytes(spec: SessionSpec) -> bytes:
    data = b""
    for suffix in ("", "-wal", "-shm"):
        path = Path(str(spec.db) + suffix)
        if path.exists():
            data += path.read_bytes()
    return data


def assert_no_key(data: bytes | str) -> None:
    """Neither the key in any case nor any 12 characters of it in a row."""
    text = (data.decode("utf-8", "replace") if isinstance(data, bytes) else data).lower()
    key = KEY.lower()
    assert not any(key[i : i + 12] in text for i in range(len(key) - 11))


def pair(item_id: str) -> object:
    return make_item(item_id, a="slot-A answer GOOD", b="slot-B answer meh")


def run(store: Store, server: ChatServer, **config: object):
    settings: dict[str, object] = {"endpoint": server.url, "model": "judge-1", "api_key_env": KEY_ENV,
                                   "timeout": 5.0, "max_retries": 0}
    settings.update(config)
    return suggest_session(store, load_prompt("pairwise"), ClientConfig(**settings))  # type: ignore[arg-type]


# -- scrubbing ---------------------------------------------------------------------------------------------

def test_a_key_echoed_in_any_field_in_any_case_is_never_stored(store: Store, pairwise_spec: SessionSpec) -> None:
    behaviours = {}
    for place in LEAK_PLACES:
        for case in ("same", "upper", "lower", "partial"):
            behaviours[f"leak-{place}-{case}"] = [("leak", place, case)]
    behaviours["err-upper"] = [("status", 400, {}, json.dumps({"error": f"bad: BEARER {KEY.upper()}"}))]
    behaviours["err-nested"] = [("status", 422, {}, json.dumps({"detail": [{"loc": ["header", KEY.lower()]}]}))]
    behaviours["verdict-cut"] = [("text", f"Key {KEY[:14]}... seen. [[A]]")]
    store.add_items([pair(key) for key in behaviours])
    with ChatServer(behaviours) as server:
        summary = run(store, server)
    assert summary.stored == len(behaviours) - 2 and summary.request_failed == 2
    kept = {s.item_id: s.raw + s.rationale for s in store.suggestions()}
    kept.update({f.item_id: f.raw + f.error for f in store.suggestion_failures()})
    for item_id, text in kept.items():
        assert_no_key(text)
        if not item_id.startswith(("leak-id", "leak-usage")):  # fields we keep: the key replaced in them
            assert PLACEHOLDER in text, item_id
    assert_no_key(session_bytes(pairwise_spec))
    leaked_model = json.loads(next(s.raw for s in store.suggestions() if s.item_id == "leak-model-upper"))
    assert leaked_model["replies"][0]["model"] == f"judge-1 BEARER {PLACEHOLDER}"


def test_redactor_replaces_every_variant_at_any_depth() -> None:
    redact = Redactor("ab/cd+ef=gh-IJKLMNOPqrst")
    assert redact.text("x ab/cd+ef=gh-IJKLMNOPqrst y") == f"x {PLACEHOLDER} y"
    assert redact.text("AUTHORIZATION: BEARER AB/CD+EF=GH-IJKLMNOPQRST") == f"AUTHORIZATION: BEARER {PLACEHOLDER}"
    assert redact.text("url ab%2Fcd%2Bef%3Dgh-IJKLMNOPqrst") == f"url {PLACEHOLDER}"
    assert redact.text('json "ab\\/cd+ef=gh-IJKLMNOPqrst"') == f'json "{PLACEHOLDER}"'
    assert redact.text("cut ab/cd+ef=gh-I...") == f"cut {PLACEHOLDER}..."  # 12 characters or more of it
    assert redact.text("masked ab/cd+****OPqrst") == "masked ab/cd+****OPqrst"  # shorter pieces are noise
    value = {"a": [{"ab/cd+ef=gh-IJKLMNOPqrst": ("Bearer ab/cd+ef=gh-ijklmnopqrst", 3)}], "n": None}
    assert redact.value(value) == {"a": [{PLACEHOLDER: [f"Bearer {PLACEHOLDER}", 3]}], "n": None}
    assert Redactor(None).text("anything") == "anything"
    assert "ab/cd" not in repr(redact)


# -- the key passed as --api-key-env -------------------------------------------------------------------

@pytest.mark.parametrize("value", [KEY, "sk-proj-" + "a1B2c3D4e5" * 4, "hf_AbCdEfGh1234IjKl5678MnOp",
                                   "3f2a9c1e7b4d4e0f9a8b6c5d4e3f2a1b", f"Bearer {KEY}"])
def test_a_key_passed_as_the_variable_name_is_refused_and_never_shown(
    store: Store, pairwise_spec: SessionSpec, value: str, caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    store.add_items([pair("i1")])
    with ChatServer() as server:
        result = CliRunner().invoke(main, ["suggest", "t", "--endpoint", server.url, "--model", "judge-1",
                                           "--api-key-env", value])
        assert server.requests == []
    assert result.exit_code == 1
    assert "looks like a key, not a variable name" in result.output
    assert value not in result.output and value[:12] not in result.output
    assert value not in caplog.text
    assert store.suggestion_failures() == [] and store.suggestions() == []
    assert value.encode() not in session_bytes(pairwise_spec)


def test_the_core_refuses_a_key_as_variable_name_without_it_in_the_traceback(store: Store) -> None:
    config = ClientConfig(endpoint="http://127.0.0.1:9/v1", model="m", api_key_env=KEY)
    assert KEY not in repr(config)
    with pytest.raises(FatalError) as info:
        ChatClient(config)
    assert "looks like a key, not a variable name" in str(info.value)
    assert KEY not in "".join(traceback.format_exception(info.value))
    store.add_items([pair("i1")])
    with pytest.raises(FatalError):
        suggest_session(store, load_prompt("pairwise"), config)
    assert store.suggestion_failures() == []


@pytest.mark.parametrize(("value", "key_like"), [
    ("OPENAI_API_KEY", False), ("ANTHROPIC_API_KEY", False), ("hf_api_token_v2", False), ("MyJudgeKey", False),
    ("MY_KEY_2024_V2_PROD", False), ("myServiceApiKeyForProd", False), ("abcdefghijklmnopqrstuvwxyz", False),
    (KEY, True), ("sk-ant-api03-abcDEF123", True), ("ghp_16C7e42F292c6912E7710c838347Ae178B4a", True),
    ("3f2a9c1e7b4d4e0f9a8b6c5d4e3f2a1b", True), ("Bearer x", True),
])
def test_what_looks_like_a_key(value: str, key_like: bool) -> None:
    assert looks_like_key(value) is key_like
    problem = env_var_problem(value)
    assert (problem is not None and "looks like a key" in problem) is key_like
    assert problem is None or value not in problem


def test_a_name_that_is_not_a_variable_name_is_refused_without_repeating_it() -> None:
    for value in ("my key", "MY-KEY", "1ABC", "sk-abc"):
        problem = env_var_problem(value)
        assert problem is not None and "not an environment variable name" in problem and value not in problem


# -- settings stored with each suggestion and failure (issue 11) ---------------------------------------

def test_the_settings_of_each_request_are_stored_with_suggestions_and_failures(store: Store) -> None:
    store.add_items([pair("ok"), pair("mute"), pair("refused")])
    behaviours = {"mute": [("text", "I cannot decide.")], "refused": [("status", 400, {}, "{}")]}
    with ChatServer(behaviours, served_model="judge-1-q4_k_m") as server:
        run(store, server, max_tokens=300, temperature=0.2)
        bodies = [r["body"] for r in server.requests]
    sent = {k: v for k, v in bodies[0].items() if k != "messages"}
    assert sent == {"model": "judge-1", "temperature": 0.2, "max_tokens": 300, "stream": False}
    prompt = load_prompt("pairwise")
    from annotate import __version__

    raws = [json.loads(s.raw) for s in store.suggestions()] + [json.loads(f.raw) for f in store.suggestion_failures()]
    assert len(raws) == 3
    for raw in raws:
        assert raw["request"] == sent  # exactly what was sent, but the messages
        assert raw["prompt"] == {"hash": prompt.hash, "source": "shipped:pairwise"}
        assert raw["endpoint"] == server.url + "/chat/completions"
        assert raw["annotate"] == __version__
    (ok,) = [json.loads(s.raw) for s in store.suggestions()]
    for reply in ok["replies"]:
        assert reply["model"] == "judge-1-q4_k_m"  # as the server names it, beside the name asked for
        assert reply["finish_reason"] == "stop"
        assert reply["usage"] == {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        assert reply["system_fingerprint"] == "fp-test-1"
    mute = json.loads(store.suggestion_failures("mute")[0].raw)
    assert mute["reason"] == "no_verdict" and mute["replies"][0]["model"] == "judge-1-q4_k_m"
    refused = json.loads(store.suggestion_failures("refused")[0].raw)
    assert refused["reason"] == "request_failed"
