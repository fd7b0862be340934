"""Data & threat model: choose or upload tables, generate releases, fix types, pick columns."""

import warnings
from dataclasses import replace
from functools import partial

import streamlit as st

import privacy_core as pc
from privacy_core import check_membership_prevalence, safe_csv
from ui.cached import canonical_real, generate_release
from ui.compute import compute_settings
from ui.demo import builtin_workspace
from ui.privacy import membership_settings
from ui.runner import guarded
from ui.state import commit, default_threat, require_workspace, set_error, set_notice
from ui.widgets import error_slot
from ui.workspace import Table, Workspace, declared_schema

st.title("Data & threat model")

GENERATOR_LABELS = {
    "cart": "CART (synthpop style)",
    "histogram": "HISTOGRAM (independent marginals)",
    "half": "HALF (a real half: fidelity upper bound)",
    "self": "SELF (a copy: worst privacy)",
    "dp-mst": "DP-MST (differentially private 2-way marginals)",
    "dp-independent": "DP independent marginals",
    "autoregressive": "Autoregressive neural network (torch; slower)",
}
ws = require_workspace()

# ------------------------------------------------------------------ 1. tables
st.header("1. Tables")
source_builtin, source_upload = st.tabs(["Built-in datasets", "Upload your files"])

with source_builtin:
    with st.form("builtin_form"):
        name = st.radio(
            "Dataset",
            ["health", "adult"],
            horizontal=True,
            index=0 if ws.dataset != "adult" else 1,
            format_func=lambda n: {
                "health": "Simulated health microdata (RAPID paper)",
                "adult": "UCI Adult census (48,842 rows)",
            }[n],
        )
        c1, c2, c3 = st.columns(3)
        current = dict(ws.dataset_params)
        kappa = c1.select_slider(
            "Dependency strength κ (simulation only)",
            options=[0.0, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0],
            value=float(current.get("kappa", 1.0))
            if float(current.get("kappa", 1.0))
            in (0.0, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0)
            else 1.0,
            help="How strongly the quasi-identifiers determine disease in the simulation: "
            "0 = hardly, 100 = almost deterministic. Watch RAPID rise with it.",
        )
        # the sizes offered are the engine's tested list; "all" (None, shown as 0 since a
        # widget value of None means "no value") is for Adult only
        sizes = sorted(
            {v or 0 for opts in pc.BUILTIN_SIZES.values() for v in opts},
            key=lambda v: v or float("inf"),
        )
        chosen = current.get("n", 2000) or 0
        n = c2.select_slider(
            "Training rows (simulation size, or Adult subset)",
            options=sizes,
            value=chosen if chosen in sizes else 2000,
            format_func=lambda v: f"{v:,}" if v else "all of Adult",
            help="The holdout has as many rows for the simulation, a quarter as many for "
            "Adult (all of Adult: an 80/20 split of its 48,842 rows).",
        )
        seed = c3.number_input("Seed", 0, 2**31 - 1, int(current.get("seed", 0)))
        load = st.form_submit_button("Load dataset with a CART release", type="primary")
    error_slot("builtin")
    if load:
        rows = int(n) or None
        if rows not in pc.BUILTIN_SIZES[name]:
            set_error(
                "builtin", "“All” is for UCI Adult; choose a number of rows for the simulation."
            )
            st.rerun()
        new = guarded(
            lambda: builtin_workspace(name, n=rows, kappa=float(kappa), seed=int(seed)),
            control="builtin",
        )
        if new is not None and commit(new, control="builtin"):
            set_notice("builtin", f"Loaded {new.real.name}: {len(new.real.frame):,} rows.")
        st.rerun()
    if name == "adult":
        st.caption(pc.ADULT_CREDIT)

