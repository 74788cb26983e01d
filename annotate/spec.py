"""Session spec: one TOML file that says what is judged, how, and under which guideline.

A session is a spec (`sessions/NAME.toml`) plus one SQLite file (`sessions/NAME.db` by default).
`load_spec` is the one way in: it validates every key and raises `SpecError` naming the file,
the key and what was expected, so a typo never silently becomes a default.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotate.design import RUBRIC_CRITERIA, LabelSchema, LabelsError, parse_labels
from annotate.model import TASK_KINDS
from annotate.nesting import deep_line, nesting_error, too_deep

SESSION_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\Z")
GUIDELINE_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}\Z")
DEFAULT_GUIDELINE = {"pairwise": "pairwise-chat", "single": "single-grade", "rubric": "rubric-helpsteer",
                     "ranking": "ranking-responses"}
DISPLAY_MODES = ("none", "upfront", "after", "on_request")


class SpecError(ValueError):
    """A spec that cannot be used; the message names the file, the key and what was expected."""

    def __init__(self, path: Path | str, key: str, expected: str) -> None:
        self.path = Path(path)
        self.key = key
        self.expected = expected
        super().__init__(f"{path}: [{key}] {expected}")


@dataclass(frozen=True)
class PlanSpec:
    """Who sees what (filled by `annotate plan`)."""

    annotators: tuple[str, ...] = ()
    overlap: int = 1
    gold_rate: float = 0.0
    attention_rate: float = 0.0
    repeat_rate: float = 0.0


@dataclass(frozen=True)
class ExperimentSpec:
    """A suggestion experiment (DESIGN.md section 6); `modes = ["none"]` means none runs."""

    modes: tuple[str, ...] = ("none",)
    assign: str = "between"
    """`between` annotators or `within` each annotator's queue."""
    planted_rate: float = 0.0
    planted_shift: int = 2
    """Grades: how many points a planted suggestion moves from gold."""
    suggestion_source: str = ""


@dataclass(frozen=True)
class TrainingSpec:
    """A training round (docs/annotating.md, "A training round"): the items imported with
    `annotate import --training`, answered first, each followed by its expected outcome and
    explanation; the share right decides whether the main queue opens."""

    pass_threshold: float
    """Share of training items answered right (0 to 1) needed to pass: 0.8 = 4 of 5."""
    retries: int = 0
    """How many more rounds an annotator who failed may take on their own (0: only the lead lets them through)."""


@dataclass(frozen=True)
class SessionSpec:
    """A loaded, validated session spec."""

    path: Path
    name: str
    kind: str
    guideline: str
    seed: int
    db: Path
    """Absolute path of the session's SQLite file."""
    schema: LabelSchema
    """The shape of an answer (annotate.design)."""
    plan: PlanSpec = field(default_factory=PlanSpec)
    experiment: ExperimentSpec = field(default_factory=ExperimentSpec)
    training: TrainingSpec | None = None
    """The `[training]` table, or None when the session has no training round."""

    @property
    def project_dir(self) -> Path:
        """The folder that holds `sessions/` and `guidelines/`."""
        parent = self.path.parent
        return parent.parent if parent.name == "sessions" else parent


_SESSION_KEYS = {"name", "kind", "guideline", "seed", "db"}
_PLAN_KEYS = {"annotators", "overlap", "gold_rate", "attention_rate", "repeat_rate"}
_EXPERIMENT_KEYS = {"modes", "assign", "planted_rate", "planted_shift", "suggestion_source"}
_TRAINING_KEYS = {"pass_threshold", "retries"}
_TOP_KEYS = {"session", "labels", "plan", "experiment", "training"}


def load_spec(path: Path | str) -> SessionSpec:
    """Read and validate a session spec; raise SpecError on anything unexpected."""
    path = Path(path).resolve()
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte-order mark (Windows editors) is fine
    except FileNotFoundError:
        raise SpecError(path, "file", "the spec file does not exist") from None
    except UnicodeDecodeError as exc:
        line = exc.object[: exc.start].count(b"\n") + 1
        found = exc.object[exc.start : exc.start + 1].hex()
        where = f"line {line}: byte 0x{found} at offset {exc.start}"
        raise SpecError(path, "file", f"UTF-8 text ({where} is not)") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(path, "file", f"valid TOML: {exc}") from None
    except RecursionError:
        data = None
    if data is None or too_deep(data):
        line = deep_line(text, syntax="toml")
        where = f" (line {line} is deeper)" if line else ""
        raise SpecError(path, "file", f"valid TOML with {nesting_error()}{where}")
    return parse_spec(data, path)


