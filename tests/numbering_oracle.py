"""LibreOffice as an oracle for the labels redline gives numbered paragraphs.

``soffice --headless --convert-to "txt:Text (encoded):UTF8"`` writes each paragraph on a line,
with the label LibreOffice computed for it first (``"4.1<TAB>Providing Services…"``,
``"(a) …"``, a bullet character for a bullet). This module lines those lines up with the body
paragraphs of :func:`redline.read.build.build_view` by their text (the label left out), and compares
the prefix LibreOffice wrote with redline's label, over every *numbered* paragraph: one that
redline labels, or that LibreOffice writes a (non-bullet) label before.

    python -m tests.numbering_oracle [DOC.docx | DIR ...]   # default: $REDLINE_CORPUS

prints one line per document (agreement, paragraphs compared) and every paragraph that differs.

What is no fair comparison is left out and said so:

* paragraphs inside text boxes (LibreOffice's text export leaves text boxes out; redline
  numbers them, and counts them, as Word does);
* documents with tracked paragraph-level changes (a paragraph mark inserted or deleted,
  ``w:pPr/w:rPr/w:ins|w:del|w:moveFrom|w:moveTo``): LibreOffice's export shows tracked
  deletions as text, and a deleted paragraph as a paragraph, numbered, while redline reads
  the document with every change accepted. :func:`paragraph_changes` finds them;
  ``tests/test_numbering.py`` checks those documents against labels counted by hand.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shutil
import sys
import tempfile
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from redline.opc.package import Package, PackageError
from redline.read.build import build_view
from redline.read.labels import numbering_of
from tests import oracles

THRESHOLD = 0.995
"""Share of numbered paragraphs whose labels must agree, per document."""

_WS = re.compile(r"\s+")
_MAX_LABEL = 48  # characters (whitespace removed) a label may take before the text
_TAIL = 16  # characters of a paragraph's end that anchor the first alignment pass
_BULLETS = frozenset("•◦▪▫■□●○◆◇►▸–-—o§·*➢➤✓✔✗❖⁃∙")


def _key(text: str) -> str:
    return _WS.sub("", text)


def _is_bullet(prefix: str) -> bool:
    """A prefix LibreOffice writes for a bullet: one symbol (or a private-use glyph)."""
    return len(prefix) == 1 and (
        prefix in _BULLETS or not prefix.isalnum() or 0xE000 <= ord(prefix) <= 0xF8FF
    )


# ---------------------------------------------------------------------------------------------
# The two sides


@dataclass(frozen=True, slots=True)
class Unit:
    """One line of a body paragraph (a paragraph with line breaks is several)."""

    paragraph: int  # index of the paragraph in the view
    first: bool  # the paragraph's first line, where a label is written
    key: str  # its text, whitespace removed
    label: str | None  # redline's label (first lines only)
    listed: bool = True  # the paragraph or its style chain has a w:numPr: it may show a list label
    bullet: bool = False  # redline puts it in a list, at a bullet level (no label)


def _in_text_box(p: etree._Element) -> bool:
    return any(isinstance(a.tag, str) and a.tag.endswith("}txbxContent") for a in p.iterancestors())


def _numbered_styles(path: Path) -> set[str]:
    """The paragraph styles with a ``w:numPr`` of their own or through ``w:basedOn``."""
    with zipfile.ZipFile(path) as z:
        member = next((m for m in z.namelist() if m.lower() == "word/styles.xml"), None)
        if member is None:
            return set()
        root = etree.fromstring(z.read(member), etree.XMLParser(resolve_entities=False, huge_tree=True))
    w = root.tag.split("}")[0] + "}"
    based: dict[str, str | None] = {}
    numbered: set[str] = set()
    for st in root.iterfind(f"{w}style"):
        sid = st.get(f"{w}styleId") or ""
        parent = st.find(f"{w}basedOn")
        based[sid] = None if parent is None else parent.get(f"{w}val")
        if st.find(f"{w}pPr/{w}numPr") is not None:
            numbered.add(sid)
    found: set[str] = set()
    for sid in based:
        seen: set[str] = set()
        at: str | None = sid
        while at is not None and at not in seen:
            if at in numbered:
                found.add(sid)
                break
            seen.add(at)
            at = based.get(at)
    return found


def _listed(p: etree._Element, numbered_styles: set[str]) -> bool:
    ppr = next((c for c in p if isinstance(c.tag, str) and c.tag.endswith("}pPr")), None)
    if ppr is None:
        return bool(numbered_styles & {"Normal"})
    style = next(
        (
            c.get(f"{c.tag[: -len('pStyle')]}val")
            for c in ppr
            if isinstance(c.tag, str) and c.tag.endswith("}pStyle")
        ),
        None,
    )
    return (
        any(isinstance(c.tag, str) and c.tag.endswith("}numPr") for c in ppr)
        or (style or "Normal") in numbered_styles
    )


def our_units(path: Path) -> list[Unit]:
    """redline's body paragraphs, as the lines LibreOffice would write them."""
    package = Package.open(path)
    view = build_view(package)
    numbering = numbering_of(package)
    numbered_styles = _numbered_styles(path)
    units: list[Unit] = []
    for para in view.paragraphs:
        if para.story != "body":
            continue
        p = para.element
        if _in_text_box(p):
            continue  # LibreOffice's text export writes no text box
        lines = view.text[para.start : para.end].split("\n")
        listed = _listed(p, numbered_styles)
        bullet = para.label is None and numbering.level(p) is not None
        for i, line in enumerate(lines):
            first = i == 0
            units.append(
                Unit(para.index, first, _key(line), para.label if first else None, listed, bullet and first)
            )
    return units


