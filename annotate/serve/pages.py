"""The few pages `annotate serve` writes itself: the annotator's page around textual-serve's
front-end, the lead's read-only page, and the refusals.

Every piece of text from the session (its name, an annotator's name, the status lines) is
HTML-escaped here, and the status is put into the lead's page as text (`textContent`), never as
markup. No page names a link's secret: the server has traded it for a cookie before any page is
sent. Scripts are files of their own (`ANNOTATOR_JS`, `LEAD_JS`), so the pages run under a
content security policy that allows no inline script.
"""

from __future__ import annotations

from html import escape

ANNOTATOR_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:;"
    " font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""The annotator's page: textual-serve's front-end and our two scripts, its websocket, nothing else."""
LEAD_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; frame-src 'self';"
    " base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; frame-ancestors 'self'"
"""The report has no script; should one ever slip in, it does not run."""
PLAIN_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'"

ANNOTATOR_JS = """\
// annotate serve: the annotator's page. The address bar keeps no query (a link's key never reaches
// the page, but a stray one, and textual.js's own `ping` and `delay` parameters, are dropped);
// the websocket is this page's address plus /ws; the terminal starts once its font has loaded.
"use strict";
history.replaceState(null, "", location.pathname);
(function () {
  const start = window.onload;
  window.onload = async function (event) {
    const terminal = document.getElementById("terminal");
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    terminal.dataset.sessionWebsocketUrl = scheme + "//" + location.host + location.pathname + "/ws";
    try {
      await document.fonts.load("16px 'Roboto Mono'");
    } catch (error) {
      // the terminal falls back to another monospace font
    }
    if (start) {
      start.call(window, event);
    }
  };
  document.addEventListener("DOMContentLoaded", function () {
    document.getElementById("reopen").addEventListener("click", function () {
      location.reload();
    });
  });
})();
"""

LEAD_JS = """\
// annotate serve: the lead's page. The status is fetched again every few seconds and shown as text;
// the report is built again each time its frame loads.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  const status = document.getElementById("status");
  const stamp = document.getElementById("stamp");
  const frame = document.getElementById("report");
  async function refresh() {
    try {
      const reply = await fetch("lead/status", {credentials: "same-origin", cache: "no-store"});
      if (reply.ok) {
        status.textContent = await reply.text();
        stamp.textContent = "live status, read " + new Date().toLocaleTimeString();
      } else {
        stamp.textContent = "status unavailable (HTTP " + reply.status + ")";
      }
    } catch (error) {
      stamp.textContent = "status unavailable: the server does not answer";
    }
  }
  document.getElementById("regenerate").addEventListener("click", function () {
    frame.src = "lead/report?at=" + Date.now();
  });
  setInterval(refresh, 5000);
});
"""

_BASE_CSS = """
body { margin: 0; font: 15px/1.45 system-ui, sans-serif; background: #0c181f; color: #e8eef2; }
main { max-width: 44em; margin: 12vh auto; padding: 1.5em 2em; background: #12232d; border-radius: 6px; }
h1 { font-size: 1.25em; margin-top: 0; }
"""


def annotator_page(session: str, annotator: str) -> str:
    """The page an annotator's link leads to: textual-serve's terminal front-end, full window."""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>annotate · {escape(session)} · {escape(annotator)}</title>
<link rel="stylesheet" href="../static/css/xterm.css">
<style>
@font-face {{ font-family: "Roboto Mono"; src: url("../static/fonts/RobotoMono-VariableFont_wght.ttf"); }}
@font-face {{ font-family: "Roboto Mono"; font-style: italic;
             src: url("../static/fonts/RobotoMono-Italic-VariableFont_wght.ttf"); }}
html, body {{ margin: 0; height: 100%; background: #0c181f; overflow: hidden; }}
#terminal {{ position: absolute; inset: 0; }}
#ended {{ display: none; position: absolute; inset: 0; z-index: 10; align-items: center; justify-content: center;
         background: rgba(12, 24, 31, 0.92); color: #e8eef2; font: 16px/1.5 system-ui, sans-serif; }}
body.-closed #ended {{ display: flex; }}
#ended div {{ max-width: 34em; padding: 1.5em 2em; background: #12232d; border-radius: 6px; }}
#ended button {{ margin-top: 1em; padding: 0.5em 1.5em; font: inherit; cursor: pointer; }}
</style>
<script src="../static/js/textual.js"></script>
<script src="../_annotate/annotator.js"></script>
</head><body>
<div id="terminal" class="textual-terminal" data-font-size="16"></div>
<div id="ended"><div>
<p><strong>This annotation session has ended.</strong></p>
<p>Every answer you submitted is saved. Close this tab, or open your queue again to go on where you
stopped.</p>
<button type="button" id="reopen">Open my queue again</button>
</div></div>
</body></html>
"""


def lead_page(session: str, status: str) -> str:
    """The lead's read-only page: the live status (as text) and the report in a frame."""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>annotate · {escape(session)} · lead</title>
<style>
body {{ margin: 0; font: 15px/1.45 system-ui, sans-serif; background: #f6f7f9; color: #1b1f24; }}
header {{ padding: 0.8em 1.5em; background: #12232d; color: #e8eef2; }}
header h1 {{ font-size: 1.15em; margin: 0; }}
section {{ padding: 0.5em 1.5em; }}
pre {{ background: #fff; border: 1px solid #d6dae0; padding: 0.8em; overflow-x: auto; font-size: 13px; }}
#stamp {{ color: #59636e; font-size: 0.9em; }}
iframe {{ width: 100%; height: 80vh; border: 1px solid #d6dae0; background: #fff; }}
button {{ font: inherit; padding: 0.3em 1em; }}
</style>
<script src="_annotate/lead.js"></script>
</head><body>
<header><h1>annotate · session {escape(session)} · lead view (read-only)</h1></header>
<section><h2>Status</h2><p id="stamp">live status, read when this page loaded</p>
<pre id="status">{escape(status)}</pre></section>
<section><h2>Report</h2>
<p><button type="button" id="regenerate">Regenerate the report</button>
built from the session file each time it is shown</p>
<iframe id="report" src="lead/report" title="session report" sandbox></iframe></section>
</body></html>
"""


def refusal_page(title: str, text: str) -> str:
    """A plain page for a refused request (403 and the like); `text` is escaped."""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
<title>{escape(title)}</title><style>{_BASE_CSS}</style></head>
<body><main><h1>{escape(title)}</h1><p>{escape(text)}</p></main></body></html>
"""
