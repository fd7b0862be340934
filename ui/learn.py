"""Learn page glue: the guided scenarios' texts, settings, steps, cached runs and Reset.

Each scenario (:mod:`privacy_core.scenarios`) is a short sequence of steps, each with one
control and one explanation. The controls' values live in plain session state
(:data:`SETTINGS`), not only in the widgets: a step's widget is not drawn on the other
steps, and Streamlit forgets the state of a widget it does not draw. Reset puts a
scenario back to its defaults and its first step; the runs are seeded, so the defaults
always give the same numbers.

The scenarios make their own simulated data: nothing here reads or changes the
workspace. Runs are cached with ``st.cache_data`` on the scenario's parameters (shared
by every session: they hold simulated data only). The progress bar is created inside the
cached function, so a cache hit replays it and clears it at once.

:data:`SIZE` selects the run sizes: ``workshop`` (the default, each run under a minute
on two cores) or ``quick`` (small data for tests and slow machines).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st

import privacy_core as pc
from privacy_core import scenarios as sc

SCENARIO = "learn_scenario"  # the chosen scenario
SETTINGS = "learn_settings"  # {scenario: {control: value}}
STEP = "learn_step"  # {scenario: index of the current step}
SIZE = "learn_size"  # "workshop" (default) or "quick"
PICKER = "learn_scenario_picker"  # the selector widget's key

SCENARIO_LABELS = {
    "dependency": "(a) The dependency knob",
    "leaky": "(b) The leaky release",
    "similarity": "(c) Similarity is not disclosure",
    "privacy_price": "(d) The price of privacy",
}
KAPPA_OPTIONS = (0.0, 0.5, 1.0, 2.0, 3.0, 5.0, 7.5, 10.0)
UTILITY_OPTIONS = ("query_error", "discriminator")
READING_LABELS = {
    "absolute": "RAPID on all training records (absolute)",
    "relative": "RAPID members − non-members (what the release adds)",
}

DEFAULTS: dict[str, dict[str, Any]] = {
    "dependency": {"kappa": 2.0, "tau": 0.3, "kappas": KAPPA_OPTIONS},
    "leaky": {"f_l": 0.5, "measures": sc.LEAKY_DEFAULTS["measures"], "min_rise": 0.2},
    "similarity": {
        "min_leaf": sc.SIMILARITY_DEFAULTS["min_leaf"],
        "copies": sc.SIMILARITY_DEFAULTS["copies"],
        "reading": "absolute",
    },
    "privacy_price": {
        "epsilon": 1.0,
        "measures": sc.PRIVACY_PRICE_DEFAULTS["measures"],
        "utility": "query_error",
    },
}
# Engine options per size; the step controls add their own (kappas, copies, ...).
RUN_SIZES: dict[str, dict[str, dict[str, Any]]] = {
    "workshop": {"dependency": {}, "leaky": {}, "similarity": {}, "privacy_price": {}},
    "quick": {
        "dependency": {"n": 200, "releases": 1, "bootstrap": 20, "n_trees": 20},
        "leaky": {"n": 300, "levels": (0.0, 0.5, 1.0)},
        "similarity": {"n": 300},
        "privacy_price": {"n": 400, "levels": (0.1, 1.0, 100.0)},
    },
}
# Measured on a 2-core machine at the workshop size, cold cache (see the report).
WORKSHOP_SECONDS = {"dependency": 5, "leaky": 5, "similarity": 1, "privacy_price": 6}


@dataclass(frozen=True)
class Step:
    title: str
    text: str


SCENARIO_INTROS = {
    "dependency": (
        "RAPID asks: if an attacker trains a model on the synthetic release, for how many "
        "real people does it put clearly more probability on their true sensitive value "
        "(here: disease) than that value's base rate would? The answer depends less on the "
        "generator than on **how strongly the "
        "other columns predict disease in the population**. We turn that dependency up "
        "with one knob, κ, in simulated health data (the RAPID paper's Appendix A) and "
        "watch RAPID follow — the paper's Figure 5."
    ),
    "leaky": (
        "We build releases whose risk we *know*: a share f_l of the training records is "
        "copied verbatim into a release that is otherwise made of real people who were "
        "never in the training data. At f_l = 0 nothing leaks; at f_l = 1 the whole "
        "training set is published. Then we ask every measure what it sees (the "
        "risk-insertion framework's *leaky* risk model)."
    ),
    "similarity": (
        "Similarity measures — the identical match share and the distance to the closest "
        "record (DCR) — ask whether synthetic rows sit close to real ones. RAPID asks "
        "whether the release lets an attacker infer a secret. We build two releases that "
        "these two questions rank in **opposite** order (consensus recommendation R3: "
        "similarity on its own is no evidence of disclosure, nor its absence of safety)."
    ),
    "privacy_price": (
        "A differentially private generator adds calibrated noise; the budget ε sets how "
        "much (small ε = strong guarantee, more noise). We release the same population at "
        "budgets from ε = 0.1 to 100 and measure both sides: the risk an attacker gets, "
        "and what the data lose in fidelity. Privacy is bought with utility."
    ),
}

# the glossary entries each scenario's introduction links to
SCENARIO_TERMS: dict[str, tuple[str, ...]] = {
    "dependency": ("RAPID", "κ", "τ", "CART"),
    "leaky": ("f_l", "IMS", "DCR", "singling out", "RAPID"),
    "similarity": ("IMS", "DCR", "R3", "RAPID", "LOF"),
    "privacy_price": ("DP", "R9", "query error", "discriminator AUC"),
}

STEPS: dict[str, tuple[Step, ...]] = {
    "dependency": (
        Step(
            "Turn the dependency knob",
            "κ sets how strongly age, income and education drive disease in the simulated "
            "population. At **κ = 0** disease barely depends on anything: every age band "
            "looks alike, mostly healthy. As κ grows, age decides more and more — older "
            "people become hypertensive or diabetic, younger ones stay healthy. Nothing "
            "about any individual has changed in kind; the *population's pattern* got "
            "stronger.",
        ),
        Step(
            "Attack a release at this κ",
            "We fit a CART synthesiser (as in the paper) on the population, release "
            "synthetic data, train a random forest on the release, and let it guess every "
            "real person's disease from their other columns. A person counts as *at risk* "
            "when the probability p the forest gives to their true disease beats that "
            "disease's base rate b by more than **τ** of the remaining room: "
            "(p − b) / (1 − b) > τ. Move τ: a strict τ flags fewer people. At strong "
            "dependency the curve stays high until τ is large (the paper's Fig. 5b), "
            "because the attacker is confidently right for most people. The interval is a "
            "bootstrap over the real records.",
        ),
        Step(
            "The whole curve: RAPID against κ",
            "The same experiment at every κ you pick (same seeds, so κ is the only thing "
            "that changes). RAPID rises steeply from weak to moderate dependency, then "
            "saturates — the S-shape of the paper's Fig. 5a (0.25 at κ = 0 to about 0.9 "
            "at κ = 10 there; our attacker is smaller, one forest of 100 trees). The "
            "attacker's accuracy (dashed) rises with it. **What it cannot tell you:** how "
            "much of this risk comes from the release rather than from the population's "
            "pattern, which anyone with a fresh sample could learn — scenario (c) shows "
            "that comparison.",
        ),
    ),
    "leaky": (
        Step(
            "Leak a share of the training records",
            "Pick a leak fraction. A measure that tracks the leak reads about f_l (the "
            "dashed line). The **identical match share** and **DCR** count copies, so they "
            "read f_l almost exactly. **Singling out** and **distance-based inference** "
            "attack the leaked people and rise with f_l. **RAPID** starts well above 0 — "
            "it measures absolute inference risk, including what the population's "
            "patterns give away — and rises only part of the way. The **fidelity** "
            "measures (green) do not move towards worse at all: a release of real people "
            "looks exactly like real data.",
        ),
        Step(
            "Turn f_l from 0 to 1",
            "Every measure against the leak fraction, grouped by what it attacks; the "
            "dashed y = f_l line is the ideal response. Choose which measures to draw. A "
            "trustworthy disclosure measure rises steadily with the inserted leak; one "
            "that stays flat cannot see this kind of risk, however large — a low value "
            "from it is no reassurance. Intervals are each measure's own interval on one "
            "release per level.",
        ),
        Step(
            "Who sees the leak — and who does not",
            "Set how much a measure must rise between f_l = 0 and f_l = 1 to count as "
            "*seeing* the leak. Utility and fidelity measures never see it: leaking real "
            "records *improves* fidelity. That is the point of the exercise — good "
            "utility is no evidence of privacy, and a privacy claim needs measures that "
            "respond to the risk at hand.",
        ),
    ),
    "similarity": (
        Step(
            "Release A: no copies, strong patterns",
            "A CART release of a population with strong dependencies (κ = 10). Large "
            "leaves (the minimum leaf size, your control) mean every synthetic value is "
            "drawn from many real donors, so no real record comes out whole: the "
            "**identical match share is about 0** and **DCR** finds synthetic rows no "
            "closer to training rows than real rows are to each other. Yet **RAPID is "
            "high**: the release carries the population's pattern, and from it an "
            "attacker infers most people's disease.",
        ),
        Step(
            "Release B: copies of a few rare people",
            "A population with weak dependencies (κ = 0). The release is unseen real "
            "people plus **verbatim copies of the most unusual training records** "
            "(chosen by a Local Outlier Factor: the people whose combination of age, "
            "income, health score and categories has the fewest close neighbours). The "
            "identical match share reads exactly the copied share, and DCR flags them. "
            "RAPID stays low: there is little pattern to learn, and a handful of copied "
            "people hardly moves a share over all records. Choose how many rare records "
            "are copied.",
        ),
        Step(
            "Side by side",
            "Similarity measures say B is the risky release; RAPID says A. Neither "
            "reading is the whole story. Switch the reading to **members − non-members**: "
            "the same attacker is run on fresh people from the same population who were "
            "never in the training data. For A they are predicted almost as well as the "
            "members — most of A's inference risk is the population's pattern, which any "
            "sample would reveal (consensus R7: report the relative and the absolute "
            "risk). B's copies *are* a disclosure for the copied people, but whether "
            "closeness is harmful depends on what the copy reveals and to whom — which is "
            "why consensus R3 asks not to use similarity alone as evidence either way.",
        ),
    ),
    "privacy_price": (
        Step(
            "Pick a budget ε",
            "One DP release at the budget you pick (built-in MST-style generator: noisy "
            "one- and two-way marginals). Read the risk measures (red, grey) next to the "
            "fidelity ones (green): **query error** (lower is better) and the "
            "**real-vs-synthetic discriminator** (AUC: 0.5 means indistinguishable, 1 "
            "means trivially told apart). At small ε the noise drowns the patterns: the "
            "attacker has little to learn, and the data look nothing like the real ones.",
        ),
        Step(
            "ε against risk and fidelity",
            "Each measure against ε on a log axis. RAPID climbs as ε grows, because the "
            "release keeps more of the population's age–disease pattern; the fidelity "
            "losses fall at the same time. The similarity indicator (DCR) stays flat near "
            "0 at every ε: a DP generator does not copy records, so similarity cannot see "
            "the risk that does change. One release per ε: a point can wobble.",
        ),
        Step(
            "The price on the map",
            "Every budget as one point: risk across, fidelity loss up. Choose the utility "
            "axis. The points trace a trade-off curve — moving towards the lower-left "
            "corner is not on offer; each step down in risk costs a step up in fidelity "
            "loss. Where to stand on that curve is a decision for the data steward, with "
            "the threat model and the release's purpose in mind, not a property of the "
            "measures.",
        ),
    ),
}


# ------------------------------------------------------------------ state
def current_scenario() -> str:
    return st.session_state.get(SCENARIO, "dependency")


def settings(scenario: str) -> dict[str, Any]:
    """The scenario's control values (defaults on first use)."""
    stored = st.session_state.setdefault(SETTINGS, {})
    if scenario not in stored:
        stored[scenario] = copy.deepcopy(DEFAULTS[scenario])
    return stored[scenario]


