"""The driver of a browser annotator's app: Textual's web driver, but the browser going away lets
the keys already sent finish before the app quits.

textual-serve sends the app a `quit` packet when the browser's websocket closes (the tab closed
or reloaded, the server stopping). Textual's WebDriver turns it into ExitApp, which ends the app
at once: a key that reached the app a moment before (Enter, with the tab closed right after) is
still travelling from the app to the focused widget and back up, and is dropped, and the answer
with it. Here the quit follows the path keys take, through the app, the focused widget and each
of its ancestors back to the app (each hop queued behind whatever key is there), and then quits
as the `q` key does: the annotation app writes everything queued first.

`annotate.serve.child` selects it (TEXTUAL_DRIVER, before Textual is imported).
"""

from __future__ import annotations

from textual import events
from textual.drivers.web_driver import WebDriver
from textual.message_pump import MessagePump


class BrowserDriver(WebDriver):
    """WebDriver with a `quit` that comes after the keys received before it."""

    def on_meta(self, packet_type: str, payload: dict[str, object]) -> None:
        if packet_type == "quit":
            self.send_message(events.Callback(callback=self._behind_pending_keys))
            return
        super().on_meta(packet_type, payload)

    def _behind_pending_keys(self) -> None:
        app = self._app
        start = app.focused or app.screen
        self._follow(list(start.ancestors_with_self))

    def _follow(self, chain: list[MessagePump]) -> None:
        """Hop to each node of `chain` in turn (a callback queued behind its messages), then quit."""
        while chain:
            node, *chain = chain
            if node.call_later(self._follow, chain):
                return
        self._app.call_later(self._app.run_action, "quit")