def libreoffice_lines(txt: str) -> list[str]:
    """LibreOffice's text export as lines, whitespace removed (a byte-order mark too)."""
    return [_key(line) for line in txt.lstrip("\ufeff").split("\n")]


def convert(
    docs: Sequence[Path], accepted: Sequence[Path] = (), soffice: str | None = None
) -> tuple[dict[str, str], dict[str, str]]:
    """LibreOffice's text export of ``docs``, and of ``accepted`` with every tracked change
    accepted by LibreOffice first (none without a Python that has ``uno``), by file name."""
    soffice = soffice or shutil.which("soffice")
    if soffice is None:
        return {}, {}
    with tempfile.TemporaryDirectory(prefix="numbering-oracle-") as tmp:
        plain, done = oracles.text_exports(docs, accepted, Path(tmp), soffice)
    return {d.name: t for d, t in plain.items()}, {d.name: t for d, t in done.items()}


@dataclass(frozen=True, slots=True)
class Changes:
    """Tracked paragraph-level changes of a document: why it is no fair oracle as it stands."""

    reason: str
    in_lists: bool
    """Whether a changed paragraph (or the one a deleted mark joins) is in a list."""


def paragraph_changes(path: Path) -> Changes | None:
    """The tracked paragraph-mark changes of ``path``, or None when it has none."""
    with zipfile.ZipFile(path) as z:
        member = next((m for m in z.namelist() if m.lower() == "word/document.xml"), None)
        if member is None:
            return None
        parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
        root = etree.fromstring(z.read(member), parser)
    w = root.tag.split("}")[0] + "}"
    found: dict[str, int] = {}
    touched: list[etree._Element] = []
    paragraphs = list(root.iter(f"{w}p"))
    for i, p in enumerate(paragraphs):
        marks = [m.tag[len(w) :] for m in p.iterfind(f"{w}pPr/{w}rPr/*") if isinstance(m.tag, str)]
        changed = [m for m in marks if m in ("ins", "del", "moveFrom", "moveTo")]
        for name in changed:
            found[name] = found.get(name, 0) + 1
        if changed:
            touched.append(p)
            if i + 1 < len(paragraphs) and ("del" in changed or "moveFrom" in changed):
                touched.append(paragraphs[i + 1])
    if not found:
        return None
    styles = _numbered_styles(path)
    what = ", ".join(f"{count} w:{name}" for name, count in sorted(found.items()))
    return Changes(f"tracked paragraph-mark changes ({what})", any(_listed(p, styles) for p in touched))


# ---------------------------------------------------------------------------------------------
# Alignment


def _fits(unit: Unit, line: str) -> int | None:
    """Where ``unit``'s text starts in LibreOffice's ``line`` (after its label), or None."""
    if line.endswith(unit.key) and len(line) - len(unit.key) <= (_MAX_LABEL if unit.first else 0):
        return len(line) - len(unit.key)
    if len(unit.key) >= 8:
        at = (
            line.find(unit.key[:8], 0, _MAX_LABEL + 8)
            if unit.first
            else (0 if line.startswith(unit.key[:8]) else -1)
        )
        if at >= 0 and difflib.SequenceMatcher(None, line[at:], unit.key, autojunk=False).ratio() >= 0.9:
            return at
    return None


