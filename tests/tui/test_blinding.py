"""Blinding (issue 7, point 5): walk every screen of sessions whose secrets the test knows, and scan
what is rendered.

The secrets: model names chosen so they cannot appear by accident (`zqx-model-alpha`, ...), item ids
that contain a model name, the category, metadata, gold, the suggestion's judge model, rationale
and raw reply, and another annotator's name and rationale. Scanned on each screen: the text of the
full screen update (what the terminal gets) and every line of every pane (`DocView.full_lines()`,
the rows not in view included).

Screens: the pairwise screen (guideline open, closed; rationale box, confidence prompt, zoomed pane,
revising an answered item), help, the skip dialog, the finished dialog, at 160x48 and at 80x24; the
grade and rubric screens; suggestion modes none / upfront / after / on_request, before and after
the first answer or the reveal; the adjudication screen (where, and only where, other annotators'
names, labels and rationales may appear). A suggestion must show exactly as its condition says.
"""

from __future__ import annotations

from pathlib import Path

from annotate.model import Assignment, Item, Judgment, Message, Response, Suggestion, Timings
from annotate.plan import Rates, apply_plan
from annotate.session import create_session, open_store
from annotate.spec import SessionSpec
from annotate.store import Store
from annotate.tui import make_app
from annotate.tui.app import AnnotateApp
from annotate.tui.screens.adjudicate import make_adjudication_app
from annotate.tui.screens.finished import FinishedDialog
from annotate.tui.screens.help import HelpScreen
from annotate.tui.screens.skip import SkipDialog
from annotate.tui.widgets.doc_view import DocView

MODELS = ("zqx-model-alpha", "zqx-model-beta")
JUDGE = "zqx-judge-gamma"
OTHER = "bobzqx"
"""Another annotator, judging the same items."""
SECRETS = (
    *MODELS, JUDGE, OTHER, "zqx-category", "zqx-meta-value", "zqx-suggestion-rationale", "zqx-suggestion-raw",
    "zqx-rationale-of-bob", "zqx-item",
)
T = Timings("2026-11-30T10:00:00+00:00", 10, 500, 400)


def item(i: int, kind: str = "pairwise") -> Item:
    responses = (Response("A", f"Answer A{i}: use reversed().", MODELS[0]),
                 Response("B", f"Answer B{i}: call xs.reverse().", MODELS[1]))
    return Item(
        id=f"zqx-item-{MODELS[i % 2]}-{i:03d}", kind=kind,
        conversation=(Message("user", f"Question {i}: how do I reverse a list?"),),
        responses=responses if kind == "pairwise" else responses[:1],
        category="zqx-category", gold="A" if kind == "pairwise" and i == 0 else None,
        metadata={"model_a": MODELS[0], "source": "zqx-meta-value"},
    )


def session(tmp_path: Path, kind: str = "pairwise", n: int = 6) -> tuple[SessionSpec, Store]:
    spec = create_session("blind", kind, seed=5, folder=tmp_path / "sessions")
    store = open_store(spec)
    store.add_items([item(i, kind) for i in range(n)])
    return spec, store


def rendered(app: AnnotateApp) -> str:
    """The text of the full screen update, and every line of every pane of the item screen."""
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    texts = ["".join(strip.text for strip in line) for line in update.strips]
    screens = [app.screen, *app.screen_stack]
    for screen in screens:
        for view in screen.query(DocView):
            texts.extend(strip.text for strip in view.full_lines())
    return "\n".join(texts)


def blind(app: AnnotateApp, where: str, allowed: tuple[str, ...] = ()) -> str:
    text = rendered(app)
    assert "Question" in text and "Answer" in text, f"{where}: the scan does not see the item"
    for secret in SECRETS:
        if secret not in allowed:
            assert secret not in text, f"{where}: {secret!r} is on screen"
    return text


def other_annotator_judges_everything(store: Store) -> None:
    ids = store.item_ids()
    assignments = store.add_assignments([Assignment(0, OTHER, item_id, k) for k, item_id in enumerate(ids)])
    for a in assignments:
        store.submit(Judgment(a.id, "B", T, rationale="zqx-rationale-of-bob", confidence=5))


async def test_pairwise_screens_dialogs_and_sizes(tmp_path: Path) -> None:
    spec, store = session(tmp_path, n=3)
    other_annotator_judges_everything(store)
    store.add_suggestions([Suggestion(i, JUDGE, "A", "zqx-suggestion-rationale", raw="zqx-suggestion-raw")
                           for i in store.item_ids()])  # stored, linked to nothing: never shown
    for size in ((160, 48), (80, 24)):
        app = make_app(spec, store, f"alice{size[0]}")
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            assert "Guideline" in blind(app, "first item, guideline open")
            await pilot.press("g")
            await pilot.pause()
            blind(app, "guideline closed")
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            blind(app, "help")
            await pilot.press("escape", "s")
            await pilot.pause()
            assert isinstance(app.screen, SkipDialog)
            blind(app, "skip dialog")
            await pilot.press("escape", "r")
            await pilot.pause()
            blind(app, "rationale box")
            await pilot.press("enter", "c")
            await pilot.pause()
            blind(app, "confidence prompt")
            await pilot.press("escape", "z")
            await pilot.pause()
            blind(app, "zoomed pane")
            await pilot.press("z", "1", "enter", "2", "enter")
            await pilot.pause()
            blind(app, "third item")
            await pilot.press("b")
            await pilot.pause()
            blind(app, "revising an answered item")
            await pilot.press("enter", "3", "enter")
            await pilot.pause()
            assert isinstance(app.screen, FinishedDialog)
            blind(app, "finished")
            await pilot.press("q")
            await pilot.pause()
    store.close()


