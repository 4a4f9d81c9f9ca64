"""Other word-processing formats to .docx and back, through LibreOffice, and what the way lost.

A counterparty may send a contract back as ``.doc``, ``.rtf`` or ``.odt``; :func:`to_docx`
gives the ``.docx`` LibreOffice writes for it and the :class:`Loss`\\ es it could tell the
conversion caused; :func:`from_docx` is the reverse (what a format keeps of a ``.docx``).

**The process.** LibreOffice's command line (``soffice --headless --convert-to``), not its UNO
bridge: UNO needs LibreOffice's own Python (``python3-uno``, a system package no virtual
environment holds) and a long-lived office process to talk to, whose lifetime is then ours to
manage; one ``--convert-to`` run is one process tree that starts, writes one file and ends.
Every run:

* gets a fresh temporary folder of its own -- the input copied in (LibreOffice never sees the
  caller's path, so the input is untouched whatever it does), the output folder, and a fresh
  LibreOffice profile (``-env:UserInstallation``), so parallel runs never share a profile or
  a lock, and ``HOME`` / ``TMPDIR`` pointing inside it; the folder is removed afterwards;
* starts with a profile that disables macros and blocks links to untrusted places;
* runs in a process group of its own, with a file-size limit (no file it writes can exceed
  :data:`MAX_OUTPUT_BYTES`), for at most ``timeout`` seconds: the whole group is killed when
  it overruns, and killed again (it must be gone) when it ends, so no LibreOffice process is
  ever left behind;
* names its import filter (``--infilter``): a file that is not what its suffix says is not
  read as plain text but refused.

The converted bytes are loaded like any input (:class:`~redline.opc.package.Package`, every
limit of the hostile-input checks): a conversion that yields a hostile or oversized package is
refused with the loader's own code.  What cannot be converted -- LibreOffice missing, failing,
overrunning its time, an input that is not the format its suffix names -- is a
:class:`~redline.errors.PackageError` ``conversion_failed``.

**What is lost.** :func:`to_docx` counts, in the source and in the ``.docx``, the tracked
insertions, deletions, moves and format changes and the comments (:class:`Marks`), and reports
every kind the ``.docx`` holds fewer of (:func:`losses`):

* ``.odt`` is a zip of XML: ``text:changed-region`` elements (``text:insertion``,
  ``text:deletion``, ``text:format-change``), ``office:annotation`` elements, and the moves
  LibreOffice marks with ``__RefMoveFrom__`` / ``__RefMoveTo__`` bookmarks (ODF has no
  tracked move of its own);
* ``.rtf`` is text: runs under ``\\revised`` (insertions), ``\\deleted`` and ``\\crauth``
  (format changes), ``\\annotation`` groups, and the same move bookmarks; adjacent runs of one
  author and date are one change, as every reader takes them;
* ``.doc`` is binary, and no reader of ours parses it: what is counted is LibreOffice's own
  reading of it (the ``.odt`` LibreOffice writes for the ``.doc`` in a second run -- its native
  format, a faithful dump of its model), so a loss between that reading and the ``.docx`` is
  reported; what LibreOffice's ``.doc`` import itself drops cannot be known.  The one thing
  known to be lost there, tracked moves (a ``.doc`` read by LibreOffice has none: each becomes
  a deletion and an insertion), is reported when the ``.docx`` holds a deletion and an
  insertion of the same text by the same author: a move, most likely.

A ``.docx`` change is counted as a reader sees it: a stretch of text (and paragraph marks)
under changes of one kind, author and date, whatever the ``w:id``\\ s (LibreOffice writes one
``w:ins`` per run).  A count can hide a loss that another change's split makes up for; the
kinds are counted separately, so that needs two faults of one kind in one document.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from lxml import etree

from shared_schema import Code

from ..errors import PackageError
from .inputs import CONVERTIBLE as CONVERTIBLE  # (defined with the inputs, named here too)
from .inputs import read_regular
from .namespaces import REL_COMMENTS, REL_ENDNOTES, REL_FOOTNOTES, W_NS
from .package import Package
from .parts import NameCheck
from .xmlparse import parse_xml
from .zipread import DEFAULT_LIMITS, Archive

__all__ = [
    "CONVERTIBLE",
    "DEFAULT_TIMEOUT",
    "MAX_OUTPUT_BYTES",
    "SOFFICE_ENV",
    "Loss",
    "Marks",
    "docx_marks",
    "from_docx",
    "losses",
    "odt_marks",
    "rtf_marks",
    "soffice",
    "to_docx",
]


DEFAULT_TIMEOUT: Final = 120.0
"""Seconds one LibreOffice run may take before its process group is killed (a 300-page
contract converts in well under half of it on one core)."""

MAX_OUTPUT_BYTES: Final = DEFAULT_LIMITS.max_file_bytes
"""The most any file LibreOffice writes may hold (the loader's own bound on a file): the
process's file-size limit, and checked again before the output is read."""

SOFFICE_ENV: Final = "REDLINE_SOFFICE"
"""The environment variable naming the LibreOffice binary to run (default: ``soffice`` on
``PATH``, then ``libreoffice``)."""

# the filters: import (--infilter) by format, export (--convert-to) by suffix
_IMPORT: Final = {
    ".doc": "MS Word 97",
    ".rtf": "Rich Text Format",
    ".odt": "writer8",
    ".docx": "MS Word 2007 XML",
}
_EXPORT: Final = {
    ".docx": "docx:MS Word 2007 XML",
    ".doc": "doc:MS Word 97",
    ".rtf": "rtf:Rich Text Format",
    ".odt": "odt:writer8",
}
_NAMES: Final = {
    ".doc": "Word 97-2003 (.doc)",
    ".rtf": "RTF",
    ".odt": "OpenDocument (.odt)",
    ".docx": ".docx",
}

_OLE_MAGIC: Final = bytes.fromhex("D0CF11E0A1B11AE1")
_RTF_MAGIC: Final = b"{\\rtf"
_ZIP_MAGIC: Final = b"PK\x03\x04"
_ODT_MIMETYPE: Final = b"application/vnd.oasis.opendocument.text"

# the profile a run starts with: no macro runs, no link to an untrusted place is followed,
# no first-start wizard or update check
_SETTINGS: Final = (
    ("Office.Common/Security/Scripting", "MacroSecurityLevel", "3"),
    ("Office.Common/Security/Scripting", "DisableMacrosExecution", "true"),
    ("Office.Common/Security/Scripting", "BlockUntrustedRefererLinks", "true"),
    ("Office.Common/Misc", "FirstRun", "false"),
    ("Setup/Office", "ooSetupInstCompleted", "true"),
)
_PROFILE: Final = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<oor:items xmlns:oor="http://openoffice.org/2001/registry" '
    'xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n'
    + "".join(
        f'<item oor:path="/org.openoffice.{path}"><prop oor:name="{name}" oor:op="fuse">'
        f"<value>{value}</value></prop></item>\n"
        for path, name, value in _SETTINGS
    )
    + "</oor:items>\n"
)

