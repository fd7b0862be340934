"""Similarity indicators: identical match share (IMS) and distance to closest record (DCR).

Both are *indicators*, not disclosure measures: they say how close the release sits to
the training records, not what an attacker learns about anyone. The consensus framework
discourages reporting them on their own (recommendation R3): closeness does not imply
disclosure, several training records can share one close synthetic record, and closeness
on all columns says nothing about the sensitive ones. Read them next to an attack with a
control baseline (RAPID, the inference and membership attacks).

* :func:`identical_match_share` (``ims``): share of synthetic rows identical to a training
  row, with the same share for holdout rows as the natural baseline.
* :func:`dcr` (``dcr``): synthetic-to-real distances (SRD) against real-to-real distances
  (RRD) from a holdout; the share p of SRD below the alpha-th RRD percentile, the DCR
  ratio p / (alpha/100) and the privacy-risk score (p - alpha/100) / (1 - alpha/100).
* :func:`dcr_knn` (``knn``): the same score with k-neighbourhood means for k = 1..K.

Every neighbour search goes through :func:`privacy_core.risk.neighbors.nearest_neighbors`
(exact, chunked) on the one :class:`~privacy_core.encoding.TableEncoder` fitted on the
real table. The searches run once; :meth:`DcrResult.at` and :meth:`KnnResult.at`
re-aggregate at another alpha from the stored distances in milliseconds.

The package, one module per part: ``release`` (the one release and the compared
columns, shared with the other risk measures), ``space`` (validated inputs, encoding,
neighbour search, the fallback split), ``queries`` (the query sample), ``summary`` (the
aggregates at one alpha), ``identical`` (IMS), ``closest_record`` (DCR) and ``knn``
(the k-NN indicator). Every name is importable from ``privacy_core.risk.distance``.

Notes
-----
``contrastive-embeddings.md`` §3.3 (equations 1-4); ``risk-insertion-framework.md``
§4.2.1-4.2.3 and §6.2.1; ``metric-reference.md`` §3a (the ratio variant and the
bootstrap, without its percentile bug); ``consensus-privacy-framework.md`` R3.
"""

from .closest_record import DCR_VARIANTS, DcrResult, dcr
from .identical import identical_match_share, identical_rows
from .knn import KnnResult, dcr_knn
from .queries import check_max_queries, query_sample
from .release import analysis_columns, single_release
from .space import DCR_METRICS, encode_for_distance, neighbor_metric
from .summary import DEFAULT_ALPHA, DcrSummary, check_alpha, dcr_summary

__all__ = [
    "DCR_METRICS",
    "DCR_VARIANTS",
    "DEFAULT_ALPHA",
    "DcrResult",
    "DcrSummary",
    "KnnResult",
    "analysis_columns",
    "check_alpha",
    "check_max_queries",
    "dcr",
    "dcr_knn",
    "dcr_summary",
    "encode_for_distance",
    "identical_match_share",
    "identical_rows",
    "neighbor_metric",
    "query_sample",
    "single_release",
]