async def test_grade_and_rubric_screens(tmp_path: Path) -> None:
    for kind, keys in (("single", ("7", "enter")), ("rubric", ("4", "3", "2", "1", "0", "enter"))):
        spec, store = session(tmp_path / kind, kind=kind, n=2)
        if kind == "single":
            other_annotator_judges_everything(store)
        app = make_app(spec, store, "gina")
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            blind(app, f"{kind}: first item, guideline open")
            await pilot.press("g", "question_mark")
            await pilot.pause()
            blind(app, f"{kind}: help")
            await pilot.press("escape", *keys)
            await pilot.pause()
            blind(app, f"{kind}: second item")
            await pilot.press(*keys)
            await pilot.pause()
            blind(app, f"{kind}: finished")
        store.close()


async def test_suggestions_show_only_as_their_condition_says_and_never_their_model(tmp_path: Path) -> None:
    spec, store = session(tmp_path, n=4)
    other_annotator_judges_everything(store)
    ids = store.item_ids()
    suggestions = store.add_suggestions([
        Suggestion(i, JUDGE, "A", "zqx-suggestion-rationale", raw="zqx-suggestion-raw") for i in ids])
    conditions = ["none", "upfront", "after", "on_request"]
    store.add_assignments([
        Assignment(0, "ann", item_id, k, swapped=bool(k % 2), condition=c, suggestion_id=s.id)
        for k, (item_id, c, s) in enumerate(zip(ids, conditions, suggestions, strict=True))
    ])
    store.set_meta("plan_hash", "test")
    app = make_app(spec, store, "ann", open_guideline=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        # none: never, not on the reveal key, not after a first answer
        assert "Suggestion" not in blind(app, "none")
        await pilot.press("a", "1")
        await pilot.pause()
        assert "Suggestion" not in blind(app, "none, after a and a label")
        await pilot.press("enter")
        await pilot.pause()
        # upfront: with the item, at once, in side space (the second item is swapped: slot A is Right)
        assert "Suggestion: Right better" in blind(app, "upfront")
        await pilot.press("2", "enter")
        await pilot.pause()
        # after: not before the first answer; after it, yes
        assert "Suggestion" not in blind(app, "after, before the first answer")
        await pilot.press("2", "enter")
        await pilot.pause()
        assert "Suggestion: Left better" in blind(app, "after, once the first answer is in")
        await pilot.press("enter")
        await pilot.pause()
        # on_request: offered, not shown, until a
        text = blind(app, "on_request, before the reveal")
        assert "Press a to see a suggestion" in text and "Suggestion:" not in text
        await pilot.press("a")
        await pilot.pause()
        assert "Suggestion: Right better" in blind(app, "on_request, revealed")
        await pilot.press("1", "enter")
        await pilot.pause()
        blind(app, "finished")
        # going back to the none item still shows nothing
        await pilot.press("b")
        await pilot.pause()
        await pilot.press("b", "b", "b")
        await pilot.pause()
        assert app.screen.index == 0  # type: ignore[attr-defined]
        assert "Suggestion" not in blind(app, "none, revisited")
    store.close()


async def test_adjudication_shows_other_annotators_and_nothing_else(tmp_path: Path) -> None:
    spec, store = session(tmp_path, n=4)
    apply_plan(store, spec, ["alice", OTHER], 2, Rates(), 11)
    for name, label in (("alice", "A"), (OTHER, "B")):
        for a in store.assignments(name):
            store.submit(Judgment(a.id, label, T, rationale=f"zqx-rationale-of-{'bob' if name == OTHER else 'al'}"))
    app = make_adjudication_app(spec, store, "carol")
    assert len(app.queue) == 3  # item 0 has gold: it needs no adjudication
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        allowed = (OTHER, "zqx-rationale-of-bob")
        text = blind(app, "adjudication", allowed=allowed)
        assert OTHER in text and "alice" in text and "zqx-rationale-of-bob" in text  # here, and only here
        await pilot.press("question_mark")
        await pilot.pause()
        blind(app, "adjudication help", allowed=allowed)
        await pilot.press("escape", "1", "enter", "2", "enter", "3", "enter")
        await pilot.pause()
        blind(app, "adjudication finished", allowed=allowed)
    # alice's own screen on the same items: never bob's name, label or rationale
    app = make_app(spec, store, "alice")
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        for _ in range(3):
            blind(app, "alice revisiting")
            await pilot.press("b")
            await pilot.pause()
    store.close()


async def test_the_scan_would_see_a_leak(tmp_path: Path) -> None:
    """The scan is not blind itself: a model name in a response far below the fold is found."""
    spec, store = session(tmp_path, n=0)
    store.add_items([Item("leaky", "pairwise", (Message("user", "Question: which?"),),
                          (Response("A", "Answer:\n\n" + "filler\n\n" * 200 + f"I am {MODELS[0]}."),
                           Response("B", "Answer B")))])
    app = make_app(spec, store, "lea", open_guideline=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        try:
            blind(app, "leaky")
        except AssertionError as exc:
            assert MODELS[0] in str(exc)
        else:
            raise AssertionError("the scan missed a model name in a pane")
    store.close()
