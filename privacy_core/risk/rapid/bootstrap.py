"""RAPID's bootstrap over real records: the weights drawn once per fit, and the rates they give.

A fit draws its bootstrap weights (records x replicates) once and keeps them, so that a
new threshold, score variant or curve re-aggregates without redrawing:
:class:`ThresholdBootstrap` sorts the records by score once and answers the bootstrap
rates of ``score > t`` (or ``< t``) at any t from block prefix sums. Above a memory bound
the weights are Poisson (a byte each) and, beyond that, redrawn in chunks at each
aggregation from the seed the fit recorded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ...stats import bootstrap_weights, poisson_bootstrap_weights

if TYPE_CHECKING:
    from .result import RapidResult

# Above this many stored bootstrap weights (B x n float32 = 4 bytes each) the weights
# are redrawn in chunks at each aggregation instead of kept: bounded memory on 1M rows.
_MAX_STORED_WEIGHTS = 60_000_000
# Above it, Poisson weights of one byte each are kept up to this many (1.5 GB).
_MAX_POISSON_WEIGHTS = 1_500_000_000


@dataclass(frozen=True, eq=False)
class ThresholdBootstrap:
    """Exact bootstrap rates of ``score > t`` (or ``< t``) for any threshold t, fast.

    Records are sorted by score once per model column, and the bootstrap weight rows
    (records x replicates) are summed at block boundaries of the sorted order. The rate
    at a threshold is then one prefix lookup plus the sum of at most one block of weight
    rows: a slider move touches kilobytes instead of the whole B x n weight matrix.
    """

    weights_t: np.ndarray  # (n, B) resampling counts of each record (float32 or uint8)
    order: np.ndarray  # (k, n) records sorted by score (ascending, NaN last)
    sorted_scores: np.ndarray  # (k, n)
    n_valid: np.ndarray  # (k,) non-NaN scores per column
    prefix: np.ndarray  # (k, n_blocks + 1, B) weight sums of the first j * block records
    block: int
    # (B,) each replicate's total weight: n for the multinomial bootstrap, random for the
    # Poisson one (a rate is a weighted share of the replicate's own records)
    totals: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @classmethod
    def build(
        cls, weights_t: np.ndarray, scores2d: np.ndarray, *, block: int = 256
    ) -> ThresholdBootstrap:
        n, n_boot = weights_t.shape
        k = scores2d.shape[1]
        order = np.argsort(scores2d, axis=0, kind="stable").T.copy()
        sorted_scores = np.take_along_axis(scores2d.T, order, axis=1)
        n_blocks = n // block
        prefix = np.zeros((k, n_blocks + 1, n_boot), dtype=np.float64)
        # blocks are summed a slab at a time: the gathered weights of a million records
        # would otherwise be copied whole for every column
        slab = max(1, 4_000_000 // max(block * n_boot, 1))
        for j in range(k):
            for b0 in range(0, n_blocks, slab):
                b1 = min(b0 + slab, n_blocks)
                head = weights_t[order[j, b0 * block : b1 * block]]
                prefix[j, b0 + 1 : b1 + 1] = head.reshape(b1 - b0, block, n_boot).sum(
                    axis=1, dtype=np.float64
                )
            np.cumsum(prefix[j], axis=0, out=prefix[j])
        return cls(
            weights_t=weights_t,
            order=order,
            sorted_scores=sorted_scores,
            n_valid=np.isfinite(sorted_scores).sum(axis=1),
            prefix=prefix,
            block=block,
            totals=weights_t.sum(axis=0, dtype=np.float64),
        )

    def _prefix_sum(self, j: int, p: int) -> np.ndarray:
        b = p // self.block
        rest = self.order[j, b * self.block : p]
        return self.prefix[j, b] + self.weights_t[rest].sum(axis=0, dtype=np.float64)

    def counts(self, threshold: float, *, above: bool) -> np.ndarray:
        """Per column, how many records score > threshold (above) or < threshold."""
        out = np.empty(self.order.shape[0], dtype=np.int64)
        for j in range(self.order.shape[0]):
            valid = self.sorted_scores[j, : self.n_valid[j]]
            if above:
                out[j] = self.n_valid[j] - np.searchsorted(valid, threshold, side="right")
            else:
                out[j] = np.searchsorted(valid, threshold, side="left")
        return out

    def rates(self, threshold: float, *, above: bool) -> np.ndarray:
        """Bootstrap rates, shape (B, k), of score > threshold (above) or < threshold."""
        n = self.totals
        out = np.empty((self.weights_t.shape[1], self.order.shape[0]))
        for j in range(self.order.shape[0]):
            valid = self.sorted_scores[j, : self.n_valid[j]]
            if above:
                start = int(np.searchsorted(valid, threshold, side="right"))
                total = self._prefix_sum(j, int(self.n_valid[j]))
                out[:, j] = (total - self._prefix_sum(j, start)) / n
            else:
                end = int(np.searchsorted(valid, threshold, side="left"))
                out[:, j] = self._prefix_sum(j, end) / n
        return out


def bootstrap_rates(
    res: RapidResult, scores: np.ndarray, threshold: float, index: ThresholdBootstrap | None
) -> np.ndarray:
    """Bootstrap rates of the at-risk flag for every model column: shape (B, A*M)."""
    n = scores.shape[0]
    above = res.kind == "categorical"
    if index is not None:
        return index.rates(threshold, above=above)
    n_boot = int(res.params["bootstrap"])
    if n_boot == 0:
        return np.zeros((0, scores.shape[1] * scores.shape[2]))
    flags = (scores > threshold if above else scores < threshold).reshape(n, -1)
    f = flags.astype(np.float32)
    chunk = max(1, _MAX_STORED_WEIGHTS // max(n, 1))
    out = []
    for start in range(0, n_boot, chunk):
        size = min(chunk, n_boot - start)
        w = bootstrap_weights(n, size, seed=int(res.params["bootstrap_seed"]) + start)
        out.append((w @ f) / n)
    return np.vstack(out)


def stored_bootstrap(n: int, n_boot: int, seed: int) -> tuple[np.ndarray | None, str]:
    """Bootstrap weights drawn once per fit and kept, so a slider step or a curve never
    redraws them: multinomial (float32) up to _MAX_STORED_WEIGHTS, then Poisson (a byte
    each: a million records x 500 replicates in 500 MB); beyond that, redrawn per step."""
    if n_boot and n_boot * n <= _MAX_STORED_WEIGHTS:
        return np.ascontiguousarray(bootstrap_weights(n, n_boot, seed=seed).T), "multinomial"
    if n_boot and n_boot * n <= _MAX_POISSON_WEIGHTS:
        return poisson_bootstrap_weights(n, n_boot, seed=seed), "poisson"
    return None, "multinomial"


def attacker_bootstrap(res: RapidResult) -> np.ndarray | None:
    """Bootstrap replicates of each attacker's RAPID at the current threshold, (B, A)."""
    boot = bootstrap_rates(res, res.scores, res.threshold, res.boot_index)
    if boot.shape[0] == 0:
        return None
    n_att, n_rep = res.scores.shape[1:]
    return boot.reshape(-1, n_att, n_rep).mean(axis=2)
