"""LibreOffice as the judge of formatting: each document's paragraphs styles and per-character
attributes as stored, after accept-all and after reject-all (``tests/libreoffice_fmt.py``, run
by a Python that has LibreOffice's ``uno``), and what a ``format`` key means in them.

:func:`lo_formats` skips the test when LibreOffice or its ``uno`` module is missing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.libreoffice import run, uno_python
from tests.oracles import tool

__all__ = ["LO_VALUES", "Char", "chars", "lo_formats", "styles"]

_SCRIPT = Path(__file__).with_name("libreoffice_fmt.py")

Char = tuple[str, dict[str, Any]]

#: What LibreOffice reads for each format key's value (per character).
LO_VALUES: dict[str, dict[object, tuple[str, Any]]] = {
    "bold": {True: ("CharWeight", 150), False: ("CharWeight", 100)},
    "italic": {True: ("CharPosture", "ITALIC"), False: ("CharPosture", "NONE")},
    "underline": {
        "single": ("CharUnderline", 1),
        "double": ("CharUnderline", 2),
        "none": ("CharUnderline", 0),
    },
    "strike": {True: ("CharStrikeout", 1), False: ("CharStrikeout", 0)},
    "caps": {True: ("CharCaseMap", 1), False: ("CharCaseMap", 0)},
    "small_caps": {True: ("CharCaseMap", 4), False: ("CharCaseMap", 0)},
    "highlight": {
        "yellow": ("CharHighlight", 0xFFFF00),
        "green": ("CharHighlight", 0x00FF00),
        "cyan": ("CharHighlight", 0x00FFFF),
        "none": ("CharHighlight", -1),
    },
}


def lo_formats(docs: list[Path], tmp: Path, timeout: float = 1200) -> dict[Path, dict[str, Any]]:
    """LibreOffice's reading of every document of ``docs``: ``{"as_is" | "accept" | "reject":
    {"paragraphs": [{"style", "portions"}], "redlines": [...]}}`` (or ``{"error": ...}``)."""
    tool("soffice")
    python = uno_python()
    if python is None:
        pytest.skip("no Python with LibreOffice's uno module")
    out = tmp / "lo-formats.json"
    profile = tmp / "lo-profile"
    profile.mkdir(exist_ok=True)
    env = {**os.environ, "HOME": str(tmp)}
    run([python, str(_SCRIPT), str(out), profile.as_uri(), *map(str, docs)], env, timeout)
    if not out.exists():
        pytest.fail("LibreOffice's format reading wrote nothing")
    found = json.loads(out.read_text(encoding="utf-8"))
    return {Path(k): v for k, v in found.items()}


def chars(reading: dict[str, Any]) -> list[list[Char]]:
    """Per paragraph, each character with its attributes."""
    return [[(ch, attrs) for text, attrs in p["portions"] for ch in text] for p in reading["paragraphs"]]


def styles(reading: dict[str, Any]) -> list[str]:
    return [p["style"] for p in reading["paragraphs"]]