def _weight(unit: Unit, line: str) -> int:
    """An empty paragraph is a weaker match for a line with text than for an empty one."""
    return 1 if not unit.key and line else 2


def _fill(units: Sequence[Unit], lines: Sequence[str], pairs: list[tuple[int, int, int]],
          u0: int, u1: int, l0: int, l1: int) -> None:  # fmt: skip
    """Align units[u0:u1] with lines[l0:l1] (a gap between anchors): the most pairs that fit,
    in order (a small longest-common-subsequence table; a greedy pass when the gap is big)."""
    n, m = u1 - u0, l1 - l0
    if n == 0 or m == 0:
        return
    if n * m > 250_000:
        j = l0
        for i in range(u0, u1):
            for k in range(j, min(l1, j + 40)):
                at = _fits(units[i], lines[k])
                if at is not None:
                    pairs.append((i, k, at))
                    j = k + 1
                    break
        return
    fit = [[_fits(units[u0 + i], lines[l0 + j]) for j in range(m)] for i in range(n)]
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            take = best[i + 1][j + 1] + _weight(units[u0 + i], lines[l0 + j]) if fit[i][j] is not None else 0
            best[i][j] = max(take, best[i + 1][j], best[i][j + 1])
    i = j = 0
    while i < n and j < m:
        at = fit[i][j]
        if at is not None and best[i][j] == best[i + 1][j + 1] + _weight(units[u0 + i], lines[l0 + j]):
            pairs.append((u0 + i, l0 + j, at))
            i, j = i + 1, j + 1
        elif best[i + 1][j] >= best[i][j + 1]:
            i += 1
        else:
            j += 1


def align(units: Sequence[Unit], lines: Sequence[str]) -> list[tuple[int, int, int]]:
    """(unit, line, where the unit's text starts in the line) for every unit found, in order.

    First pass: difflib on each side's last characters, which no label reaches (for text of
    at least that length); then every gap between those anchors is aligned unit by unit."""
    ours = [u.key[-_TAIL:] for u in units]
    theirs = [line[-_TAIL:] for line in lines]
    matcher = difflib.SequenceMatcher(None, ours, theirs, autojunk=False)
    pairs: list[tuple[int, int, int]] = []
    u = ln = 0
    for block in matcher.get_matching_blocks():
        _fill(units, lines, pairs, u, block.a, ln, block.b)
        for k in range(block.size):
            unit, line = units[block.a + k], lines[block.b + k]
            at = _fits(unit, line)
            pairs.append(
                (block.a + k, block.b + k, at if at is not None else max(0, len(line) - len(unit.key)))
            )
        u, ln = block.a + block.size, block.b + block.size
    return pairs


# ---------------------------------------------------------------------------------------------
# Comparison


@dataclass(frozen=True, slots=True)
class Difference:
    paragraph: int
    ours: str | None
    theirs: str | None  # None: the paragraph was not found in LibreOffice's text
    text: str


@dataclass
class Agreement:
    name: str
    numbered: int = 0  # paragraphs either side numbers (bullets aside)
    agreed: int = 0
    bullets: int = 0  # paragraphs redline puts at a bullet level of a list
    bullets_agreed: int = 0  # ... where LibreOffice shows a bullet
    typed: int = 0  # unlabelled paragraphs without w:numPr (nor a style's) that begin with a "label"
    unsure: int = 0  # unlabelled paragraphs whose text differs from LibreOffice's, after a prefix
    paragraphs: int = 0
    differences: list[Difference] = field(default_factory=list)
    excluded: str | None = None
    how: str = ""  # how a document with tracked paragraph-level changes was compared

    @property
    def share(self) -> float:
        return 1.0 if self.numbered == 0 else self.agreed / self.numbered

    @property
    def passed(self) -> bool:
        bullets = self.bullets_agreed >= THRESHOLD * self.bullets
        return self.excluded is not None or (self.share >= THRESHOLD and bullets)

    def line(self) -> str:
        if self.excluded is not None:
            return f"{self.name}: excluded: {self.excluded}"
        return (
            f"{self.name}: {self.agreed}/{self.numbered} numbered paragraphs agree "
            f"({100 * self.share:.1f}%), {self.bullets_agreed}/{self.bullets} bullets, "
            f"{self.paragraphs} paragraphs"
            + (f", {self.unsure} unsure" if self.unsure else "")
            + (f", {self.typed} typed" if self.typed else "")
            + (f" ({self.how})" if self.how else "")
        )


