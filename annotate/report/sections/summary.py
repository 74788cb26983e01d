"""The summary that opens every report: what a lead must know, in a few plain statements computed from
the detail below it (the other sections' JSON), each rule and threshold stated."""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING, Any

from annotate.frame_codes import mapped, nunique
from annotate.quality_rules import FAST_SHARE_MAX, GOLD_ACCURACY_MIN, MIN_N
from annotate.report.context import Context, cohort_of_raters, not_enough
from annotate.text import plural

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

KEY, TITLE = "summary", "Summary"

THRESHOLDS: dict[str, Any] = {
    "alpha_reliable": 0.800,
    "alpha_tentative": 0.667,
    "gold_accuracy_min": GOLD_ACCURACY_MIN,
    "kappa_vs_rest_min": 0.20,
    "fast_share_max": FAST_SHARE_MAX,
    "min_n": MIN_N,
    "significance": 0.05,
    "min_items_ranking": 10,
}
"""Where the summary draws its lines: Krippendorff (2004, section 11.4.4) for alpha; an annotator is
flagged for gold accuracy below 70 %, kappa against the rest below 0.20 (Landis & Koch 1977: "slight"
at best), half or more of their judgments under 3 s (each over at least 5 items or judgments), any
failed attention check, or a position bias significant at 0.05 after Holm's correction over raters.
The ranking's stability is judged only from 10 items up: a bootstrap over fewer items gives intervals
too narrow to trust."""

READING = {"reliable": "reliable", "tentative": "tentative (draw conclusions only tentatively)",
           "unreliable": "NOT reliable"}
MAX_LISTED = 10
"""At most this many flagged annotators or overlapping rank pairs are named (the JSON has all)."""


def _pct(value: float) -> str:
    return f"{100 * value:.1f} %"


def _ci_pct(ci: list[Any] | None) -> str:
    if not ci or ci[0] is None or ci[1] is None:
        return ""
    return f" [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}] %"


def _ci(ci: list[Any] | None) -> str:
    if not ci or ci[0] is None or ci[1] is None:
        return ""
    return f" [{ci[0]:.3f}, {ci[1]:.3f}]"


def _p(p: float | None) -> str:
    return "–" if p is None else ("< 0.001" if p < 0.001 else f"{p:.3f}")


def _reading(alpha: float) -> str:
    if alpha >= THRESHOLDS["alpha_reliable"]:
        return "reliable"
    if alpha >= THRESHOLDS["alpha_tentative"]:
        return "tentative"
    return "unreliable"


def _agreement(ctx: Context, data: dict[str, Any], out: dict[str, Any]) -> list[str]:
    agreement = data.get("agreement", {})
    overall = agreement.get("overall")
    who = ctx.headline_name.lower() if ctx.pool_llm else "human raters"
    level = agreement.get("level", ctx.level)
    rule = ("(alpha >= 0.800 reliable, 0.667 to 0.800 tentative, below 0.667 not reliable; Krippendorff 2004)")
    if ctx.spec.kind == "rubric":
        rows = agreement.get("per_criterion", [])
        parts = [f"{r['criterion']} {r['krippendorff_alpha']['estimate']:.3f} "
                 f"({READING[_reading(r['krippendorff_alpha']['estimate'])]})"
                 for r in rows if r["krippendorff_alpha"]["estimate"] is not None]
        out["agreement"] = {"per_criterion": rows and [{"criterion": r["criterion"],
                                                         "alpha": r["krippendorff_alpha"]["estimate"]} for r in rows]}
        return ["Agreement per rubric criterion (Krippendorff's alpha, ordinal): " + (", ".join(parts) or
                not_enough(0, "items", "no criterion has an item scored by two raters")) + f" {rule}."]
    if ctx.ranking:
        return _ranking_agreement(ctx, data, out, who, rule)
    if overall is None:
        n = nunique(ctx.headline, "rater") if not ctx.headline.empty else 0
        out["agreement"] = {"estimate": None, "reason": "fewer than two raters"}
        return [f"Agreement among {who}: " + not_enough(n, "raters", "agreement needs two raters on the same items")
                + "."]
    alpha = overall["krippendorff_alpha"]
    if alpha["estimate"] is None:
        why = "no item rated by two raters" if alpha["n_units"] == 0 else "every rating is the same"
        out["agreement"] = {**alpha, "reading": None, "reason": why}
        return [f"Agreement among {who}: " + not_enough(alpha["n_units"], "items", why) + "."]
    reading = _reading(alpha["estimate"])
    out["agreement"] = {**alpha, "reading": reading, "level": level}
    line = (f"Agreement among {who}: Krippendorff's alpha ({level}) = {alpha['estimate']:.3f}{_ci(alpha['ci'])} over "
            f"{plural(alpha['n_units'], 'item')} and {plural(alpha['n_raters'], 'rater')}: {READING[reading]} {rule}.")
    cohorts = [c for c in agreement.get("per_cohort", []) if c["cohort"] != "llm"
               and c["krippendorff_alpha"]["estimate"] is not None]
    if len(cohorts) > 1 or (cohorts and ctx.pool_llm):
        values = [(c["cohort"], c["krippendorff_alpha"]["estimate"]) for c in cohorts]
        line += " Per cohort: " + "; ".join(f"{c} {a:.3f} ({READING[_reading(a)]})" for c, a in values) + "."
    return [line]


