"""Members and non-members of a membership attack.

Members are the training rows; non-members are real rows the generator never saw, so
both attacks (:func:`~privacy_core.risk.membership.domias` and
:func:`~privacy_core.risk.membership.membership_disclosure`) require a holdout.
"""

from __future__ import annotations

import pandas as pd

from ...errors import ParameterError


def require_holdout(holdout: pd.DataFrame | None, measure: str) -> None:
    """Fail with a message that says what the holdout is for when none is given."""
    if holdout is None:
        raise ParameterError(
            f"`{measure}` needs a holdout: real rows the generator never saw, which are the "
            "non-members of the attack. Pass holdout=..."
        )
