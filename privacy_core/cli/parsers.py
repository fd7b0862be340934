"""The sub-commands' arguments: one function per sub-command adds its parser (its
options, their defaults and help) and the command that runs it. ``sweep`` registers its
own (:mod:`.sweep`); :func:`privacy_core.cli.build_parser` calls them all in order.
"""

from __future__ import annotations

from typing import Any

from .commands import (
    cmd_calibrate,
    cmd_demo_data,
    cmd_fidelity,
    cmd_history,
    cmd_privacy,
    cmd_rapid,
    cmd_report,
    cmd_review,
    cmd_synthesize,
)
from .common import (
    add_device_argument,
    add_jobs_argument,
    add_mds_arguments,
    add_membership_arguments,
    add_ray_argument,
    add_shared_arguments,
)


def register_demo_data(subparsers: Any) -> None:
    """``demo-data``: write the RAPID paper's simulated health microdata (or the wide table)."""
    p = subparsers.add_parser(
        "demo-data",
        help="write the RAPID paper's simulated health microdata (or, with --wide, a "
        "30-column register-like table with missing values, for scale tests)",
    )
    p.add_argument("--n", type=int, default=1000)
    p.add_argument("--kappa", type=float, default=1.0)
    p.add_argument(
        "--wide",
        action="store_true",
        help="the wide simulation (simulate_wide: 16 categorical and 14 numeric "
        "columns, missing values; --kappa does not apply)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True)
    p.set_defaults(func=cmd_demo_data)


def register_synthesize(subparsers: Any) -> None:
    """``synthesize``: fit a built-in generator and write a release."""
    p = subparsers.add_parser("synthesize", help="fit a built-in generator and write a release")
    p.add_argument("--method", default="cart")
    p.add_argument("--real", required=True)
    p.add_argument(
        "--n",
        type=int,
        default=None,
        help="rows to write (default: as many as the real table; for half, its "
        "half, floor(n/2) distinct real rows drawn without replacement)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True)
    p.add_argument("--epsilon", type=float, default=None, help="privacy budget (DP generators)")
    p.add_argument("--min-leaf", type=int, default=None, help="CART minimum leaf size")
    p.set_defaults(func=cmd_synthesize)


def register_rapid(subparsers: Any) -> None:
    """``rapid``: RAPID attribute-inference risk, the paper preset and its simulation study."""
    p = subparsers.add_parser("rapid", help="RAPID attribute-inference risk")
    add_shared_arguments(p)
    p.add_argument("--tau", type=float, default=None, help="categorical threshold (default 0.3)")
    p.add_argument(
        "--epsilon",
        type=float,
        default=None,
        help="continuous tolerance as a proportion, not a percentage: 0.10 means "
        "within 10 %% (default 0.10); must be below 1 for the relative and "
        "symmetric errors, in units of y for absolute",
    )
    p.add_argument(
        "--error", default="relative", choices=["relative", "absolute", "normalized", "symmetric"]
    )
    p.add_argument("--method", default="marginal", choices=["marginal", "conditional", "nce"])
    p.add_argument(
        "--attackers",
        default=None,
        help="comma-separated from rf, xgb, cart, logit (default rf,xgb,logit; "
        "the paper preset: rf,xgb,cart)",
    )
    p.add_argument("--bootstrap", type=int, default=500)
    p.add_argument("--n-trees", type=int, default=None, help="random-forest trees (500)")
    p.add_argument(
        "--forest-encoding",
        choices=["one-hot", "codes"],
        default=None,
        help="how the random forest sees a categorical quasi-identifier: one-hot "
        "columns (default) or one column of level codes, as R's ranger (the paper preset)",
    )
    add_ray_argument(p, "the attacker fits (one task per release and attacker)")
    p.add_argument(
        "--preset",
        choices=["paper"],
        default=None,
        help="the RAPID paper's set-up (every non-sensitive column a "
        "quasi-identifier, disease sensitive, rf,xgb,cart, tau 0.3). Without "
        "--real: run the paper's simulation study (n = 1000, CART release)",
    )
    p.add_argument(
        "--kappa",
        default=None,
        help="--preset paper study: dependency strengths, comma separated (10)",
    )
    p.add_argument(
        "--taus", default=None, help="--preset paper study: thresholds, comma separated (0.3)"
    )
    p.add_argument(
        "--simulations",
        type=int,
        default=10,
        help="--preset paper study: simulations per kappa (10)",
    )
    p.add_argument(
        "--calibrate",
        nargs="?",
        const="null-rapid",
        default=None,
        choices=["null-rapid", "pooled-scores"],
        help="also suggest a threshold by permutation: null-rapid (default, the "
        "paper's §2.5 rule) or pooled-scores (the earlier rule); refits use "
        "at most 200 trees",
    )
    p.add_argument(
        "--permutations",
        type=int,
        default=None,
        help="permutations for --calibrate (null-rapid: 20 refits, at least 20, "
        "or 199 label shuffles with --permute labels; pooled-scores: 5 refits)",
    )
    p.add_argument(
        "--permute",
        default="release",
        choices=["release", "labels"],
        help="null-rapid's null: y shuffled in the release with the attackers "
        "refitted (default), or the real labels shuffled against the fitted "
        "attackers (fast, the authors' R construction)",
    )
    p.set_defaults(func=cmd_rapid)


def register_privacy(subparsers: Any) -> None:
    """``privacy``: the distance, attack and membership measures."""
    p = subparsers.add_parser("privacy", help="distance, attack and membership measures")
    add_shared_arguments(p)
    p.add_argument("--metrics", help="comma-separated measure names (default: all but rapid)")
    p.add_argument("--alpha", type=float, default=2.0, help="DCR percentile in percent")
    p.add_argument("--k", type=int, default=5, help="largest k of the k-NN DCR variants")
    p.add_argument(
        "--max-queries",
        type=int,
        default=None,
        help="DCR and k-NN: above this many synthetic (or holdout) records, measure a "
        "seeded sample of this many, each against the whole training table (exact "
        "distances; the interval includes the sampling); 0 = every record; default: "
        "every record up to 50,000, then a sample that keeps the search near 2 x 10^10 "
        "pairs (20,000 at a million training rows)",
    )
    p.add_argument(
        "--n-attacks",
        type=int,
        default=None,
        help="singling-out predicates (default 500; 2,000 per configuration with "
        "--singling-out-mode paper) and attack targets per "
        "attack (default: every record, consensus R2)",
    )
    p.add_argument("--radius", type=float, default=0.1, help="GTCAP radius (min-max scale)")
    p.add_argument(
        "--gtcap-weighting",
        default="box_pooled",
        choices=["box_pooled", "box_per_record", "triangular", "sphere"],
        help="GTCAP matching and aggregation: box_pooled (a box of half-width "
        "radius per numeric column, attributions pooled over records; "
        "'sphere' is its deprecated name), box_per_record (the mean of the "
        "per-synthetic-record TCAP, eq. 7) or triangular (reference code)",
    )
    p.add_argument(
        "--singling-out-mode",
        default="multivariate",
        choices=["multivariate", "univariate", "paper"],
        help="singling-out predicates: several columns, or one rare value; "
        "'paper': the risk-insertion papers' protocol, the highest risk over "
        "univariate and 3-12 columns with 2,000 predicates each (every "
        "configuration is in the JSON)",
    )
    p.add_argument(
        "--singling-out-cols",
        type=int,
        default=3,
        help="columns per multivariate singling-out predicate",
    )
    p.add_argument(
        "--space",
        default="shared",
        choices=["shared", "contrastive"],
        help="distance space of dcr, knn, inference and linkability, and where "
        "singling out finds its targets: the shared encoding (min-max, "
        "one-hot; Anonymeter's random predicates) or a contrastive record "
        "embedding trained on --real (singling out then targets the "
        "release's most isolated records, the paper's SO + CL; each metric's "
        "params.space records it)",
    )
    add_membership_arguments(p)
    add_mds_arguments(p)
    add_jobs_argument(p)
    add_device_argument(p)
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="write each measure's progress, then its wall and CPU seconds, to stderr",
    )
    p.set_defaults(func=cmd_privacy)


def register_fidelity(subparsers: Any) -> None:
    """``fidelity``: the fidelity and utility measures."""
    p = subparsers.add_parser(
        "fidelity", help="Wasserstein fidelity, ML affinity, query error, discriminator"
    )
    add_shared_arguments(p)
    p.add_argument("--metrics", help="comma-separated measure names (default: all)")
    p.add_argument(
        "--max-rows",
        type=int,
        default=3000,
        help="subsample size for pairs with a numeric column (Wasserstein)",
    )
    add_jobs_argument(p)
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="write each measure's progress, then its wall and CPU seconds, to stderr",
    )
    p.set_defaults(func=cmd_fidelity)


