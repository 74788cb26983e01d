"""A corpus of hostile and awkward strings for rendering tests (issue: nothing leaked, nothing run).

Each entry is (name, text). Names are stable so a failing case can be found again. Categories:
Rich markup, ANSI CSI and OSC sequences (OSC 52 clipboard writes, OSC 8 links), DCS/APC/PM,
C0 and C1 controls, bidi overrides, zero-width characters, combining marks, very long lines,
emoji, CJK and right-to-left scripts, HTML/Markdown injection.
"""

from __future__ import annotations

ESC = "\x1b"
BEL = "\x07"
ST = ESC + "\\"

# What must never reach a terminal or an HTML file raw.
FORBIDDEN_TERMINAL = (
    *(chr(c) for c in range(0x20) if chr(c) not in "\n\t"),
    "\x7f",
    *(chr(c) for c in range(0x80, 0xA0)),
    "\u202e", "\u202d", "\u2066", "\u2067", "\u2068",
)


def _markup() -> list[tuple[str, str]]:
    cases = [
        "[bold red]x[/]", "[/]", "[link=http://evil.example]click[/link]", "[on red]bg[/on red]",
        "[@click=app.quit]quit[/]", "[b]unclosed", "[[escaped]]", "\\[bold]not bold\\[/bold]",
        "[blink]blink[/blink]", "[reverse]rev[/]", ":smile: :warning:", "[red]" * 200,
        "[bold]" + "x" * 50 + "[/bold]", "[#ff0000]hex[/]", "[italic dim]a[/] [u]b[/u]",
    ]
    return [(f"markup-{i:02d}", text) for i, text in enumerate(cases)]


def _csi() -> list[tuple[str, str]]:
    cases = [
        ESC + "[2J", ESC + "[H", ESC + "[31mred" + ESC + "[0m", ESC + "[1;1H" + ESC + "[K", ESC + "[?1049h",
        ESC + "[?25l", ESC + "[6n", ESC + "[5i", ESC + "[3J", ESC + "[999;999H", ESC + "[38;5;196mx",
        ESC + "[?1000h" + ESC + "[?1006h", ESC + "c", ESC + "[s" + ESC + "[u", ESC + "[A" * 40,
        "\x9b2J", "\x9b31mred",
    ]
    return [(f"csi-{i:02d}", f"before {text} after") for i, text in enumerate(cases)]


def _osc() -> list[tuple[str, str]]:
    cases = [
        ESC + "]52;c;aGk=" + BEL,
        ESC + "]52;c;" + "QUJD" * 100 + ST,
        ESC + "]8;;http://x" + BEL + "link" + ESC + "]8;;" + BEL,
        ESC + "]8;;file:///etc/passwd" + ST + "harmless" + ESC + "]8;;" + ST,
        ESC + "]0;title" + BEL, ESC + "]2;pwned" + ST, ESC + "]4;1;rgb:ff/00/00" + BEL,
        ESC + "]1337;File=inline=1:AAAA" + BEL, ESC + "]7;file://host/tmp" + BEL,
        "\x9d52;c;aGk=\x9c", ESC + "]10;?" + BEL, ESC + "]52;c;?" + BEL,
    ]
    return [(f"osc-{i:02d}", f"see {text} end") for i, text in enumerate(cases)]


def _other_escapes() -> list[tuple[str, str]]:
    cases = [
        ESC + "P+q544e" + ST, ESC + "_apc payload" + ST, ESC + "^pm payload" + ST, ESC + "X sos" + ST,
        ESC + "(0lqqk" + ESC + "(B", ESC + "#8", ESC + "7" + ESC + "8", "\x90dcs\x9c",
    ]
    return [(f"esc-{i:02d}", f"x {text} y") for i, text in enumerate(cases)]