# runs the command with a file-size limit, then becomes it (exec: the same process, so the
# same process group); a trampoline rather than preexec_fn, which is unsafe with threads
_LIMITED: Final = (
    "import os, resource, signal, sys\n"
    "n = int(sys.argv[1])\n"
    "signal.signal(signal.SIGXFSZ, signal.SIG_DFL)\n"  # (Python ignores both; exec keeps that)
    "signal.signal(signal.SIGPIPE, signal.SIG_DFL)\n"
    "resource.setrlimit(resource.RLIMIT_FSIZE, (n, n))\n"
    "resource.setrlimit(resource.RLIMIT_CORE, (0, 0))\n"
    "os.execvp(sys.argv[2], sys.argv[2:])\n"
)


@dataclass(frozen=True)
class Loss:
    """One thing a conversion lost: ``what`` (``"tracked moves"``, ``"comments"``, ``"tracked
    deletions"``...), ``count`` (how many, where known), ``message`` (one sentence for a
    lawyer)."""

    what: str
    count: int | None
    message: str

    def to_warning(self) -> dict[str, str]:
        """The loss as the reports and ``view --json`` list a warning:
        ``{"code": "lossy_conversion", "message": …}``."""
        return {"code": Code.LOSSY_CONVERSION.value, "message": self.message}


