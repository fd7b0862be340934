"""Plotly figure builders: functions from result objects to figures.

Pages, the HTML report and notebooks all use these; tests inspect ``fig.data``.
Plotly is imported here only, so ``import privacy_core`` stays light.
"""

from .rapid import (
    rapid_attribution_figure,
    rapid_by_class_figure,
    rapid_cv_figure,
    rapid_importance_figure,
    rapid_null_figure,
    rapid_score_histogram,
    rapid_subgroup_figure,
    rapid_threshold_curve,
)

__all__ = [
    "rapid_attribution_figure", "rapid_by_class_figure", "rapid_cv_figure",
    "rapid_importance_figure", "rapid_null_figure", "rapid_score_histogram", "rapid_subgroup_figure",
    "rapid_threshold_curve",
]
