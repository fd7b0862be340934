"""privacy_core: the engine of the synthetic-data risk-utility review dashboard.

A flat public API of pure functions (data first, keyword-only options, a seed, a result
object back). Nothing here imports Streamlit.
"""

from .calibration import (
    CEILING_MIN,
    FLOOR_MAX,
    RATIO_GAP_MAX,
    CalibrationResult,
    CalibrationSummary,
    calibrate,
)
from .checklist import Checklist, consensus_checklist
from .data import (
    MISSING,
    ColumnSpec,
    Schema,
    canonical_schema,
    conform_table,
    fingerprint,
    infer_schema,
    load_table,
    prepare_table,
    unseen_message,
)
from .datasets import (
    ADULT_CREDIT,
    BUILTIN_SIZES,
    builtin_dataset,
    load_adult,
    simulate_health,
    simulate_health_probabilities,
    simulate_wide,
)
from .embedding import ContrastiveEncoder, ContrastiveParams, contrastive_encoder, project_2d
from .encoding import TableEncoder
from .errors import (
    ColumnNotFoundError,
    ComputeBackendError,
    DataLoadError,
    DataLoadWarning,
    HistoryError,
    InsufficientDataError,
    MissingValueError,
    ParameterError,
    PrivacyCoreError,
    PrivacyCoreWarning,
    SchemaError,
    SchemaMismatchError,
    SchemaWarning,
    ThreatModelError,
    UnseenCategoryWarning,
    UntrustworthyResultWarning,
)
from .evaluation import Review, evaluate, evaluate_measures
from .experiments import LEVEL_NAMES, RISK_MODELS, SweepResult, outlier_sweep, sweep
from .exports import safe_csv
from .fidelity import WassersteinResult, wasserstein_fidelity
from .history import (
    ReviewComparison,
    Reviewer,
    ReviewStore,
    ReviewSummary,
    compare_reviews,
    reproduces,
)
from .inputs import ReviewData, prepare_review
from .measures import MEASURES, measure_goal, measure_label, measure_names
from .mitigation import KINDS as MITIGATION_KINDS
from .mitigation import Mitigation, describe_change
from .references import fidelity_baselines
from .report import (
    DECISIONS,
    ReleaseGroup,
    ReviewReport,
    build_report,
    candidate_table,
    format_cell,
    reference_record,
    render_html,
    render_pdf,
)
from .results import MetricResult
from .review import (
    attack_targets,
    load_review_config,
    measure_options,
    review_document,
    run_review,
)
from .risk import (
    ATTACKER_LABELS,
    ATTACKERS,
    RapidCalibration,
    RapidResult,
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
from .risk.agreement import (
    flag_agreement,
    flag_agreement_reasons,
    flag_shortlist,
    nearest_synthetic_records,
    record_flags,
)
from .risk.attacks import SINGLING_OUT_MODES, informative_split
from .risk.attacks.common import AttackResult
from .risk.cap import GTCAP_WEIGHTINGS
from .risk.cap.attribution import GtcapResult
from .risk.distance.closest_record import DcrResult
from .risk.distance.knn import KnnResult
from .risk.mds import MdsResult, membership_disclosure_score
from .risk.membership.density_ratio import DomiasResult
from .risk.membership.partition import MembershipResult
from .risk.rapid import (
    CATEGORICAL_METHODS,
    DEFAULT_PERMUTATIONS,
    DEFAULT_TAU,
    ERROR_METRICS,
    LABEL_PERMUTATIONS,
    TAU_RANGE,
)
from .risk.sdc import (
    individual_risk_reproduced,
    k_anonymity,
    l_diversity,
    reproduced_uniques,
    sample_uniques,
    sdc_summary,
)
from .scenarios import RELEASE_LABELS, TAU_GRID
from .scorecard import (
    DEFAULT_THRESHOLDS,
    CandidateVerdict,
    Threshold,
    candidate_verdict,
    exit_status,
    scorecard,
    verdict_of,
)
from .synth import GENERATORS, half_split, make_generator, synthesize
from .synth.leaky import leaky_shadow_options
from .threat import (
    QIColumn,
    QISuggestion,
    ThreatModel,
    check_membership_prevalence,
    suggest_quasi_identifiers,
)
from .utility import EVALUATOR_LABELS, EVALUATORS
from .version import __version__ as __version__

__all__ = [
    "CEILING_MIN",
    "FLOOR_MAX",
    "RATIO_GAP_MAX",
    "DEFAULT_PERMUTATIONS",
    "LABEL_PERMUTATIONS",
    "CATEGORICAL_METHODS",
    "CandidateVerdict",
    "DEFAULT_TAU",
    "attack_targets",
    "load_review_config",
    "measure_options",
    "reference_record",
    "review_document",
    "run_review",
    "TAU_RANGE",
    "candidate_verdict",
    "exit_status",
    "verdict_of",
    "ERROR_METRICS",
    "EVALUATORS",
    "EVALUATOR_LABELS",
    "GTCAP_WEIGHTINGS",
    "LEVEL_NAMES",
    "RISK_MODELS",
    "SINGLING_OUT_MODES",
    "RELEASE_LABELS",
    "TAU_GRID",
    "WassersteinResult",
    "check_membership_prevalence",
    "measure_goal",
    "measure_label",
    "safe_csv",
    "DECISIONS",
    "ReleaseGroup",
    "candidate_table",
    "format_cell",
    "MITIGATION_KINDS",
    "Mitigation",
    "ADULT_CREDIT",
    "ATTACKERS",
    "ATTACKER_LABELS",
    "BUILTIN_SIZES",
    "CalibrationResult",
    "CalibrationSummary",
    "Checklist",
    "ColumnNotFoundError",
    "ColumnSpec",
    "ContrastiveEncoder",
    "ContrastiveParams",
    "DEFAULT_THRESHOLDS",
    "DataLoadError",
    "DataLoadWarning",
    "GENERATORS",
    "ComputeBackendError",
    "HistoryError",
    "InsufficientDataError",
    "MEASURES",
    "MISSING",
    "AttackResult",
    "DcrResult",
    "DomiasResult",
    "GtcapResult",
    "KnnResult",
    "MdsResult",
    "MembershipResult",
    "MetricResult",
    "MissingValueError",
    "ParameterError",
    "PrivacyCoreError",
    "PrivacyCoreWarning",
    "QIColumn",
    "QISuggestion",
    "RapidCalibration",
    "RapidResult",
    "Review",
    "ReviewComparison",
    "ReviewData",
    "ReviewReport",
    "ReviewStore",
    "ReviewSummary",
    "Reviewer",
    "Schema",
    "SchemaError",
    "SchemaMismatchError",
    "SchemaWarning",
    "SweepResult",
    "TableEncoder",
    "ThreatModel",
    "ThreatModelError",
    "Threshold",
    "UnseenCategoryWarning",
    "UntrustworthyResultWarning",
    "build_report",
    "builtin_dataset",
    "calibrate",
    "canonical_schema",
    "compare_reviews",
    "conform_table",
    "consensus_checklist",
    "contrastive_encoder",
    "evaluate",
    "evaluate_measures",
    "fidelity_baselines",
    "fingerprint",
    "flag_agreement",
    "flag_agreement_reasons",
    "flag_shortlist",
    "half_split",
    "infer_schema",
    "informative_split",
    "leaky_shadow_options",
    "load_adult",
    "load_table",
    "make_generator",
    "measure_names",
    "membership_disclosure_score",
    "nearest_synthetic_records",
    "outlier_sweep",
    "prepare_review",
    "prepare_table",
    "project_2d",
    "rapid",
    "rapid_attribution",
    "rapid_from_scores",
    "rapid_null_calibration",
    "rapid_paper_preset",
    "rapid_paper_study",
    "rapid_permutation_threshold",
    "rapid_synthesizer_cv",
    "record_flags",
    "describe_change",
    "reproduced_uniques",
    "individual_risk_reproduced",
    "sample_uniques",
    "k_anonymity",
    "l_diversity",
    "sdc_summary",
    "render_html",
    "render_pdf",
    "reproduces",
    "scorecard",
    "simulate_health",
    "simulate_health_probabilities",
    "simulate_wide",
    "suggest_quasi_identifiers",
    "summarize_paper_study",
    "sweep",
    "synthesize",
    "unseen_message",
    "wasserstein_fidelity",
]