with source_upload:
    st.caption(
        "CSV (any delimiter, UTF-8 or Windows-1252) or Parquet. `?`, `NA` and empty "
        "cells are read as missing; codes with leading zeros (postcodes) stay text, and "
        "decimal commas (`1,5`) are read as numbers in files not delimited by commas. "
        "Files stay in this session's memory only."
    )
    st.info(
        "Uploaded files live only in this browser tab's session and are never stored: "
        "**reloading the page, opening a shared link or closing the tab drops them**. "
        "The settings (threat model, thresholds) are kept in the page address.",
        icon=":material/info:",
    )
    with st.form("upload_form", clear_on_submit=False):
        real_file = st.file_uploader("Real (training) table", type=["csv", "parquet", "txt"])
        syn_files = st.file_uploader(
            "Synthetic release(s) — several files for replicates",
            type=["csv", "parquet", "txt"],
            accept_multiple_files=True,
        )
        hold_file = st.file_uploader(
            "Holdout: real rows the generator never saw (optional)", type=["csv", "parquet", "txt"]
        )
        upload_weights = st.text_input(
            "Sampling-weight column of the real table and the holdout (optional)",
            key="upload_weights",
            help="Name it here when the releases lack it: declared, it is left out of "
            "every measure but sdcMicro's individual risk and reproduced rare "
            "combinations, so the releases need not have it (it can also be chosen "
            "under Threat model below).",
        ).strip()
        use = st.form_submit_button("Use these files", type="primary")
    error_slot("upload")
    if use:
        files = [f for f in (real_file, *syn_files, hold_file) if f is not None]
        total_mb = sum(f.size for f in files) / 1e6
        status = st.status(
            f"Reading {len(files)} file(s), {total_mb:,.1f} MB", expanded=total_mb > 20
        )
        bar = status.progress(0.0, text="Starting…")
        done_mb = [0.0]

        def read(upload):
            # progress by bytes: a large file is most of the wait (a million-row CSV takes
            # seconds to parse)
            bar.progress(
                min(done_mb[0] / max(total_mb, 1e-9), 1.0),
                text=f"Reading {upload.name} ({upload.size / 1e6:,.1f} MB)",
            )
            table = pc.load_table(upload.getvalue(), name=upload.name)
            done_mb[0] += upload.size / 1e6
            return table

        def build() -> tuple[Workspace, list[str]]:
            if real_file is None:
                raise pc.DataLoadError("Choose the real table first.")
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", pc.PrivacyCoreWarning)
                real = read(real_file)
                releases = tuple(Table.make(f.name, read(f), "upload") for f in syn_files)
                holdout = (
                    Table.make(hold_file.name, read(hold_file), "upload") if hold_file else None
                )
                bar.progress(1.0, text=f"Inferring column types of {len(real):,} rows")
                # the declared weight column marked (the engine's message if it is missing)
                schema = declared_schema(real, upload_weights or None)
            notes = [str(w.message) for w in caught]
            included = schema.included
            if len(included) < 2:
                raise pc.SchemaError(
                    "The real table has fewer than two usable columns after excluding ID-like "
                    f"and constant ones ({', '.join(schema.excluded)})."
                )
            qis, sensitive = default_threat(schema, real=real)
            new = Workspace(
                real=Table.make(real_file.name, real, "upload"),
                releases=releases,
                holdout=holdout,
                quasi_identifiers=qis,
                sensitive=sensitive,
                dataset="upload",
            )
            return new.with_weights(upload_weights or None), notes

        built = guarded(build, control="upload")
        status.update(
            label=f"Read {len(files)} file(s), {total_mb:,.1f} MB"
            if built is not None
            else "The files could not be used",
            state="complete" if built is not None else "error",
            expanded=False,
        )
        if built is not None and commit(built[0], control="upload"):
            new, notes = built
            message = (
                "Loaded."
                if new.releases
                else ("Real table loaded. Generate or upload a synthetic release below.")
            )
            set_notice("upload", message + (" Notes: " + " ".join(notes) if notes else ""))
        st.rerun()


# ------------------------------------------------------------------ 2. releases
st.header("2. Synthetic releases")
if ws.releases:
    for i, t in enumerate(ws.releases):
        c1, c2, c3 = st.columns([5, 2, 1])
        c1.markdown(f"**{t.name}** — {len(t.frame):,} rows ({t.origin})")
        if t.origin == "generated":
            c2.download_button(
                "Download",
                partial(safe_csv, t.frame),
                file_name=f"release_{i + 1}.csv",
                mime="text/csv",
                key=f"dl_rel_{i}",
                on_click="ignore",
            )
        if c3.button("Remove", key=f"rm_rel_{i}"):
            commit(replace(ws, releases=ws.releases[:i] + ws.releases[i + 1 :]), control="releases")
            st.rerun()
else:
    st.info("No synthetic release yet: upload one above or generate one here.")