def _ranking_agreement(ctx: Context, data: dict[str, Any], out: dict[str, Any], who: str, rule: str) -> list[str]:
    """Kendall's W and alpha on ranks of the headline raters (section Rankings), read as alpha is elsewhere."""
    overall = (data.get("rankings") or {}).get("overall")
    n = nunique(ctx.headline, "rater") if not ctx.headline.empty else 0
    w = overall["kendall_w"]["mean"] if overall else None
    alpha = overall["alpha_ordinal"] if overall else None
    if w is None or w["estimate"] is None:
        why = "agreement needs two raters ranking the same items"
        out["agreement"] = {"estimate": None, "reason": why, "level": "ordinal"}
        return [f"Agreement among {who} on the rankings: " + not_enough(n if w is None else w["n_units"],
                                                                        "raters" if w is None else "items", why) + "."]
    line = (f"Agreement among {who} on the rankings: Kendall's W = {w['estimate']:.3f}{_ci(w['ci'])} (chance "
            f"{overall['kendall_w']['chance']:.3f}) over {plural(w['n_units'], 'item')} and "
            f"{plural(w['n_raters'], 'rater')}")
    if alpha["estimate"] is None:
        out["agreement"] = {**alpha, "reading": None, "level": "ordinal", "reason": "every ranking is the same"}
        return [line + "; Krippendorff's alpha on the ranks is undefined (every ranking is the same)."]
    reading = _reading(alpha["estimate"])
    out["agreement"] = {**alpha, "reading": reading, "level": "ordinal", "kendall_w": w["estimate"]}
    return [line + f"; Krippendorff's alpha (ordinal, on the ranks) = {alpha['estimate']:.3f}{_ci(alpha['ci'])}: "
                   f"{READING[reading]} {rule}."]


