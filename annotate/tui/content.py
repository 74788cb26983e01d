"""What each pane shows for an item, as `Doc`s: the blind view of an item.

Only text goes on screen: the conversation and the responses. The item id, category, models,
gold and metadata are never copied into a Doc, so no widget can show them by accident. Headings
are fixed strings.
"""

from __future__ import annotations

from annotate.model import Item, Message
from annotate.tui.render import Block, Doc

ROLE_TITLES = {"system": "System", "user": "User", "assistant": "Assistant"}
EMPTY_RESPONSE = "(empty response)"
"""What a pane shows for a response whose text is empty: the model returned nothing."""


def _title(message: Message) -> str:
    return ROLE_TITLES.get(message.role, "Message")


def prompt_doc(item: Item) -> Doc:
    """The shared context: the prompt, or the whole conversation with role headings."""
    messages = item.conversation
    if len(messages) == 1 and messages[0].role == "user":
        blocks: tuple[Block, ...] = (Block(messages[0].content),)
    else:
        last = len(messages) - 1
        blocks = tuple(
            Block(m.content, heading=f" {_title(m)} ", dim=i < last and m.role != "user")
            for i, m in enumerate(messages)
        )
    return Doc((item.id, "prompt"), blocks or (Block(""),))


def response_doc(item: Item, slot: str) -> Doc:
    """One slot's pane: its side-specific earlier turns (dimmed), then the response judged."""
    response = item.response(slot)
    if not response.history:
        return Doc((item.id, slot), (Block(response.text, empty=EMPTY_RESPONSE),))
    blocks = [
        Block(m.content, heading=f" Earlier turn · {_title(m)} ", dim=True) for m in response.history
    ]
    blocks.append(Block(response.text, heading=" Response judged ", empty=EMPTY_RESPONSE))
    return Doc((item.id, slot), tuple(blocks))
