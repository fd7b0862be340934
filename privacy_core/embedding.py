"""Contrastive record embeddings (Plasencia Palacios et al., ``contrastive-embeddings.md``).

A torch encoder learns, on the real table only, to recognise two random maskings of the
same record among the other records of a batch (§4.1): each record is shown twice with
between 1 and n − 1 of its n columns masked, the two views are mapped by the same network
and normalised, and a cross-entropy over their cosine similarities (InfoNCE, the batch's
other records as negatives) pulls the two views of a record together and pushes other
records away. Categorical columns go through embedding layers (with a "masked" and an
"unseen" level of their own), numeric columns enter min-max scaled with a mask flag; the
network has three hidden layers with GELU, each followed by layer normalisation and
dropout 0.1, and an embedding layer whose dimension grows with the number of columns
(§5.2, Appendix C: 10 for Adult's 15 columns, 20 for Texas' 28, 30 for Census' 37).
Training stops early when the validation loss has not improved for ``patience`` epochs,
and the best epoch's weights are kept.

Distances in this space replace the shared encoding's (``space="contrastive"`` of DCR, the
k-NN variants, distance-based inference and linkability). Because masking is part of the
training, a record can be embedded from a subset of its columns (the attacker's
quasi-identifiers): the other columns are masked. Fitted encoders are cached in memory
per data fingerprint, columns, seed and parameters; they are never written to disk, and
:meth:`ContrastiveEncoder.to_npz` exports the weights as plain arrays (no pickle). The
encoder trains on a GPU when torch sees one (``device="auto"``), else on the CPU.

Why one module: the parameters, the network, its training loop, its export and the cache
of fitted encoders are one object's life cycle; each part is read only through
:class:`ContrastiveEncoder` and :func:`contrastive_encoder`, and splitting them would
expose the network's internals between modules.
"""

from __future__ import annotations

import io
import json
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from .data import Schema, fingerprint
from .encoding import TableEncoder
from .errors import InsufficientDataError, ParameterError
from .progress import ProgressFn
from .validation import check_in_range, check_positive_int, check_seed

SPACES = ("shared", "contrastive")


def embedding_dimension(n_columns: int) -> int:
    """The embedding dimension for a table of ``n_columns`` columns: 10 per started 15
    columns (the paper's 10, 20 and 30 for 15, 28 and 37 columns), at most n − 1."""
    n = check_positive_int("n_columns", n_columns, minimum=2)
    return max(1, min(n - 1, 10 * math.ceil(n / 15)))


