"""The independent readers the tests judge redline's output by: pandoc and LibreOffice.

- pandoc reads tracked changes accepted or rejected (``--track-changes=accept|reject``):
  :func:`pandoc_plain` (its plain-text writer), :func:`rejected` (that, paragraph by paragraph,
  list numbers dropped), :func:`pandoc_text` (its JSON reading as plain words) with
  :func:`fold` and :func:`pandoc_folded`, and :func:`check_compare` (``redline compare``'s
  contract, judged by pandoc).
- LibreOffice, a real word processor: :func:`text_exports` (its text export, plain or with every
  change accepted by LibreOffice itself), :func:`probe` (over UNO: whether it loads, its text
  accepted and rejected, its comments and where they stand), :func:`uno_readings` (its reading
  of formatting, styles, table rows and order, as is or after accepting / rejecting every
  change), :func:`uno_python`, :func:`run`. They live in ``tests/libreoffice.py``,
  ``tests/libreoffice_accept.py``, ``tests/libreoffice_probe.py`` and
  ``tests/libreoffice_props.py`` (scripts for a Python that has LibreOffice's ``uno``, so they
  import nothing of the project); test modules import them from here.

Each reader skips the test when its program is not installed (the fixtures ``pandoc`` and
``soffice`` of ``conftest.py`` give their paths).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from redline.read.load import load_view
from tests.libreoffice import TXT_FILTER, probe, run, text_exports, uno_python, uno_readings

__all__ = [
    "ITEM",
    "TXT_FILTER",
    "check_compare",
    "fold",
    "pandoc_folded",
    "pandoc_plain",
    "pandoc_spaced",
    "pandoc_text",
    "pandoc_unspaced",
    "probe",
    "rejected",
    "run",
    "text_exports",
    "tool",
    "uno_python",
    "uno_readings",
]


def tool(name: str) -> str:
    """The path of the program ``name``; skips the test when it is not installed."""
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed")
    return found


# -----------------------------------------------------------------------------------------
# pandoc, plain text


def pandoc_plain(data: bytes, mode: str) -> str:
    """pandoc's plain text of ``data`` with every tracked change ``mode``\\ ed (accept, reject)."""
    pandoc = tool("pandoc")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "doc.docx"
        path.write_bytes(data)
        return subprocess.run(
            [pandoc, f"--track-changes={mode}", "-t", "plain", "--wrap=none", str(path)],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip


def pandoc_spaced(data: bytes, mode: str) -> str:
    """:func:`pandoc_plain`, every run of whitespace one space."""
    return " ".join(pandoc_plain(data, mode).split())


def pandoc_unspaced(data: bytes, mode: str) -> str:
    """:func:`pandoc_plain` without its whitespace (compared up to spacing)."""
    return "".join(pandoc_plain(data, mode).split())


ITEM = re.compile(r"^\s*(?:(?:\d+\.|[a-z]\.|\(\w+\))\s*)+")  # a list item's number, as pandoc prints it


def rejected(data: bytes) -> list[str]:
    """pandoc's reject-all text, paragraph by paragraph.  pandoc 2.17 (Debian 12) handles a
    revised paragraph mark in a *numbered* paragraph by moving its text into the next
    paragraph, leaving an empty list item behind and numbering the items after it one on:
    list numbers and empty items are dropped here (the text is still compared whole).
    LibreOffice checks the marks themselves (the slow test)."""
    lines = [ITEM.sub("", line) for line in pandoc_plain(data, "reject").split("\n")]
    return [line for line in lines if line.strip()]


# -----------------------------------------------------------------------------------------
# pandoc, its JSON reading as words


def pandoc_text(pandoc: str, data: bytes, mode: str) -> str | None:
    """pandoc's reading of ``data`` (``--track-changes=mode``) as plain words; None when
    pandoc cannot read the file at all."""
    with tempfile.NamedTemporaryFile(suffix=".docx") as f:
        f.write(data)
        f.flush()
        proc = subprocess.run(
            [pandoc, f"--track-changes={mode}", "-f", "docx", "-t", "json", f.name],
            capture_output=True,
        )
    if proc.returncode != 0:
        return None
    pieces: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
            return
        if not isinstance(node, dict) or "t" not in node:
            return
        kind: str = node["t"]
        content: Any = node.get("c")
        if kind == "Str":
            pieces.append(content)
        elif kind in ("Space", "SoftBreak", "LineBreak"):
            pieces.append(" ")
        elif kind in ("Code", "Math", "RawInline"):
            pieces.append(content[1])
        elif kind == "Quoted":
            quote = "\u201c" if content[0]["t"] == "DoubleQuote" else "\u2018"
            pieces.append(quote)
            walk(content[1])
            pieces.append(quote)
        else:
            walk(content)
            if kind in ("Para", "Plain", "Header", "CodeBlock", "LineBlock"):
                pieces.append("\n")

    walk(json.loads(proc.stdout)["blocks"])
    return "".join(pieces)


_FOLD = str.maketrans(
    {
        **{c: '"' for c in "\u201c\u201d\u201e\u201f"},
        **{c: "'" for c in "\u2018\u2019\u201a\u201b"},
        **{c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2212"},
        **{c: "" for c in "\u00ad\u200b\u200c\u200d\u2060\ufeff"},
    }
)


def fold(text: str) -> str:
    """Text compared the way a reader sees it: quotes, dashes and invisible characters
    flattened, and whitespace (line and paragraph breaks too) left out -- pandoc 2.17 joins
    the two halves of a paragraph whose mark is deleted with a space where Word joins them
    with nothing.  (redline's own reader is checked on every space exactly.)"""
    return "".join(unicodedata.normalize("NFC", text).translate(_FOLD).split())


def pandoc_folded(pandoc: str, data: bytes, mode: str) -> str:
    """:func:`pandoc_text`, :func:`fold`\\ ed; pandoc must read the file."""
    text = pandoc_text(pandoc, data, mode)
    assert text is not None
    return fold(text)


def check_compare(pandoc: str, old: bytes, new: bytes, out: bytes) -> None:
    """pandoc's reject of OUT reads as OLD, its accept as NEW (folded: pandoc 2.17 joins
    paragraphs across a rejected inserted mark with a space); our own view of OUT (every
    revision accepted) is NEW's, character for character."""
    assert pandoc_folded(pandoc, out, "reject") == pandoc_folded(pandoc, old, "reject")
    assert pandoc_folded(pandoc, out, "accept") == pandoc_folded(pandoc, new, "accept")
    got, want = load_view(out), load_view(new)
    assert isinstance(got, tuple) and isinstance(want, tuple)
    assert got[1].text == want[1].text
