"""The leaky risk model: releases that copy a known fraction of the training records.

The real data are split (seeded) into three disjoint parts: *training* (the records whose
privacy is at stake), *control* (real records nobody released: the measures' holdout)
and a *release pool* (real records of the same population that stand in for a perfectly
private synthetic release). A release at leak fraction f_l has as many rows as the
training set; round(f_l * n) of them are training records drawn without replacement, the
rest are pool records. f_l = 0 gives a release with no training record in it, f_l = 1 a
shuffled copy of the whole training set: every measure should then read its maximum.

Optional noise is added to the *inserted training records only* (``LeakNoise``), to see
whether a measure still detects leaks that are not exact copies:

* float columns: Gaussian noise with standard deviation ``sigma`` on the **min-max scale**
  of the column (``sigma`` times the training range of the column), the same scale the
  engine's encoder and the distance measures use, so sigma = 0.05 moves a value by about
  5 % of its range whatever its unit;
* integer columns: a symmetric Poisson shift, ±Poisson(``lam``) with a fair random sign,
  so the noise has mean zero and keeps whole numbers;
* categorical columns: with probability ``p`` the value is replaced by another level
  drawn uniformly from the column's other training levels.

Departure from LeakPro's ``LeakySynthesizer`` (release = control set, training rows drawn
*with* replacement): training rows are drawn *without* replacement, so f_l = 1 really
releases every training record (the paper's f_l = |D̂ ∩ D_t| / |D_t|), and the release pool
is kept apart from the control set, so the control baseline of the attacks stays a set
of records that appear in no release.

Notes
-----
``risk-insertion-framework.md`` §5.1.1 (leaky risk model); ``contrastive-embeddings.md``
§4.2 (leaky evaluation with noise injection σ, λ, p); ``spec/existing-tools.md`` (LeakPro
``leaky_synthesizer.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..data import Schema, canonical_schema
from ..errors import InsufficientDataError, ParameterError
from ..stats import child_seeds
from ..validation import check_in_range, check_positive_int, check_seed
from .base import Generator


@dataclass(frozen=True)
class LeakNoise:
    """Noise added to the training records inserted in a leaky release.

    Parameters
    ----------
    sigma
        Gaussian standard deviation for float columns, as a fraction of the column's
        training range (min-max scale). 0 = no noise.
    lam
        Poisson rate of the symmetric integer shift ±Poisson(lam). 0 = no noise.
    p
        Probability of flipping a categorical value to another level. 0 = no noise.
    """

    sigma: float = 0.0
    lam: float = 0.0
    p: float = 0.0

    def __post_init__(self) -> None:
        check_in_range("noise.sigma", self.sigma, 0, 10)
        check_in_range("noise.lam", self.lam, 0, 1000)
        check_in_range("noise.p", self.p, 0, 1)

    @property
    def active(self) -> bool:
        return self.sigma > 0 or self.lam > 0 or self.p > 0

    def to_dict(self) -> dict[str, float]:
        return {"sigma": float(self.sigma), "lam": float(self.lam), "p": float(self.p)}

    @classmethod
    def coerce(cls, noise: LeakNoise | dict | None) -> LeakNoise:
        """Accept a LeakNoise, a ``{"sigma", "lam", "p"}`` mapping or None."""
        if noise is None:
            return cls()
        if isinstance(noise, LeakNoise):
            return noise
        if isinstance(noise, dict):
            unknown = sorted(set(noise) - {"sigma", "lam", "p"})
            if unknown:
                raise ParameterError(
                    f"`noise` accepts the keys sigma, lam and p; got unknown {unknown}."
                )
            return cls(**{k: float(v) for k, v in noise.items()})
        raise ParameterError(
            f"`noise` must be a LeakNoise, a dict with sigma/lam/p, or None; got "
            f"{type(noise).__name__}."
        )


@dataclass(frozen=True, eq=False)
class LeakySplit:
    """The three disjoint parts of the real data used by the leaky risk model."""

    training: pd.DataFrame
    control: pd.DataFrame
    pool: pd.DataFrame


@dataclass(frozen=True, eq=False)
class LeakyRelease:
    """A leaky release and where each of its rows came from.

    ``source[i]`` is ``"training"`` or ``"pool"``; ``origin[i]`` the index label of the row
    it was copied from in that table (before noise).
    """

    release: pd.DataFrame
    source: np.ndarray
    origin: np.ndarray
    leak_fraction: float
    noise: LeakNoise

    @property
    def n_leaked(self) -> int:
        return int((self.source == "training").sum())


def leaky_split(
    real: pd.DataFrame,
    *,
    fractions: tuple[float, float, float] = (1 / 3, 1 / 3, 1 / 3),
    seed: int = 0,
) -> LeakySplit:
    """Split canonical real data into training, control and release pool (seeded).

    Parameters
    ----------
    real
        The real table in canonical form (see :func:`privacy_core.prepare_table`).
    fractions
        Shares of training, control and pool; they must sum to 1. The pool must hold at
        least as many rows as the training set, so that f_l = 0 is possible.
    seed
        Seed of the permutation.

    Raises
    ------
    ParameterError
        Fractions that do not sum to 1, or a pool smaller than the training set.
    InsufficientDataError
        Fewer than 2 rows in a part.
    """
    seed = check_seed(seed)
    fr = np.asarray(fractions, dtype=float)
    if fr.shape != (3,) or np.any(fr <= 0) or not np.isclose(fr.sum(), 1.0):
        raise ParameterError(
            f"`fractions` must be three positive shares (training, control, pool) summing "
            f"to 1; got {tuple(fractions)!r}."
        )
    if fr[2] < fr[0]:
        raise ParameterError(
            f"The release pool share ({fr[2]:.3g}) must be at least the training share "
            f"({fr[0]:.3g}): a release at f_l = 0 has as many pool rows as training rows."
        )
    n = len(real)
    order = np.random.default_rng(seed).permutation(n)
    n_train = int(np.floor(fr[0] * n))
    n_control = int(np.floor(fr[1] * n))
    parts = np.split(order, [n_train, n_train + n_control])
    if min(len(p) for p in parts) < 2:
        raise InsufficientDataError(
            f"The real table has {n} rows; split {tuple(np.round(fr, 3))} leaves fewer "
            "than 2 rows in a part. Give at least 6 rows (a few hundred for useful measures)."
        )
    train, control, pool = (real.iloc[np.sort(p)] for p in parts)
    return LeakySplit(training=train, control=control, pool=pool)


def leaky_release(
    training: pd.DataFrame,
    pool: pd.DataFrame,
    *,
    leak_fraction: float,
    n: int | None = None,
    noise: LeakNoise | dict | None = None,
    schema: Schema | None = None,
    seed: int = 0,
) -> LeakyRelease:
    """Build one leaky release from training and pool records.

    Parameters
    ----------
    training, pool
        Canonical tables with the same columns: the training records (may leak) and the
        release pool (real records never used for training).
    leak_fraction
        f_l in [0, 1]: the share of the release made of training records.
    n
        Release size; default ``len(training)`` so that f_l is also the share of the
        training set that is released (f_l = |D̂ ∩ D_t| / |D_t|).
    noise
        Noise on the inserted training records (see :class:`LeakNoise`).
    schema
        Schema of the canonical tables (which numerics are integers); inferred from
        ``training`` when omitted.
    seed
        Seed of the row choice, the shuffle and the noise.

    Returns
    -------
    LeakyRelease
        The release (index 0..n-1, rows in random order) with each row's source.

    Raises
    ------
    ParameterError
        f_l outside [0, 1], or mismatched columns.
    InsufficientDataError
        The pool is too small for the non-leaked part without repeating rows.
    """
    f = check_in_range("leak_fraction", leak_fraction, 0, 1)
    seed = check_seed(seed)
    noise = LeakNoise.coerce(noise)
    if list(training.columns) != list(pool.columns):
        raise ParameterError("`training` and `pool` must have the same columns in the same order.")
    n = len(training) if n is None else check_positive_int("n", n)
    k = round(f * n)
    if n - k > len(pool):
        raise InsufficientDataError(
            f"The release pool has {len(pool)} rows but the release needs {n - k} rows "
            "that are not training records; give a larger pool or a smaller release."
        )
    rng = np.random.default_rng(seed)
    take_t = rng.choice(len(training), size=k, replace=k > len(training))
    take_p = rng.choice(len(pool), size=n - k, replace=False)
    leaked = training.iloc[take_t].reset_index(drop=True)
    if noise.active and k:
        schema = canonical_schema(training) if schema is None else schema
        leaked = _add_noise(leaked, training, schema, noise, rng)
    release = pd.concat([leaked, pool.iloc[take_p].reset_index(drop=True)], ignore_index=True)
    source = np.array(["training"] * k + ["pool"] * (n - k), dtype=object)
    origin = np.concatenate([training.index.to_numpy()[take_t], pool.index.to_numpy()[take_p]])
    order = rng.permutation(n)
    release = release.iloc[order].reset_index(drop=True)
    return LeakyRelease(
        release=release, source=source[order], origin=origin[order], leak_fraction=f, noise=noise
    )


def _add_noise(
    rows: pd.DataFrame,
    training: pd.DataFrame,
    schema: Schema,
    noise: LeakNoise,
    rng: np.random.Generator,
) -> pd.DataFrame:
    out = rows.copy()
    m = len(out)
    for col in out.columns:
        spec = schema[col]
        if spec.is_numeric:
            x = out[col].to_numpy(dtype=float).copy()
            finite = np.isfinite(x)
            if spec.integer and noise.lam > 0:
                shift = rng.poisson(noise.lam, size=m) * rng.choice([-1.0, 1.0], size=m)
                x = np.where(finite, x + shift, x)
            elif not spec.integer and noise.sigma > 0:
                ref = training[col].to_numpy(dtype=float)
                ref = ref[np.isfinite(ref)]
                span = float(ref.max() - ref.min()) if ref.size else 0.0
                x = np.where(finite, x + rng.normal(0.0, noise.sigma * (span or 1.0), size=m), x)
            out[col] = x
        elif noise.p > 0:
            levels = np.array(sorted(set(training[col].unique())), dtype=object)
            if len(levels) < 2:
                continue
            values = out[col].to_numpy(dtype=object).copy()
            flip = np.nonzero(rng.random(m) < noise.p)[0]
            if flip.size:
                codes = pd.Index(levels).get_indexer(values[flip])
                # Draw among the *other* levels: an offset of 1..L-1 from the current code.
                offset = rng.integers(1, len(levels), size=flip.size)
                codes = np.where(
                    codes < 0,
                    rng.integers(0, len(levels), size=flip.size),
                    (codes + offset) % len(levels),
                )
                values[flip] = levels[codes]
            out[col] = values
    return out


def leaky_sets(
    real: pd.DataFrame,
    *,
    leak_fraction: float,
    noise: LeakNoise | dict | None = None,
    schema: Schema | None = None,
    fractions: tuple[float, float, float] = (1 / 3, 1 / 3, 1 / 3),
    seed: int = 0,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(training, control, release) of the leaky risk model at one leak fraction.

    ``real`` is canonical; one seed drives the split and the release (child seeds of a
    ``SeedSequence``). Pass ``training`` as the measures' real data and ``control`` as
    their holdout.

    Notes
    -----
    ``risk-insertion-framework.md`` §5.1.1.
    """
    seed = check_seed(seed)
    split_seed, release_seed = child_seeds(seed, 2)
    parts = leaky_split(real, fractions=fractions, seed=split_seed)
    rel = leaky_release(
        parts.training,
        parts.pool,
        leak_fraction=leak_fraction,
        noise=noise,
        schema=schema,
        seed=release_seed,
    )
    return parts.training, parts.control, rel.release


