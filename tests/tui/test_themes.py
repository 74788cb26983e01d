"""Light and dark themes (--theme, t) and NO_COLOR: the chosen answer stays marked in text in each."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from annotate.cli import main
from annotate.tui import make_app
from annotate.tui.themes import theme_name
from tests.tui.conftest import make_session, screen_render


def test_theme_names() -> None:
    assert theme_name("light") == "textual-light" and theme_name("Dark") == "textual-dark"
    assert theme_name("nord") == "nord"
    with pytest.raises(ValueError, match=r"--theme 'nrod': not a theme \(did you mean \"nord\"\?\)"):
        theme_name("nrod")


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_theme_option_and_key(tmp_path: Path, size) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False, theme="light")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        assert app.theme == "textual-light" and not app.current_theme.dark
        await pilot.press("1")
        await pilot.pause()
        light_text, light_raw = screen_render(app)
        assert "▶ 1  Left better ◀" in light_text
        await pilot.press("t")
        await pilot.pause()
        assert app.current_theme.dark
        dark_text, dark_raw = screen_render(app)
        assert "▶ 1  Left better ◀" in dark_text and dark_raw != light_raw
        await pilot.press("q")
        await pilot.pause()
    assert [e.payload["theme"] for e in store.events() if e.kind == "theme.switch"] == ["textual-dark"]
    store.close()


async def test_no_color_renders_in_monochrome_and_keeps_the_text_marks(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("2", "c", "4")
        await pilot.pause()
        text, _raw = screen_render(app)
        assert app.no_color
        assert "▶ 2  Right better ◀" in text and "Confidence ▶4/5◀" in text
    store.close()


def test_a_bad_theme_is_refused_before_the_session_is_opened(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    store.close()
    result = CliRunner().invoke(main, ["start", str(spec.path), "--annotator", "alice", "--theme", "nrod"])
    assert result.exit_code != 0
    assert "--theme 'nrod': not a theme" in result.output and len(result.output.strip().splitlines()) == 1