def _judges(ctx: Context, data: dict[str, Any], out: dict[str, Any]) -> list[str]:
    """Per LLM judge: agreement with one human cohort's votes beside two humans of that cohort (the same
    measure, as MT-Bench compares them), and with the human majority."""
    rows = data.get("judges", {}).get("pairwise", [])
    lines = []
    out["judges"] = []
    baselines = {r["against"]: r for r in rows if r["judge"] is None}
    cohorts = [r["against"] for r in rows if r["judge"] is not None and r["against"] != "human majority"]
    cohort = "expert" if "expert" in cohorts else (cohorts[0] if cohorts else None)
    for judge in dict.fromkeys(r["judge"] for r in rows if r["judge"] is not None):
        mine = {r["against"]: r for r in rows if r["judge"] == judge}
        majority = mine.get("human majority")
        entry: dict[str, Any] = {"judge": judge, "cohort": cohort}
        parts = []
        against = mine.get(cohort) if cohort else None
        if against is not None:
            w = against["with_ties"]
            entry |= {"agreement_with_cohort": w["estimate"], "ci_cohort": w["ci"],
                      "n_pairs_cohort": against["n_pairs_with_ties"]}
            if w["estimate"] is None:
                parts.append(f"with {cohort} votes " + not_enough(0, "pairs", "no item voted on by both"))
            else:
                text = (f"agrees with {cohort} votes {_pct(w['estimate'])}{_ci_pct(w['ci'])} of the time "
                        f"({plural(against['n_pairs_with_ties'], 'pair')}, with ties)")
                base = baselines.get(f"{cohort} vs {cohort}")
                if base and base["with_ties"]["estimate"] is not None:
                    text += f", where two {cohort} raters agree {_pct(base['with_ties']['estimate'])}" \
                            f"{_ci_pct(base['with_ties']['ci'])}"
                    entry["baseline"] = base["with_ties"]["estimate"]
                parts.append(text)
        if majority is not None:
            w = majority["with_ties"]
            entry |= {"agreement": w["estimate"], "ci": w["ci"], "n_items": majority["n_items"],
                      "n_items_tied": majority["n_items_tied"]}
            if w["estimate"] is None:
                parts.append("with the human majority " + not_enough(majority["n_items"], "items",
                                                                     "no item with a judge vote and a human majority"))
            else:
                text = (f"agrees with the human majority on {_pct(w['estimate'])}{_ci_pct(w['ci'])} of "
                        f"{plural(majority['n_items'], 'item')}")
                if majority["n_items_tied"]:
                    text += f" ({plural(majority['n_items_tied'], 'item')} without a human majority left out)"
                parts.append(text)
        out["judges"].append(entry)
        if parts:
            lines.append(f"LLM judge {judge} " + "; ".join(parts)
                         + (". LLM judges are pooled in the headline figures (--pool-llm)." if ctx.pool_llm else "."))
    return lines


def _flagged(ctx: Context, data: dict[str, Any], out: dict[str, Any]) -> list[str]:
    t = THRESHOLDS
    reasons: dict[str, list[dict[str, Any]]] = {}

    def flag(rater: Any, check: str, text: str, value: float | None, n: int) -> None:
        reasons.setdefault(str(rater), []).append({"check": check, "text": text, "value": value, "n": n})

    quality = data.get("quality", {})
    for s in quality.get("gold", []):
        if s.get("rater") is not None and s["n"] >= t["min_n"] and s["share"] is not None \
                and s["share"] < t["gold_accuracy_min"]:
            flag(s["rater"], "gold", f"gold accuracy {_pct(s['share'])} ({s['k']} of {s['n']})", s["share"], s["n"])
    for s in quality.get("attention", []):
        if s.get("rater") is not None and s["k"] < s["n"]:
            flag(s["rater"], "attention", f"failed {s['n'] - s['k']} of {plural(s['n'], 'attention check')}",
                 s["share"], s["n"])
    for r in data.get("agreement", {}).get("per_annotator", []):
        kappa = r["kappa"]["estimate"]
        if kappa is not None and r["agreement"]["n"] >= t["min_n"] and kappa < t["kappa_vs_rest_min"]:
            flag(r["rater"], "agreement", f"kappa {kappa:.3f} against the rest ({plural(r['agreement']['n'], 'item')})",
                 kappa, r["agreement"]["n"])
    position = (data.get("biases") or {}).get("position") or {}
    for p in position.get("per_rater", []):
        if p.get("p_holm") is not None and p["p_holm"] <= t["significance"]:
            flag(p["rater"], "position", f"picked Left in {_pct(p['share'])} of {p['n']} non-tie judgments "
                                         f"(p = {_p(p['p_holm'])} after Holm)", p["share"], p["n"])
    for tm in quality.get("timing", []):
        fast = tm["fast"]
        if tm["rater"] is not None and tm["n"] >= t["min_n"] and fast["share"] is not None \
                and fast["share"] >= t["fast_share_max"]:
            flag(tm["rater"], "fast", f"{_pct(fast['share'])} of {tm['n']} judgments under 3 s", fast["share"], tm["n"])
    ds = (data.get("competence") or {}).get("dawid_skene") or {}
    for a in ds.get("annotators", []):
        if a.get("flagged"):
            flag(a["rater"], "dawid_skene", f"Dawid-Skene estimated accuracy {a['accuracy']:.3f} "
                                            f"({plural(a['n_answers'], 'answer')})", a["accuracy"], a["n_answers"])
    cohort_of = cohort_of_raters(ctx.votes)
    out["flagged"] = [{"rater": r, "cohort": cohort_of.get(r), "reasons": v} for r, v in sorted(reasons.items())]
    rules = ("gold accuracy below 70 %, kappa against the rest below 0.20, half or more judgments under 3 s (each "
             "over at least 5), any failed attention check, position bias significant at 0.05 after Holm's correction, "
             "Dawid-Skene estimated accuracy below the commonest class's rate or 0.15 under the median (10 answers "
             "on items with 3+ annotators)")
    if not reasons:
        return [f"No annotator flagged (checked: {rules})."]
    named = [f"{r} ({'; '.join(x['text'] for x in v)})" for r, v in sorted(reasons.items())][:MAX_LISTED]
    more = len(reasons) - len(named)
    return [f"Flagged: {plural(len(reasons), 'annotator')}: " + "; ".join(named)
            + (f"; and {more} more (JSON)" if more else "") + f". Rules: {rules}."]


