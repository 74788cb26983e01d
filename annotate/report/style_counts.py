"""The style counts of the pairwise items, for the style-controlled ranking: read as the import stored
them (`annotate.store.item_facts`), and counted from the texts only for the items without them
(a session imported before v14, or items stored by a path that does not count)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from annotate.store import Store


def style_counts(store: Store, codes: bool = False) -> pd.DataFrame:
    """Per pairwise item with both answers stored: the style counts of slot A's and slot B's answer
    (each side's answer plus its own earlier assistant turns), columns item, ``<feature>_a``, ``<feature>_b``
    (int64), in item order. codes: with the items' codes, those of the report's votes (``item#codes``,
    `annotate.frame_codes`), so the battles find their item's counts without hashing the ids."""
    import numpy as np
    import pandas as pd

    from annotate.analysis.style import FEATURES, features_of_texts
    from annotate.store.item_facts import STYLE_COLUMNS, stored_item_facts
    from annotate.store.response_frames import pairwise_texts

    stored = stored_item_facts(store, STYLE_COLUMNS, kind="pairwise")
    counted = stored["known"].to_numpy(dtype=bool)
    both = counted & stored["tokens_a"].notna().to_numpy()
    values = np.zeros((len(stored), len(STYLE_COLUMNS)), dtype=np.int64)
    values[both] = stored.loc[both, list(STYLE_COLUMNS)].to_numpy(dtype=np.int64)
    missing = stored["item"].to_numpy(dtype=object)[~counted].tolist()
    if missing:
        place = {item: k for k, item in enumerate(stored["item"].tolist())}
        only = None if len(missing) == len(stored) else missing
        for batch_ids, texts_a, texts_b in pairwise_texts(store, only=only):
            rows = [place[item] for item in batch_ids]
            values[rows] = np.hstack([features_of_texts(texts_a), features_of_texts(texts_b)])
            both[rows] = True
    kept = values if both.all() else values[both]  # the frame's block as it is: pandas copies an array it is given
    frame = pd.DataFrame(kept, columns=[f"{f}_{side}" for side in "ab" for f in FEATURES], copy=False)
    frame.insert(0, "item", stored["item"].to_numpy(dtype=object)[both])
    return _with_item_codes(store, frame, both) if codes else frame


def _with_item_codes(store: Store, frame: pd.DataFrame, both: np.ndarray) -> pd.DataFrame:
    """`frame` (the pairwise items of `item_rows` kept by `both`) with their codes (`item_rows.item_ranks`)."""
    import numpy as np

    from annotate.frame_codes import with_codes
    from annotate.store.item_rows import item_ranks, item_rows

    ranks = item_ranks(store)
    if ranks is None:
        return frame
    pairwise = np.flatnonzero((item_rows(store)["kind"] == "pairwise").to_numpy(dtype=bool))  # stored_item_facts'
    return with_codes(frame, "item", ranks[0][pairwise[both]], ranks[1])