def register_report(subparsers: Any) -> None:
    """``report``: run the review and write an HTML report or a PDF sign-off sheet."""
    p = subparsers.add_parser("report", help="run the review and write an HTML report")
    add_shared_arguments(p)
    add_jobs_argument(p)
    add_device_argument(p)
    p.add_argument("--metrics", help="comma-separated measure names")
    p.add_argument(
        "--out",
        required=True,
        help="report file to write: HTML, or a PDF sign-off sheet when it ends in .pdf",
    )
    p.add_argument(
        "--decision",
        default="undecided",
        choices=["undecided", "release", "release with changes", "do not release"],
    )
    p.add_argument("--notes", default="")
    p.add_argument("--reviewer", default="", help="who signs the review off (PDF, HTML)")
    p.add_argument("--role", default="", help="the reviewer's role")
    p.add_argument("--date", help="date of the review, YYYY-MM-DD (default: today, UTC)")
    # the consensus checklist's questions only a person can answer (R1, R4, R8, R10)
    p.add_argument(
        "--qi-justification",
        default="",
        help="R1: why these quasi-identifiers, and who ascertained them",
    )
    p.add_argument(
        "--same-population",
        choices=["yes", "no"],
        default=None,
        help="R4: are membership targets drawn from the training population?",
    )
    p.add_argument(
        "--thresholds-set-by",
        default="",
        help="R8: who set the scorecard's thresholds, on what precedent",
    )
    p.add_argument(
        "--review-of",
        choices=["model", "release"],
        default=None,
        help="R10: evaluating a trained generator (model) or deciding on these "
        "synthetic datasets (release)",
    )
    p.add_argument(
        "--include-records",
        action="store_true",
        help="add per-record tables (they contain real records)",
    )
    p.add_argument(
        "--calibrate",
        action="store_true",
        help="also calibrate the privacy measures on this data (see `calibrate`) "
        "and add the calibration table to the report",
    )
    p.add_argument(
        "--calibrate-max-training",
        type=int,
        default=2000,
        help="training rows of the calibration's reference releases",
    )
    p.add_argument(
        "--db",
        default=None,
        metavar="URL",
        help="also store the review (aggregates only) in this database: a "
        "SQLAlchemy URL such as sqlite:///reviews.db; see `history`",
    )
    add_membership_arguments(p)
    add_ray_argument(p, "the --calibrate cells")
    p.set_defaults(func=cmd_report)