def setting(scenario: str, name: str) -> Any:
    return settings(scenario)[name]


def widget_key(scenario: str, name: str) -> str:
    return f"learn_{scenario}_{name}"


def bind(scenario: str, name: str) -> str:
    """The widget key of a control, given the stored value before it is drawn."""
    key = widget_key(scenario, name)
    if key not in st.session_state:
        st.session_state[key] = setting(scenario, name)
    return key


def store(scenario: str, name: str) -> None:
    """on_change: keep the widget's new value in the scenario's settings."""
    value = st.session_state[widget_key(scenario, name)]
    settings(scenario)[name] = tuple(value) if isinstance(value, list) else value


def pick_scenario() -> None:
    """on_change of the selector (a click on the selected segment clears it: keep it)."""
    chosen = st.session_state.get(PICKER)
    if chosen:
        st.session_state[SCENARIO] = chosen


def step(scenario: str) -> int:
    return int(st.session_state.setdefault(STEP, {}).get(scenario, 0))


def move(scenario: str, delta: int) -> None:
    """on_click of Back / Next."""
    last = len(STEPS[scenario]) - 1
    st.session_state.setdefault(STEP, {})[scenario] = min(max(step(scenario) + delta, 0), last)


def reset(scenario: str) -> None:
    """on_click of Reset: the scenario's defaults, its first step, its fixed seed."""
    st.session_state.setdefault(SETTINGS, {})[scenario] = copy.deepcopy(DEFAULTS[scenario])
    st.session_state.setdefault(STEP, {})[scenario] = 0
    for name, value in DEFAULTS[scenario].items():
        key = widget_key(scenario, name)
        if key in st.session_state:
            st.session_state[key] = list(value) if isinstance(value, tuple) else value


