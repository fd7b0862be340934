"""A small autoregressive neural generator (torch) and the overfitting risk model.

Why one module: the tokenizer, the network, its training loop with checkpoints and the
sampler are one generator; the overfit risk model reads the training curve it keeps.

The table is turned into a short sequence of tokens per row and a network models
p(row) = prod_j p(token_j | tokens before j), one small MLP head per token over the
embeddings of the earlier tokens (the same factorisation as RealTabFormer's GPT-2, at a
size that trains on 2 CPU cores in minutes).

Tokens
------
* categorical column: one token, its level (levels seen in the training data; a level
  met only in validation rows gets a reserved token that sampling never draws);
* numeric column with at most ``max_levels`` distinct values (e.g. age in years): one
  token, the exact value;
* other numeric column, ``exact_values=True`` (default): two tokens, a *coarse* bin that
  holds at most ``fine_size`` consecutive distinct training values (equal-count bins over
  the sorted distinct values, i.e. quantile bins) and a *fine* token, the position of the
  value inside its bin. A row decodes to real training values, so a model that has
  memorised a record reproduces it exactly, as a language model over digit tokens does;
  a well-generalising model draws the fine token almost uniformly, i.e. a training value
  of the right bin (synthpop's donor idea). Validation values map to the nearest
  training value;
* other numeric column, ``exact_values=False``: ``n_bins`` quantile bins, decoded by a
  uniform draw inside the bin (whole numbers rounded for integer columns). Exact copies
  of continuous values are then impossible, and the identical match share cannot react.

Missing numeric values have a token of their own.

Overfitting risk model
----------------------
:meth:`AutoregressiveGenerator.fit` trains with dropout and weight decay, keeping the
state with the best validation loss L* (early stopping with ``patience``). With
``overfit_levels`` it then continues from that state *without* early stopping, dropout or
weight decay, evaluating the validation loss every ``eval_every`` optimiser steps, and
keeps a copy of the weights where the validation loss first reaches f_o * L* for each
requested f_o (f_o = 1 is the best state itself). A level never reached within
``max_overfit_epochs`` is recorded as unreached (``OverfitCheckpoint.reached`` False),
never faked. :meth:`sample` draws from any kept checkpoint with ``level=f_o``.

Notes
-----
``risk-insertion-framework.md`` §5.1.2 (overfitting risk model: train to L*, then stop
when L = f_o * L*, f_o = 1, 1.2, ..., 2) and Appendix F (validation loss);
``contrastive-embeddings.md`` §4.2 and §5.2 (regularisation and early stopping disabled
for the overfit runs).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..data import Schema
from ..errors import InsufficientDataError, ParameterError
from ..validation import check_in_range, check_positive_int
from .base import Generator

EpochFn = Callable[[dict[str, Any]], None]

# With eval_every = 0 the overfit phase evaluates the validation loss at most every quarter
# epoch, and sooner as it nears the next target: the interval is half the number of steps
# the last evaluations' rate of increase predicts to the target, so each checkpoint lands
# just past its target (within about 1 %) without evaluating after every step.
_EVALS_PER_EPOCH = 4


# ============================================================================ tokenizer
@dataclass
class _ColumnCodec:
    name: str
    kind: str  # "cat", "exact", "two", "bins"
    sizes: list[int]
    values: np.ndarray  # levels (cat), sorted distinct values (exact / two), bin edges (bins)
    has_missing: bool = False
    integer: bool = False
    fine_size: int = 0
    # Distinct values per coarse bin ("two" columns only).
    bin_sizes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))


class _Tokenizer:
    """Rows of a canonical table <-> integer token sequences."""

    def __init__(
        self, schema: Schema, *, max_levels: int, fine_size: int, n_bins: int, exact_values: bool
    ):
        self.schema = schema
        self.max_levels = max_levels
        self.fine_size = fine_size
        self.n_bins = n_bins
        self.exact_values = exact_values

    def fit(self, real: pd.DataFrame) -> _Tokenizer:
        self.codecs: list[_ColumnCodec] = []
        for col in real.columns:
            spec = self.schema[col]
            if not spec.is_numeric:
                levels = np.array(sorted(map(str, pd.unique(real[col]))), dtype=object)
                # +1: reserved token for a level seen only outside the training rows.
                self.codecs.append(_ColumnCodec(col, "cat", [len(levels) + 1], levels))
                continue
            x = real[col].to_numpy(dtype=float)
            finite = x[np.isfinite(x)]
            has_missing = bool((~np.isfinite(x)).any())
            uniq = np.unique(finite)
            extra = 1 if has_missing else 0
            if len(uniq) <= self.max_levels:  # (an all-missing column: the missing token only)
                self.codecs.append(
                    _ColumnCodec(col, "exact", [len(uniq) + extra], uniq, has_missing, spec.integer)
                )
            elif self.exact_values:
                f = self.fine_size
                n_coarse = math.ceil(len(uniq) / f)
                sizes = np.full(n_coarse, f)
                sizes[-1] = len(uniq) - f * (n_coarse - 1)
                self.codecs.append(
                    _ColumnCodec(
                        col, "two", [n_coarse + extra, f], uniq, has_missing, spec.integer, f, sizes
                    )
                )
            else:
                edges = np.unique(np.quantile(finite, np.linspace(0, 1, self.n_bins + 1)))
                if len(edges) < 2:
                    edges = np.array([edges[0], edges[0]])
                self.codecs.append(
                    _ColumnCodec(
                        col, "bins", [len(edges) - 1 + extra], edges, has_missing, spec.integer
                    )
                )
        self.sizes = [s for c in self.codecs for s in c.sizes]
        return self

    def encode(self, frame: pd.DataFrame) -> np.ndarray:
        out = []
        for c in self.codecs:
            if c.kind == "cat":
                codes = pd.Index(c.values).get_indexer(frame[c.name].astype(str).to_numpy())
                out.append(np.where(codes < 0, len(c.values), codes))
                continue
            x = frame[c.name].to_numpy(dtype=float)
            miss = ~np.isfinite(x)
            if c.kind == "exact" and len(c.values) == 0:  # all missing in training
                out.append(np.zeros(len(x), dtype=np.int64))
                continue
            if c.kind in ("exact", "two"):
                j = _nearest(c.values, np.where(miss, c.values[0], x))
                if c.kind == "exact":
                    tok = np.where(miss & c.has_missing, len(c.values), j)
                    out.append(tok)
                else:
                    coarse, fine = j // c.fine_size, j % c.fine_size
                    n_coarse = len(c.bin_sizes)
                    coarse = np.where(miss & c.has_missing, n_coarse, coarse)
                    fine = np.where(miss & c.has_missing, 0, fine)
                    out.extend([coarse, fine])
            else:
                edges = c.values
                b = np.clip(
                    np.searchsorted(edges, np.where(miss, edges[0], x), side="right") - 1,
                    0,
                    len(edges) - 2,
                )
                out.append(np.where(miss & c.has_missing, len(edges) - 1, b))
        return np.column_stack(out).astype(np.int64)

    def decode(self, tokens: np.ndarray, rng: np.random.Generator) -> pd.DataFrame:
        out: dict[str, Any] = {}
        pos = 0
        for c in self.codecs:
            t = tokens[:, pos]
            if c.kind == "cat":
                out[c.name] = c.values[np.minimum(t, len(c.values) - 1)]
                pos += 1
            elif c.kind == "exact":
                if len(c.values) == 0:
                    out[c.name] = np.full(len(t), np.nan)
                else:
                    miss = t >= len(c.values)
                    out[c.name] = np.where(miss, np.nan, c.values[np.minimum(t, len(c.values) - 1)])
                pos += 1
            elif c.kind == "two":
                fine = tokens[:, pos + 1]
                n_coarse = len(c.bin_sizes)
                miss = t >= n_coarse
                idx = np.minimum(
                    np.minimum(t, n_coarse - 1) * c.fine_size + fine, len(c.values) - 1
                )
                out[c.name] = np.where(miss, np.nan, c.values[idx])
                pos += 2
            else:
                edges = c.values
                n_b = len(edges) - 1
                miss = t >= n_b
                b = np.minimum(t, n_b - 1)
                v = rng.uniform(edges[b], edges[b + 1])
                if c.integer:
                    v = np.rint(v)
                out[c.name] = np.where(miss, np.nan, v)
                pos += 1
        return pd.DataFrame(out)

    def masks(self) -> list[np.ndarray | None]:
        """Per token position, the tokens sampling may draw (None = all)."""
        out: list[np.ndarray | None] = []
        for c in self.codecs:
            if c.kind == "cat":
                m = np.ones(c.sizes[0], dtype=bool)
                m[-1] = False
                out.append(m)
            elif c.kind == "two":
                out.extend([None, None])  # the fine mask depends on the coarse draw
            else:
                out.append(None)
        return out


def _nearest(sorted_values: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Index of the nearest value in a sorted array (ties to the lower)."""
    j = np.clip(np.searchsorted(sorted_values, x), 1, max(len(sorted_values) - 1, 1))
    if len(sorted_values) == 1:
        return np.zeros(len(x), dtype=np.int64)
    left = sorted_values[j - 1]
    right = sorted_values[j]
    return np.where(np.abs(x - left) <= np.abs(right - x), j - 1, j).astype(np.int64)


