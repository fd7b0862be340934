"""Linkability: two partial views of a real record linked through their nearest synthetic
neighbours (:func:`linkability`).

A pipeline: split (or check) the two column sets, place the release on each, attack the
training and control targets, draw the random links of the baseline, summarise. The
linking ranks are kept so that fewer neighbours are a cheap re-reading
(:meth:`~privacy_core.risk.attacks.common.LinkabilityResult.at`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ...data import Schema
from ...errors import ParameterError, ThreatModelError
from ...inputs import ReviewData
from ...stats import child_rngs
from ...threat import ThreatModel
from ...validation import check_confidence, check_positive_int, check_seed
from .common import LinkabilityResult, count_linked, summarise_attack
from .knn import MixedSpace, attack_space, knn_random_ties
from .targets import attack_both_sides, attack_inputs, check_n_attacks, resolve_columns


def _link_rank(idx_a: np.ndarray, idx_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Smallest k' whose top-k' neighbour sets intersect (0 if none within k), and the
    position in ``idx_a`` of the linking record."""
    k = idx_a.shape[1]
    eq = idx_a[:, :, None] == idx_b[:, None, :]
    ranks = np.maximum.outer(np.arange(k), np.arange(k)) + 1
    rank = np.where(eq, ranks[None], k + 1).reshape(len(idx_a), -1)
    best = rank.argmin(axis=1)
    r = rank[np.arange(len(idx_a)), best]
    return np.where(r <= k, r, 0), best // k


def informative_split(real: pd.DataFrame, columns: Sequence[str]) -> tuple[list[str], list[str]]:
    """Split ``columns`` into two halves that each identify as many records as possible.

    Linking two partial records through the release can only succeed when each partial
    record points at few synthetic rows: a half made of low-cardinality columns ties with
    hundreds of rows and no copy, however exact, can be linked through it. The split is
    greedy: columns in decreasing number of distinct values, each added to the half whose
    share of records unique on that half is lower (the smaller half on ties), so the
    weaker half is as identifying as the columns allow. Deterministic; it looks only at
    the training records (what the attacker's partial records are drawn from).
    """
    cols = list(columns)
    position = {c: i for i, c in enumerate(cols)}
    order = sorted(cols, key=lambda c: (-real[c].nunique(dropna=False), position[c]))
    halves: tuple[list[str], list[str]] = ([], [])
    # Each half's records as one group code (equal codes = equal values on every column of
    # the half, missing values equal to each other, as in DataFrame.duplicated): adding a
    # column refines the codes in O(n), so the split costs O(n · columns) instead of
    # re-reading the growing half at every step (2,000 columns took 290 s that way).
    n = len(real)
    codes = [np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)]

    def unique_share(h: int) -> float:
        if not halves[h]:
            return -1.0
        counts = np.bincount(codes[h])
        return float((counts[codes[h]] == 1).mean()) if n else 0.0

    for c in order:
        a, b = unique_share(0), unique_share(1)
        pick = 0 if (a, len(halves[0])) <= (b, len(halves[1])) else 1
        halves[pick].append(c)
        col_codes, levels = pd.factorize(real[c], use_na_sentinel=False)
        codes[pick] = pd.factorize(codes[pick] * max(len(levels), 1) + col_codes)[0].astype(
            np.int64
        )
    # keep the input order inside each half (readable parameters)
    return ([c for c in cols if c in halves[0]], [c for c in cols if c in halves[1]])


# A full copy that links fewer records than this cannot show a risk at the scorecard's
# lines: the reading is then flagged as uninformative on this data.
COPY_CEILING_MIN = 0.1


