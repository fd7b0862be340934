"""The records RAPID's attackers score, and what each fit leaves for them.

:func:`scored_records` decides who is scored (every real record is a target, consensus
R2: all of them, or those with a value of a continuous target; with a control, the
holdout records whose value the real data hold, stacked under them so that the same
fits score members and non-members), their true values and how every table is encoded
for the attackers. :class:`AttackerPredictions` holds each fit's per-record output.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, cast

import numpy as np
import pandas as pd

from ...encoding import TableEncoder
from ...errors import InsufficientDataError
from ...inputs import ReviewData
from .options import FitOptions


@dataclass(frozen=True, eq=False)
class ScoredRecords:
    """The records the fitted attackers score, and how every table is encoded for them.

    The members (real records with a value of the target) come first; with a control,
    the holdout records the real data let us score are stacked under them (``y_true``
    and ``X`` hold both), so the same fits score members and non-members.
    """

    kind: str
    target: str
    quasi_identifiers: list[str]
    members: pd.DataFrame
    n_without_target: int  # real records left out: no value of a continuous target
    classes: tuple[str, ...]
    prevalence: np.ndarray  # each class's share of the members (categorical)
    y_scale: float  # SD of a continuous target's real values
    y_true: np.ndarray  # class codes or values: members, then holdout records
    encoders: dict[str, TableEncoder]  # one per categorical encoding, fitted on the real
    encoding_of: dict[str, str]  # attacker -> its categorical encoding
    X: dict[str, np.ndarray]  # encoded quasi-identifiers per encoding, members then holdout
    missing_counts: dict[str, int]  # missing numeric quasi-identifiers of the real table
    holdout: pd.DataFrame | None = None
    n_holdout_unscorable: int = 0

    @property
    def n_members(self) -> int:
        return len(self.members)

    @property
    def n(self) -> int:
        return len(self.y_true)

    def release_arrays(
        self, m: int, syn: pd.DataFrame, dropped_rows: list[int]
    ) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Release ``m`` encoded for the attackers: its quasi-identifiers per encoding
        and its target (rows without a continuous target dropped and counted)."""
        if self.kind == "continuous":
            keep = syn[self.target].notna().to_numpy()
            dropped_rows.append(int((~keep).sum()))
            syn = syn[keep]
            if len(syn) < 10:
                raise InsufficientDataError(
                    f"Synthetic release #{m + 1} has {len(syn)} row(s) with a value for "
                    f"{self.target!r}; RAPID needs 10 to train an attacker."
                )
        X = {e: enc.transform(syn) for e, enc in self.encoders.items()}
        return X, _target_values(syn, self.target, self.kind, self.classes)


def scored_records(data: ReviewData, opts: FitOptions, kind: str) -> ScoredRecords:
    """The members and (with a control) the scorable holdout records, encoded."""
    target = data.threat.target
    qis = list(data.threat.quasi_identifiers)
    real = data.real
    members = _members(real, target, kind)
    encoding_of = {a: opts.encoding_of(a) for a in opts.attackers}
    encoders = {
        e: TableEncoder(
            data.schema, columns=qis, numeric_missing=opts.numeric_missing, categorical=e
        ).fit(real)
        for e in sorted(set(encoding_of.values()))
    }
    X = {e: enc.transform(members) for e, enc in encoders.items()}
    missing_counts = next(iter(encoders.values())).n_missing(real, qis)
    records = ScoredRecords(
        kind=kind,
        target=target,
        quasi_identifiers=qis,
        members=members,
        n_without_target=len(real) - len(members),
        **_member_truth(real, members, target, kind),
        encoders=encoders,
        encoding_of=encoding_of,
        X=X,
        missing_counts=missing_counts,
    )
    if data.holdout is None:
        return records
    # the control's records are scored by the same fits, stacked under the members
    holdout, n_unscorable = _scorable_holdout(data.holdout, records)
    return replace(
        records,
        holdout=holdout,
        n_holdout_unscorable=n_unscorable,
        X={e: np.vstack([X[e], enc.transform(holdout)]) for e, enc in encoders.items()},
        y_true=np.concatenate(
            [records.y_true, _target_values(holdout, target, kind, records.classes)]
        ),
    )


def _members(real: pd.DataFrame, target: str, kind: str) -> pd.DataFrame:
    """The real records RAPID scores: every one, or those with a value of a continuous
    target (at least 10)."""
    mask = np.ones(len(real), dtype=bool)
    if kind == "continuous":
        mask = real[target].notna().to_numpy()
    members = real[mask]
    if len(members) < 10:
        raise InsufficientDataError(
            f"Only {len(members)} real record(s) have a value for {target!r}; RAPID needs 10."
        )
    return members