@dataclass(frozen=True)
class Marks:
    """What a document holds that a conversion can lose: tracked insertions and deletions
    (a move's two sides counted among them too), moves, format changes, comments."""

    insertions: int = 0
    deletions: int = 0
    moves: int = 0
    formats: int = 0
    comments: int = 0
    moved_pairs: int = field(default=0, compare=False)
    """(A ``.docx``'s count only.) Deletions whose very text the same author inserted
    elsewhere, not marked as a move: moves, most likely, that came through as two changes."""


# --- running LibreOffice -------------------------------------------------------------------------


def soffice() -> str | None:
    """The LibreOffice binary: :data:`SOFFICE_ENV` when set (a name on ``PATH`` or a path),
    else ``soffice`` or ``libreoffice`` on ``PATH``; None when there is none."""
    named = os.environ.get(SOFFICE_ENV)
    if named:
        return shutil.which(named) or (named if os.sep in named and os.access(named, os.X_OK) else None)
    return shutil.which("soffice") or shutil.which("libreoffice")


def _failed(message: str) -> PackageError:
    return PackageError(Code.CONVERSION_FAILED, message)


def _tail(path: Path) -> str:
    """The last line LibreOffice said (its error, when it failed), or ``""``."""
    try:
        with path.open("rb") as fh:
            fh.seek(max(0, path.stat().st_size - 2000))
            text = fh.read().decode("utf-8", "replace")
    except OSError:
        return ""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and "javaldx" not in ln]
    return lines[-1] if lines else ""


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _convert(
    data: bytes, suffix: str, targets: tuple[str, ...], timeout: float, binary: str | None
) -> list[bytes]:
    """``data`` (a ``suffix`` file) converted to each of ``targets`` (suffixes of
    :data:`_EXPORT`), one LibreOffice run each, within ``timeout`` seconds in all, in a folder
    and profile of their own (the runs are sequential: they share it) and a process group
    each (see the module)."""
    program = binary or soffice()
    if program is None:
        raise _failed(
            f"Cannot convert the {_NAMES[suffix]} file: LibreOffice (soffice) is not installed "
            f"or not on PATH (set {SOFFICE_ENV} to its path)."
        )
    deadline = time.monotonic() + timeout
    work = Path(tempfile.mkdtemp(prefix="redline-convert-"))
    try:
        profile, outdir, tmp = work / "profile", work / "out", work / "tmp"
        for folder in (profile / "user", outdir, tmp):
            folder.mkdir(parents=True)
        (profile / "user" / "registrymodifications.xcu").write_text(_PROFILE, encoding="utf-8")
        source = work / f"input{suffix}"
        source.write_bytes(data)
        env = {**os.environ, "HOME": str(work), "TMPDIR": str(tmp), "SAL_USE_VCLPLUGIN": "svp"}
        results = []
        for target in targets:
            command = [
                sys.executable, "-S", "-c", _LIMITED, str(MAX_OUTPUT_BYTES), program,
                f"-env:UserInstallation={profile.as_uri()}",
                "--headless", "--invisible", "--nologo", "--norestore", "--nodefault", "--nolockcheck",
                f"--infilter={_IMPORT[suffix]}", "--convert-to", _EXPORT[target],
                "--outdir", str(outdir), str(source),
            ]  # fmt: skip
            log = work / f"soffice{target}.log"
            status = _run(command, env, work, log, deadline, program)
            if status is None:
                raise _failed(
                    f"LibreOffice did not convert the {_NAMES[suffix]} file within {timeout:g} "
                    "seconds; it was stopped."
                )
            result = outdir / f"input{target}"
            if result.is_file() and result.stat().st_size >= MAX_OUTPUT_BYTES:  # stopped there
                raise _failed(
                    f"LibreOffice's {target} output for the {_NAMES[suffix]} file reached the size "
                    f"limit of {MAX_OUTPUT_BYTES:,} bytes."
                )
            if status != 0:  # (LibreOffice exits 0 when it converts, and when it cannot load)
                how = f"was killed by signal {-status}" if status < 0 else f"exited with status {status}"
                raise _failed(f"LibreOffice {how} converting the {_NAMES[suffix]} file.")
            if not result.is_file():
                said = _tail(log)
                why = f": {said}" if said else ""
                raise _failed(f"LibreOffice could not convert the {_NAMES[suffix]} file to {target}{why}.")
            results.append(read_regular(result, MAX_OUTPUT_BYTES, f"converted {target}"))
        return results
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _run(
    command: list[str], env: dict[str, str], cwd: Path, log: Path, deadline: float, program: str
) -> int | None:
    """Run ``command`` in a process group of its own until ``deadline`` (``time.monotonic``);
    its exit status, or None when it overran (the group killed).  The group is killed when the
    command ends too, whatever it left running; nothing of it outlives this call."""
    with log.open("wb") as out:
        try:
            proc = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                env=env, cwd=cwd, start_new_session=True, close_fds=True,
            )  # fmt: skip
        except OSError as exc:
            raise _failed(f"Cannot start LibreOffice ({program}): {exc.strerror or exc}.") from None
        try:
            return proc.wait(timeout=max(deadline - time.monotonic(), 0.0))
        except subprocess.TimeoutExpired:
            return None
        finally:
            _kill_group(proc.pid)  # an overrun, or whatever it left running in its group
            proc.wait()