if ws.releases:
    groups = ws.release_groups()
    with st.expander(f"Release groups: {len(groups)} candidate(s)", expanded=len(groups) > 1):
        st.caption(
            "Releases with the same group name are **replicates of one generator**: "
            "every measure is averaged over them (mean ± sd, consensus R10). Different "
            "groups are **distinct candidates**: shown side by side, never averaged. "
            "Releases generated together form one group; each upload or release "
            "added from the map is a candidate of its own until you group it here."
        )
        with st.form("groups_form"):
            names = []
            for i, t in enumerate(ws.releases):
                g1, g2 = st.columns([3, 2], vertical_alignment="center")
                g1.markdown(f"**{t.name}** ({t.origin})")
                names.append(
                    g2.text_input(
                        "Group",
                        value=t.candidate,
                        key=f"group_{i}_{t.fingerprint[:12]}",
                        label_visibility="collapsed",
                        placeholder="group name",
                        help="Give replicates of one generator the same name.",
                    )
                )
            regroup = st.form_submit_button("Apply groups")
        error_slot("groups")
        if regroup:
            # a blank name: the release is a candidate of its own again
            regrouped = ws.with_groups(names)
            if commit(regrouped, control="groups"):
                set_notice(
                    "groups",
                    f"{len(regrouped.release_groups())} candidate(s). "
                    "Results already computed for a group whose releases "
                    "did not change are kept.",
                )
            st.rerun()

with st.form("generate_form"):
    st.markdown("**Generate releases with a built-in generator** (fitted on the real table)")
    c1, c2, c3, c4 = st.columns(4)
    method = c1.selectbox(
        "Generator", list(GENERATOR_LABELS), format_func=GENERATOR_LABELS.__getitem__
    )
    leaf = c2.number_input(
        "CART minimum leaf size",
        1,
        500,
        5,
        help="Smaller leaves copy real values from fewer donors: more risk.",
    )
    epsilon = c2.number_input(
        "DP privacy budget ε (DP generators)",
        0.01,
        1000.0,
        1.0,
        help="Smaller ε: more noise, more privacy, less utility. The "
        "column domains are treated as public (see the docstring).",
    )
    reps = c3.number_input(
        "Replicates",
        1,
        10,
        1,
        help="Several releases from different seeds (reported as mean ± sd, consensus R10).",
    )
    gseed = c4.number_input("First seed", 0, 2**31 - 1, 1)
    replace_existing = st.checkbox("Replace the current releases", value=False)
    gen = st.form_submit_button("Generate")
error_slot("releases")
if gen:

    def make() -> tuple[Table, ...]:
        real_c = canonical_real(ws.real.fingerprint, ws.overrides, ws)
        params = {
            "cart": (("min_leaf", int(leaf)),),
            "dp-mst": (("epsilon", float(epsilon)),),
            "dp-independent": (("epsilon", float(epsilon)),),
        }.get(method, ())
        out = []
        detail = {
            "cart": f" leaf {int(leaf)}",
            "dp-mst": f" ε={float(epsilon):g}",
            "dp-independent": f" ε={float(epsilon):g}",
        }.get(method, "")
        # the replicates of this click form one group; a later click is another candidate
        # (its releases can be joined to this one on purpose, in "Release groups")
        taken = set() if replace_existing else set(ws.release_groups())
        group, k = f"{method.upper()}{detail}", 2
        while group in taken:
            group, k = f"{method.upper()}{detail} #{k}", k + 1
        for r in range(int(reps)):
            s = int(gseed) + r
            frame = generate_release(
                ws.real.fingerprint + repr(ws.overrides), real_c, method, params, len(real_c), s
            )
            label = f"{method.upper()}{detail} (seed {s})"
            out.append(Table.make(label, frame, "generated", group=group))
        return tuple(out)

    made = guarded(make, control="releases")
    if made is not None:
        base = () if replace_existing else ws.releases
        if commit(replace(ws, releases=base + made), control="releases"):
            set_notice("releases", f"Generated {len(made)} release(s).")
    st.rerun()

# ------------------------------------------------------------------ 3. schema
st.header("3. Column types")
schema = ws.schema
st.caption(
    "Inferred from the real table. ID-like columns (unique on every row) and constant "
    "columns are excluded. Change a type and press *Apply types*."
)
frame = schema.to_frame()
frame["type"] = [
    k if k in ("numeric", "categorical", "boolean") else "exclude" for k in frame["kind"]
]
edited = st.data_editor(
    frame[["name", "type", "n_unique", "n_missing", "note"]],
    hide_index=True,
    disabled=["name", "n_unique", "n_missing", "note"],
    key="schema_editor",
    column_config={
        "type": st.column_config.SelectboxColumn(
            "type", options=["numeric", "categorical", "boolean", "exclude"], required=True
        )
    },
    width="stretch",
)
if st.button("Apply types"):
    overrides = dict(ws.overrides)
    for row, before in zip(edited.itertuples(), frame["type"], strict=True):
        if row.type != before:
            overrides[row.name] = row.type
    candidate = replace(ws, overrides=tuple(sorted(overrides.items())))
    try:
        _ = candidate.schema  # type overrides are validated here
        kept_q = tuple(c for c in ws.quasi_identifiers if candidate.schema[c].included)
        kept_s = tuple(c for c in ws.sensitive if candidate.schema[c].included)
        if kept_s:
            candidate = replace(
                candidate, quasi_identifiers=kept_q or ws.quasi_identifiers, sensitive=kept_s
            )
    except pc.PrivacyCoreError as exc:
        set_error("schema", str(exc))
    else:
        if commit(candidate, control="schema"):
            set_notice("schema", "Types applied.")
    st.rerun()