class LeakyGenerator(Generator):
    """The leaky risk model behind the generator contract.

    ``fit(real)`` takes the training records; the non-leaked rows come from ``pool``
    (real records the "generator" never saw). Without a pool, ``fit`` splits ``real`` in
    two halves (seeded): ``training_index_`` holds the index labels of the half that is
    leaked from and ``pool_index_`` those of the other half, so the caller knows which
    records are members.

    Parameters
    ----------
    leak_fraction
        f_l in [0, 1].
    noise
        :class:`LeakNoise` (or a dict) applied to inserted training records.
    pool
        Canonical real rows not in the training data; optional.
    """

    name = "leaky"

    def __init__(
        self,
        leak_fraction: float = 0.5,
        noise: LeakNoise | dict | None = None,
        pool: pd.DataFrame | None = None,
    ):
        self.leak_fraction = check_in_range("leak_fraction", leak_fraction, 0, 1)
        self.noise = LeakNoise.coerce(noise)
        self.pool = pool

    def params(self) -> dict:
        return {
            "method": self.name,
            "leak_fraction": self.leak_fraction,
            "noise": self.noise.to_dict(),
            "pool": self.pool is not None,
        }

    def _fit(self, real: pd.DataFrame) -> None:
        if self.pool is not None:
            if list(self.pool.columns) != list(real.columns):
                raise ParameterError("`pool` must have the same columns as the training data.")
            self.training_ = real
            self.pool_ = self.pool.reset_index(drop=True)
            self.training_index_ = real.index.to_numpy()
            self.pool_index_ = None
            return
        if len(real) < 4:
            raise InsufficientDataError(
                f"Without a pool the leaky generator splits the data in two halves and "
                f"needs at least 4 rows; got {len(real)}."
            )
        order = np.random.default_rng(self.seed_).permutation(len(real))
        half = len(real) // 2
        self.training_ = real.iloc[np.sort(order[:half])]
        self.pool_ = real.iloc[np.sort(order[half:])]
        self.training_index_ = self.training_.index.to_numpy()
        self.pool_index_ = self.pool_.index.to_numpy()

    def _sample(self, n: int, seed: int) -> pd.DataFrame:
        rel = leaky_release(
            self.training_,
            self.pool_,
            leak_fraction=self.leak_fraction,
            n=n,
            noise=self.noise,
            schema=self.schema_,
            seed=seed,
        )
        return rel.release


__all__ = [
    "LeakNoise",
    "LeakyGenerator",
    "LeakyRelease",
    "LeakySplit",
    "leaky_release",
    "leaky_sets",
    "leaky_split",
]


def leaky_shadow_options(level: float, noise: LeakNoise | dict | None = None) -> dict[str, Any]:
    """Options that make a measure of the *generator* (the membership disclosure score's
    shadow models) see leak fraction ``level``: every shadow is the leaky risk model,
    which copies that share of its own training rows and fills the rest from the unseen
    rows the measure is given as its holdout. The calibration matrix and the risk lab's
    leaky sweeps both drive it this way."""
    return {
        "shadow_method": "leaky",
        "shadow_params": {
            "leak_fraction": float(level),
            "noise": LeakNoise.coerce(noise).to_dict(),
        },
    }
