"""Calibration of the measures themselves: the leaky risk model run on every registered
disclosure measure, at several training:holdout size ratios.

A reviewer reads a measure as "0 = this release leaks nothing, 1 = it leaks everything".
:func:`calibrate` checks that reading on the user's own data and threat model. The real
rows (and the holdout, pooled with them) are split once (seeded) into

* *training*: the records whose privacy is at stake (``real`` for every measure);
* a *release pool* of unseen real rows of the same population, as large as training;
* a *control* reservoir: the measures' holdout. At ratio r the holdout is the first
  ``len(training) / r`` rows of the reservoir, so the smaller holdouts are nested in the
  larger ones and only the holdout size changes between ratios.

At each leak level f_l the release is the leaky risk model's
(:func:`privacy_core.synth.leaky.leaky_release`): ``round(f_l * n)`` training records and
the rest pool records, n = ``len(training)``. f_l = 0 is a perfectly private release
(unseen real rows), f_l = 1 a shuffled full copy. The release and the measure seeds are
the same at every ratio (common random numbers), so differences between ratios are the
holdout size and nothing else.

Per measure and mode, :class:`CalibrationSummary` reports the *floor* (value at f_l = 0)
and the *ceiling* (value at f_l = 1), both at the smallest ratio, the least-squares *slope*
and *linearity* (R²) of the value against f_l, *monotonicity* within noise, the *response
gap* (how far the reading, normalised by floor and ceiling, strays from f_l at an interior
level) and the *ratio gap* (largest |value(largest ratio) - value(smallest ratio)| over
levels). Its verdict under the contract (DESIGN.md, "Calibration contract") is "fail" when
any of these holds:

* the floor estimate is above ``FLOOR_UPPER_MAX`` (0.15), or its whole interval lies
  above ``FLOOR_MAX`` (0.05);
* the ceiling is below the documented ceiling of the measure's registry entry, or below
  ``CEILING_MIN`` (0.9) where none is documented;
* the response gap exceeds the measure's response band (its registry entry) by more than
  the normalised reading's own interval half-width;
* the value falls as the leak grows: between neighbouring levels, by more than
  ``MONOTONE_SLACK`` (0.05) and more than the two points' combined interval half-widths;
* the ratio gap exceeds ``RATIO_GAP_MAX`` (0.1) while the two readings' combined interval
  half-width is at most 0.1 (intervals narrow enough to see such a gap), or exceeds that
  half-width by more than 0.1;
* the measure is absolute (registry) and its floor is not small in both its estimate and
  its upper bound.

Otherwise it is "inconclusive" (more rows or attacks needed) when an interval is too wide
to decide: a floor that does not pass but whose estimate is at most ``FLOOR_UPPER_MAX``
and whose interval reaches ``FLOOR_MAX`` (for instance 0.04 ± 0.12, or 0.06 ± 0.05), a
response gap beyond the band but inside the reading's interval, or a ratio gap above 0.1
inside intervals too wide (combined half-width above 0.1) to see a gap of 0.1. A
measure passes (``CalibrationSummary.passed``) only when its floor estimate is at most
``FLOOR_MAX`` *and* its upper bound at most ``FLOOR_UPPER_MAX`` and no check fails or is
inconclusive.

The package: :mod:`.results` (the result objects and their rows), :mod:`.contract` (the
thresholds and :func:`summarise`), :mod:`.tables` (the split) and :mod:`.engine`
(:func:`calibrate`, which runs the grid here or on Ray).

Notes
-----
``risk-insertion-framework.md`` §5.1.1 (leaky risk model), §6.2 (leak fractions in equal
steps) and Table 2 (values at no and at maximal inserted risk).
"""

from .contract import (
    CEILING_MIN,
    FLOOR_MAX,
    FLOOR_UPPER_MAX,
    MONOTONE_SLACK,
    QI_MEASURES,
    RATIO_GAP_MAX,
    calibration_result,
    qi_unique_share,
    summarise,
)
from .engine import DEFAULT_LEVELS, DEFAULT_RATIOS, calibrate, calibration_targets
from .results import ROW_COLUMNS, CalibrationResult, CalibrationSummary, calibration_key
from .tables import CalibrationTables, calibration_tables

__all__ = [
    "CEILING_MIN",
    "DEFAULT_LEVELS",
    "DEFAULT_RATIOS",
    "FLOOR_MAX",
    "FLOOR_UPPER_MAX",
    "MONOTONE_SLACK",
    "QI_MEASURES",
    "RATIO_GAP_MAX",
    "ROW_COLUMNS",
    "CalibrationResult",
    "CalibrationSummary",
    "CalibrationTables",
    "calibrate",
    "calibration_key",
    "calibration_result",
    "calibration_tables",
    "calibration_targets",
    "qi_unique_share",
    "summarise",
]
