"""`annotate serve`: the annotation app in a browser, through textual-serve, behind private links.

`links` (no web framework) issues, prints and revokes links; `server` is the aiohttp application
around textual-serve's per-connection app processes; `child` is such a process; `pages` holds the
HTML and scripts; `notice` shows a refusal in the browser. The core never imports this package.
"""