def run_size() -> str:
    size = st.session_state.get(SIZE, "workshop")
    return size if size in RUN_SIZES else "workshop"


ENGINE_DEFAULTS = {"leaky": sc.LEAKY_DEFAULTS, "privacy_price": sc.PRIVACY_PRICE_DEFAULTS}


def run_levels(scenario: str) -> list[float]:
    """The levels (f_l or ε) a sweep scenario runs at this size."""
    return list(RUN_SIZES[run_size()][scenario].get("levels", ENGINE_DEFAULTS[scenario]["levels"]))


def level_control(scenario: str, name: str, prefer: float) -> str:
    """bind() for a level picker whose options depend on the size: a stored value that
    is not a level of this size moves to the level nearest ``prefer``."""
    key = bind(scenario, name)
    levels = run_levels(scenario)
    if st.session_state[key] not in levels:
        st.session_state[key] = min(levels, key=lambda v: abs(v - prefer))
        settings(scenario)[name] = st.session_state[key]
    return key


# ------------------------------------------------------------------ cached runs
RUNNERS: dict[str, Callable[..., Any]] = {
    "dependency": sc.dependency_scenario,
    "population": sc.dependency_population,
    "leaky": sc.leaky_scenario,
    "similarity": sc.similarity_scenario,
    "privacy_price": sc.privacy_price_scenario,
}
RUN_LABELS = {
    "dependency": "Simulating, releasing and attacking at each κ",
    "population": "Simulating the population",
    "leaky": "Making leaky releases and running every measure",
    "similarity": "Building releases A and B and running the measures",
    "privacy_price": "Training DP generators and running the measures",
}