# ============================================================================ results
@dataclass(frozen=True)
class OverfitCheckpoint:
    """A kept generator state at one overfit level f_o."""

    level: float
    target_loss: float
    reached: bool
    epoch: float | None = None
    val_loss: float | None = None
    train_loss: float | None = None

    @property
    def ratio(self) -> float:
        """Achieved validation loss / L* (NaN when unreached)."""
        return (
            float("nan")
            if self.val_loss is None
            else self.val_loss / (self.target_loss / self.level)
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "target_loss": self.target_loss,
            "reached": self.reached,
            "epoch": self.epoch,
            "val_loss": self.val_loss,
            "train_loss": self.train_loss,
            "ratio": None if self.val_loss is None else self.ratio,
        }


@dataclass(frozen=True, eq=False)
class TrainingCurve:
    """Training and validation loss per evaluation, with the kept checkpoints.

    ``history`` has columns ``epoch`` (fractional during the overfit phase), ``phase``
    (``fit`` or ``overfit``), ``train_loss`` (mean batch loss since the previous
    evaluation, with dropout in the fit phase), ``val_loss`` and ``ratio`` (val_loss / L*).
    Losses are mean negative log-likelihoods per row, in nats.
    """

    history: pd.DataFrame
    best_loss: float
    best_epoch: int
    checkpoints: tuple[OverfitCheckpoint, ...] = ()
    params: dict[str, Any] = field(default_factory=dict)

    def checkpoint(self, level: float) -> OverfitCheckpoint:
        for c in self.checkpoints:
            if math.isclose(c.level, level, rel_tol=0, abs_tol=1e-9):
                return c
        raise ParameterError(
            f"No checkpoint for f_o = {level!r}; kept levels: "
            f"{', '.join(f'{c.level:g}' for c in self.checkpoints) or 'none'}."
        )

    @property
    def unreached(self) -> list[float]:
        return [c.level for c in self.checkpoints if not c.reached]

    def to_dict(self) -> dict[str, Any]:
        return {
            "best_loss": self.best_loss,
            "best_epoch": self.best_epoch,
            "checkpoints": [c.to_dict() for c in self.checkpoints],
            "history": self.history.to_dict(orient="list"),
            "params": self.params,
        }