def register_history(subparsers: Any) -> None:
    """``history``: stored reviews: list, show one, compare two."""
    p = subparsers.add_parser("history", help="stored reviews: list, show one, compare two")
    p.add_argument(
        "--db",
        required=True,
        metavar="URL",
        help="the review database (SQLAlchemy URL, e.g. sqlite:///reviews.db)",
    )
    p.add_argument(
        "--show", type=int, default=None, metavar="ID", help="print one stored review as JSON"
    )
    p.add_argument(
        "--compare",
        default=None,
        metavar="A,B",
        help="compare two stored reviews: which numbers moved, what changed",
    )
    p.add_argument("--json", help="write the JSON result to PATH ('-' for stdout)")
    p.set_defaults(func=cmd_history)


def register_calibrate(subparsers: Any) -> None:
    """``calibrate``: the risk-insertion framework run on the measures themselves."""
    p = subparsers.add_parser(
        "calibrate",
        help="the risk-insertion framework run on the measures "
        "themselves: floor, ceiling, slope, size-ratio gap",
    )
    add_shared_arguments(p)
    p.add_argument("--metrics", help="comma-separated privacy measures (default: all)")
    p.add_argument("--levels", help="leak fractions f_l (default 0,0.25,0.5,0.75,1)")
    p.add_argument("--ratios", help="training:holdout size ratios (default 1,2,4)")
    p.add_argument(
        "--max-training",
        type=int,
        default=None,
        help="cap on the training rows of the reference releases",
    )
    add_membership_arguments(p)
    add_jobs_argument(
        p,
        "worker processes: the calibration cells (one per leak level, measure and mode) "
        "run side by side, each on its share of the threads; 1 = one after another (the "
        "default), -1 = every usable core; the rows do not change",
    )
    add_ray_argument(p, "the calibration cells (one task per leak level, measure and mode)")
    p.set_defaults(func=cmd_calibrate)


def register_review(subparsers: Any) -> None:
    """``review``: the whole review from one TOML file."""
    p = subparsers.add_parser(
        "review",
        help="the whole review from one TOML file; exit 0 below the lines, 3 above a "
        "line, 4 inconclusive, 2 bad input",
    )
    p.add_argument("--config", required=True, help="the review's TOML file (see docs/cli.md)")
    p.add_argument("--out", default=None, help="also write the report: .html or .pdf")
    p.add_argument("--json", help="write the review's JSON to PATH ('-' for stdout)")
    p.add_argument(
        "--db", default=None, metavar="URL", help="also store the review (SQLAlchemy URL)"
    )
    add_jobs_argument(p)
    add_device_argument(p)
    add_ray_argument(p, "the measures (one task each) and their parallel parts")
    p.set_defaults(func=cmd_review)


# the sub-commands in the order of the command line's help
REGISTER = (
    register_demo_data,
    register_synthesize,
    register_rapid,
    register_privacy,
    register_fidelity,
    register_report,
    register_history,
    register_calibrate,
    register_review,
)

__all__ = [
    "REGISTER",
    "register_demo_data",
    "register_synthesize",
    "register_rapid",
    "register_privacy",
    "register_fidelity",
    "register_report",
    "register_history",
    "register_calibrate",
    "register_review",
]