def _check_signature(data: bytes, suffix: str) -> str:
    """The format ``data`` really is (``.rtf`` for a ``.doc`` that holds RTF, as Word's own
    "save as .doc" of an RTF does), or ``conversion_failed`` when it is not ``suffix``."""
    if not data:
        raise PackageError(Code.EMPTY_FILE, f"The {_NAMES[suffix]} file is empty (0 bytes).")
    if suffix == ".doc":
        if data.startswith(_OLE_MAGIC):
            return ".doc"
        if data.startswith(_RTF_MAGIC):
            return ".rtf"
        why = "it is not a Word 97-2003 binary (OLE) file"
    elif suffix == ".rtf":
        if data.startswith(_RTF_MAGIC):
            return ".rtf"
        why = "it does not begin with {\\rtf"
    else:
        if data.startswith(_ZIP_MAGIC):
            return ".odt"
        why = "it is not a zip archive"
    raise _failed(f"Cannot convert the file: {why}, so it is not a {_NAMES[suffix]} file.")


def to_docx(
    path: Path, *, timeout: float = DEFAULT_TIMEOUT, binary: str | None = None
) -> tuple[bytes, list[Loss]]:
    """The ``.docx`` bytes LibreOffice writes for the ``.doc``, ``.rtf`` or ``.odt`` file at
    ``path`` (its suffix, in :data:`CONVERTIBLE`, names the format), and what the conversion
    could be told to have lost (:func:`losses`).

    The file is read like every input (a regular file within the loader's size limit); the
    output is loaded under every limit of :class:`~redline.opc.package.Package` (a hostile
    result is refused with the loader's code).  Raises :class:`PackageError`
    ``conversion_failed`` when LibreOffice is missing, fails or overruns ``timeout`` seconds,
    or the file is not the format its suffix names.  ``binary``: the LibreOffice to run
    (default: :func:`soffice`).
    """
    suffix = Path(path).suffix.lower()
    if suffix not in CONVERTIBLE:
        raise ValueError(f"to_docx converts {sorted(CONVERTIBLE)}, not {suffix!r}")
    data = read_regular(path, DEFAULT_LIMITS.max_file_bytes, "document")
    kind = _check_signature(data, suffix)
    before = odt_marks(data) if kind == ".odt" else rtf_marks(data) if kind == ".rtf" else None
    # a .doc: LibreOffice's own reading of it too, in its native format
    targets = (".docx",) if before is not None else (".docx", ".odt")
    converted = _convert(data, kind, targets, timeout, binary)
    out = converted[0]
    package = Package.from_bytes(out)  # every limit of the loader, before anything reads it
    after = docx_marks(package)
    if before is None:
        before = odt_marks(converted[1])
    return out, losses(before, after, kind)