def _alt_test(ctx: Context, data: dict[str, Any], out: dict[str, Any]) -> list[str]:
    """May each LLM judge stand in for the annotators (the alternative annotator test, all items)?"""
    trust = data.get("judge_trust") or {}
    lines, out["alt_test"] = [], []
    for r in trust.get("alt_test", [])[:MAX_LISTED]:
        out["alt_test"].append({"judge": r["judge"], "passed": r["passed"], "winning_rate": r["winning_rate"],
                                "n_tested": r["n_tested"], "epsilon": r["epsilon"]})
        if r["passed"] is None:
            lines.append(f"LLM judge {r['judge']}: the alternative annotator test {r['reason']}.")
        else:
            lines.append(f"LLM judge {r['judge']} {'passes' if r['passed'] else 'fails'} the alternative annotator "
                         f"test: it wins against {r['winning_rate']:.2f} of {plural(r['n_tested'], 'annotator')} "
                         f"(epsilon {r['epsilon']:g}; passing needs 0.50).")
    return lines


def _style(ctx: Context, data: dict[str, Any], out: dict[str, Any]) -> list[str]:
    """What holding style fixed does to the headline ranking."""
    humans = (data.get("style_control") or {}).get("humans")
    if not humans or humans.get("reason"):
        return []
    length = next((c for c in humans["coefficients"] if c["feature"] == "tokens"), None)
    moved = [m for m in humans["models"] if m["rank_change"]]
    out["style"] = {"n_rank_changes": len(moved), "length": length}
    text = "Style control: "
    if length and length["estimate"] is not None:
        lo, hi = length["ci"]
        text += (f"length coefficient {length['estimate']:+.3f} per sd"
                 + (f" [{lo:+.3f}, {hi:+.3f}]" if lo is not None and hi is not None else "") + "; ")
    text += (f"{plural(len(moved), 'model')} change rank when style is held fixed"
             + (": " + ", ".join(f"{m['model']} {m['rank_change']:+d}" for m in moved[:MAX_LISTED]) if moved else "")
             + ".")
    return [text]


