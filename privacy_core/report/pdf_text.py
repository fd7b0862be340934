"""Text for the PDF's core fonts (fpdf2): Latin-1 only. Other characters are replaced,
never dropped; :class:`Latin1` records every replacement of a user's string, and
:func:`replacement_note` lists them on the sheet.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

# fpdf2's core fonts cover Latin-1 only and no TTF ships with our dependencies: other
# characters are replaced, never dropped, and the sheet lists every replacement made.
_PDF_SPELLING = {
    "–": "-",
    "—": "-",
    "≤": "<=",
    "≥": ">=",
    "κ": "kappa",
    "τ": "tau",
    "ε": "epsilon",
    "α": "alpha",
    "×": "x",
    "’": "'",
    "‘": "'",
    "“": '"',
    "”": '"',
    "…": "...",
    "±": "+/-",
    "✓": "v",
    "✗": "x",
    "→": "->",
    "²": "2",
    "•": "-",
    "∪": "U",
    "€": "EUR",
}
# letters with no Unicode decomposition, written as their base letter
_PDF_LETTERS = {
    "Ł": "L",
    "ł": "l",
    "Đ": "D",
    "đ": "d",
    "Ħ": "H",
    "ħ": "h",
    "ı": "i",
    "Œ": "OE",
    "œ": "oe",
    "Ŧ": "T",
    "ŧ": "t",
    "ŀ": "l",
    "Ŀ": "L",
}


class Latin1:
    """Text for the core fonts, with a record of what was replaced.

    ``user_chars``: the characters of the user's own strings (names, notes, sign-off).
    Those are listed when replaced even if they are among our own symbols, so a name
    typed with an ε or a – is not silently printed otherwise.
    """

    def __init__(self, user_chars: frozenset[str] = frozenset()) -> None:
        self.replaced: dict[str, str] = {}
        self.user_chars = user_chars

    def __call__(self, value: Any) -> str:
        # composed form first: "e" + combining acute is the Latin-1 "é", not a replacement
        value = unicodedata.normalize("NFC", str(value)).replace("\r\n", "\n")
        out = []
        for ch in value:
            if ch == "\n" or (ord(ch) < 256 and unicodedata.category(ch) != "Cc"):
                out.append(ch)
                continue
            sub = _PDF_SPELLING.get(ch) or _PDF_LETTERS.get(ch)
            if sub is None and unicodedata.category(ch) != "Cc":
                plain = "".join(
                    c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c)
                )
                try:
                    plain.encode("latin-1")
                    sub = plain if plain and plain != ch else None
                except UnicodeEncodeError:
                    sub = None
            if sub is None:
                # control characters too: Latin-1 in name, but the font has no glyph for
                # them (a tab or a bell would vanish, U+0080 would print as a euro sign)
                sub = " " if ch in "\t\r" else f"[U+{ord(ch):04X}]"
            # our own labels' symbols (ε, –, ≥) are spelled out silently; anything else is
            # listed on the sheet, so a reader knows a name was not printed as typed
            if ch not in _PDF_SPELLING or ch in self.user_chars:
                self.replaced[ch] = sub
            out.append(sub)
        return "".join(out)

    def line(self, value: Any) -> str:
        """Text for a one-line cell, where a line break would print as nothing."""
        return self(value).replace("\n", " / ")


def user_chars(d: Mapping[str, Any]) -> frozenset[str]:
    """Every character of the strings a user typed or named: notes, sign-off, file and
    release names, candidates, columns, and the measures' parameters (column names)."""
    prov = d.get("provenance") or {}
    parts: list[Any] = [
        d.get("notes"),
        d.get("sign_off"),
        d.get("threat"),
        [c.get("name") for c in (d.get("schema") or {}).get("columns", [])],
        {k: v for k, v in prov.items() if k != "software"},
    ]
    for c in d.get("candidates") or []:
        parts += [
            c.get("name"),
            c.get("releases"),
            [m.get("params") for m in (c.get("metrics") or {}).values()],
        ]
    chars: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str):
            chars.update(unicodedata.normalize("NFC", value))
        elif isinstance(value, Mapping):
            for k, v in value.items():
                walk(k)
                walk(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                walk(v)

    walk(parts)
    return frozenset(chars)


def clip(value: str, n: int) -> str:
    """At most ``n`` characters, ending in "..." when cut (a chart label's room)."""
    return value if len(value) <= n else value[: n - 3] + "..."


def replacement_note(replaced: Mapping[str, str]) -> str:
    """The sheet's list of what it did not print as typed: each character's code point and
    Unicode name, and what stands in its place."""
    coded = [ch for ch, sub in replaced.items() if sub == f"[U+{ord(ch):04X}]"]
    spelled = [ch for ch in replaced if ch not in coded]

    def name(ch: str) -> str:
        kind = (
            "control character"
            if unicodedata.category(ch) == "Cc"
            else unicodedata.name(ch, "unnamed character").lower()
        )
        return f"U+{ord(ch):04X} {kind}"

    parts = []
    if spelled:
        parts.append(
            "; ".join(
                f"{name(ch)} -> {replaced[ch]}"
                if replaced[ch].strip()
                else f"{name(ch)} -> a space"
                for ch in spelled
            )
        )
    if coded:
        parts.append(
            "Printed as [U+code] (no Latin-1 equivalent): " + "; ".join(name(ch) for ch in coded)
        )
    return (
        "Characters outside this sheet's Latin-1 font were replaced: "
        + ". ".join(parts)
        + ". The HTML and JSON exports keep every name as typed."
    )


__all__ = ["Latin1", "clip", "replacement_note", "user_chars"]
