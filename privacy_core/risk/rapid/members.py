"""Members against non-members: what a release discloses beyond the population's patterns.

With a control (real holdout records the generator never saw), the attackers fitted on
the release score those records too; RAPID on the training records (members) minus RAPID
on the holdout (non-members), with an interval, is what the release discloses about the
records it was made from rather than about people like them (consensus R7).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...stats import control_baseline_risk, newcombe_difference_interval, percentile_interval
from .bootstrap import attacker_bootstrap

if TYPE_CHECKING:
    from .result import RapidResult


def members_vs_non_members(result: RapidResult) -> dict[str, Any] | None:
    """RAPID on the training records (members) against the same attackers on holdout
    records the generator never saw (non-members), and the difference: what the
    release discloses beyond the population's patterns (consensus R7). ``None``
    without a control.

    The headline attacker is the strongest on the members (the one behind
    ``rate_max``); each attacker's figures are in ``by_attacker``. The difference's
    interval is the percentile interval of the difference of independent bootstrap
    replicates of the two record sets, or Newcombe's hybrid score interval without a
    bootstrap.
    """
    if result.control is None:
        return None
    conf = result.params["confidence"]
    boot_m, boot_c = attacker_bootstrap(result), attacker_bootstrap(result.control)
    n_m, n_c = result.scores.shape[0], result.control.scores.shape[0]
    by_attacker = {}
    for j, a in enumerate(result.attackers):
        m, c = result.by_attacker[a], result.control.by_attacker[a]
        # relative: the difference as a share of what the non-members leave to learn,
        # (r_m - r_c) / (1 - r_c), the consensus framework's control-baseline risk
        # (≈ 1 for a copy of the members, ≈ 0 for a release that never saw them)
        relative = control_baseline_risk(m["value"], c["value"])
        if boot_m is not None and boot_c is not None and len(boot_m) == len(boot_c):
            bm, bc = boot_m[:, j], boot_c[:, j]
            lo, hi = percentile_interval(bm - bc, confidence=conf)
            with np.errstate(divide="ignore", invalid="ignore"):
                rel_b = np.where(bc < 1, (bm - bc) / (1 - bc), np.nan)
            r_lo, r_hi = percentile_interval(rel_b, confidence=conf)
            ci, rel_ci, how = (float(lo), float(hi)), (float(r_lo), float(r_hi)), "bootstrap"
        else:
            ci = newcombe_difference_interval(
                m["value"] * n_m, n_m, c["value"] * n_c, n_c, confidence=conf
            )
            scale = 1 - c["value"]
            rel_ci = (ci[0] / scale, ci[1] / scale) if scale > 0 else (np.nan, np.nan)
            how = "newcombe"
        by_attacker[a] = {
            "members": m["value"],
            "members_ci": list(m["ci"]),
            "non_members": c["value"],
            "non_members_ci": list(c["ci"]),
            "difference": m["value"] - c["value"],
            "difference_ci": list(ci),
            "relative": relative,
            "relative_ci": list(rel_ci),
            "interval": how,
        }
    head = by_attacker[result.strongest_attacker]
    return {
        "attacker": result.strongest_attacker,
        "threshold": result.threshold,
        "n_members": n_m,
        "n_non_members": n_c,
        "members": {"value": head["members"], "ci": head["members_ci"]},
        "non_members": {"value": head["non_members"], "ci": head["non_members_ci"]},
        "difference": {
            "value": head["difference"],
            "ci": head["difference_ci"],
            "interval": head["interval"],
        },
        "relative": {"value": head["relative"], "ci": head["relative_ci"]},
        "by_attacker": by_attacker,
    }