def parse_spec(data: Mapping[str, Any], path: Path) -> SessionSpec:
    """Validate a parsed TOML document into a SessionSpec."""
    _check_keys(path, "", data, _TOP_KEYS)
    session = _table(path, "session", data.get("session"), required=True)
    _check_keys(path, "session", session, _SESSION_KEYS)
    name = _str(path, "session.name", session.get("name", path.stem))
    if not SESSION_NAME.match(name):
        raise SpecError(path, "session.name", "letters, digits, '.', '_' or '-' (at most 64)")
    kind = _str(path, "session.kind", session.get("kind"))
    if kind not in TASK_KINDS:
        raise SpecError(path, "session.kind", f"one of {', '.join(TASK_KINDS)}, not {kind!r}")
    guideline = _str(path, "session.guideline", session.get("guideline", DEFAULT_GUIDELINE[kind]))
    if not GUIDELINE_ID.match(guideline):
        raise SpecError(
            path, "session.guideline",
            "a guideline id (lower-case letters, digits, '-' or '_'), not a path",
        )
    seed = session.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise SpecError(path, "session.seed", f"an integer, not {seed!r}")
    db = _db_path(path, session.get("db", f"{path.stem}.db"))
    schema = _schema(path, kind, _table(path, "labels", data.get("labels")))
    plan = _plan(path, _table(path, "plan", data.get("plan")))
    experiment = _experiment(path, _table(path, "experiment", data.get("experiment")))
    training = _training(path, kind, schema, data.get("training"))
    return SessionSpec(path, name, kind, guideline, seed, db, schema, plan, experiment, training)


def _db_path(path: Path, value: Any) -> Path:
    """The session file: a relative name inside the spec's folder, which a symbolic link (the
    file itself or a folder on the way) cannot lead out of."""
    raw = _str(path, "session.db", value)
    candidate = Path(raw)
    if not candidate.parts or candidate.is_absolute() or ".." in candidate.parts:
        raise SpecError(path, "session.db", "a file name relative to the spec's folder, inside it")
    folder = path.parent.resolve()
    resolved = (folder / candidate).resolve()
    if not resolved.is_relative_to(folder):
        raise SpecError(
            path, "session.db",
            f"a file inside the spec's folder; {raw!r} is a symbolic link to {resolved}, outside it",
        )
    return resolved


def _schema(path: Path, kind: str, table: Mapping[str, Any]) -> LabelSchema:
    try:
        return parse_labels(kind, table)
    except LabelsError as exc:
        raise SpecError(path, exc.key, exc.expected) from None


def _plan(path: Path, table: Mapping[str, Any]) -> PlanSpec:
    _check_keys(path, "plan", table, _PLAN_KEYS)
    annotators = table.get("annotators", [])
    if not isinstance(annotators, list) or not all(isinstance(a, str) and a for a in annotators):
        raise SpecError(path, "plan.annotators", "an array of annotator names")
    overlap = table.get("overlap", 1)
    if not isinstance(overlap, int) or isinstance(overlap, bool) or overlap < 1:
        raise SpecError(path, "plan.overlap", f"an integer >= 1, not {overlap!r}")
    rates = {k: _rate(path, f"plan.{k}", table.get(k, 0.0)) for k in ("gold_rate", "attention_rate", "repeat_rate")}
    return PlanSpec(tuple(annotators), overlap, **rates)


def _experiment(path: Path, table: Mapping[str, Any]) -> ExperimentSpec:
    _check_keys(path, "experiment", table, _EXPERIMENT_KEYS)
    modes = table.get("modes", ["none"])
    if not isinstance(modes, list) or not modes or any(m not in DISPLAY_MODES for m in modes):
        raise SpecError(path, "experiment.modes", f"a non-empty array of {', '.join(DISPLAY_MODES)}")
    assign = table.get("assign", "between")
    if assign not in ("between", "within"):
        raise SpecError(path, "experiment.assign", f"'between' or 'within', not {assign!r}")
    shift = table.get("planted_shift", 2)
    if not isinstance(shift, int) or isinstance(shift, bool) or shift < 1:
        raise SpecError(path, "experiment.planted_shift", f"an integer >= 1, not {shift!r}")
    source = _str(path, "experiment.suggestion_source", table.get("suggestion_source", ""))
    planted = _rate(path, "experiment.planted_rate", table.get("planted_rate", 0.0))
    return ExperimentSpec(tuple(modes), assign, planted, shift, source)