def _controls() -> list[tuple[str, str]]:
    cases = [f"ctl {chr(c)} ctl" for c in (0, 1, 7, 8, 11, 12, 13, 14, 15, 26, 27, 28, 31, 127)]
    cases += [f"c1 {chr(c)} c1" for c in (0x80, 0x85, 0x8D, 0x8E, 0x90, 0x9B, 0x9C, 0x9D, 0x9F)]
    cases += ["over\rwrite", "back\b\b\bspace", "bell\a\a\a", "nul\x00in\x00middle"]
    return [(f"ctl-{i:02d}", text) for i, text in enumerate(cases)]


def _bidi_zero_width() -> list[tuple[str, str]]:
    cases = [
        "access \u202eedoc\u202c level", "\u202dforced ltr\u202c", "\u2066isolate\u2069 \u2067rtl\u2069",
        "\u2068first strong\u2069", "a\u200eb\u200fc\u061cd", "zero\u200bwidth\u200cjoin\u200dx",
        "\ufeffbom inside", "soft\u00adhyphen", "word\u2060joiner", "line\u2028sep\u2029para",
        "tag \U000e0041\U000e0042 chars", "variation \ufe0f\ufe0e",
    ]
    return [(f"bidi-{i:02d}", text) for i, text in enumerate(cases)]


def _scripts() -> list[tuple[str, str]]:
    cases = [
        "Zalgo: Z\u0351\u036b\u0343\u036a\u0302\u036b\u033d\u034f\u0334\u0319\u0324\u031e\u0349a" * 3,
        "e\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301", "👩‍👩‍👧‍👦 family 🏳️‍🌈 flag 👍🏽",
        "🙂" * 300, "中文字符测试，全角标点。" * 20, "日本語のテキスト、カタカナ、ひらがな", "한국어 텍스트",
        "العربية من اليمين إلى اليسار 123", "עברית עם English מעורב", "فارسی، اردو", "ไทย ภาษา",
        "हिन्दी देवनागरी", "𝕳𝖊𝖑𝖑𝖔 𝔪𝔞𝔱𝔥", "Ω≈ç√∫˜µ≤≥÷", "\u0000\uffff\ufffd replacement",
    ]
    return [(f"script-{i:02d}", text) for i, text in enumerate(cases)]


def _injection() -> list[tuple[str, str]]:
    cases = [
        "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "</td></tr></table><h1>x</h1>",
        '"><svg onload=alert(1)>', "javascript:alert(1)", "[click](javascript:alert(1))",
        "![img](http://evil.example/track.png)", "<style>body{display:none}</style>", "&lt;&amp;&gt;",
        "{{7*7}} ${7*7} %s %n", "'; DROP TABLE judgments; --", "| a | b |\n|---|---|\n| <b> | x |",
        "```\n" + ESC + "[2J\n```", "# heading\n\n- list " + ESC + "]52;c;aGk=" + BEL,
    ]
    return [(f"inject-{i:02d}", text) for i, text in enumerate(cases)]


def _sizes() -> list[tuple[str, str]]:
    return [
        ("size-1mb-line", "x" * (1 << 20)),
        ("size-long-words", ("supercalifragilistic" * 500 + " ") * 10),
        ("size-many-lines", "\n".join(f"line {i}" for i in range(5000))),
        ("size-empty-ish", " "),
        ("size-newlines", "\n" * 500),
    ]


def hostile_strings(include_huge: bool = True) -> list[tuple[str, str]]:
    """Every case as (name, text); include_huge=False leaves out the 1 MB line for fast loops."""
    cases = (_markup() + _csi() + _osc() + _other_escapes() + _controls() + _bidi_zero_width() + _scripts()
             + _injection() + _sizes())
    if not include_huge:
        cases = [c for c in cases if c[0] != "size-1mb-line"]
    return cases


def contains_forbidden(text: str) -> list[str]:
    """The forbidden characters present in `text`, as code points (empty when clean)."""
    return sorted({f"U+{ord(ch):04X}" for ch in text if ch in FORBIDDEN_TERMINAL})