def from_docx(
    data: bytes, suffix: str, *, timeout: float = DEFAULT_TIMEOUT, binary: str | None = None
) -> bytes:
    """The ``.doc``, ``.rtf`` or ``.odt`` (``suffix``) bytes LibreOffice writes for the
    ``.docx`` ``data`` -- what that format keeps of it.  ``data`` is loaded under the loader's
    limits first (a refused document raises the loader's :class:`PackageError`); LibreOffice
    missing, failing or overrunning ``timeout`` is ``conversion_failed``."""
    target = suffix.lower()
    if target not in CONVERTIBLE:
        raise ValueError(f"from_docx writes {sorted(CONVERTIBLE)}, not {suffix!r}")
    Package.from_bytes(data)
    return _convert(data, ".docx", (target,), timeout, binary)[0]


# --- what is lost ----------------------------------------------------------------------------------


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def losses(before: Marks, after: Marks, suffix: str) -> list[Loss]:
    """Every kind of mark the ``.docx`` (``after``) holds fewer of than the ``suffix`` source
    (``before``), as a :class:`Loss`, and the probable moves that came through as a deletion
    and an insertion."""
    name = _NAMES.get(suffix, suffix)
    found: list[Loss] = []
    moves = max(before.moves - after.moves, 0)
    if moves:
        found.append(
            Loss(
                "tracked moves",
                moves,
                f"{_plural(moves, 'tracked move', 'tracked moves')} of the {name} file came through "
                "the conversion as a plain deletion and insertion, not as a move.",
            )
        )
    elif after.moved_pairs and suffix == ".doc":
        n = after.moved_pairs
        found.append(
            Loss(
                "tracked moves",
                n,
                f"{_plural(n, 'deletion', 'deletions')} in the {name} file "
                f"{'has its' if n == 1 else 'have their'} very text inserted elsewhere by the same "
                "author: most likely tracked moves, which a .doc read by LibreOffice keeps only "
                "as a deletion and an insertion.",
            )
        )
    for what, attr, one, many in (
        ("tracked deletions", "deletions", "tracked deletion", "tracked deletions"),
        ("tracked insertions", "insertions", "tracked insertion", "tracked insertions"),
        ("tracked format changes", "formats", "tracked format change", "tracked format changes"),
        ("comments", "comments", "comment", "comments"),
    ):
        had, has = getattr(before, attr), getattr(after, attr)
        if has < had:
            n = had - has
            tail = " (lost, or merged with a neighbour)" if attr != "comments" else ""
            found.append(
                Loss(
                    what,
                    n,
                    f"{_plural(n, one, many)} of the {had} in the {name} file "
                    f"{'is' if n == 1 else 'are'} missing from the converted document{tail}.",
                )
            )
    return found


# --- .docx -----------------------------------------------------------------------------------------

_W = f"{{{W_NS}}}"
_TEXT_TAGS: Final = frozenset(
    _W + t for t in ("t", "delText", "tab", "br", "cr", "sym", "noBreakHyphen", "softHyphen")
)
_CHANGE_TAGS: Final = {_W + "ins": "ins", _W + "del": "del", _W + "moveFrom": "from", _W + "moveTo": "to"}
_STOP: Final = frozenset({_W + "p", _W + "body", _W + "tc"})


