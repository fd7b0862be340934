"""The one table encoder of the engine.

Fitted on the real table only (so nothing about the synthetic data leaks into the scale),
then reused for attackers, generators and distances: numerics are min-max scaled to
[0, 1] by the real range (synthetic values may fall outside), categoricals are one-hot
encoded over the real categories followed by the schema's unseen categories (those a
holdout or synthetic table of the review holds, see ``Schema.with_unseen``: their columns
are all zeros on the real rows). A category the schema does not know at all encodes as
all zeros.

``categorical="codes"`` instead gives each categorical one column holding its level's
position in that list (-1 for a category the schema does not know): what R's ranger sees
for a factor by default (``respect.unordered.factors = "ignore"``, levels sorted), used
by the RAPID paper preset's forest.

Numeric missing values are handled by an explicit, recorded strategy: ``"median"``
imputes the real median, ``"error"`` rejects them with :class:`MissingValueError`.
Categorical missing values never reach the encoder as NaN: the data layer makes them a
level of their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .data import Schema
from .errors import MissingValueError, SchemaError
from .validation import check_choice

NUMERIC_MISSING_STRATEGIES = ("median", "error")
CATEGORICAL_ENCODINGS = ("one-hot", "codes")


@dataclass
class TableEncoder:
    """Min-max / one-hot encoder over a subset of the schema's columns."""

    schema: Schema
    columns: Sequence[str] | None = None
    numeric_missing: str = "median"
    categorical: str = "one-hot"
    _fitted: bool = field(default=False, init=False, repr=False)

    def __post_init__(self) -> None:
        check_choice("numeric_missing", self.numeric_missing, NUMERIC_MISSING_STRATEGIES)
        check_choice("categorical", self.categorical, CATEGORICAL_ENCODINGS)
        cols = list(self.columns) if self.columns is not None else self.schema.included
        for c in cols:
            if not self.schema[c].included:
                raise SchemaError(f"Column {c!r} is excluded and cannot be encoded.")
        self.columns = cols

    # ------------------------------------------------------------------ fit
    def fit(self, real: pd.DataFrame) -> TableEncoder:
        """Learn ranges, medians and category lists from the canonical real table."""
        self.minimum_: dict[str, float] = {}
        self.scale_: dict[str, float] = {}
        self.median_: dict[str, float] = {}
        self.categories_: dict[str, list[str]] = {}
        self.feature_names_: list[str] = []
        self.slices_: dict[str, slice] = {}
        start = 0
        for c in self.columns:  # type: ignore[union-attr]
            spec = self.schema[c]
            if spec.is_numeric:
                x = real[c].to_numpy(dtype=float)
                finite = x[np.isfinite(x)]
                lo = float(finite.min()) if finite.size else 0.0
                hi = float(finite.max()) if finite.size else 0.0
                self.minimum_[c] = lo
                self.scale_[c] = (hi - lo) if hi > lo else 1.0
                self.median_[c] = float(np.median(finite)) if finite.size else 0.0
                self.feature_names_.append(c)
                self.slices_[c] = slice(start, start + 1)
                start += 1
            else:
                cats = sorted(map(str, pd.unique(real[c])))
                # Unseen levels get columns of their own after the real ones: all zeros
                # would put such a value at half the distance of a real mismatch from
                # every real category, and make two different unseen values equal.
                known = set(cats)
                cats += [v for v in spec.unseen if v not in known]
                self.categories_[c] = cats
                width = 1 if self.categorical == "codes" else len(cats)
                self.feature_names_.extend([c] if width == 1 else [f"{c}={v}" for v in cats])
                self.slices_[c] = slice(start, start + width)
                start += width
        self.n_features_ = start
        self._fitted = True
        return self

    # ------------------------------------------------------------------ transform
    def transform(self, frame: pd.DataFrame, columns: Sequence[str] | None = None) -> np.ndarray:
        """Encode ``frame`` (canonical form) into a float32 matrix.

        ``columns`` restricts the output to a subset of the fitted columns, in the fitted
        order of their blocks.
        """
        if not self._fitted:
            raise RuntimeError("TableEncoder.transform called before fit().")
        cols = list(self.columns) if columns is None else list(columns)  # type: ignore[arg-type]
        unknown = [c for c in cols if c not in self.slices_]
        if unknown:
            raise SchemaError(f"The encoder was not fitted on column(s) {unknown}.")
        width = sum(self.slices_[c].stop - self.slices_[c].start for c in cols)
        out = np.zeros((len(frame), width), dtype=np.float32)
        pos = 0
        for c in cols:
            if c in self.minimum_:
                x = frame[c].to_numpy(dtype=float)
                nan = ~np.isfinite(x)
                if nan.any():
                    if self.numeric_missing == "error":
                        raise MissingValueError(
                            f"Numeric column {c!r} has {int(nan.sum())} missing value(s); "
                            "impute them, or choose the 'median' strategy."
                        )
                    x = np.where(nan, self.median_[c], x)
                out[:, pos] = (x - self.minimum_[c]) / self.scale_[c]
                pos += 1
            else:
                cats = self.categories_[c]
                # -1 for a category never seen in the real data (encoded as all zeros).
                codes = pd.Index(cats).get_indexer(frame[c].astype(str))
                if self.categorical == "codes":
                    out[:, pos] = codes
                    pos += 1
                    continue
                rows = np.nonzero(codes >= 0)[0]
                out[rows, pos + codes[rows]] = 1.0
                pos += len(cats)
        return out

    def feature_names(self, columns: Sequence[str] | None = None) -> list[str]:
        cols = list(self.columns) if columns is None else list(columns)  # type: ignore[arg-type]
        names: list[str] = []
        for c in cols:
            s = self.slices_[c]
            names.extend(self.feature_names_[s])
        return names

    def feature_columns(self, columns: Sequence[str] | None = None) -> list[str]:
        """For each encoded feature, the source column it came from."""
        cols = list(self.columns) if columns is None else list(columns)  # type: ignore[arg-type]
        out: list[str] = []
        for c in cols:
            s = self.slices_[c]
            out.extend([c] * (s.stop - s.start))
        return out

    def n_missing(
        self, frame: pd.DataFrame, columns: Sequence[str] | None = None
    ) -> dict[str, int]:
        """Numeric missing counts per column (what the strategy had to handle)."""
        cols = list(self.columns) if columns is None else list(columns)  # type: ignore[arg-type]
        return {
            c: int(frame[c].isna().sum())
            for c in cols
            if c in self.minimum_ and frame[c].isna().any()
        }
