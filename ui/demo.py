"""The built-in demo workspace shown on first start (no clicks needed)."""

from __future__ import annotations

from typing import TypedDict

import privacy_core as pc

from .cached import builtin_tables, generate_release
from .workspace import Table, Workspace


class DemoSettings(TypedDict):
    """The built-in dataset, its size and parameters (:func:`privacy_core.builtin_dataset`)."""

    name: str
    n: int | None
    kappa: float
    seed: int


class ReleaseSpec(TypedDict):
    """One generated release: a built-in generator, its parameters and its seed."""

    method: str
    params: tuple[tuple[str, float], ...]
    seed: int


DEMO: DemoSettings = {"name": "health", "n": 2000, "kappa": 1.0, "seed": 0}
DEMO_RELEASE: ReleaseSpec = {"method": "cart", "params": (("min_leaf", 5),), "seed": 0}


def builtin_workspace(
    name: str, *, n: int | None, kappa: float, seed: int, release: dict | None = None
) -> Workspace:
    """A workspace on a built-in dataset with one generated release (CART by default)."""
    train, holdout, threat = builtin_tables(name, n, kappa, seed)
    label = "Simulated health microdata" if name == "health" else "UCI Adult"
    real = Table.make(f"{label} (training)", train, "built-in")
    hold = Table.make(f"{label} (holdout)", holdout, "built-in")
    rel = release or DEMO_RELEASE
    schema = pc.infer_schema(train) if name == "health" else None
    ws = Workspace(
        real=real,
        releases=(),
        holdout=hold,
        quasi_identifiers=tuple(threat["quasi_identifiers"]),
        sensitive=tuple(threat["sensitive"]),
        dataset=name,
        dataset_params=(("kappa", kappa), ("n", n), ("seed", seed)),
    )
    schema = ws.schema if schema is None else schema
    real_c = pc.prepare_table(train, schema)
    syn = generate_release(
        real.fingerprint, real_c, rel["method"], rel["params"], len(real_c), rel["seed"]
    )
    name_rel = f"{rel['method'].upper()} release (seed {rel['seed']})"
    return Workspace(**{**ws.__dict__, "releases": (Table.make(name_rel, syn, "generated"),)})


def load_default_workspace() -> Workspace:
    return builtin_workspace(DEMO["name"], n=DEMO["n"], kappa=DEMO["kappa"], seed=DEMO["seed"])
