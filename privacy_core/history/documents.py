"""A review as the history stores it: the strict-JSON document and its two keys.

Contract
--------
* :func:`review_document` turns a :class:`~privacy_core.report.ReviewReport` (or its
  ``to_dict()``) into a deep, JSON-ready copy; :func:`strip_records` drops its per-record
  tables and :func:`checked_alternatives` refuses any table in a considered alternative,
  so that no row of any table is ever written.
* Two keys make reproduction checkable: :func:`inputs_key` (a hash of the data
  fingerprints, the threat model and every measure's parameters, seeds included) finds the
  earlier reviews of the same inputs, and :func:`numbers_key` (a hash of every candidate's
  values and intervals) says whether a re-run gave exactly the same numbers;
  :func:`reproduces` compares two documents' numbers directly.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ..errors import ParameterError
from ..results import jsonable

__all__ = [
    "VOLATILE_PARAMS",
    "checked_alternatives",
    "data_fingerprints",
    "inputs_key",
    "measure_numbers",
    "numbers_key",
    "reproduces",
    "review_document",
    "stable_params",
    "strip_records",
]

# Parameters that record how long or where a run went, not what it computed: a re-run on
# another machine has the same inputs.
VOLATILE_PARAMS = frozenset({"seconds", "backend", "n_jobs"})


def review_document(report: Any) -> dict[str, Any]:
    """A deep, JSON-ready copy of a report (a ReviewReport or its to_dict())."""
    if hasattr(report, "to_dict") and not isinstance(report, Mapping):
        report = report.to_dict()
    if (
        not isinstance(report, Mapping)
        or not isinstance(report.get("candidates"), list)
        or not isinstance(report.get("provenance"), Mapping)
    ):
        raise ParameterError(
            "the review must be a privacy_core.report.ReviewReport or its to_dict() (a "
            "mapping with 'provenance' and 'candidates'); received "
            f"{type(report).__name__}."
        )
    return jsonable(copy.deepcopy(dict(report)))


def strip_records(doc: dict[str, Any]) -> dict[str, Any]:
    """Drop every per-record table: the store holds aggregates only."""
    doc.pop("records", None)
    for cand in doc.get("candidates") or []:
        for metric in (cand.get("metrics") or {}).values():
            if isinstance(metric, dict):
                metric.pop("records", None)
    for metric in (doc.get("metrics") or {}).values():
        if isinstance(metric, dict):
            metric.pop("records", None)
    return doc


def _refuse_tables(value: Any, where: str) -> None:
    # jsonable would turn a DataFrame into its rows; a considered alternative is a set of
    # aggregates, so a table in one is refused rather than written to disk
    if isinstance(value, (pd.DataFrame, pd.Series)):
        raise ParameterError(
            f"{where} holds a {type(value).__name__}; a considered alternative stores "
            "aggregates only (values, intervals, parameters), never a table of rows."
        )
    if isinstance(value, Mapping):
        for k, v in value.items():
            _refuse_tables(v, f"{where}[{k!r}]")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _refuse_tables(v, f"{where}[{i}]")


def checked_alternatives(items: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """JSON-ready copies of considered alternatives, each a mapping of aggregates (a table
    in one is refused; a ``records`` entry is dropped)."""
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise ParameterError(
                f"alternatives[{i}] must be a mapping of aggregates (e.g. {{'mitigation': "
                f"..., 'metrics': {{...}}}}); received {type(item).__name__}."
            )
        _refuse_tables(item, f"alternatives[{i}]")
        alt = jsonable(copy.deepcopy(dict(item)))
        alt.pop("records", None)
        out.append(alt)
    return out


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _sha256(value: Any) -> str:
    return hashlib.sha256(_canonical(value).encode("utf-8")).hexdigest()


def data_fingerprints(doc: Mapping[str, Any]) -> tuple[str, list[str], str | None]:
    """The fingerprints of a document's real table, its synthetic releases and its
    holdout (None without one)."""
    prov = doc.get("provenance") or {}
    real = str((prov.get("real") or {}).get("fingerprint") or "")
    synthetic = [str(s.get("fingerprint") or "") for s in prov.get("synthetic") or []]
    holdout = (prov.get("holdout") or {}).get("fingerprint") if prov.get("holdout") else None
    return real, synthetic, holdout


def _release_fingerprints(doc: Mapping[str, Any]) -> dict[str, str]:
    return {
        str(s.get("name")): str(s.get("fingerprint") or "")
        for s in (doc.get("provenance") or {}).get("synthetic") or []
    }


def stable_params(params: Any) -> Any:
    """A measure's parameters without the :data:`VOLATILE_PARAMS` (time, backend)."""
    if not isinstance(params, Mapping):
        return params
    return {k: v for k, v in params.items() if k not in VOLATILE_PARAMS}


def inputs_key(report: Any) -> str:
    """The hash of what a review computed from: data, threat model, parameters and seeds.

    Parameters
    ----------
    report
        A :class:`~privacy_core.report.ReviewReport` or its ``to_dict()``.

    Returns
    -------
    str
        sha256 (hex) of the real, synthetic and holdout fingerprints, the threat model and
        every candidate's measures with their parameters (seeds included). Release *names*
        do not enter it: the same files under other names are the same inputs.
    """
    doc = review_document(report)
    real, synthetic, holdout = data_fingerprints(doc)
    by_name = _release_fingerprints(doc)
    candidates = [
        {
            "releases": [by_name.get(str(r), str(r)) for r in c.get("releases") or []],
            "metrics": {
                m: stable_params((v or {}).get("params"))
                for m, v in sorted((c.get("metrics") or {}).items())
            },
        }
        for c in doc["candidates"]
    ]
    return _sha256(
        {
            "real": real,
            "synthetic": synthetic,
            "holdout": holdout,
            "threat": _threat_key(doc.get("threat")),
            "candidates": candidates,
        }
    )


def _threat_key(threat: Any) -> Any:
    """The threat model as the inputs' hash reads it: without ``weights`` when none is
    declared, so a review stored before the sampling-weight column existed keeps its
    key (its document has no ``weights`` entry; the same inputs read ``None`` today)."""
    if isinstance(threat, Mapping) and threat.get("weights") is None:
        return {k: v for k, v in threat.items() if k != "weights"}
    return threat


def measure_numbers(doc: Mapping[str, Any]) -> list[list[Any]]:
    """``[candidate position, measure, value, interval]`` of every measure, in order."""
    return [
        [i, m, (v or {}).get("value"), (v or {}).get("ci")]
        for i, c in enumerate(doc.get("candidates") or [])
        for m, v in sorted((c.get("metrics") or {}).items())
    ]


def numbers_key(report: Any) -> str:
    """The hash of every candidate's measure values and intervals (sha256, hex).

    Two reviews with the same ``numbers_key`` report exactly the same numbers: JSON
    writes each float so that it reads back bit for bit, so no rounding hides a change.
    """
    return _sha256(measure_numbers(review_document(report)))


def reproduces(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two reviews report exactly the same numbers (every value and interval).

    Parameters
    ----------
    a, b
        Stored documents (:meth:`ReviewStore.get`) or reports.

    Returns
    -------
    bool
        True when every candidate's every measure has the identical value and interval.
    """
    return measure_numbers(review_document(a)) == measure_numbers(review_document(b))