@st.cache_data(show_spinner=False, max_entries=64)
def _run(name: str, params: tuple[tuple[str, Any], ...]) -> Any:
    """One scenario run, keyed on its parameters; the progress bar lives inside so that
    a cache hit replays (and clears) it rather than referring to an outside element."""
    slot = st.empty()
    with slot.container():
        bar = st.progress(0.0, text=f"{RUN_LABELS[name]}…")

    def progress(fraction: float, message: str) -> None:
        bar.progress(min(max(float(fraction), 0.0), 1.0), text=message)

    try:
        if name == "population":
            return RUNNERS[name](**dict(params))
        return RUNNERS[name](**dict(params), progress=progress)
    finally:
        slot.empty()


def run_params(name: str, **controls: Any) -> tuple[tuple[str, Any], ...]:
    """The engine options of a run: the size's, then the step's controls (hashable)."""
    sizes = RUN_SIZES[run_size()]
    # the population of step 1 is the one the dependency runs simulate (same n and seed)
    base = (
        {"n": sizes["dependency"].get("n", sc.DEPENDENCY_DEFAULTS["n"])}
        if name == "population"
        else dict(sizes[name])
    )
    merged = {**base, **controls}
    return tuple(
        sorted((k, tuple(v) if isinstance(v, (list, tuple)) else v) for k, v in merged.items())
    )


def run(name: str, **controls: Any) -> Any:
    """Run (or fetch) a scenario with a progress bar; None on failure (shown)."""
    try:
        return _run(name, run_params(name, **controls))
    except pc.PrivacyCoreError as exc:
        st.error(str(exc), icon=":material/warning:")
    except Exception as exc:  # noqa: BLE001 -- the app must not crash to a traceback
        st.error(
            f"The scenario failed unexpectedly ({type(exc).__name__}: {exc}). Press "
            "Reset to return to its defaults.",
            icon=":material/error:",
        )
    return None


__all__ = [
    "DEFAULTS",
    "KAPPA_OPTIONS",
    "PICKER",
    "READING_LABELS",
    "RUN_SIZES",
    "SCENARIO",
    "SCENARIO_INTROS",
    "SCENARIO_LABELS",
    "SETTINGS",
    "SIZE",
    "STEP",
    "STEPS",
    "UTILITY_OPTIONS",
    "WORKSHOP_SECONDS",
    "bind",
    "current_scenario",
    "level_control",
    "move",
    "pick_scenario",
    "reset",
    "run",
    "run_levels",
    "run_params",
    "run_size",
    "setting",
    "step",
    "store",
]