def _training(path: Path, kind: str, schema: LabelSchema, value: Any) -> TrainingSpec | None:
    """The `[training]` table: pairwise sessions with the four outcomes only (for now)."""
    if value is None:
        return None
    table = _table(path, "training", value)
    if kind != "pairwise" or schema.shape != "outcomes":
        design = kind if kind != "pairwise" else "this design (graded or aspects)"
        raise SpecError(path, "training", f"a training round is for pairwise sessions with the four outcomes;"
                                          f" {design} has none yet: remove the [training] table")
    _check_keys(path, "training", table, _TRAINING_KEYS)
    if "pass_threshold" not in table:
        raise SpecError(path, "training.pass_threshold", "a share from 0 to 1 of training items answered right"
                                                         " (0.8 = 4 of 5); the key is missing")
    threshold = table["pass_threshold"]
    if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0.0 <= threshold <= 1.0:
        raise SpecError(path, "training.pass_threshold",
                        f"a share from 0 to 1 of training items answered right (0.8 = 4 of 5), not {threshold!r}")
    retries = table.get("retries", 0)
    if not isinstance(retries, int) or isinstance(retries, bool) or retries < 0:
        raise SpecError(path, "training.retries", f"an integer >= 0 (more rounds after a fail), not {retries!r}")
    return TrainingSpec(float(threshold), retries)


def _rate(path: Path, key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
        raise SpecError(path, key, f"a number from 0 to 1, not {value!r}")
    return float(value)


def _table(path: Path, key: str, value: Any, required: bool = False) -> Mapping[str, Any]:
    if value is None:
        if required:
            raise SpecError(path, key, "a table; the section is missing")
        return {}
    if not isinstance(value, dict):
        raise SpecError(path, key, f"a table, not {type(value).__name__}")
    return value


def _str(path: Path, key: str, value: Any) -> str:
    if not isinstance(value, str):
        found = "nothing" if value is None else repr(value)
        raise SpecError(path, key, f"a string, not {found}")
    return value


def _check_keys(path: Path, section: str, table: Mapping[str, Any], allowed: set[str]) -> None:
    for key in table:
        if key not in allowed:
            hint = difflib.get_close_matches(key, sorted(allowed), n=1)
            where = f"{section}.{key}" if section else key
            also = f" (did you mean {hint[0]!r}?)" if hint else ""
            raise SpecError(path, where, f"no such key{also}; expected one of {', '.join(sorted(allowed))}")


SPAN_LINES = (
    "[labels.spans]                # annotators may also mark error spans in the responses (e, in the app)",
    'categories = ["factual", "reasoning", "instruction", "unsafe"]   # or leave out: the guideline\'s `errors:`',
    'severities = ["minor", "major"]',
)
"""The `[labels.spans]` lines `annotate init --spans` writes."""


def render_spec(
    name: str, kind: str, guideline: str | None = None, seed: int = 0, db: str | None = None,
    design: str = "outcomes", spans: bool = False,
) -> str:
    """The TOML text of a new session spec, commented so a lead can edit it by hand.

    design: for pairwise sessions, the shape of judgment (annotate.design.templates: outcomes,
    graded-5, graded-7, aspects); its guideline is the default one. spans: annotators may also mark
    error spans (`[labels.spans]` with a taxonomy to edit), in any kind but ranking.
    """
    from annotate.design.templates import design_guideline, design_lines

    if design != "outcomes" and kind != "pairwise":
        raise ValueError(f"--design {design}: designs are for pairwise sessions (this one is {kind})")
    if spans and kind == "ranking":
        raise ValueError("--spans: error spans are not available in ranking sessions ([labels.spans]); "
                         "mark errors in a pairwise, single or rubric session")
    labels = design_lines(design)
    guideline = guideline or (design_guideline(design) if kind == "pairwise" else DEFAULT_GUIDELINE[kind])
    db = db or f"{name}.db"
    lines = [
        "# annotate session spec. Edit by hand; `annotate status` validates it.",
        "[session]",
        f'name = "{name}"',
        f'kind = "{kind}"              # pairwise | single | rubric | ranking',
        f'guideline = "{guideline}"    # a file guidelines/<id>.md',
        f"seed = {seed}                # drives every random choice (order, sides, plan)",
        f'db = "{db}"                  # the SQLite file, beside this spec',
        "",
    ]
    if labels:
        lines += [*labels, ""]
    if kind == "single":
        lines += ["[labels]", "scale = [1, 10]", ""]
    elif kind == "rubric":
        lines += ["[labels]"]
        for criterion in RUBRIC_CRITERIA:
            lines += ["[[labels.criteria]]", f'name = "{criterion}"', "scale = [0, 4]", ""]
    elif kind == "ranking":
        lines += ["[labels]                      # put each item's k responses in order, best first",
                  "k = 4                         # responses per item (slots A, B, C, ...), 3 to 6",
                  "ties = true                   # may two responses share a place", ""]
    if spans:
        lines += [*SPAN_LINES, ""]
    lines += [
        "[plan]                        # filled by `annotate plan`",
        "annotators = []",
        "overlap = 1",
        "",
        "[experiment]                  # suggestion display modes: none | upfront | after | on_request",
        'modes = ["none"]',
        "planted_rate = 0.0",
        "",
    ]
    return "\n".join(lines)

