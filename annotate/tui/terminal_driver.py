"""The driver of the app in a terminal: Textual's Linux driver, but a SIGCONT brings application
mode back only after the app itself stepped out of it.

Textual's driver treats every SIGCONT as "resumed after Ctrl+Z" and starts application mode again:
new input and output threads on the terminal. When the terminal goes away (an ssh connection
dropped, a tmux server killed) the kernel sends the session's leader SIGHUP *and* SIGCONT. If that
lands while the app is being taken down after `q`, the SIGCONT starts a fresh input thread on the
dead terminal, which reads end-of-file in a busy loop forever, and since that thread is not a
daemon the process never ends: an orphan spinning on a core. Here a SIGCONT resumes only after a
suspend (Ctrl+Z, or `App.suspend`), which is the one case it was meant for.

The apps select it by `TerminalDriverChoice` (a mixin before `App` in their bases).
"""

from __future__ import annotations

from textual.driver import Driver
from textual.drivers.linux_driver import LinuxDriver


class TerminalDriver(LinuxDriver):
    """LinuxDriver whose SIGCONT resumes application mode only after a suspend."""

    _suspended = False

    def suspend_application_mode(self) -> None:
        self._suspended = True
        super().suspend_application_mode()

    def resume_application_mode(self) -> None:
        self._suspended = False
        super().resume_application_mode()

    def _sigcont_application(self, *args: object) -> None:
        if self._suspended:
            super()._sigcont_application(*args)


def terminal_driver_class(chosen: type[Driver]) -> type[Driver]:
    """`chosen` (what Textual picked for this platform and environment), with Textual's Linux
    driver replaced by `TerminalDriver`; any other driver (the browser's, set by TEXTUAL_DRIVER) as it is."""
    return TerminalDriver if chosen is LinuxDriver else chosen


class TerminalDriverChoice:
    """Mixin for an `App`: in a terminal, the app runs on `TerminalDriver`."""

    def get_driver_class(self) -> type[Driver]:
        return terminal_driver_class(super().get_driver_class())  # type: ignore[misc]
