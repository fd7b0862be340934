"""Built-in synthetic data generators.

Every generator follows one contract: construct with its knobs, ``fit(real, seed=...)``
on a table in canonical form, then ``sample(n, seed=...)`` returns a table with the same
columns. They double as the baselines of later pages: HALF (fidelity upper bound),
HISTOGRAM (independent marginals, fidelity lower bound), SELF (a copy: worst privacy).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..errors import ParameterError
from .autoregressive import AutoregressiveGenerator
from .base import Generator
from .baselines import HalfGenerator, HistogramGenerator, SelfGenerator, half_split
from .cart import CartGenerator
from .dp import DPIndependentGenerator, DPMarginalGenerator
from .leaky import LeakyGenerator

GENERATORS: dict[str, type[Generator]] = {
    "cart": CartGenerator,
    "histogram": HistogramGenerator,
    "half": HalfGenerator,
    "self": SelfGenerator,
    "autoregressive": AutoregressiveGenerator,
    "dp-independent": DPIndependentGenerator,
    "dp-mst": DPMarginalGenerator,
    "leaky": LeakyGenerator,
}


def make_generator(method: str, **params: Any) -> Generator:
    """Instantiate a built-in generator by name (``cart``, ``histogram``, ``half``, ``self``)."""
    try:
        cls = GENERATORS[method]
    except KeyError:
        raise ParameterError(
            f"Unknown generator {method!r}; choose one of {', '.join(GENERATORS)}."
        ) from None
    return cls(**params)


def synthesize(
    real: pd.DataFrame, *, method: str = "cart", n: int | None = None, seed: int = 0, **params: Any
) -> pd.DataFrame:
    """Fit a built-in generator on ``real`` (canonical form) and sample ``n`` rows.

    ``n=None`` takes the generator's default size: as many rows as ``real`` has, except
    HALF, whose default is its half (floor(n/2) distinct real rows, no replacement).
    """
    gen = make_generator(method, **params).fit(real, seed=seed)
    return gen.sample(gen.default_size() if n is None else n, seed=seed)


__all__ = [
    "GENERATORS",
    "Generator",
    "CartGenerator",
    "HistogramGenerator",
    "HalfGenerator",
    "SelfGenerator",
    "half_split",
    "make_generator",
    "synthesize",
]