def compare(name: str, units: Sequence[Unit], txt: str) -> Agreement:
    """How far redline's labels (``units``) agree with LibreOffice's text export ``txt``."""
    lines = libreoffice_lines(txt)
    result = Agreement(name, paragraphs=sum(u.first for u in units))
    found = {i: (j, at) for i, j, at in align(units, lines)}
    for i, unit in enumerate(units):
        if not unit.first:
            continue
        ours = _key(unit.label) if unit.label else ""
        where = found.get(i)
        if where is None:
            if ours:  # a label we give to a paragraph the alignment did not reach counts against
                result.numbered += 1
                result.differences.append(Difference(unit.paragraph, unit.label, None, unit.key[:40]))
            continue
        j, at = where
        theirs = lines[j][:at]
        if not ours and theirs and not unit.listed:
            result.typed += 1  # no list property anywhere: LibreOffice shows typed text there
            continue
        if not ours and theirs and not lines[j].endswith(unit.key):
            # The texts differ (a field, a revision read otherwise): what LibreOffice writes
            # before the text may be text, not a label. Unsure either way: not counted.
            result.unsure += 1
            continue
        if unit.bullet:
            result.bullets += 1
            result.bullets_agreed += _is_bullet(theirs)
        if not ours and _is_bullet(theirs):
            continue
        if not ours and not theirs:
            continue
        result.numbered += 1
        if ours == theirs:
            result.agreed += 1
        else:
            result.differences.append(Difference(unit.paragraph, unit.label, theirs, unit.key[:40]))
    return result


def check(docs: Iterable[Path], soffice: str | None = None) -> list[Agreement]:
    """Every document of ``docs`` compared with LibreOffice (or excluded, with the reason).

    A document with tracked paragraph-level changes is compared once LibreOffice has accepted
    them; when it cannot, with its changes shown, if no changed paragraph is in a list."""
    docs = list(docs)
    changed = {doc.name: found for doc in docs if (found := paragraph_changes(doc)) is not None}
    texts, accepted = convert(docs, [d for d in docs if d.name in changed], soffice)
    results: list[Agreement] = []
    for doc in docs:
        changes = changed.get(doc.name)
        how = ""
        txt = texts.get(doc.name)
        if changes is not None:
            txt, how = accepted.get(doc.name), "tracked changes accepted by LibreOffice"
            if txt is None and not changes.in_lists:
                txt, how = texts.get(doc.name), "with tracked changes shown: none is in a list"
        if txt is None:
            why = "" if changes is None else f"{changes.reason}, in lists, not accepted by LibreOffice"
            results.append(Agreement(doc.name, excluded=why or "LibreOffice did not convert it"))
            continue
        try:
            units = our_units(doc)
        except PackageError as exc:
            results.append(Agreement(doc.name, excluded=f"redline refuses it ({exc.code})"))
            continue
        result = compare(doc.name, units, txt)
        result.how = how
        results.append(result)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.numbering_oracle", description=__doc__.split("\n")[0]
    )
    parser.add_argument("paths", nargs="*", type=Path, help="documents or folders (default: $REDLINE_CORPUS)")
    parser.add_argument("--all", action="store_true", help="print every difference, not the first 20")
    args = parser.parse_args(argv)
    paths: list[Path] = args.paths or (
        [Path(os.environ["REDLINE_CORPUS"])] if os.environ.get("REDLINE_CORPUS") else []
    )
    docs = sorted(d for p in paths for d in (p.glob("*.docx") if p.is_dir() else [p]))
    if not docs:
        parser.error("no documents: name some, or set REDLINE_CORPUS")
    if shutil.which("soffice") is None:
        parser.error("LibreOffice (soffice) is not installed")
    results = check(docs)
    total = agreed = 0
    for result in results:
        print(result.line())
        total, agreed = total + result.numbered, agreed + result.agreed
        shown = result.differences if args.all else result.differences[:20]
        for d in shown:
            print(f"    paragraph {d.paragraph}: redline {d.ours!r}, LibreOffice {d.theirs!r}: {d.text}")
        if len(shown) < len(result.differences):
            print(f"    … {len(result.differences) - len(shown)} more")
    print(f"all: {agreed}/{total} numbered paragraphs agree; "
          f"{sum(not r.passed for r in results)} documents below {100 * THRESHOLD:.1f}%")  # fmt: skip
    return 0 if all(r.passed for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
