"""Plotly figure builders: functions from result objects to figures.

Pages, the HTML report and notebooks all use these; tests inspect ``fig.data``.
Plotly is imported here only, so ``import privacy_core`` stays light.
"""

from .agreement import flag_agreement_heatmap, flag_matrix_figure
from .calibration import calibration_figure, calibration_status, calibration_table
from .embedding import embedding_projection_figure
from .fidelity import (
    discriminator_importance,
    fidelity_family_figure,
    fidelity_pair_heatmap,
    fidelity_reference_figure,
    fidelity_worst_marginals,
    marginal_overlay,
    query_error_figure,
    utility_by_evaluator,
)
from .lab import (
    lab_correlation_heatmap,
    lab_response_figure,
    lab_small_multiples,
    lab_training_curve,
)
from .map import KIND_STYLE, map_table, risk_utility_map, selected_candidate
from .mds import mds_distribution, mds_scale_figure
from .privacy_attacks import (
    attack_rates_figure,
    attack_rates_table,
    attack_risk_figure,
    linkability_neighbors_figure,
)
from .privacy_distance import dcr_histogram, knn_curve
from .rapid import (
    FigureSpec,
    rapid_attackers_figure,
    rapid_attribution_figure,
    rapid_by_class_figure,
    rapid_cv_figure,
    rapid_importance_figure,
    rapid_members_figure,
    rapid_null_figure,
    rapid_score_histogram,
    rapid_subgroup_figure,
    rapid_threshold_curve,
)
from .scenarios import (
    dependency_curve_figure,
    dependency_population_figure,
    leaky_response_figure,
    measure_snapshot_figure,
    privacy_price_map,
    privacy_price_response_figure,
    rapid_tau_figure,
    similarity_figure,
)
from .whatif import mitigation_figure

__all__ = [
    "KIND_STYLE",
    "selected_candidate",
    "FigureSpec",
    "attack_rates_figure",
    "attack_rates_table",
    "attack_risk_figure",
    "calibration_figure",
    "calibration_status",
    "calibration_table",
    "dcr_histogram",
    "dependency_curve_figure",
    "dependency_population_figure",
    "discriminator_importance",
    "embedding_projection_figure",
    "fidelity_family_figure",
    "fidelity_pair_heatmap",
    "fidelity_reference_figure",
    "fidelity_worst_marginals",
    "flag_agreement_heatmap",
    "flag_matrix_figure",
    "knn_curve",
    "lab_correlation_heatmap",
    "lab_response_figure",
    "lab_small_multiples",
    "lab_training_curve",
    "leaky_response_figure",
    "linkability_neighbors_figure",
    "map_table",
    "marginal_overlay",
    "mds_distribution",
    "mds_scale_figure",
    "measure_snapshot_figure",
    "mitigation_figure",
    "privacy_price_map",
    "privacy_price_response_figure",
    "query_error_figure",
    "rapid_attackers_figure",
    "rapid_attribution_figure",
    "rapid_by_class_figure",
    "rapid_cv_figure",
    "rapid_importance_figure",
    "rapid_members_figure",
    "rapid_null_figure",
    "rapid_score_histogram",
    "rapid_subgroup_figure",
    "rapid_tau_figure",
    "rapid_threshold_curve",
    "risk_utility_map",
    "similarity_figure",
    "utility_by_evaluator",
]