@dataclass(frozen=True)
class ContrastiveParams:
    """Every hyperparameter of the encoder (recorded in each result's params).

    The paper's network has 1024 units per hidden layer, batches of 1024 and up to 300
    epochs on a GPU; the defaults here are sized for two CPU cores (256 units, batches of
    512, at most 100 epochs with the paper's patience of 10, and at most ``max_steps``
    optimisation steps in all) and can be set back to the paper's values
    (``max_steps=None``).

    The step budget binds only above about 5,700 training rows (100 epochs of 10 batches):
    on Adult's 29,000 training rows it stops after 18 epochs, 17-21 s instead of the 100
    epochs' 114 s, where views are matched 18 % of the time instead of 22 %. The isolation
    ranking the outlier-targeted singling out reads from the release then has a Spearman
    correlation of 0.91 with the fully trained encoder's, and 41 % of its 2,000 most
    isolated records are the same (``bench/bench_encoder_budget.py``); the attack's reading
    moved within its interval (0.050 [0, 0.10] with 100 epochs).
    """

    dimension: int | None = None  # None: embedding_dimension(number of columns)
    hidden: int = 256
    layers: int = 3
    category_dim: int = 8
    dropout: float = 0.1
    temperature: float = 0.1
    lr: float = 1e-3
    batch_size: int = 512
    max_epochs: int = 100
    max_steps: int | None = 1000  # optimisation steps (batches) over all epochs
    patience: int = 10
    validation_fraction: float = 0.1
    max_rows: int | None = 50_000  # training rows (a seeded subsample above this)
    threads: int = 2
    # "auto": a GPU when torch sees one, else the CPU; the result's params record the one
    # used. CPU runs are bit-for-bit repeatable; a GPU sums in another order (and CUDA's
    # embedding backward is not deterministic, so two GPU runs of one seed can differ):
    # its isolation ranking agrees with the CPU's within a tolerance
    # (tests/unit/test_embedding_device.py). Use "cpu" where a review must repeat exactly.
    device: str = "auto"

    @classmethod
    def coerce(cls, value: ContrastiveParams | Mapping[str, Any] | None) -> ContrastiveParams:
        if value is None:
            return cls()
        if isinstance(value, cls):
            return value
        if not isinstance(value, Mapping):
            raise ParameterError(
                f"Contrastive encoder options must be a mapping or ContrastiveParams; got "
                f"{type(value).__name__}."
            )
        unknown = sorted(set(value) - set(cls.__dataclass_fields__))
        if unknown:
            raise ParameterError(
                f"Unknown contrastive encoder option(s) {unknown}; choose "
                f"from {', '.join(cls.__dataclass_fields__)}."
            )
        return cls(**dict(value))

    def validated(self) -> ContrastiveParams:
        if self.dimension is not None:
            check_positive_int("dimension", self.dimension)
        for name in (
            "hidden",
            "layers",
            "category_dim",
            "batch_size",
            "max_epochs",
            "patience",
            "threads",
        ):
            check_positive_int(name, getattr(self, name))
        check_positive_int("batch_size", self.batch_size, minimum=4)
        check_in_range("dropout", self.dropout, 0, 1, high_inclusive=False)
        check_in_range("temperature", self.temperature, 0, 10, low_inclusive=False)
        check_in_range("lr", self.lr, 0, 1, low_inclusive=False)
        check_in_range("validation_fraction", self.validation_fraction, 0, 0.5, low_inclusive=False)
        if self.max_rows is not None:
            check_positive_int("max_rows", self.max_rows, minimum=100)
        if self.max_steps is not None:
            check_positive_int("max_steps", self.max_steps)
        resolve_device(self.device)
        return self


DEVICES = ("auto", "cpu", "cuda")


def resolve_device(device: str) -> str:
    """The torch device an encoder trains on: ``"cpu"`` or ``"cuda"`` (``"auto"``: a GPU
    when torch sees one). A :class:`ParameterError` for another name, or for ``"cuda"``
    where torch sees no GPU."""
    if device not in DEVICES:
        raise ParameterError(f"device must be one of {', '.join(DEVICES)}; got {device!r}.")
    if device == "cpu":
        return "cpu"
    import torch

    available = torch.cuda.is_available()
    if device == "cuda" and not available:
        raise ParameterError(
            "device 'cuda' was asked for, but torch sees no GPU on this machine (this torch "
            f"build: {torch.__version__}); use 'auto' or 'cpu'."
        )
    return "cuda" if available else "cpu"


# dropout masks compare 16-bit random integers with a threshold: 6,554 / 65,536 = 0.10001
# for the paper's 0.1
_DROPOUT_LEVELS = 1 << 16