def _biases(ctx: Context, data: dict[str, Any], out: dict[str, Any]) -> list[str]:
    biases = data.get("biases") or {}
    alpha = THRESHOLDS["significance"]
    found: list[dict[str, Any]] = []
    names = {"position": "position bias (Left chosen)", "length": "length bias (longer chosen)"}
    for kind in ("position", "length"):
        report = biases.get(kind)
        if not report:
            continue
        pools = [(ctx.headline_row, report["overall"]), ("(LLM judges)", report.get("llm"))]
        for who, p in pools:
            if p and p["p_value"] is not None and p["p_value"] <= alpha:
                found.append({"kind": kind, "who": who, "share": p["share"], "ci": p["ci"], "p": p["p_value"],
                              "n": p["n"], "unit": p.get("unit")})
        for p in report.get("per_rater", []):
            if p.get("p_holm") is not None and p["p_holm"] <= alpha:
                found.append({"kind": kind, "who": str(p["rater"]), "share": p["share"], "ci": p["ci"],
                              "p": p["p_holm"], "n": p["n"], "unit": p.get("unit"), "holm": True})
    out["significant_biases"] = found
    if ctx.ranking:
        return _display_position_bias(data, found, alpha)
    if not ctx.pairwise:
        return []
    if not found:
        return [f"No significant position or length bias (p > {alpha:g}; per rater after Holm's correction)."]
    parts = [f"{names[f['kind']]} of {f['who']}: {_pct(f['share'])}{_ci_pct(f['ci'])} of {f['n']} non-tie votes, "
             f"p = {_p(f['p'])}{' (Holm)' if f.get('holm') else ''}" for f in found[:MAX_LISTED]]
    more = len(found) - len(parts)
    return [f"Significant biases (p <= {alpha:g}): " + "; ".join(parts) + (f"; and {more} more" if more else "") + "."]


def _display_position_bias(data: dict[str, Any], found: list[dict[str, Any]], alpha: float) -> list[str]:
    """Ranking sessions: display positions whose response was placed first more or less often than
    1 / k (Holm over the positions), from section Rankings; added to ``found``."""
    position = (data.get("rankings") or {}).get("position")
    if not position:
        return []
    for p in position["positions"]:
        first = p["first"]
        if first["p_holm"] is not None and first["p_holm"] <= alpha:
            found.append({"kind": "display_position", "who": f"position {p['position']}", "share": first["share"],
                          "ci": first["ci"], "p": first["p_holm"], "n": first["n"], "unit": first["unit"],
                          "holm": True})
    mine = [f for f in found if f["kind"] == "display_position"]
    if not mine:
        return [f"No significant position bias by display position (first places against 1 / k, p > {alpha:g} "
                f"after Holm's correction over the positions; {plural(position['n_rankings'], 'ranking')})."]
    parts = [f"{f['who']} ranked first in {_pct(f['share'])}{_ci_pct(f['ci'])} of {f['n']} rankings, p = "
             f"{_p(f['p'])} (Holm)" for f in mine]
    return [f"Significant position bias by display position (p <= {alpha:g}): " + "; ".join(parts)
            + ". The plan counterbalances the orders, so it moves no model's figures on average."]


def _ranking(ctx: Context, data: dict[str, Any], out: dict[str, Any]) -> list[str]:
    ranking = (data.get("ranking") or {}).get("overall") or {}
    models = ranking.get("models", [])
    out["ranking"] = {"n_models": len(models), "overlapping_adjacent": []}
    if not ctx.pairwise and not ctx.ranking:
        return []
    if len(models) < 2:
        return ["Ranking: " + not_enough(len(models), "models", "a ranking needs two models compared") + "."]
    overlaps = []
    for a, b in pairwise(models):
        if a["component"] != b["component"]:
            continue
        (alo, ahi), (blo, bhi) = a["ci"], b["ci"]
        if None in (alo, ahi, blo, bhi):
            continue
        if blo <= ahi and alo <= bhi:
            overlaps.append((a["model"], b["model"]))
    out["ranking"]["overlapping_adjacent"] = [list(o) for o in overlaps]
    groups = ranking.get("n_components", 1)
    n_items = ranking.get("n_items", 0)
    head = f"Ranking ({ctx.headline_name.lower()}, {len(models)} models, {plural(n_items, 'item')})"
    if n_items < THRESHOLDS["min_items_ranking"]:
        return [f"{head}: " + not_enough(n_items, "items", "at least 10 items are needed to judge its stability")
                + "."]
    if any(m["ci"][0] is None for m in models):
        return [f"{head}: no intervals (--bootstrap 0), so its stability is not known."]
    split = f"; the models fall into {groups} groups never compared" if groups > 1 else ""
    if not overlaps:
        return [f"{head}: every pair of adjacent models is separated (their 95 % intervals do not overlap){split}."]
    named = [f"{a} / {b}" for a, b in overlaps[:MAX_LISTED]]
    more = len(overlaps) - len(named)
    n_adjacent = len(models) - groups
    verb = "overlaps" if len(overlaps) == 1 else "overlap"
    return [f"{head}: {len(overlaps)} of {plural(n_adjacent, 'adjacent pair')} {verb} (95 % intervals), so "
            "their order is not settled: " + ", ".join(named) + (f" and {more} more" if more else "") + f"{split}."]


