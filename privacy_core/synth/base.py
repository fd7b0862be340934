"""The generator contract shared by the built-in synthesizers."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import pandas as pd

from ..data import Schema, canonical_schema
from ..errors import InsufficientDataError
from ..validation import check_positive_int, check_seed


class Generator(ABC):
    """fit(real, seed) once, then sample(n, seed) as often as needed."""

    name: str = "generator"

    def fit(self, real: pd.DataFrame, *, seed: int = 0) -> Generator:
        if len(real) < 2:
            raise InsufficientDataError(
                f"A generator needs at least 2 real rows to fit; got {len(real)}."
            )
        self.seed_ = check_seed(seed)
        self.columns_ = list(real.columns)
        self.n_fit_ = len(real)
        self.schema_: Schema = canonical_schema(real)
        self._fit(real.reset_index(drop=True))
        return self

    def sample(self, n: int, *, seed: int = 0) -> pd.DataFrame:
        if not hasattr(self, "columns_"):
            raise RuntimeError(f"{type(self).__name__}.sample called before fit().")
        n = check_positive_int("n", n)
        out = self._sample(n, check_seed(seed))[self.columns_].reset_index(drop=True)
        # Canonical dtypes whatever the generator built (pandas may infer "str" for objects).
        for spec in self.schema_.columns:
            out[spec.name] = out[spec.name].astype("float64" if spec.is_numeric else object)
        return out

    def params(self) -> dict[str, Any]:
        return {"method": self.name}

    def default_size(self) -> int:
        """Rows to sample when the caller gives no size: as many as were fitted."""
        if not hasattr(self, "n_fit_"):
            raise RuntimeError(f"{type(self).__name__}.default_size called before fit().")
        return int(self.n_fit_)

    @abstractmethod
    def _fit(self, real: pd.DataFrame) -> None: ...

    @abstractmethod
    def _sample(self, n: int, seed: int) -> pd.DataFrame: ...