# ============================================================================ torch parts
@contextmanager
def torch_threads(n: int | None):
    """Run a block with ``n`` torch intra-op threads (restored afterwards)."""
    import torch

    before = torch.get_num_threads()
    if n is not None:
        torch.set_num_threads(max(1, int(n)))
    try:
        yield
    finally:
        torch.set_num_threads(before)


def default_threads() -> int:
    """Threads for one training run: 1.

    The heads are small (batches of 64 x 256 units): on 2 cores a second intra-op thread
    made an epoch 4 times *slower* (synchronisation dominates), so the risk lab runs
    replicates in separate processes instead, one thread each.
    """
    return 1


def _build_net(sizes: Sequence[int], emb_dim: int, hidden: int, depth: int, dropout: float):
    import torch
    from torch import nn

    class ARNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.sizes = list(sizes)
            self.emb = nn.ModuleList(nn.Embedding(k, emb_dim) for k in self.sizes[:-1])
            self.first = nn.Parameter(torch.zeros(self.sizes[0]))
            heads = []
            for j, k in enumerate(self.sizes[1:], start=1):
                layers: list[nn.Module] = []
                width = j * emb_dim
                for _ in range(depth):
                    layers += [nn.Linear(width, hidden), nn.ReLU(), nn.Dropout(dropout)]
                    width = hidden
                layers.append(nn.Linear(width, k))
                heads.append(nn.Sequential(*layers))
            self.heads = nn.ModuleList(heads)

        def logits(
            self, tokens: torch.Tensor, j: int, embedded: list[torch.Tensor]
        ) -> torch.Tensor:
            if j == 0:
                return self.first.expand(tokens.shape[0], -1)
            return self.heads[j - 1](torch.cat(embedded[:j], dim=1))

        def nll(self, tokens: torch.Tensor) -> torch.Tensor:
            """Per-row negative log-likelihood (sum over tokens)."""
            embedded = [self.emb[j](tokens[:, j]) for j in range(len(self.sizes) - 1)]
            total = torch.zeros(tokens.shape[0])
            for j in range(len(self.sizes)):
                lg = self.logits(tokens, j, embedded)
                total = total + nn.functional.cross_entropy(lg, tokens[:, j], reduction="none")
            return total

    return ARNet()