error_slot("schema")

# ------------------------------------------------------------------ 4. threat model
st.header("4. Threat model")
st.caption(
    "Quasi-identifiers: what an attacker already knows about a person (e.g. from a "
    "register or social media). Sensitive: what they want to learn."
)
included = schema.included
# Uploads start from the engine's suggestion; the built-in datasets keep the threat models
# their sources document.
suggestion = (
    pc.suggest_quasi_identifiers(ws.real.frame, schema, ws.sensitive)
    if ws.dataset == "upload"
    else None
)
if suggestion is not None:
    st.info(suggestion.summary())
    with st.expander("Why each column is in or out"):
        st.dataframe(
            suggestion.to_frame()[["name", "n_unique", "reason"]], hide_index=True, width="stretch"
        )
    followed = ws.quasi_identifiers == suggestion.columns
    if st.button(
        "Use the suggestion",
        key="use_qi_suggestion",
        disabled=followed,
        help="Already in use."
        if followed
        else "Replace the quasi-identifiers below with the suggested ones.",
    ):
        if commit(replace(ws, quasi_identifiers=suggestion.columns), control="threat"):
            set_notice("threat", "Suggested quasi-identifiers applied.")
        st.rerun()
with st.form("threat_form"):
    qis = st.multiselect(
        "Quasi-identifiers", included, default=[c for c in ws.quasi_identifiers if c in included]
    )
    sens = st.multiselect(
        "Sensitive attribute(s) — the first is RAPID's target",
        included,
        default=[c for c in ws.sensitive if c in included],
        max_selections=5,
    )
    weight_options = [None, *ws.weight_options()]
    weight = st.selectbox(
        "Sampling-weight column (optional)",
        weight_options,
        index=weight_options.index(ws.weights) if ws.weights in weight_options else 0,
        format_func=lambda c: "none: every record stands for itself" if c is None else c,
        help="Only sdcMicro's individual risk and reproduced rare combinations use it: "
        "each record then stands for as many people as its weight, so F_k, the estimated "
        "number of people sharing a record's quasi-identifiers, is the sum of the "
        "weights rather than the count of records (every other measure leaves the "
        "column out, and a release need not have it).",
    )
    apply_threat = st.form_submit_button("Apply threat model", type="primary")
error_slot("threat")
if apply_threat:
    try:
        if (
            suggestion is not None
            and tuple(sens) != ws.sensitive
            and sens
            and ws.quasi_identifiers == suggestion.columns
            and set(qis) == set(ws.quasi_identifiers)
        ):
            # the user changed only the sensitive column while still on the suggestion:
            # follow it, so the new target is not left among the quasi-identifiers
            qis = list(pc.suggest_quasi_identifiers(ws.real.frame, schema, sens).columns)
        candidate = replace(ws, quasi_identifiers=tuple(qis), sensitive=tuple(sens))
        candidate = candidate.with_weights(weight)
        _threat = candidate.threat  # validates the lists themselves
    except pc.PrivacyCoreError as exc:
        set_error("threat", str(exc))
    else:
        if commit(candidate, control="threat"):
            set_notice("threat", "Threat model applied.")
    st.rerun()