@dataclass
class _Tally:
    """Stretches of units under one key, counted as they start (adjacent units of one key are
    one stretch); the text of each stretch kept for the move pairs."""

    counts: dict[str, int] = field(default_factory=dict)
    texts: list[tuple[tuple[str, str, str], list[str]]] = field(default_factory=list)
    _last: tuple[str, str, str] | None = None

    def unit(self, key: tuple[str, str, str] | None, text: str = "") -> None:
        if key is not None and key != self._last:
            self.counts[key[0]] = self.counts.get(key[0], 0) + 1
            self.texts.append((key, []))
        if key is not None:
            self.texts[-1][1].append(text)
        self._last = key

    def count(self, *kinds: str) -> int:
        return sum(self.counts.get(k, 0) for k in kinds)


def _key(el: etree._Element, kind: str) -> tuple[str, str, str]:
    return (kind, el.get(_W + "author", ""), el.get(_W + "date", ""))


def _change_of(el: etree._Element) -> tuple[str, str, str] | None:
    for up in el.iterancestors():
        kind = _CHANGE_TAGS.get(up.tag)
        if kind is not None:
            return _key(up, kind)
        if up.tag in _STOP:
            return None
    return None


def _docx_units(root: etree._Element, changes: _Tally, formats: _Tally) -> None:
    for event, el in etree.iterwalk(root, events=("start", "end")):
        tag = el.tag
        if event == "start" and tag in _TEXT_TAGS:
            run = el.getparent()
            if run is None or run.tag != _W + "r":
                continue
            changes.unit(_change_of(el), el.text or "\t")
            fmt = run.find(f"{_W}rPr/{_W}rPrChange")
            formats.unit(None if fmt is None else _key(fmt, "fmt"))
        elif event == "end" and tag == _W + "p":
            mark = el.find(f"{_W}pPr/{_W}rPr")
            key = None
            if mark is not None:
                for child in mark:
                    kind = _CHANGE_TAGS.get(child.tag)
                    if kind is not None:
                        key = _key(child, kind)
                        break
            changes.unit(key, "\n")
            fmt = el.find(f"{_W}pPr/{_W}pPrChange")
            formats.unit(None if fmt is None else _key(fmt, "fmt"))


def _norm(text: str) -> str:
    return " ".join(text.split())


def _moved_pairs(tally: _Tally) -> int:
    """Deletions whose text (10 characters or more) the same author inserted elsewhere."""
    inserted: dict[tuple[str, str], int] = {}
    for (kind, author, _), parts in tally.texts:
        if kind == "ins":
            text = _norm("".join(parts))
            inserted[(author, text)] = inserted.get((author, text), 0) + 1
    pairs = 0
    for (kind, author, _), parts in tally.texts:
        text = _norm("".join(parts))
        if kind == "del" and len(text) >= 10 and inserted.get((author, text), 0) > 0:
            inserted[(author, text)] -= 1
            pairs += 1
    return pairs


def docx_marks(package: Package) -> Marks:
    """The marks of a loaded ``.docx``: its main document, footnotes and endnotes (tracked
    changes: stretches of one kind, author and date; a paragraph mark is one unit at its
    paragraph's end), and the comments of its comments part."""
    changes, formats = _Tally(), _Tally()
    parts = [package.main_part]
    for rel in (REL_FOOTNOTES, REL_ENDNOTES):
        parts.extend(package.related(package.main_part, rel))
    for name in parts:
        _docx_units(package.xml(name), changes, formats)
    comments = 0
    for name in package.related(package.main_part, REL_COMMENTS):
        comments += sum(1 for _ in package.xml(name).iter(_W + "comment"))
    return Marks(
        insertions=changes.count("ins", "to"),
        deletions=changes.count("del", "from"),
        moves=changes.count("from"),
        formats=formats.count("fmt"),
        comments=comments,
        moved_pairs=_moved_pairs(changes),
    )