def _target_values(
    frame: pd.DataFrame, target: str, kind: str, classes: tuple[str, ...]
) -> np.ndarray:
    """``frame``'s target as codes of ``classes`` (categorical) or floats (continuous)."""
    if kind == "categorical":
        return pd.Index(classes).get_indexer(frame[target]).astype(np.int64)
    return frame[target].to_numpy(dtype=float)


def _member_truth(
    real: pd.DataFrame, members: pd.DataFrame, target: str, kind: str
) -> dict[str, Any]:
    """The members' true values and what scores them: the classes (those of the real
    table) and their shares, or the SD of a continuous target."""
    if kind == "categorical":
        classes = tuple(sorted(real[target].unique()))
        y_true = _target_values(members, target, kind, classes)
        return {
            "classes": classes,
            "y_true": y_true,
            "prevalence": np.bincount(y_true, minlength=len(classes)) / len(y_true),
            "y_scale": 1.0,
        }
    y_true = _target_values(members, target, kind, ())
    return {
        "classes": (),
        "y_true": y_true,
        "prevalence": np.zeros(0),
        "y_scale": float(np.std(y_true, ddof=1)) if len(y_true) > 1 else 1.0,
    }


def _scorable_holdout(holdout: pd.DataFrame, records: ScoredRecords) -> tuple[pd.DataFrame, int]:
    """The holdout records whose target value the real data hold (at least 10), and how
    many were left out."""
    target = records.target
    scorable = (
        holdout[target].notna().to_numpy()
        if records.kind == "continuous"
        else holdout[target].isin(records.classes).to_numpy()
    )
    kept = holdout[scorable]
    if len(kept) < 10:
        raise InsufficientDataError(
            f"Only {len(kept)} holdout record(s) have a value of {target!r} that the real "
            "data also hold; comparing members with non-members needs 10."
        )
    return kept, int((~scorable).sum())


@dataclass(frozen=True, eq=False)
class AttackerPredictions:
    """What the fits leave per scored record, each (n, A, M) for n records, A attackers
    and M releases: for a categorical target the probability of the true class, the
    predicted class and its probability, and every class probability (n, A, M, K,
    float32, for the null calibration); for a continuous one the prediction. Each fit's
    feature importances, summed per quasi-identifier, are collected alongside."""

    g: np.ndarray | None
    pred_code: np.ndarray | None
    pred_conf: np.ndarray | None
    proba: np.ndarray | None
    y_hat: np.ndarray | None
    importance_rows: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def empty(cls, records: ScoredRecords, n_att: int, n_rep: int) -> AttackerPredictions:
        shape = (records.n, n_att, n_rep)
        if records.kind == "categorical":
            return cls(
                g=np.zeros(shape),
                pred_code=np.zeros(shape, dtype=np.int64),
                pred_conf=np.zeros(shape),
                proba=np.zeros((*shape, len(records.classes)), dtype=np.float32),
                y_hat=None,
            )
        return cls(g=None, pred_code=None, pred_conf=None, proba=None, y_hat=np.zeros(shape))

    def place(self, m: int, j: int, att: str, out: Any, records: ScoredRecords) -> None:
        """Store fit (release ``m``, attacker ``j``)'s output."""
        if records.kind == "categorical":
            g, pred_code = cast(np.ndarray, self.g), cast(np.ndarray, self.pred_code)
            pred_conf, proba = cast(np.ndarray, self.pred_conf), cast(np.ndarray, self.proba)
            g[:, j, m] = out.proba[np.arange(records.n), records.y_true]
            pred_code[:, j, m] = out.prediction
            pred_conf[:, j, m] = out.proba.max(axis=1)
            proba[:, j, m] = out.proba
        else:
            cast(np.ndarray, self.y_hat)[:, j, m] = out.prediction
        per_col = (
            pd.Series(
                out.importance,
                index=records.encoders[records.encoding_of[att]].feature_columns(),
            )
            .groupby(level=0, sort=False)
            .sum()
        )
        for col, imp in per_col.items():
            self.importance_rows.append(
                {"attacker": att, "replicate": m, "column": col, "importance": float(imp)}
            )

    def mean_importances(self) -> pd.DataFrame:
        """Each attacker's importance of each quasi-identifier, averaged over releases."""
        importances = pd.DataFrame(self.importance_rows)
        if not importances.empty:
            importances = importances.groupby(["attacker", "column"], as_index=False, sort=False)[
                "importance"
            ].mean()
        return importances
