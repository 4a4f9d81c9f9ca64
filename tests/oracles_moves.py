"""LibreOffice as the judge of clause moves: every tracked change accepted, or rejected, by
LibreOffice itself (``tests/libreoffice_accept.py`` over UNO), then its text export -- one line
a paragraph, each numbered paragraph's label (as LibreOffice computes it) before its text.

:func:`decided` runs it for many documents at once (one LibreOffice per document, started by
the script); :func:`lines` splits an export into its non-empty paragraphs; :func:`texts` drops
the labels.  Skips the test when LibreOffice or a Python with ``uno`` is missing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.oracles import TXT_FILTER, run, uno_python

__all__ = ["decided", "label_and_text", "lines", "texts"]

_LABEL = re.compile(r"^\s*((?:\(?[0-9a-zA-Z]{1,4}[.)]){1,4}(?:[0-9a-zA-Z]{1,4})?)\s+")


def decided(docs: Sequence[Path], tmp: Path, soffice: str, mode: str) -> dict[Path, str]:
    """LibreOffice's text export of each of ``docs`` once it ``mode``\\ ed (accept, reject) every
    tracked change, by document (a document LibreOffice failed on is missing)."""
    python = uno_python()
    if python is None:
        pytest.skip("no Python with LibreOffice's uno module")
    tmp.mkdir(parents=True, exist_ok=True)
    profile = (tmp / "profile").as_uri()
    env = {**os.environ, "HOME": str(tmp)}
    setup = tmp / "setup"
    setup.mkdir(exist_ok=True)
    run(
        [
            soffice,
            f"-env:UserInstallation={profile}",
            "--headless",
            "--convert-to",
            TXT_FILTER,
            "--outdir",
            str(setup),
            str(docs[0]),
        ],
        env,
        300,
    )  # fmt: skip  (sets the profile up)
    out = tmp / mode
    out.mkdir(exist_ok=True)
    script = Path(__file__).with_name("libreoffice_accept.py")
    flag = ["--reject"] if mode == "reject" else []
    run([python, str(script), *flag, str(out), profile, *map(str, docs)], env, 300 + 120 * len(docs))
    found = {doc: out / f"{doc.stem}.txt" for doc in docs}
    return {doc: path.read_text(encoding="utf-8-sig") for doc, path in found.items() if path.exists()}


def lines(export: str) -> list[str]:
    """The non-empty paragraphs of a text export, spacing made single."""
    return [" ".join(line.split()) for line in export.splitlines() if line.strip()]


def label_and_text(line: str) -> tuple[str | None, str]:
    """A line of the export as (the label LibreOffice wrote before it, or None; the text)."""
    m = _LABEL.match(line)
    if m is None:
        return None, line
    return m.group(1), line[m.end() :]


def texts(export: str) -> list[str]:
    """:func:`lines` with the labels left out."""
    return [label_and_text(line)[1] for line in lines(export)]
