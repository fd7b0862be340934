"""The space DCR and k-NN measure in: validated inputs, one encoding, one neighbour search.

Every table is encoded by the one :class:`~privacy_core.encoding.TableEncoder` fitted on
the real table (weighted for the ``gower`` metric), or by the contrastive record
embedding; every search goes through
:func:`privacy_core.risk.neighbors.nearest_neighbors` (exact, chunked). Without a
holdout, the real-to-real side comes from a seeded split of the training rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ...data import Schema
from ...embedding import check_space, resolve_encoder
from ...encoding import TableEncoder
from ...errors import InsufficientDataError, ParameterError
from ...inputs import ReviewData, prepare_review
from ...threat import ThreatModel
from ..neighbors import nearest_neighbors
from .release import analysis_columns, single_release
from .summary import boot_seeds

DCR_METRICS = ("euclidean", "gower")


def encode_for_distance(
    data: ReviewData,
    columns: list[str],
    metric: str,
    numeric_missing: str,
    frames: dict[str, pd.DataFrame],
) -> tuple[dict[str, np.ndarray], TableEncoder]:
    """Encode frames with the encoder fitted on the real table, weighted for ``metric``.

    ``euclidean``: min-max numerics and one-hot categoricals as they come. ``gower``: the
    same encoding with one-hot features halved (two differing categories are then 1
    apart in L1) and every feature divided by the number of columns, so the L1 distance
    is the mean over columns of the range-scaled |difference| (numerics) and the 0/1
    mismatch (categoricals).
    """
    encoder = TableEncoder(data.schema, columns=columns, numeric_missing=numeric_missing).fit(
        data.real
    )
    weights = np.ones(encoder.n_features_, dtype=np.float64)
    if metric == "gower":
        for c in columns:
            if not data.schema[c].is_numeric:
                weights[encoder.slices_[c]] = 0.5
        weights /= len(columns)
    out = {}
    for name, frame in frames.items():
        x = encoder.transform(frame).astype(np.float64)
        out[name] = x * weights if metric == "gower" else x
    return out, encoder


def neighbor_metric(metric: str) -> str:
    """The neighbour search's metric for a DCR metric (Gower is L1 on its weighting)."""
    return "l1" if metric == "gower" else "euclidean"


def nearest(
    query: np.ndarray, reference: np.ndarray, k: int, metric: str
) -> tuple[np.ndarray, np.ndarray]:
    """Distances to and positions of the ``k`` nearest reference records under ``metric``."""
    return nearest_neighbors(query, reference, k=k, metric=neighbor_metric(metric))


def split_real(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Seeded split of the real rows: first floor(n/2) positions, then the rest.

    The fallback real-to-real reference when no holdout is given; it needs 4 rows.
    """
    if n < 4:
        raise InsufficientDataError(
            f"The real table has {n} rows; splitting it for the real-to-real "
            "distances needs at least 4. Provide a holdout table."
        )
    perm = np.random.default_rng(seed).permutation(n)
    half = n // 2
    return np.sort(perm[:half]), np.sort(perm[half:])


def check_k(k: int, sizes: dict[str, int], name: str = "k") -> None:
    """``k`` neighbours must exist in every reference table (``sizes``: label to size)."""
    for label, size in sizes.items():
        if k > size:
            raise ParameterError(
                f"`{name}` must be at most {size} (the number of {label}); got {k}. Choose "
                f"a smaller {name}."
            )


@dataclass(frozen=True)
class DistanceSetup:
    """What a DCR measure works on: the validated review, its release, the columns, the
    child seeds, the encoded tables (``real``, ``synthetic`` and ``holdout`` when given)
    and the space's params."""

    data: ReviewData
    synthetic: pd.DataFrame
    columns: list[str]
    split_seed: int
    boot_seed: int
    encoded: dict[str, np.ndarray]
    space_info: dict[str, Any]


def distance_inputs(
    real: pd.DataFrame,
    synthetic: Any,
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None,
    schema: Schema | None,
    columns: Sequence[str] | None,
    metric: str,
    numeric_missing: str,
    seed: int,
    measure: str,
    space: str = "shared",
    embedding: Any = None,
    embedding_params: dict[str, Any] | None = None,
) -> DistanceSetup:
    """Shared set-up of the DCR measures: validated inputs, one release, encoded tables
    (in the shared encoding or the contrastive embedding) and the space's params."""
    check_space(space)
    if space == "contrastive" and metric != "euclidean":
        raise ParameterError(
            "The contrastive embedding is a Euclidean space (unit vectors): use "
            f"metric='euclidean' with space='contrastive'; got {metric!r}."
        )
    data = prepare_review(
        real, synthetic, threat=threat, holdout=holdout, schema=schema, min_rows=1
    )
    syn = single_release(data, measure)
    cols = analysis_columns(data.schema, columns)
    split_seed, boot_seed = boot_seeds(seed)
    frames = {"real": data.real, "synthetic": syn}
    if data.holdout is not None:
        frames["holdout"] = data.holdout
    if space == "contrastive":
        encoder = resolve_encoder(data, embedding, embedding_params, seed, cols)
        enc = {name: encoder.transform(frame, cols) for name, frame in frames.items()}
        info = {"space": "contrastive", "embedding": encoder.describe()}
    else:
        enc, _ = encode_for_distance(data, cols, metric, numeric_missing, frames)
        info = {"space": "shared"}
    return DistanceSetup(data, syn, cols, split_seed, boot_seed, enc, info)