# ------------------------------------------------------------------ 4b. membership prevalence
st.subheader("Membership: whom does the attacker target?")
st.markdown(
    "A membership attack asks *was this person in the training data?* How often a guess of "
    "“yes” is right depends on how many of the people the attacker checks really are in "
    "it. **t, the sampling fraction**, is the share of the population that is in the "
    "training data: if the training data hold 2,000 of a registry's 40,000 patients, "
    "t = 0.05, and an attacker who picks registry patients at random finds a member one "
    "time in twenty. The membership score F_rel compares the attack with a naive attacker "
    "who calls everyone a member, so it needs t (consensus recommendation R5)."
)
mem = membership_settings(ws)
with st.form("membership_form"):
    m1, m2 = st.columns(2)
    known = m1.checkbox(
        "I know t",
        value=mem["mem_t"] is not None,
        key="mem_known",
        help="Leave unticked only if you cannot say how much of the "
        "population the training data cover; the result is then "
        "flagged as resting on an arbitrary value.",
    )
    t_value = m1.number_input(
        "t: share of the population in the training data",
        0.0001,
        0.9999,
        float(mem["mem_t"] if mem["mem_t"] is not None else 0.05),
        0.01,
        format="%.4f",
        key="mem_t",
        help="Training rows divided by the size of the population they were "
        "drawn from (e.g. 2,000 / 40,000 = 0.05).",
    )
    scenario = m2.radio(
        "Scenario (consensus framework, Figure 2)",
        ["A", "B"],
        index=["A", "B"].index(mem["mem_scenario"]),
        key="mem_scenario",
        format_func=lambda x: {
            "A": "A: targets from the same population as the training data (e.g. people "
            "with HIV in one city)",
            "B": "B: targets from a wider population (e.g. everyone of that age in the "
            "city), so being a member can itself reveal the sensitive trait",
        }[x],
    )
    share = m2.number_input(
        "Scenario B: share of the wider population that belongs to the training data's population",
        0.0001,
        1.0,
        float(mem["mem_share"] if mem["mem_share"] is not None else 0.1),
        0.01,
        format="%.4f",
        key="mem_share",
        help="E.g. the HIV prevalence among everyone the attacker might check. Members "
        "are then t × this share of the targets.",
    )
    m3, m4 = st.columns(2)
    h_value = m3.number_input(
        "h: how many quasi-identifiers may differ",
        0,
        max(0, len(ws.quasi_identifiers)),
        min(int(mem["mem_h"]), len(ws.quasi_identifiers)),
        1,
        key="mem_h",
        help="The attacker calls a person a member when a synthetic record matches their "
        "quasi-identifiers (numbers in 20 bins) with at most h differences. 0: an "
        "exact match.",
    )
    beta = m4.number_input(
        "β: weight of finding members against wrong accusations",
        0.1,
        10.0,
        float(mem["mem_beta"]),
        0.1,
        key="mem_beta",
        help="The F-β score: 1 weighs both equally (F1); 0.5 when wrongly calling a "
        "non-member a member is costly; 2 when missing a member is.",
    )
    apply_membership = st.form_submit_button("Apply membership settings")
error_slot("membership")
if apply_membership:
    mem_t = float(t_value) if known else None
    mem_share = float(share) if scenario == "B" else None
    values = {
        "mem_t": mem_t,
        "mem_h": int(h_value),
        "mem_beta": float(beta),
        "mem_scenario": scenario,
        "mem_share": mem_share,
    }
    try:
        check_membership_prevalence(mem_t, scenario, mem_share)
    except pc.PrivacyCoreError as exc:
        set_error("membership", str(exc))
    else:
        if commit(ws.with_settings(membership=values), control="membership"):
            set_notice("membership", "Membership settings applied.")
    st.rerun()
if mem["mem_t"] is None:
    st.warning(
        "**t is not set, so membership measures use a fallback:** t = training rows ÷ "
        "(training + holdout rows). That number only says how the real rows were split "
        "into training and holdout, not how much of the population is in the training "
        "data, so it is arbitrary, and F_rel moves with it (consensus framework, R5 and "
        "Figure 3). Tick *I know t* and enter it.",
        icon=":material/warning:",
    )
else:
    prevalence = mem["mem_t"] * (mem["mem_share"] if mem["mem_scenario"] == "B" else 1.0)
    st.caption(
        f"Scenario {mem['mem_scenario']}: {prevalence:.2%} of the attacker's targets "
        f"are members (h = {mem['mem_h']}, β = {mem['mem_beta']:g})."
    )

# ------------------------------------------------------------------ 5. preview
st.header("5. Preview")
c1, c2 = st.columns(2)
c1.markdown(f"**Real** ({len(ws.real.frame):,} rows)")
c1.dataframe(ws.real.frame.head(20), width="stretch", hide_index=True)
if ws.releases:
    c2.markdown(f"**{ws.releases[0].name}**")
    c2.dataframe(ws.releases[0].frame.head(20), width="stretch", hide_index=True)

# ------------------------------------------------------------------ 6. compute
st.header("6. Where the heavy work runs")
compute_settings()
