"""Privacy risk measures, one module per family."""

from .attackers import ATTACKER_LABELS, ATTACKERS
from .rapid import (
    CALIBRATION_RULES,
    CATEGORICAL_METHODS,
    DEFAULT_ATTACKERS,
    ERROR_METRICS,
    PAPER_PRESET,
    RapidCalibration,
    RapidResult,
    categorical_scores,
    continuous_errors,
    rapid,
    rapid_attribution,
    rapid_from_scores,
    rapid_null_calibration,
    rapid_paper_preset,
    rapid_paper_study,
    rapid_permutation_threshold,
    rapid_synthesizer_cv,
    summarize_paper_study,
)

__all__ = [
    "ATTACKERS", "ATTACKER_LABELS", "CATEGORICAL_METHODS", "ERROR_METRICS",
    "RapidCalibration", "RapidResult", "categorical_scores", "continuous_errors", "rapid",
    "rapid_attribution", "rapid_from_scores", "rapid_permutation_threshold",
    "rapid_synthesizer_cv", "CALIBRATION_RULES", "DEFAULT_ATTACKERS", "PAPER_PRESET",
    "rapid_null_calibration", "rapid_paper_preset", "rapid_paper_study",
    "summarize_paper_study",
]