def build_network(cat_sizes: list[int], n_num: int, p: ContrastiveParams, dim: int):
    """The encoder's torch network: an embedding per categorical column (``cat_sizes``
    levels plus "unseen" and "masked"), ``n_num`` numeric inputs with their mask flags,
    ``p.layers`` hidden blocks (linear, GELU, layer normalisation, dropout) and a linear
    head of ``dim`` outputs."""
    import torch
    from torch import nn

    class Dropout(nn.Module):
        """Inverted dropout whose mask is drawn as 16-bit integers. torch's own dropout
        draws a Bernoulli variable per unit, one at a time through the Mersenne twister:
        on two CPU cores it took 5.4 s of the encoder's training on Adult, more than
        every linear layer together (the fit fell from 26.9 to 21.0 s with this one). The
        same mask distribution up to the rate's 1/65,536 rounding, from the same seeded
        torch generator."""

        def __init__(self, rate: float) -> None:
            super().__init__()
            self.drop = round(rate * _DROPOUT_LEVELS)
            self.scale = _DROPOUT_LEVELS / (_DROPOUT_LEVELS - self.drop)

        def forward(self, x):
            if not self.training or self.drop == 0:
                return x
            # four 16-bit draws from each uniform 64-bit integer (every bit balanced:
            # checked over 4 million draws), a third of the cost of drawing them one by one
            # drawn from torch's CPU generator on any device: a GPU run gets the CPU
            # run's masks, and differs from it only in the order floating point sums
            words = torch.randint(-(2**63), 2**63 - 1, (-(-x.numel() // 4),), dtype=torch.int64)
            draw = words.view(torch.int16)[: x.numel()].view(x.shape).to(x.device)
            return x * ((draw >= self.drop - _DROPOUT_LEVELS // 2) * self.scale)

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            # two extra levels per column: "unseen in the real data" and "masked"
            self.cats = nn.ModuleList(nn.Embedding(k + 2, p.category_dim) for k in cat_sizes)
            width = len(cat_sizes) * p.category_dim + 2 * n_num
            blocks: list[nn.Module] = []
            for _ in range(p.layers):
                blocks += [
                    nn.Linear(width, p.hidden),
                    nn.GELU(),
                    nn.LayerNorm(p.hidden),
                    Dropout(p.dropout),
                ]
                width = p.hidden
            self.body = nn.Sequential(*blocks)
            self.head = nn.Linear(width, dim)

        def forward(self, codes, num, num_mask):
            parts = [emb(codes[:, j]) for j, emb in enumerate(self.cats)]
            if n_num:
                parts += [num * (1 - num_mask), num_mask]
            return self.head(self.body(torch.cat(parts, dim=1)))

    return Net()


class ContrastiveEncoder:
    """Fit on the real table, then embed any table with the same columns.

    Parameters
    ----------
    schema
        The review's schema (categories, numeric columns).
    columns
        The columns the encoder sees (default: every included column; at least two).
    params
        :class:`ContrastiveParams` or a dict of its fields.
    """

    def __init__(
        self,
        schema: Schema,
        columns: Sequence[str] | None = None,
        params: ContrastiveParams | dict | None = None,
    ):
        self.schema = schema
        self.columns = list(schema.included if columns is None else columns)
        if len(self.columns) < 2:
            raise ParameterError(
                "The contrastive encoder masks between 1 and n - 1 columns of each record "
                f"and needs at least 2 columns; got {len(self.columns)}."
            )
        self.params = ContrastiveParams.coerce(params).validated()
        self.dimension = self.params.dimension or embedding_dimension(len(self.columns))

    # ------------------------------------------------------------------ inputs
    def _inputs(
        self, frame: pd.DataFrame, visible: Sequence[str] | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Category codes, scaled numerics and the numeric mask of ``frame``; columns not
        in ``visible`` are masked."""
        enc = self.table_encoder_
        shown = set(self.columns if visible is None else visible)
        codes = np.zeros((len(frame), len(self.cat_columns_)), dtype=np.int64)
        for j, c in enumerate(self.cat_columns_):
            k = len(enc.categories_[c])
            if c in shown:
                idx = pd.Index(enc.categories_[c]).get_indexer(frame[c].astype(str))
                codes[:, j] = np.where(idx >= 0, idx, k)  # k: unseen in the real data
            else:
                codes[:, j] = k + 1  # masked
        num = np.zeros((len(frame), len(self.num_columns_)), dtype=np.float32)
        mask = np.ones_like(num)
        for j, c in enumerate(self.num_columns_):
            if c not in shown:
                continue
            x = frame[c].to_numpy(dtype=float)
            x = np.where(np.isfinite(x), x, enc.median_[c])
            num[:, j] = (x - enc.minimum_[c]) / enc.scale_[c]
            mask[:, j] = 0.0
        return codes, num, mask

    # ------------------------------------------------------------------ fit
    def fit(
        self,
        real: pd.DataFrame,
        *,
        seed: int = 0,
        progress: ProgressFn | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> ContrastiveEncoder:
        """Train on the canonical real table (seeded, deterministic on CPU).

        The steps: the training rows in a canonical order, the input scaling fitted on
        them, a seeded validation split, then epochs of contrastive training until the
        validation loss stops improving (:class:`_Training`); the best epoch's weights
        are kept.
        """
        import torch

        from .synth.autoregressive import torch_threads

        seed = check_seed(seed)
        p = self.params
        rng = np.random.default_rng(seed)
        table, n_val = self._training_rows(real, rng)
        self._fit_inputs(table)
        codes, num, _ = self._inputs(table)
        order = rng.permutation(len(table))
        val, train = order[:n_val], order[n_val:]
        started = time.perf_counter()
        device = torch.device(resolve_device(p.device))
        with torch_threads(p.threads):
            torch.manual_seed(seed)
            run = _Training(self, codes, num, device)
            self.history_: list[dict[str, float]] = run.epochs(
                train, val, rng, progress=progress, should_stop=should_stop
            )
        self.net_ = run.net
        self.device_ = device.type
        self.seed_ = seed
        self.n_train_ = len(train)
        self.steps_ = run.steps
        self.seconds_ = time.perf_counter() - started
        self.stopped_early_ = len(self.history_) < p.max_epochs and run.steps < run.budget
        if progress:
            progress(1.0, "contrastive encoder trained")
        return self

    def _training_rows(
        self, real: pd.DataFrame, rng: np.random.Generator
    ) -> tuple[pd.DataFrame, int]:
        """The rows to train on, in a canonical order (subsampled above ``max_rows``),
        and how many of them validate."""
        p = self.params
        missing = [c for c in self.columns if c not in real.columns]
        if missing:
            raise ParameterError(f"The real table has no column(s) {missing}.")
        # rows in a canonical order (by content hash): the same table in another row
        # order gives the same batches, hence the same encoder
        table = real[self.columns]
        table = table.iloc[
            np.argsort(pd.util.hash_pandas_object(table, index=False).to_numpy(), kind="stable")
        ]
        if p.max_rows is not None and len(table) > p.max_rows:
            table = table.iloc[np.sort(rng.choice(len(table), p.max_rows, replace=False))]
        n_val = max(2, round(p.validation_fraction * len(table)))
        if len(table) - n_val < 8:
            raise InsufficientDataError(
                f"The contrastive encoder needs at least {8 + n_val} real rows to train "
                f"with a validation split; got {len(table)}."
            )
        return table, n_val

    def _fit_inputs(self, table: pd.DataFrame) -> None:
        """Fit the input scaling and categories (:meth:`_inputs`) on the training rows."""
        self.table_encoder_ = TableEncoder(self.schema, columns=self.columns).fit(table)
        self.cat_columns_ = [c for c in self.columns if not self.schema[c].is_numeric]
        self.num_columns_ = [c for c in self.columns if self.schema[c].is_numeric]

    # ------------------------------------------------------------------ use
    def transform(
        self, frame: pd.DataFrame, columns: Sequence[str] | None = None, *, batch: int = 8192
    ) -> np.ndarray:
        """Embeddings (float64, unit length) of ``frame``'s rows; ``columns`` are the
        visible ones (default all), the others are masked."""
        import torch

        from .synth.autoregressive import torch_threads

        if not hasattr(self, "net_"):
            raise RuntimeError("ContrastiveEncoder.transform called before fit().")
        if columns is not None:
            unknown = [c for c in columns if c not in self.columns]
            if unknown:
                raise ParameterError(
                    f"The contrastive encoder was not trained on column(s) {unknown}."
                )
        codes, num, mask = self._inputs(frame, columns)
        out = np.empty((len(frame), self.dimension), dtype=np.float64)
        device = next(self.net_.parameters()).device
        with torch_threads(self.params.threads), torch.no_grad():
            for s in range(0, len(frame), batch):
                z = self.net_(
                    *(torch.from_numpy(x[s : s + batch]).to(device) for x in (codes, num, mask))
                )
                z = torch.nn.functional.normalize(z, dim=1)
                out[s : s + batch] = z.double().cpu().numpy()
        return out

    def describe(self) -> dict[str, Any]:
        """The encoder's parameters and training summary, for a result's params."""
        last = self.history_[-1] if getattr(self, "history_", None) else {}
        best = min(self.history_, key=lambda h: h["validation_loss"]) if last else {}
        return {
            **asdict(self.params),
            # the device it trained on ("auto" resolved)
            "device": getattr(self, "device_", self.params.device),
            "dimension": self.dimension,
            "columns": self.columns,
            "seed": getattr(self, "seed_", None),
            "epochs": len(self.history_),
            "best_epoch": best.get("epoch"),
            "validation_loss": best.get("validation_loss"),
            "validation_accuracy": best.get("validation_accuracy"),
            "n_train": getattr(self, "n_train_", None),
            "steps": getattr(self, "steps_", None),
            "seconds": round(getattr(self, "seconds_", float("nan")), 2),
        }

    # ------------------------------------------------------------------ export
    def to_npz(self) -> bytes:
        """The fitted encoder as an ``.npz`` archive of plain arrays and a JSON header
        (no pickle): weights, the input scaling and the categories."""
        if not hasattr(self, "net_"):
            raise RuntimeError("ContrastiveEncoder.to_npz called before fit().")
        enc = self.table_encoder_
        header = {
            "columns": self.columns,
            "params": asdict(self.params),
            "dimension": self.dimension,
            "seed": self.seed_,
            "minimum": enc.minimum_,
            "scale": enc.scale_,
            "median": enc.median_,
            "categories": enc.categories_,
            "history": self.history_,
        }
        arrays = {f"w:{k}": v.cpu().numpy() for k, v in self.net_.state_dict().items()}
        buf = io.BytesIO()
        np.savez(buf, header=np.array(json.dumps(header)), **arrays)
        return buf.getvalue()

    @classmethod
    def from_npz(cls, data: bytes, schema: Schema) -> ContrastiveEncoder:
        """Rebuild an exported encoder (arrays only: ``allow_pickle=False``)."""
        import torch

        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            header = json.loads(str(z["header"]))
            state = {k[2:]: torch.from_numpy(z[k].copy()) for k in z.files if k != "header"}
        # rebuilt on the CPU, wherever it was trained
        self = cls(schema, header["columns"], {**header["params"], "device": "cpu"})
        self.dimension = int(header["dimension"])
        enc = TableEncoder(schema, columns=self.columns)
        enc.minimum_, enc.scale_ = header["minimum"], header["scale"]
        enc.median_, enc.categories_ = header["median"], header["categories"]
        enc._fitted = True
        self.table_encoder_ = enc
        self.cat_columns_ = [c for c in self.columns if not schema[c].is_numeric]
        self.num_columns_ = [c for c in self.columns if schema[c].is_numeric]
        sizes = [len(enc.categories_[c]) for c in self.cat_columns_]
        net = build_network(sizes, len(self.num_columns_), self.params, self.dimension)
        net.load_state_dict(state)
        net.eval()
        self.net_, self.seed_, self.history_ = net, header["seed"], header["history"]
        self.device_ = "cpu"  # an exported encoder is rebuilt on the CPU
        return self


class _Training:
    """One training run of an encoder's network: two random maskings (views) of each
    batch's records, the InfoNCE loss between them, and epochs with early stopping.

    Built inside the encoder's torch thread setting, right after the torch seed is set:
    the network's initial weights come from that seed.
    """

    def __init__(
        self, encoder: ContrastiveEncoder, codes: np.ndarray, num: np.ndarray, device: Any
    ) -> None:
        import torch

        self.encoder = encoder
        self.p = p = encoder.params
        self.codes, self.num, self.device = codes, num, device
        self.sizes = [len(encoder.table_encoder_.categories_[c]) for c in encoder.cat_columns_]
        self.net = build_network(self.sizes, len(encoder.num_columns_), p, encoder.dimension)
        self.net = self.net.to(device)
        # foreach: one multi-tensor update per step, the same values as per-tensor
        self.opt = torch.optim.Adam(self.net.parameters(), lr=p.lr, foreach=True)
        self.steps = 0
        self.budget = math.inf if p.max_steps is None else p.max_steps

    def views(self, rows: np.ndarray, r: np.random.Generator) -> list[tuple[Any, ...]]:
        """Two maskings of each row: between 1 and n - 1 columns hidden."""
        import torch

        enc = self.encoder
        n_cols = len(enc.columns)
        out = []
        for _ in range(2):
            k = r.integers(1, n_cols, size=len(rows))  # 1 .. n-1 masked
            rank = np.argsort(r.random((len(rows), n_cols)), axis=1).argsort(axis=1)
            hidden = rank < k[:, None]
            c = self.codes[rows].copy()
            for j, col in enumerate(enc.cat_columns_):
                c[hidden[:, enc.columns.index(col)], j] = self.sizes[j] + 1
            m = np.zeros((len(rows), len(enc.num_columns_)), dtype=np.float32)
            for j, col in enumerate(enc.num_columns_):
                m[:, j] = hidden[:, enc.columns.index(col)]
            out.append(tuple(torch.from_numpy(x).to(self.device) for x in (c, self.num[rows], m)))
        return out

    def loss(self, rows: np.ndarray, r: np.random.Generator) -> tuple[Any, float]:
        """The symmetric InfoNCE loss of a batch's two views, and how often each view's
        nearest other view is its own record's."""
        import torch
        import torch.nn.functional as F

        a, b = self.views(rows, r)
        # both views through the network as one batch: half the layer calls
        z = F.normalize(self.net(*(torch.cat(pair) for pair in zip(a, b, strict=True))), dim=1)
        za, zb = z[: len(rows)], z[len(rows) :]
        logits = za @ zb.T / self.p.temperature
        target = torch.arange(len(rows), device=self.device)
        loss = (F.cross_entropy(logits, target) + F.cross_entropy(logits.T, target)) / 2
        accuracy = float((logits.argmax(dim=1) == target).float().mean())
        return loss, accuracy

    def train_epoch(self, perm: np.ndarray, rng: np.random.Generator) -> float:
        """One pass over the training rows in the order ``perm`` (until the step budget
        is spent); the mean training loss."""
        self.net.train()
        losses = []
        for start in range(0, len(perm), self.p.batch_size):
            rows = perm[start : start + self.p.batch_size]
            if len(rows) < 2:
                continue
            if self.steps >= self.budget:
                break
            loss, _ = self.loss(rows, rng)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            self.steps += 1
            losses.append(loss.item())
        return float(np.mean(losses))

    def validation(self, val: np.ndarray, seed: int) -> tuple[float, float]:
        """The validation loss and views-matched share, with the same maskings every
        epoch (``seed``), so that the epochs' losses are comparable."""
        import torch

        size = self.p.batch_size
        self.net.eval()
        with torch.no_grad():
            vr = np.random.default_rng(seed)
            vals = [
                self.loss(val[s : s + size], vr)
                for s in range(0, len(val), size)
                if len(val[s : s + size]) >= 2
            ]
        return float(np.mean([v[0].item() for v in vals])), float(np.mean([v[1] for v in vals]))

    def epochs(
        self,
        train: np.ndarray,
        val: np.ndarray,
        rng: np.random.Generator,
        *,
        progress: ProgressFn | None,
        should_stop: Callable[[], bool] | None,
    ) -> list[dict[str, float]]:
        """Train until the validation loss has not improved for ``patience`` epochs, the
        step budget is spent or ``should_stop()``; keep the best epoch's weights. The
        history, one entry per epoch."""
        p = self.p
        best, best_state, waited = math.inf, None, 0
        history: list[dict[str, float]] = []
        val_rng_seed = int(rng.integers(2**31))
        for epoch in range(1, p.max_epochs + 1):
            train_loss = self.train_epoch(rng.permutation(train), rng)
            val_loss, val_acc = self.validation(val, val_rng_seed)
            history.append(
                {
                    "epoch": epoch,
                    "train_loss": train_loss,
                    "validation_loss": val_loss,
                    "validation_accuracy": val_acc,
                }
            )
            if val_loss < best - 1e-4:
                best, waited = val_loss, 0
                best_state = {k: v.detach().clone() for k, v in self.net.state_dict().items()}
            else:
                waited += 1
            if progress:
                progress(
                    max(epoch / p.max_epochs, self.steps / self.budget),
                    f"contrastive encoder: epoch {epoch}, validation loss "
                    f"{val_loss:.3f}, views matched {val_acc:.0%}",
                )
            if (
                waited >= p.patience
                or self.steps >= self.budget
                or (should_stop is not None and should_stop())
            ):
                break
        if best_state is not None:
            self.net.load_state_dict(best_state)
        self.net.eval()
        return history


# ------------------------------------------------------------------ cache
_CACHE: OrderedDict[str, ContrastiveEncoder] = OrderedDict()
_CACHE_SIZE = 4
_LOCK = threading.Lock()


def contrastive_encoder(
    real: pd.DataFrame,
    schema: Schema,
    *,
    columns: Sequence[str] | None = None,
    params: ContrastiveParams | dict | None = None,
    seed: int = 0,
    progress: ProgressFn | None = None,
) -> ContrastiveEncoder:
    """A fitted encoder for this real table (canonical form), columns, parameters and
    seed: trained once, then served from an in-memory cache of the last few (never from
    disk)."""
    p = ContrastiveParams.coerce(params).validated()
    cols = list(schema.included if columns is None else columns)
    key = json.dumps([fingerprint(real[cols]), cols, asdict(p), int(seed)])
    with _LOCK:
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
            return hit
    encoder = ContrastiveEncoder(schema, cols, p).fit(real, seed=seed, progress=progress)
    with _LOCK:
        _CACHE[key] = encoder
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return encoder


def resolve_encoder(
    data: Any,
    embedding: ContrastiveEncoder | None,
    params: ContrastiveParams | dict | None,
    seed: int,
    columns: Sequence[str] | None = None,
    progress: ProgressFn | None = None,
) -> ContrastiveEncoder:
    """The encoder a measure works in: the fitted one it was given, else the cached one
    for its training rows (``data.real``, ``data.schema``), columns, parameters and seed
    (``progress`` reports the training when it has to be trained)."""
    return embedding or contrastive_encoder(
        data.real, data.schema, columns=columns, params=params, seed=seed, progress=progress
    )


def check_space(space: str) -> str:
    if space not in SPACES:
        raise ParameterError(f"`space` must be one of {', '.join(SPACES)}; got {space!r}.")
    return space


def project_2d(
    encoder: ContrastiveEncoder,
    frames: dict[str, pd.DataFrame],
    *,
    max_points: int = 2000,
    seed: int = 0,
) -> pd.DataFrame:
    """A 2-D picture of the embedding: the first two principal axes of the first frame's
    embeddings (the real table), every frame projected on them; at most ``max_points``
    seeded rows per frame. Columns ``x``, ``y``, ``source`` (the frame's name) and
    ``record`` (the row's index label in its frame)."""
    max_points = check_positive_int("max_points", max_points, minimum=2)
    rng = np.random.default_rng(seed)
    parts, axes, centre = [], None, None
    for name, frame in frames.items():
        pick = (
            np.sort(rng.choice(len(frame), max_points, replace=False))
            if len(frame) > max_points
            else np.arange(len(frame))
        )
        z = encoder.transform(frame.iloc[pick])
        if axes is None:
            centre = z.mean(axis=0)
            _, _, vt = np.linalg.svd(z - centre, full_matrices=False)
            axes = vt[:2].T if vt.shape[0] >= 2 else np.eye(z.shape[1], 2)
        xy = (z - centre) @ axes
        parts.append(
            pd.DataFrame(
                {
                    "x": xy[:, 0],
                    "y": xy[:, 1],
                    "source": name,
                    "record": frame.index.to_numpy()[pick],
                }
            )
        )
    return pd.concat(parts, ignore_index=True)
