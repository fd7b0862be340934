"""Risk-insertion experiments: insert a known amount of risk, watch each measure respond.

A *risk model* makes releases whose risk is controlled by a level:

* ``leaky`` (f_l in [0, 1]): the release copies a share f_l of the training records
  (:mod:`privacy_core.synth.leaky`); a measure that tracks the risk reads about f_l;
* ``overfit`` (f_o >= 1): the release comes from a neural generator stopped when its
  validation loss is f_o times its optimum L* (:mod:`privacy_core.synth.autoregressive`);
* ``dp`` (epsilon > 0): the release comes from a differentially private generator at
  budget epsilon (:mod:`privacy_core.synth.dp`); a larger epsilon is a weaker guarantee,
  so the inserted risk grows with epsilon.

:func:`sweep` runs every (level, replicate) of a risk model, evaluates the chosen
registered measures (:data:`privacy_core.measures.MEASURES`) on each release with the
training records as ``real`` and the control records as ``holdout`` (the control-set
baseline of every attack), and returns a :class:`SweepResult`: a tidy table with one row
per (level, replicate, measure) and methods for per-level summaries with intervals,
correlations of measures across levels and the command-line JSON.

Design
------
* Seeds: ``numpy.random.SeedSequence(seed)`` spawns one child per replicate; each
  replicate spawns the seeds of its data split, its measures, its generator training and
  one per level. A replicate's split and measure seeds are shared by its levels (common
  random numbers: the curves are smooth and differences between levels are the risk, not
  the split), replicates differ in everything. The same seed gives the same rows,
  whatever ``n_jobs``.
* Work: one task per (level, replicate) for ``leaky`` and ``dp``, one per replicate for
  ``overfit`` (one training run yields every f_o checkpoint). Tasks run in-process
  (``n_jobs=1``), on joblib's loky processes (``n_jobs`` != 1; one torch thread per
  worker) or on a Ray cluster (``backend="ray"`` with an
  ``address``; optional). Finished rows are handed to ``on_rows`` as they arrive and
  ``should_stop()`` is checked between tasks (and between epochs of an in-process
  training run): a stopped sweep returns the rows finished so far with ``stopped=True``.
* Robustness (``risk-insertion-framework.md`` §5.2-5.3): ``outlier_fraction`` removes the
  most outlying training records (sklearn's LocalOutlierFactor on the shared encoding)
  before the release is made, and the measures then see the reduced training set;
  ``canaries`` randomises the secret of that many training records before the release
  is made and adds, for each attribute-inference attack with per-target results
  (``inference``, ``ml_inference``), the attack's success rate on the canaries
  (``<measure>@canary``, with the chance rate as baseline) next to its success rate on
  the other training records (``<measure>@training``).

Notes
-----
``risk-insertion-framework.md`` §5 (risk models, baselines, outliers), §6.2 (levels:
f_l and f_o in steps of 0.2, epsilon in {1, 5, 10, 50, 100}), Appendix A (response
curves and correlation matrices), Appendix C (outlier removal), Appendix D (canary
records); ``contrastive-embeddings.md`` §4.2 (leaky evaluation with noise).
"""

from .result import (
    BACKENDS,
    CANARY_MEASURES,
    DEFAULT_LEVELS,
    DP_GENERATORS,
    LEAKY_TOLERANCE,
    LEVEL_NAMES,
    RISK_MODELS,
    ROW_COLUMNS,
    SPLITS,
    RowsFn,
    SweepResult,
    leaky_within,
)
from .robustness import insert_canaries, remove_outliers
from .sweep import outlier_sweep, sweep

__all__ = [
    "BACKENDS",
    "CANARY_MEASURES",
    "DEFAULT_LEVELS",
    "DP_GENERATORS",
    "LEAKY_TOLERANCE",
    "LEVEL_NAMES",
    "RISK_MODELS",
    "ROW_COLUMNS",
    "SPLITS",
    "RowsFn",
    "SweepResult",
    "insert_canaries",
    "leaky_within",
    "outlier_sweep",
    "remove_outliers",
    "sweep",
]