def copy_ceiling(real: pd.DataFrame, cols_a: Sequence[str], cols_b: Sequence[str]) -> float:
    """The share of records a full copy of ``real`` would let the attack link (k = 1).

    A target's nearest synthetic record on A is, in a copy, drawn at random among the
    c_A rows that share its A values, and likewise on B; the two draws are the same record
    with probability c_AB / (c_A c_B), c_AB the rows sharing both. Averaged over the
    records, this is the success a copy reaches: when the halves single out few people
    (natural duplicates on demographic quasi-identifiers), even a copy links almost nobody
    and the measure cannot tell a leaky release from a safe one on this data.
    """
    if not len(real):
        return float("nan")
    frame = real[list(cols_a) + list(cols_b)].astype(str)
    c_a = frame.groupby(list(cols_a), dropna=False)[cols_b[0]].transform("size")
    c_b = frame.groupby(list(cols_b), dropna=False)[cols_a[0]].transform("size")
    c_ab = frame.groupby(list(cols_a) + list(cols_b), dropna=False)[cols_a[0]].transform("size")
    return float((c_ab / (c_a * c_b)).mean())


def _random_neighbours(n_syn: int, n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """k distinct random synthetic rows per attack, in random order."""
    out = rng.integers(0, n_syn, size=(n, k))
    if k > 1:
        while True:
            srt = np.sort(out, axis=1)
            bad = np.flatnonzero((srt[:, 1:] == srt[:, :-1]).any(axis=1))
            if bad.size == 0:
                break
            out[bad] = (
                rng.integers(0, n_syn, size=(bad.size, k))
                if 2 * k < n_syn
                else np.array([rng.choice(n_syn, size=k, replace=False) for _ in bad])
            )
    return out


def linkability(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    aux_cols: tuple[Sequence[str], Sequence[str]] | None = None,
    n_attacks: int | None = None,
    n_neighbors: int = 1,
    numeric_missing: str = "median",
    confidence: float = 0.95,
    space: str = "shared",
    embedding: Any = None,
    embedding_params: dict[str, Any] | None = None,
    seed: int = 0,
) -> LinkabilityResult:
    """Linkability risk: can the release re-join two partial views of a real record?

    For each target the k nearest synthetic records are found using only the columns A,
    then only the columns B (mixed distance: range-scaled numeric differences plus one per
    category mismatch, summed); the target is linked when the two neighbour sets share a
    record.

    Parameters
    ----------
    real, synthetic, holdout, threat, schema
        As :func:`singling_out`.
    aux_cols
        ``(A, B)``, two disjoint, non-empty column lists. Default: the quasi-identifiers
        split by :func:`informative_split` into two halves that each identify as many
        records as possible. (Splitting them in list order left the identifying columns in
        one half, so that even a full copy read 0.15 on the health demo.)
    n_attacks
        Training (and control) targets, sampled without replacement; None (default) =
        every record (consensus R2) up to 50,000 per side and a seeded sample above
        (:func:`~privacy_core.risk.neighbors.default_queries`: 20,000 against a
        million-row release; each target is still linked against the whole release;
        ``params["n_targets"]`` says how many).
    n_neighbors
        k. Results for any k' <= k are re-read with ``result.at(n_neighbors=k')``.
    numeric_missing
        Encoder strategy for numeric missing values (``median`` or ``error``).
    confidence, seed
        Interval level; seed of target sampling, tie-breaking and the baseline.

    Returns
    -------
    LinkabilityResult
        Named ``linkability``; ``records`` has ``neighbors_a`` / ``neighbors_b`` (synthetic
        index labels), ``link_rank`` (smallest k' that links, 0 = none), ``guess`` (the
        linking synthetic record) and ``success``.

    Notes
    -----
    Giomi et al. (PoPETs 2023); ``risk-insertion-framework.md`` §4.3.2;
    ``metric-reference.md`` §2 (baseline: two independent draws of k random synthetic
    rows per attack).
    """
    n_attacks = check_n_attacks(n_attacks)
    n_neighbors = check_positive_int("n_neighbors", n_neighbors)
    confidence = check_confidence(confidence)
    seed = check_seed(seed)
    data, syn, hold = attack_inputs(real, synthetic, threat=threat, holdout=holdout, schema=schema)
    cols_a, cols_b, split = _column_sets(data, aux_cols)
    _check_within_release(n_neighbors, len(syn))
    rng_t, rng_c, rng_a, rng_b, rng_base = child_rngs(seed, 5)
    place, space_info = attack_space(
        data, cols_a + cols_b, numeric_missing, space, embedding, embedding_params, seed
    )
    linker = _Linker.of(syn, place, cols_a, cols_b, n_neighbors, rng_a, rng_b)
    sides = attack_both_sides(
        linker.attack, data.real, hold, (rng_t, rng_c), n_attacks=n_attacks, n_release=len(syn)
    )
    rank_t, rank_c = sides.training, sides.control
    rank_base, baseline_table = linker.random_links(sides.n_training, rng_base)
    params = {
        "aux_cols": [cols_a, cols_b],
        "split": split,
        "n_attacks": n_attacks,
        "n_neighbors": n_neighbors,
        "n_targets": sides.n_training,
        # every record was asked for, a seeded sample was attacked (register size)
        "targets_sampled": n_attacks is None and sides.n_training < len(data.real),
        "n_control_targets": sides.n_control,
        "numeric_missing": numeric_missing,
        "distance": "l1 (range-scaled numerics + category mismatches)"
        if space == "shared"
        else "euclidean (contrastive embedding, other columns masked)",
        "control": hold is not None,
        "confidence": confidence,
        "seed": seed,
        **space_info,
    }
    shell = LinkabilityResult(
        name="linkability",
        extra=_copy_ceiling_extra(data.real, cols_a, cols_b, space),
        value=float("nan"),
        ci=None,
        params=params,
        record_table=sides.records,
        goal="lower",
        bounds=(0.0, 1.0),
        n_attacks=sides.n_training,
        n_success=count_linked(rank_t, n_neighbors),
        n_control_attacks=sides.n_control or 0,
        n_control_success=None if rank_c is None else count_linked(rank_c, n_neighbors),
        n_baseline_attacks=sides.n_training,
        n_baseline_success=count_linked(rank_base, n_neighbors),
        confidence=confidence,
        baseline_table=baseline_table,
        n_neighbors=n_neighbors,
        max_neighbors=n_neighbors,
        link_rank=rank_t,
        control_link_rank=rank_c,
        baseline_link_rank=rank_base,
    )
    return summarise_attack(shell, "linkability")  # type: ignore[return-value]


def _column_sets(
    data: ReviewData, aux_cols: tuple[Sequence[str], Sequence[str]] | None
) -> tuple[list[str], list[str], str]:
    """The two column sets A and B, and how they were chosen: given, or the
    quasi-identifiers split by :func:`informative_split`."""
    if aux_cols is None:
        qis = list(data.threat.quasi_identifiers)
        if len(qis) < 2:
            raise ThreatModelError(
                "Linkability splits the quasi-identifiers into two sets and needs at least "
                f"two; the threat model has {len(qis)}. Add a quasi-identifier or pass "
                "aux_cols=(A, B)."
            )
        aux_cols = informative_split(data.real, qis)
        split = "informative"
    else:
        split = "given"
    if not isinstance(aux_cols, (tuple, list)) or len(aux_cols) != 2:
        raise ParameterError(f"`aux_cols` must be a pair (A, B) of column lists; got {aux_cols!r}.")
    cols_a = resolve_columns(data, aux_cols[0], "aux_cols[0]", [])
    cols_b = resolve_columns(data, aux_cols[1], "aux_cols[1]", [])
    both = sorted(set(cols_a) & set(cols_b))
    if both:
        raise ParameterError(
            f"The two column sets of `aux_cols` must be disjoint; both contain "
            f"{', '.join(map(repr, both))}."
        )
    return cols_a, cols_b, split


def _check_within_release(n_neighbors: int, n_synthetic: int) -> None:
    if n_neighbors > n_synthetic:
        raise ParameterError(
            f"`n_neighbors` must be at most the number of synthetic rows ({n_synthetic}); "
            f"got {n_neighbors}."
        )


def _copy_ceiling_extra(
    real: pd.DataFrame, cols_a: list[str], cols_b: list[str], space: str
) -> dict[str, Any]:
    """The copy ceiling and, below :data:`COPY_CEILING_MIN`, why the reading is
    uninformative; nothing in the contrastive space (an embedding has no exact ties,
    which decide the copy's links)."""
    extra: dict[str, Any] = {}
    if space == "shared":
        ceiling = copy_ceiling(real, cols_a, cols_b)
        extra["copy_ceiling"] = ceiling
        if ceiling < COPY_CEILING_MIN:
            extra["uninformative"] = (
                f"the two halves of the quasi-identifiers single out few records: even a "
                f"full copy of the training rows would link about {ceiling:.1%} of them, "
                "so the attack cannot tell a leaky release from a safe one on this data"
            )
    return extra


@dataclass(frozen=True)
class _Linker:
    """The linking attacker: the release placed on each column set, with the random orders
    that break its neighbour ties."""

    place: Callable[[pd.DataFrame, list[str]], MixedSpace]
    cols_a: list[str]
    cols_b: list[str]
    syn_a: MixedSpace
    syn_b: MixedSpace
    perm_a: np.ndarray
    perm_b: np.ndarray
    syn_labels: np.ndarray
    n_neighbors: int

    @classmethod
    def of(
        cls,
        synthetic: pd.DataFrame,
        place: Callable[[pd.DataFrame, list[str]], MixedSpace],
        cols_a: list[str],
        cols_b: list[str],
        n_neighbors: int,
        rng_a: np.random.Generator,
        rng_b: np.random.Generator,
    ) -> _Linker:
        syn_a = place(synthetic, cols_a)
        syn_b = place(synthetic, cols_b)
        perm_a, perm_b = rng_a.permutation(len(synthetic)), rng_b.permutation(len(synthetic))
        labels = synthetic.index.to_numpy()
        return cls(place, cols_a, cols_b, syn_a, syn_b, perm_a, perm_b, labels, n_neighbors)

    def attack(self, targets: pd.DataFrame, role: str) -> tuple[np.ndarray, pd.DataFrame]:
        """Each target's link rank and one row per target: both neighbour lists, the link."""
        k, syn_labels = self.n_neighbors, self.syn_labels
        _, idx_a = knn_random_ties(self.place(targets, self.cols_a), self.syn_a, k, self.perm_a)
        _, idx_b = knn_random_ties(self.place(targets, self.cols_b), self.syn_b, k, self.perm_b)
        rank, pos = _link_rank(idx_a, idx_b)
        link = np.empty(len(rank), dtype=object)
        link[:] = None
        hit = rank > 0
        link[hit] = syn_labels[idx_a[np.flatnonzero(hit), pos[hit]]]
        table = pd.DataFrame(
            {
                "record": targets.index.to_numpy(),
                "role": role,
                "neighbors_a": list(map(tuple, syn_labels[idx_a])),
                "neighbors_b": list(map(tuple, syn_labels[idx_b])),
                "link_rank": rank,
                "link": link,
                "guess": link,
                "truth": targets.index.to_numpy(),
                "success": hit,
            }
        )
        return rank, table

    def random_links(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, pd.DataFrame]:
        """The baseline: ``n`` attacks that draw k random synthetic rows for each half."""
        n_syn, k = len(self.syn_labels), self.n_neighbors
        base_a = _random_neighbours(n_syn, n, k, rng)
        base_b = _random_neighbours(n_syn, n, k, rng)
        rank_base, _ = _link_rank(base_a, base_b)
        table = pd.DataFrame(
            {
                "attack": np.arange(n),
                "neighbors_a": list(map(tuple, self.syn_labels[base_a])),
                "neighbors_b": list(map(tuple, self.syn_labels[base_b])),
                "link_rank": rank_base,
                "success": rank_base > 0,
            }
        )
        return rank_base, table
