"""The core never loads Textual, nor the web server's aiohttp and textual-serve: a fresh interpreter
imports every core module and checks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = """
import importlib, pkgutil, sys
import annotate

def core_modules(path, prefix):
    # Walk the package tree by hand: pkgutil.walk_packages would import annotate.tui to descend.
    for info in pkgutil.iter_modules(path, prefix):
        if info.name.startswith(("annotate.tui", "annotate.cli", "annotate.serve", "annotate.__main__")):
            continue
        yield info.name
        if info.ispkg:
            module = importlib.import_module(info.name)
            yield from core_modules(module.__path__, info.name + ".")

names = list(core_modules(annotate.__path__, "annotate."))
for name in names:
    importlib.import_module(name)
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "textual_serve", "aiohttp"))
print(len(names), "core modules;", "textual loaded:" if loaded else "textual not loaded", *loaded[:5])
sys.exit(1 if loaded else 0)
"""


def test_core_imports_without_textual() -> None:
    result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "textual not loaded" in result.stdout


def test_serve_links_load_no_web_server() -> None:
    """`annotate serve --link NAME` (issuing a link) needs neither the server nor the app."""
    code = (
        "import sys\nimport annotate.serve.links, annotate.store.links\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'textual', 'textual_serve', 'aiohttp', 'pandas'}))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_cli_help_does_not_load_textual_or_pandas() -> None:
    code = (
        "import sys\nfrom click.testing import CliRunner\nfrom annotate.cli import main\n"
        "r = CliRunner().invoke(main, ['--help'])\nassert r.exit_code == 0, r.output\n"
        "print(sorted(m for m in ('textual', 'pandas') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


APP_TO_FIRST_ITEM = """
import sys
from pathlib import Path
from annotate.model import Item, Message, Response
from annotate.session import create_session, open_store
from annotate.tui import make_app
spec = create_session("s", "pairwise", folder=Path(sys.argv[1]))
with open_store(spec) as store:
    store.add_items([Item(id=f"i{k}", kind="pairwise", conversation=(Message("user", f"prompt {k}"),),
                          responses=(Response("A", "left", "m-a"), Response("B", "right", "m-b"))) for k in range(5)])
    app = make_app(spec, store, "alice", open_guideline=False)
    app.painted_hooks.append(lambda ns: app.exit())
    app.run(headless=True, size=(80, 24))
print(sorted(m for m in ("numpy", "pandas") if m in sys.modules))
"""


def test_the_app_paints_its_first_item_without_numpy_or_pandas(tmp_path: Path) -> None:
    """A new annotator's start (the default queue written, the first item painted) imports neither:
    sqlite-utils's eager imports of both are hidden (store/_sqlite_utils.py), ~0.35 s of every start."""
    result = subprocess.run([sys.executable, "-c", APP_TO_FIRST_ITEM, str(tmp_path)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_starting_the_app_does_not_import_pandas() -> None:
    code = "import sys\nimport annotate.tui.app\nprint('pandas' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"