def _class_counts(votes: pd.DataFrame, classes: dict[str, int]) -> np.ndarray:
    """Votes per class (0, 1, 2) of every item with a vote of a known class (in integer codes, one row per item)."""
    import numpy as np

    from annotate.frame_codes import factorize

    codes = mapped(votes["label"], classes).to_numpy(np.float64)
    items = factorize(votes, "item")[0]
    known = ~np.isnan(codes) & (items >= 0)
    n_items = int(items.max(initial=-1)) + 1
    counts = np.bincount(items[known] * 3 + codes[known].astype(np.int64), minlength=n_items * 3).reshape(-1, 3)
    return counts[np.bincount(items[known], minlength=n_items) > 0]


def _dropped(ctx: Context, data: dict[str, Any], out: dict[str, Any]) -> list[str]:
    from annotate.analysis.majority import DROPPED, verdicts
    from annotate.analysis.pairwise import LABEL_CLASSES

    excluded = data["session"]["excluded"]
    dropped = dict(excluded)
    parts = []
    words = {"planted": "judgment under planted suggestions", "unknown_labels": "vote with a label outside the schema",
             "repeats_and_attention": "repeat or attention check (one vote per item and rater)",
             "adjudication": "adjudication (used as gold, never as a vote)",
             "invalid": "imported label mapped to invalid (no usable answer)"}
    for key, word in words.items():
        if excluded.get(key):
            parts.append(plural(excluded[key], word))
    judges = ctx.judges
    if not judges.empty and not ctx.pool_llm:
        dropped["llm_votes_apart"] = len(judges)
        parts.append(f"{plural(len(judges), 'LLM judge vote')} kept out of the headline figures "
                     "(--pool-llm pools them)")
    if ctx.pairwise and not ctx.headline.empty:
        tied = int((verdicts(_class_counts(ctx.headline, LABEL_CLASSES), ctx.majority) == DROPPED).sum())
        dropped["items_tied_majority"] = tied
        if tied:
            parts.append(f"{plural(tied, 'item')} without a {ctx.majority} majority among the headline votes "
                         "(left out of per-item win rates and majority comparisons)")
    out["dropped"] = dropped
    if not parts:
        return ["Nothing was dropped: every vote counts."]
    return ["Dropped: " + "; ".join(parts) + "."]


def summary_section(ctx: Context, data: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The summary (`Section` with lines) and its JSON, from the other sections' JSON in ``data``."""
    from annotate.report.model import Section

    payload: dict[str, Any] = {"thresholds": dict(THRESHOLDS), "majority_rule": ctx.majority,
                               "headline": "all" if ctx.pool_llm else "human"}
    lines = [*_agreement(ctx, data, payload), *_judges(ctx, data, payload), *_alt_test(ctx, data, payload),
             *_flagged(ctx, data, payload), *_biases(ctx, data, payload), *_ranking(ctx, data, payload),
             *_style(ctx, data, payload), *_dropped(ctx, data, payload)]
    payload["lines"] = lines
    return Section(KEY, TITLE, lines=tuple(lines)), payload
