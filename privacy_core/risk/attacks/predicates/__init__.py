"""Singling out: predicates from the release that isolate one synthetic record, tried on
real records (rank-coded columns, bitset and histogram counting).

The package's modules, in the order an attack uses them:

* :mod:`.attack`: :func:`singling_out` and :func:`singling_out_outliers`, which check
  their options and route them;
* :mod:`.configuration`: one configuration as a pipeline, from the tables to the result;
* :mod:`.coding`: the rank coding of the tables, the predicate vocabulary and its text;
* :mod:`.generation`: the predicates drawn from the release (Anonymeter's multivariate and
  univariate generators) and the random-guess baseline's;
* :mod:`.bit_index`: the multivariate generator's bitsets of synthetic rows;
* :mod:`.outliers`: the contrastive paper's targets (the most isolated records) and their
  predicates;
* :mod:`.counting`: how many rows each predicate matches (histograms, bitsets, masks);
* :mod:`.size_correction`: the control count at the training size (``mixture``,
  ``subsample``, ``fit``);
* :mod:`.protocol`: the papers' protocol read as one result, and the headline wording.

Predicate generation, the rank coding and the bitset counting are tuned together for speed
(issue 14): the hot loops stay inside :mod:`.counting`, :mod:`.bit_index` and
:mod:`.outliers`, which exchange only numpy arrays.
"""

from .attack import DEFAULT_N_ATTACKS, SINGLING_OUT_MODES, singling_out, singling_out_outliers
from .protocol import (
    PAPER_N_ATTACKS,
    PAPER_N_COLS,
    SinglingOutProtocolResult,
    describe_configuration,
    protocol_label,
)
from .size_correction import SIZE_CORRECTIONS

__all__ = [
    "DEFAULT_N_ATTACKS",
    "PAPER_N_ATTACKS",
    "PAPER_N_COLS",
    "SINGLING_OUT_MODES",
    "SIZE_CORRECTIONS",
    "SinglingOutProtocolResult",
    "describe_configuration",
    "protocol_label",
    "singling_out",
    "singling_out_outliers",
]
