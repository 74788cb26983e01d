"""What each pane shows for an item, as `Doc`s: the blind view of an item.

Only text goes on screen: the conversation and the responses. The item id, category, models,
gold and metadata are never copied into a Doc, so no widget can show them by accident. Headings
are fixed strings.

The question being answered is always in view: the prompt pane shows the last user message (the
one the guideline says to judge) in full, and earlier turns are folded away behind one key
(`earlier=False`, the default) with a heading that says how many there are. In MT-Bench and Arena
multi-turn items that last question lives at the end of each side's own history (the follow-up
asked of both models after their own first answers); it is lifted into the prompt pane, and each
response pane folds its side's earlier turns the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from annotate.model import Item, Message
from annotate.text import plural
from annotate.tui.render import Block, Doc

ROLE_TITLES = {"system": "System", "user": "User", "assistant": "Assistant"}
EMPTY_RESPONSE = "(empty response)"
"""What a pane shows for a response whose text is empty: the model returned nothing."""
EARLIER_KEY = "e"
"""The key that shows or folds earlier turns (the screen binds it; headings name it)."""


def _title(message: Message) -> str:
    return ROLE_TITLES.get(message.role, "Message")


@dataclass(frozen=True)
class Question:
    """Where an item's question is: the last user message and what came before it."""

    text: str
    """The last user message, shown in full in the prompt pane."""
    before: tuple[Message, ...]
    """The shared messages before it (system prompt, earlier turns)."""
    after: tuple[Message, ...]
    """Shared messages after it (rare: an assistant prefill); always shown."""
    in_history: bool
    """The question is the last message of every side's own history (MT-Bench, Arena turn 2+)."""


def question_of(item: Item) -> Question | None:
    """The item's question, or None when it has no user message at all."""
    histories = [r.history for r in item.responses]
    follow_ups = {h[-1].content for h in histories if h and h[-1].role == "user"}
    if histories and all(h and h[-1].role == "user" for h in histories) and len(follow_ups) == 1:
        return Question(histories[0][-1].content, item.conversation, (), True)
    messages = item.conversation
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "user":
            return Question(messages[index].content, messages[:index], messages[index + 1:], False)
    return None


def _folded(messages: tuple[Message, ...], what: str) -> str:
    """`2 earlier turns folded: e shows` / `system message and 1 earlier turn folded: e shows`."""
    system = sum(1 for m in messages if m.role == "system")
    turns = sum(1 for m in messages if m.role == "user")
    answers = len(messages) - system - turns
    parts = []
    if system:
        parts.append("system message")
    if turns or answers:
        parts.append(plural(max(turns, answers), what))
    return f"{' and '.join(parts)} folded: {EARLIER_KEY} shows"


def prompt_doc(item: Item, earlier: bool = False) -> Doc:
    """The shared context. Folded (`earlier` False): the last user message in full under a heading that
    says what is folded; shown (`earlier` True): every message in order with role headings."""
    messages = item.conversation
    question = question_of(item)
    key = (item.id, "earlier", "prompt") if earlier else (item.id, "prompt")
    if question is None:  # no user message: show what there is
        blocks = tuple(Block(m.content, heading=f" {_title(m)} ") for m in messages)
        return Doc(key, blocks or (Block(""),))
    if not question.before and not question.in_history and not question.after:
        return Doc(key, (Block(question.text),))
    blocks: list[Block] = []
    if earlier:
        shared = messages if question.in_history else question.before
        blocks += [Block(m.content, heading=f" {_title(m)} ", dim=m.role != "user") for m in shared]
        folded = " User · the question answered "
    else:
        folded = f" User · {_folded(question.before, 'earlier turn')} " if question.before else " User "
        if question.in_history:
            folded = f" User · the follow-up answered · {_folded(question.before, 'earlier turn')} "
    blocks.append(Block(question.text, heading=folded))
    blocks += [Block(m.content, heading=f" {_title(m)} ", dim=True) for m in question.after]
    return Doc(key, tuple(blocks))


def response_doc(item: Item, slot: str, earlier: bool = False) -> Doc:
    """One slot's pane: the response judged, below its side's earlier turns (shown dimmed when
    `earlier`, else folded into the heading). The follow-up question at the end of the history is
    in the prompt pane; it is shown here too when the earlier turns are."""
    response = item.response(slot)
    key = (item.id, "earlier", slot) if earlier else (item.id, slot)  # the slot last: panes read it
    if not response.history:
        return Doc(key, (Block(response.text, empty=EMPTY_RESPONSE),))
    question = question_of(item)
    history = response.history
    if question is not None and question.in_history:
        history = history[:-1]
    if not earlier:
        blocks: list[Block] = []
        if history and history[-1].role == "user":  # this side's own follow-up (the sides differ)
            history, own = history[:-1], history[-1]
            blocks.append(Block(own.content, heading=" User · the follow-up this side answered "))
        heading = f" Response judged · {_folded(history, 'earlier turn')} " if history else " Response judged "
        blocks.append(Block(response.text, heading=heading, empty=EMPTY_RESPONSE))
        return Doc(key, tuple(blocks))
    shown = [Block(m.content, heading=f" Earlier turn · {_title(m)} ", dim=True) for m in response.history]
    shown.append(Block(response.text, heading=" Response judged ", empty=EMPTY_RESPONSE))
    return Doc(key, tuple(shown))


def has_earlier(item: Item) -> bool:
    """The item has turns that `prompt_doc` and `response_doc` fold by default."""
    question = question_of(item)
    if question is None:
        return False
    if question.before:
        return True
    # a side's history beyond the follow-up it answered (shown in the prompt or in its own pane)
    return any(len(r.history) > (1 if r.history[-1].role == "user" else 0) for r in item.responses if r.history)
