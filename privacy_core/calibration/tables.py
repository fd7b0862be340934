"""The split behind a calibration: training, an equal release pool of unseen rows, and a
holdout reservoir whose prefixes are the holdouts of the size ratios (seeded)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InsufficientDataError


@dataclass(frozen=True, eq=False)
class CalibrationTables:
    """The split behind a calibration: training, release pool and holdout reservoir."""

    training: pd.DataFrame
    pool: pd.DataFrame
    reservoir: pd.DataFrame

    def holdout(self, ratio: float) -> pd.DataFrame:
        n = max(2, int(round(len(self.training) / ratio)))
        return self.reservoir.iloc[:n]


def calibration_tables(
    real: pd.DataFrame, *, ratios: Sequence[float], max_training: int | None = None, seed: int = 0
) -> CalibrationTables:
    """Split canonical real rows into training, pool and holdout reservoir (seeded).

    Training and pool are equal; the reservoir holds ``len(training) / min(ratios)``
    rows. ``max_training`` caps the training size (the rest of the rows is unused).
    """
    n = len(real)
    smallest = min(ratios)
    n_train = int(n // (2 + 1 / smallest))
    if max_training is not None:
        n_train = min(n_train, max_training)
    n_res = int(round(n_train / smallest))
    if n_train < 20 or n_res < 10:
        raise InsufficientDataError(
            f"Calibration splits the real rows into training, an equal pool of unseen rows "
            f"and a holdout of training/{smallest:g} rows; {n} rows leave only {n_train} "
            "training rows. Give at least 100 rows (a few thousand for tight intervals)."
        )
    order = np.random.default_rng(seed).permutation(n)
    train = real.iloc[np.sort(order[:n_train])]
    pool = real.iloc[np.sort(order[n_train : 2 * n_train])]
    # the reservoir keeps its random order so that every prefix is a random sample
    reservoir = real.iloc[order[2 * n_train : 2 * n_train + n_res]]
    return CalibrationTables(training=train, pool=pool, reservoir=reservoir)


__all__ = ["CalibrationTables", "calibration_tables"]