# --- .odt ------------------------------------------------------------------------------------------

_TEXT_NS: Final = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
_OFFICE_NS: Final = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
_MOVE_MARK: Final = re.compile(r"^__RefMove(?:From|To)__(.+)$")


def odt_marks(data: bytes) -> Marks:
    """The marks of an ``.odt`` (its ``content.xml``, read under the loader's zip limits):
    ``text:changed-region`` by kind, ``office:annotation``\\ s, and LibreOffice's move
    bookmarks.  Raises :class:`PackageError` for a zip the limits refuse, and
    ``conversion_failed`` for one that is no OpenDocument text."""
    archive = Archive(data, DEFAULT_LIMITS, NameCheck())
    mimetype = archive.by_name.get("mimetype")
    if mimetype is not None and archive.inflate(mimetype).strip() != _ODT_MIMETYPE:
        raise _failed("Cannot convert the file: it is an OpenDocument file, but not a text document.")
    member = archive.by_name.get("content.xml")
    if member is None:
        raise _failed("Cannot convert the file: the zip holds no content.xml, so it is not an .odt.")
    xml = archive.inflate(member)
    if xml.count(b"<") > DEFAULT_LIMITS.max_markup:
        raise PackageError(
            Code.TOO_COMPLEX,
            f"The .odt's content.xml holds more than {DEFAULT_LIMITS.max_markup:,} tags.",
            "content.xml",
        )
    root = parse_xml(xml, "content.xml")
    t, o = f"{{{_TEXT_NS}}}", f"{{{_OFFICE_NS}}}"
    kinds = {"insertion": 0, "deletion": 0, "format-change": 0}
    for region in root.iter(t + "changed-region"):
        for child in region:
            name = etree.QName(child).localname
            if name in kinds:
                kinds[name] += 1
    moves = set()
    for tag in (t + "bookmark-start", t + "bookmark"):
        for mark in root.iter(tag):
            m = _MOVE_MARK.match(mark.get(t + "name", ""))
            if m:
                moves.add(m.group(1))
    return Marks(
        insertions=kinds["insertion"],
        deletions=kinds["deletion"],
        moves=len(moves),
        formats=kinds["format-change"],
        comments=sum(1 for _ in root.iter(o + "annotation")),
    )


# --- .rtf ------------------------------------------------------------------------------------------

_RTF_TOKEN: Final = re.compile(
    rb"\\([a-zA-Z]{1,32})(-?\d{1,10})? ?|\\'([0-9a-fA-F]{2})|\\(.)|([{}])|([\r\n]+)|([^\\{}\r\n]+)",
    re.DOTALL,
)
# groups whose text is not the document's body or notes
_RTF_SKIP: Final = frozenset(
    {
        "fonttbl", "colortbl", "stylesheet", "info", "revtbl", "listtable", "listoverridetable",
        "pict", "object", "header", "headerl", "headerr", "headerf", "footer", "footerl",
        "footerr", "footerf", "fldinst", "datafield", "themedata", "colorschememapping",
        "latentstyles", "rsidtbl", "generator", "xmlnstbl", "mmathPr", "pgdsctbl", "filetbl",
        "listpicture", "fldtype", "ftnsep", "ftnsepc", "aftnsep", "aftnsepc", "userprops",
    }
)  # fmt: skip
_RTF_TEXT_WORDS: Final = frozenset(
    {
        "par", "tab", "line", "cell", "row", "emdash", "endash", "u", "lquote", "rquote",
        "ldblquote", "rdblquote", "bullet", "sect",
    }
)  # fmt: skip


@dataclass
class _RtfState:
    skip: bool = False
    ins: bool = False
    dele: bool = False
    auth: int = 0
    dttm: int = 0
    authdel: int = 0
    dttmdel: int = 0
    crauth: int | None = None
    crdate: int = 0
    bookmark: bool = False

    def copy(self) -> _RtfState:
        return _RtfState(**self.__dict__)


