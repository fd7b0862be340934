"""Privacy risk measures, one module per family."""

from .attackers import ATTACKER_LABELS, ATTACKERS
from .rapid import (
    CATEGORICAL_METHODS,
    ERROR_METRICS,
    RapidCalibration,
    RapidResult,
    categorical_scores,
    continuous_errors,
    rapid,
    rapid_attribution,
    rapid_from_scores,
    rapid_permutation_threshold,
    rapid_synthesizer_cv,
)

__all__ = [
    "ATTACKERS", "ATTACKER_LABELS", "CATEGORICAL_METHODS", "ERROR_METRICS",
    "RapidCalibration", "RapidResult", "categorical_scores", "continuous_errors", "rapid",
    "rapid_attribution", "rapid_from_scores", "rapid_permutation_threshold",
    "rapid_synthesizer_cv",
]