def _set_dropout(net: Any, p: float) -> None:
    from torch import nn

    for m in net.modules():
        if isinstance(m, nn.Dropout):
            m.p = p


# ============================================================================ generator
class AutoregressiveGenerator(Generator):
    """Autoregressive MLP generator over tokenised columns, with overfit checkpoints.

    Parameters
    ----------
    hidden, depth, emb_dim
        Width and number of hidden layers of each token's head; embedding size per token.
    dropout, weight_decay
        Regularisation of the fit phase (switched off in the overfit phase).
    lr, overfit_lr
        Adam learning rates of the fit and overfit phases.
    batch_size, overfit_batch_size
        Mini-batch sizes of the two phases (smaller batches memorise faster).
    max_epochs, patience
        Fit phase budget and early-stopping patience (epochs without a new best L*).
    overfit_levels
        f_o values (>= 1) whose checkpoints to keep; empty = fit phase only.
    max_overfit_epochs
        Overfit phase budget; levels not reached by then are reported unreached.
    eval_every
        Optimiser steps between validation evaluations in the overfit phase; 0 (default)
        = adaptive: every quarter epoch at most, more often as the loss nears the next
        target, so checkpoints land close to their targets.
    validation_fraction
        Share of ``real`` held out for the validation loss when ``fit`` gets no
        ``validation`` table.
    exact_values, max_levels, fine_size, n_bins
        Tokenisation (module docstring).
    threads
        torch intra-op threads during fit and sample (default 1, see
        :func:`default_threads`).

    Notes
    -----
    ``risk-insertion-framework.md`` §5.1.2 and Appendix F.
    """

    name = "autoregressive"

    def __init__(
        self,
        *,
        hidden: int = 256,
        depth: int = 2,
        emb_dim: int = 16,
        dropout: float = 0.1,
        weight_decay: float = 1e-4,
        lr: float = 2e-3,
        overfit_lr: float = 2e-3,
        batch_size: int = 256,
        overfit_batch_size: int = 64,
        max_epochs: int = 200,
        patience: int = 8,
        overfit_levels: Sequence[float] = (),
        max_overfit_epochs: int = 400,
        eval_every: int = 0,
        validation_fraction: float = 0.2,
        exact_values: bool = True,
        max_levels: int = 128,
        fine_size: int = 32,
        n_bins: int = 32,
        threads: int | None = None,
    ):
        self.hidden = check_positive_int("hidden", hidden)
        self.depth = check_positive_int("depth", depth)
        self.emb_dim = check_positive_int("emb_dim", emb_dim)
        self.dropout = check_in_range("dropout", dropout, 0, 1, high_inclusive=False)
        self.weight_decay = check_in_range("weight_decay", weight_decay, 0, 1)
        self.lr = check_in_range("lr", lr, 0, 1, low_inclusive=False)
        self.overfit_lr = check_in_range("overfit_lr", overfit_lr, 0, 1, low_inclusive=False)
        self.batch_size = check_positive_int("batch_size", batch_size)
        self.overfit_batch_size = check_positive_int("overfit_batch_size", overfit_batch_size)
        self.max_epochs = check_positive_int("max_epochs", max_epochs)
        self.patience = check_positive_int("patience", patience)
        self.overfit_levels = tuple(
            sorted({float(check_in_range("overfit level", f, 1, 100)) for f in overfit_levels})
        )
        self.max_overfit_epochs = check_positive_int("max_overfit_epochs", max_overfit_epochs)
        self.eval_every = check_positive_int("eval_every", eval_every, minimum=0)
        self.validation_fraction = check_in_range(
            "validation_fraction",
            validation_fraction,
            0,
            1,
            low_inclusive=False,
            high_inclusive=False,
        )
        self.exact_values = bool(exact_values)
        self.max_levels = check_positive_int("max_levels", max_levels, minimum=2)
        self.fine_size = check_positive_int("fine_size", fine_size, minimum=2)
        self.n_bins = check_positive_int("n_bins", n_bins, minimum=2)
        self.threads = threads

    def params(self) -> dict[str, Any]:
        keys = (
            "hidden",
            "depth",
            "emb_dim",
            "dropout",
            "weight_decay",
            "lr",
            "overfit_lr",
            "batch_size",
            "overfit_batch_size",
            "max_epochs",
            "patience",
            "overfit_levels",
            "max_overfit_epochs",
            "eval_every",
            "validation_fraction",
            "exact_values",
            "max_levels",
            "fine_size",
            "n_bins",
        )
        return {"method": self.name, **{k: getattr(self, k) for k in keys}}

    # ------------------------------------------------------------------ fit
    def fit(
        self,
        real: pd.DataFrame,
        *,
        seed: int = 0,
        validation: pd.DataFrame | None = None,
        on_epoch: EpochFn | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> AutoregressiveGenerator:
        """Train on ``real`` (canonical); the validation loss uses ``validation`` or a
        seeded ``validation_fraction`` of ``real`` (then not trained on).

        ``on_epoch`` is called after every evaluation with a dict (phase, epoch,
        train_loss, val_loss, ratio); ``should_stop()`` ends training early (the levels
        not reached yet are reported unreached).
        """
        self._validation = validation
        self._on_epoch = on_epoch
        self._should_stop = should_stop
        try:
            return super().fit(real, seed=seed)  # type: ignore[return-value]
        finally:
            self._validation = None
            self._on_epoch = None
            self._should_stop = None

    def _fit(self, real: pd.DataFrame) -> None:
        import torch

        valid = self._validation
        if valid is None:
            rng = np.random.default_rng(self.seed_)
            order = rng.permutation(len(real))
            n_val = max(1, round(self.validation_fraction * len(real)))
            if len(real) - n_val < 2:
                raise InsufficientDataError(
                    f"The autoregressive generator needs at least 2 training rows after "
                    f"holding out {n_val} for validation; got {len(real)} rows."
                )
            valid = real.iloc[np.sort(order[:n_val])]
            real = real.iloc[np.sort(order[n_val:])]
            self.training_index_ = real.index.to_numpy()
        else:
            if list(valid.columns) != list(real.columns):
                raise ParameterError(
                    "`validation` must have the same columns as the training data."
                )
            self.training_index_ = real.index.to_numpy()
        self.tokenizer_ = _Tokenizer(
            self.schema_,
            max_levels=self.max_levels,
            fine_size=self.fine_size,
            n_bins=self.n_bins,
            exact_values=self.exact_values,
        ).fit(real)
        train_tok = torch.from_numpy(self.tokenizer_.encode(real))
        val_tok = torch.from_numpy(self.tokenizer_.encode(valid))
        threads = default_threads() if self.threads is None else self.threads
        with torch_threads(threads), torch.random.fork_rng(devices=[]):
            torch.manual_seed(self.seed_)
            gen = torch.Generator().manual_seed(self.seed_)
            self._train(train_tok, val_tok, gen)

    def _evaluate(self, net: Any, tokens: Any) -> float:
        import torch

        net.eval()
        with torch.no_grad():
            loss = float(torch.cat([net.nll(b) for b in tokens.split(4096)]).mean())
        net.train()
        return loss

    def _train(self, train_tok: Any, val_tok: Any, gen: Any) -> None:
        import torch

        net = _build_net(self.tokenizer_.sizes, self.emb_dim, self.hidden, self.depth, self.dropout)
        opt = torch.optim.AdamW(net.parameters(), lr=self.lr, weight_decay=self.weight_decay)
        history: list[dict[str, Any]] = []
        n = train_tok.shape[0]
        best, best_epoch, stale = math.inf, 0, 0
        best_state: dict[str, Any] = {}
        stopped = False
        for epoch in range(1, self.max_epochs + 1):
            net.train()
            perm = torch.randperm(n, generator=gen)
            losses = []
            for idx in perm.split(self.batch_size):
                loss = net.nll(train_tok[idx]).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                losses.append(loss.item())
            val = self._evaluate(net, val_tok)
            row = {
                "epoch": float(epoch),
                "phase": "fit",
                "train_loss": float(np.mean(losses)),
                "val_loss": val,
            }
            history.append(row)
            if val < best - 1e-6:
                best, best_epoch, stale = val, epoch, 0
                best_state = copy.deepcopy(net.state_dict())
            else:
                stale += 1
            self._report({**row, "ratio": val / best})
            if stale >= self.patience:
                break
            if self._should_stop is not None and self._should_stop():
                stopped = True
                break
        net.load_state_dict(best_state)
        self.best_loss_ = best
        self.states_: dict[float, dict] = {1.0: best_state}
        checkpoints = {
            1.0: OverfitCheckpoint(
                1.0, best, True, float(best_epoch), best, history[best_epoch - 1]["train_loss"]
            )
        }
        levels = [f for f in self.overfit_levels if f > 1.0]
        if levels and not stopped:
            self._overfit(net, train_tok, val_tok, gen, best_epoch, levels, history, checkpoints)
        for f in levels:
            checkpoints.setdefault(f, OverfitCheckpoint(f, f * best, False))
        self.net_ = net
        net.load_state_dict(best_state)
        self.curve_ = TrainingCurve(
            history=pd.DataFrame(
                history, columns=["epoch", "phase", "train_loss", "val_loss"]
            ).assign(ratio=lambda d: d["val_loss"] / best),
            best_loss=best,
            best_epoch=best_epoch,
            checkpoints=tuple(
                checkpoints[f] for f in sorted(checkpoints) if f == 1.0 or f in self.overfit_levels
            ),
            params={
                **self.params(),
                "seed": self.seed_,
                "n_training": int(n),
                "n_validation": int(val_tok.shape[0]),
                "tokens": [c.kind for c in self.tokenizer_.codecs],
            },
        )

    def _overfit(
        self,
        net: Any,
        train_tok: Any,
        val_tok: Any,
        gen: Any,
        start_epoch: int,
        levels: list[float],
        history: list[dict[str, Any]],
        checkpoints: dict[float, OverfitCheckpoint],
    ) -> None:
        import torch

        _set_dropout(net, 0.0)
        opt = torch.optim.Adam(net.parameters(), lr=self.overfit_lr)  # no weight decay
        n = train_tok.shape[0]
        steps_per_epoch = math.ceil(n / self.overfit_batch_size)
        base_every = self.eval_every or max(1, steps_per_epoch // _EVALS_PER_EPOCH)
        pending = list(levels)
        step, losses = 0, []
        best = self.best_loss_
        # A fresh optimiser without regularisation moves fast at first: look early.
        last_step, last_val, next_eval = 0, best, min(base_every, 8)
        for _ in range(self.max_overfit_epochs):
            perm = torch.randperm(n, generator=gen)
            for idx in perm.split(self.overfit_batch_size):
                loss = net.nll(train_tok[idx]).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                losses.append(loss.item())
                step += 1
                if step < next_eval:
                    continue
                val = self._evaluate(net, val_tok)
                epoch = start_epoch + step / steps_per_epoch
                row = {
                    "epoch": epoch,
                    "phase": "overfit",
                    "train_loss": float(np.mean(losses)),
                    "val_loss": val,
                }
                history.append(row)
                losses = []
                self._report({**row, "ratio": val / best})
                while pending and val >= pending[0] * best:
                    f = pending.pop(0)
                    self.states_[f] = copy.deepcopy(net.state_dict())
                    checkpoints[f] = OverfitCheckpoint(
                        f, f * best, True, epoch, val, row["train_loss"]
                    )
                if not pending or (self._should_stop is not None and self._should_stop()):
                    return
                every = base_every
                rate = (val - last_val) / max(step - last_step, 1)
                if not self.eval_every and rate > 0:
                    to_target = (pending[0] * best - val) / rate
                    every = int(min(base_every, max(1, to_target // 2)))
                last_step, last_val, next_eval = step, val, step + every

    def _report(self, row: dict[str, Any]) -> None:
        if self._on_epoch is not None:
            self._on_epoch(dict(row))

    # ------------------------------------------------------------------ sample
    @property
    def curve(self) -> TrainingCurve:
        if not hasattr(self, "curve_"):
            raise RuntimeError("AutoregressiveGenerator.curve read before fit().")
        return self.curve_

    def sample(self, n: int, *, seed: int = 0, level: float | None = None) -> pd.DataFrame:
        """Draw ``n`` rows from the best state, or from the checkpoint of overfit level
        ``level`` (ParameterError if that level was not requested or not reached)."""
        if level is not None and hasattr(self, "states_"):
            ckpt = self.curve.checkpoint(float(level))
            if not ckpt.reached:
                raise ParameterError(
                    f"Overfit level f_o = {level:g} was not reached: the validation loss "
                    f"never rose to {ckpt.target_loss:.4f} (= f_o x L*) within "
                    f"{self.max_overfit_epochs} epochs. Raise max_overfit_epochs or "
                    "overfit_lr, or leave this level out."
                )
        self._level = 1.0 if level is None else float(level)
        try:
            return super().sample(n, seed=seed)
        finally:
            self._level = 1.0

    def _sample(self, n: int, seed: int) -> pd.DataFrame:
        import torch

        state = self.states_[getattr(self, "_level", 1.0)]
        net = self.net_
        net.load_state_dict(state)
        net.eval()
        masks = self.tokenizer_.masks()
        codecs = self.tokenizer_.codecs
        # Position of each "two" column's coarse token -> its per-bin fine sizes.
        fine_limits: dict[int, tuple[int, np.ndarray]] = {}
        pos = 0
        for c in codecs:
            if c.kind == "two":
                fine_limits[pos + 1] = (pos, c.bin_sizes)
            pos += len(c.sizes)
        threads = default_threads() if self.threads is None else self.threads
        gen = torch.Generator().manual_seed(int(seed))
        m = len(self.tokenizer_.sizes)
        with torch_threads(threads), torch.no_grad():
            tokens = torch.zeros((n, m), dtype=torch.int64)
            embedded: list[Any] = []
            for j in range(m):
                lg = net.logits(tokens, j, embedded)
                if masks[j] is not None:
                    lg = lg.masked_fill(~torch.from_numpy(masks[j]), -math.inf)
                if j in fine_limits:
                    coarse_pos, bin_sizes = fine_limits[j]
                    coarse = tokens[:, coarse_pos].numpy()
                    limit = np.where(
                        coarse < len(bin_sizes),
                        bin_sizes[np.minimum(coarse, len(bin_sizes) - 1)],
                        1,
                    )
                    allowed = np.arange(lg.shape[1])[None, :] < limit[:, None]
                    lg = lg.masked_fill(~torch.from_numpy(allowed), -math.inf)
                probs = torch.softmax(lg, dim=1)
                tokens[:, j] = torch.multinomial(probs, 1, generator=gen).squeeze(1)
                if j < m - 1:
                    embedded.append(net.emb[j](tokens[:, j]))
        net.load_state_dict(self.states_[1.0])
        rng = np.random.default_rng(seed)
        return self.tokenizer_.decode(tokens.numpy(), rng)


__all__ = [
    "AutoregressiveGenerator",
    "OverfitCheckpoint",
    "TrainingCurve",
    "default_threads",
    "torch_threads",
]