def _rtf_tokens(data: bytes) -> Iterator[tuple[str, str, int | None]]:
    """(kind, value, parameter): ``word``, ``sym``, ``open``, ``close``, ``text``; ``\\binN``'s
    bytes skipped."""
    at = 0
    size = len(data)
    while at < size:
        m = _RTF_TOKEN.match(data, at)
        if m is None:  # a lone backslash at the end
            return
        at = m.end()
        word, param, hexa, sym, brace, _, text = m.groups()
        if word is not None:
            n = int(param) if param is not None else None
            if word == b"bin" and n is not None and n > 0:
                at += n
                continue
            yield "word", word.decode("ascii"), n
        elif hexa is not None:
            yield "text", "'", None
        elif sym is not None:
            yield "sym", sym.decode("latin-1"), None
        elif brace is not None:
            yield ("open" if brace == b"{" else "close"), "", None
        elif text is not None:
            yield "text", text.decode("latin-1"), None


def rtf_marks(data: bytes) -> Marks:
    """The marks of an ``.rtf``: runs of text (and paragraph marks) under ``\\revised``
    (insertions) and ``\\deleted``, adjacent runs of one author and date being one change,
    runs under ``\\crauth`` (format changes) likewise, ``\\annotation`` groups, and
    LibreOffice's move bookmarks.  Text in tables of fonts, styles, headers and the like is
    not the body's and is not counted."""
    stack: list[_RtfState] = [_RtfState()]
    changes, formats = _Tally(), _Tally()
    comments = 0
    moves: set[str] = set()
    bookmark: list[str] = []
    first = False  # the token after "{": a destination's name
    starred = False
    for kind, value, n in _rtf_tokens(data):
        state = stack[-1]
        if kind == "open":
            stack.append(state.copy())
            first, starred = True, False
            continue
        if kind == "close":
            if state.bookmark and bookmark:
                m = _MOVE_MARK.match("".join(bookmark).strip())
                if m:
                    moves.add(m.group(1))
                bookmark.clear()
            if len(stack) > 1:
                stack.pop()
            first = starred = False
            continue
        if kind == "sym" and value == "*" and first:
            starred = True
            continue
        if kind == "word":
            if first or starred:
                if value == "annotation":
                    comments += 1
                    state.skip = True
                elif value == "bkmkstart":
                    state.skip, state.bookmark = True, True
                elif value in _RTF_SKIP or starred:
                    state.skip = True
            first = starred = False
            if value == "revised":
                state.ins = n != 0
            elif value == "deleted":
                state.dele = n != 0
            elif value == "revauth":
                state.auth = n or 0
            elif value == "revdttm":
                state.dttm = n or 0
            elif value == "revauthdel":
                state.authdel = n or 0
            elif value == "revdttmdel":
                state.dttmdel = n or 0
            elif value == "crauth":
                state.crauth = n or 0
            elif value == "crdate":
                state.crdate = n or 0
            elif value == "plain":
                state.crauth = None
                state.ins = state.dele = False
            if value not in _RTF_TEXT_WORDS or state.skip:
                continue
        elif kind == "text":
            first = starred = False
            if state.bookmark:
                bookmark.append(value)
                continue
            if state.skip:
                continue
        else:  # a control symbol: \~ \- \_ and the like are text
            first = starred = False
            if state.skip:
                continue
        if state.dele:
            change: tuple[str, str, str] | None = ("del", str(state.authdel), str(state.dttmdel))
        elif state.ins:
            change = ("ins", str(state.auth), str(state.dttm))
        else:
            change = None
        changes.unit(change)
        formats.unit(None if state.crauth is None else ("fmt", str(state.crauth), str(state.crdate)))
    return Marks(
        insertions=changes.count("ins"),
        deletions=changes.count("del"),
        moves=len(moves),
        formats=formats.count("fmt"),
        comments=comments,
    )
