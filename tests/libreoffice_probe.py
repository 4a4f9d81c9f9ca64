"""What LibreOffice makes of documents: whether each loads, its text as stored, with every
tracked change accepted and with every one rejected, and its comments with where they stand.

Run by a Python that has LibreOffice's ``uno`` module (Debian's ``python3-uno``:
``/usr/bin/python3``), not by the project's virtual environment:

    /usr/bin/python3 tests/libreoffice_probe.py OUT.json PROFILE_URL DOC.docx ...

One headless LibreOffice (a profile of its own, ``PROFILE_URL``, a ``file://`` URL of an empty
folder) opens a copy of each document twice over UNO: once to read it as stored, its comments
and then every change accepted (``.uno:AcceptAllTrackedChanges``), once to reject every change
(``.uno:RejectAllTrackedChanges``).  OUT.json maps each document's path to::

    {"loaded": true, "error": null, "stored": "...", "accepted": "...", "rejected": "...",
     "stored_notes": ["..."], "accepted_notes": [...], "rejected_notes": [...],
     "stored_fields": 2, "accepted_fields": 1, "rejected_fields": 2,
     "accepted_body": ["...", ...],  (the body's paragraphs accepted, no note reference marks)
     "redlines": 3, "comments": [{"author": "...", "content": "...", "anchor": "...",
                                  "story": "body" | "note" | "other", "holds": ["Footnote"]}]}

``holds`` lists the kinds of text portion (LibreOffice's ``TextPortionType``) between a
body comment's start and its end: ``"Footnote"`` there is a comment anchored on a note's
reference mark.  A document LibreOffice cannot open (it crashes, hangs or returns nothing) is
``"loaded": false`` with the error; one it opened but then failed on (accepting, say) is
``"loaded": true`` with the error and what was read before it.  After an error LibreOffice is
started afresh for the next document.
Imports nothing of the project.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import tempfile
import threading
from typing import Any

import uno  # type: ignore[import-not-found]
from libreoffice_uno import ACCEPT, REJECT, decide, open_docx, stop  # type: ignore[import-not-found]
from libreoffice_uno import office as start_office
from libreoffice_uno import prop as _prop

_PER_DOCUMENT = 120.0  # seconds LibreOffice may take over one document


class _Office:
    """One LibreOffice of the shared bootstrap (``libreoffice_uno``), kept for many documents."""

    def __init__(self, profile: str, pipe: str) -> None:
        self.proc, self.ctx = start_office(profile, pipe)

    def load(self, path: str) -> Any:
        """The document at ``path`` opened hidden."""
        comp, _, self.dispatcher = open_docx(self.ctx, path)
        return comp

    def stop(self) -> None:
        stop(self.proc, self.ctx)


def _text(comp: Any, work: str) -> str:
    path = os.path.join(work, "export.txt")
    url = uno.systemPathToFileUrl(path)
    comp.storeToURL(url, (_prop("FilterName", "Text (encoded)"), _prop("FilterOptions", "UTF8")))
    with open(path, encoding="utf-8-sig") as f:
        return f.read()


def _notes(comp: Any) -> list[str]:
    """The text of every footnote, then every endnote (the text export leaves them out)."""
    out = []
    for notes in (comp.getFootnotes(), comp.getEndnotes()):
        for i in range(notes.getCount()):
            out.append(notes.getByIndex(i).getString())
    return out


def _body(comp: Any) -> list[str]:
    """The body's paragraphs as LibreOffice holds them, note reference marks left out (the
    text export shows each note's number in the text); a table's cells one after another."""
    out: list[str] = []
    paragraphs = comp.getText().createEnumeration()
    while paragraphs.hasMoreElements():
        para = paragraphs.nextElement()
        if para.supportsService("com.sun.star.text.TextTable"):
            for name in para.getCellNames():
                out.extend(para.getCellByName(name).getString().split("\n"))
            continue
        if not para.supportsService("com.sun.star.text.Paragraph"):
            continue
        pieces = []
        portions = para.createEnumeration()
        while portions.hasMoreElements():
            portion = portions.nextElement()
            if portion.TextPortionType != "Footnote":
                pieces.append(portion.getString())
        out.append("".join(pieces))
    return out


def _fields(comp: Any) -> int:
    """How many text fields other than comments the document holds."""
    count = 0
    fields = comp.getTextFields().createEnumeration()
    while fields.hasMoreElements():
        if not fields.nextElement().supportsService("com.sun.star.text.TextField.Annotation"):
            count += 1
    return count


def _story(text: Any) -> str:
    if text.supportsService("com.sun.star.text.Footnote"):
        return "note"
    if text.supportsService("com.sun.star.text.Text") and not text.supportsService(
        "com.sun.star.text.CellProperties"
    ):
        return "body"
    return "other"


def _key(field: Any) -> str:
    return f"{field.Author}\0{field.Content}\0{getattr(field, 'Name', '')}"


def _holds(comp: Any) -> dict[str, list[str]]:
    """For each comment (by :func:`_key`), the portion kinds between its start and its end in
    the top-level body paragraphs (an end LibreOffice gives without its field closes the comment
    opened last)."""
    open_: dict[str, list[str]] = {}
    done: dict[str, list[str]] = {}
    paragraphs = comp.getText().createEnumeration()
    while paragraphs.hasMoreElements():
        para = paragraphs.nextElement()
        if not para.supportsService("com.sun.star.text.Paragraph"):
            continue
        portions = para.createEnumeration()
        while portions.hasMoreElements():
            portion = portions.nextElement()
            kind = portion.TextPortionType
            if kind in ("Annotation", "AnnotationEnd"):
                field = portion.TextField
                key = _key(field) if field is not None else (list(open_)[-1] if open_ else "")
                if kind == "Annotation" and key not in done:
                    open_[key] = []
                elif key in open_:
                    done[key] = open_.pop(key)
                continue
            for held in open_.values():
                held.append(kind)
    done.update(open_)
    return done


def _comments(comp: Any) -> list[dict[str, Any]]:
    holds = _holds(comp)
    out = []
    fields = comp.getTextFields().createEnumeration()
    while fields.hasMoreElements():
        field = fields.nextElement()
        if not field.supportsService("com.sun.star.text.TextField.Annotation"):
            continue
        anchor = field.getAnchor()
        key = _key(field)
        out.append(
            {
                "author": field.Author,
                "content": field.Content,
                "anchor": anchor.getString(),
                "story": _story(anchor.getText()),
                "holds": holds.get(key, []),
            }
        )
    return out


def _probe(office: _Office, doc: str, work: str, found: dict[str, Any]) -> None:
    copy = os.path.join(work, os.path.basename(doc))  # LibreOffice writes a lock file beside it
    shutil.copyfile(doc, copy)
    comp = office.load(copy)
    try:
        found["loaded"] = True
        found["redlines"] = comp.getRedlines().getCount()
        found["comments"] = _comments(comp)
        found["stored"] = _text(comp, work)
        found["stored_notes"] = _notes(comp)
        found["stored_fields"] = _fields(comp)
        decide(comp, office.dispatcher, ACCEPT)
        found["accepted"] = _text(comp, work)
        found["accepted_notes"] = _notes(comp)
        found["accepted_fields"] = _fields(comp)
        found["accepted_body"] = _body(comp)
        found["left_after_accept"] = comp.getRedlines().getCount()
    finally:
        _close(comp, found)
    comp = office.load(copy)
    try:
        decide(comp, office.dispatcher, REJECT)
        found["rejected"] = _text(comp, work)
        found["rejected_notes"] = _notes(comp)
        found["rejected_fields"] = _fields(comp)
        found["left_after_reject"] = comp.getRedlines().getCount()
    finally:
        _close(comp, found)


def _close(comp: Any, found: dict[str, Any]) -> None:
    """Close a document; LibreOffice fails to close some it opened and read (its error is
    kept as ``close_error``, the document counts as loaded)."""
    try:
        comp.close(True)
    except Exception as exc:
        found["close_error"] = f"{type(exc).__name__}: {exc}"


def main(out: str, profile: str, docs: list[str]) -> int:
    work = tempfile.mkdtemp(prefix="libreoffice-probe-")
    results: dict[str, Any] = {}
    office: _Office | None = None
    try:
        for n, doc in enumerate(docs):
            if office is None:
                office = _Office(profile, f"redline_probe_{os.getpid()}_{n}")
            watchdog = threading.Timer(_PER_DOCUMENT, os.killpg, (office.proc.pid, signal.SIGKILL))
            watchdog.start()  # LibreOffice hangs on some documents: its group goes
            found: dict[str, Any] = {"loaded": False, "error": None}
            results[doc] = found
            try:
                _probe(office, doc, work, found)
            except Exception as exc:  # a crash of LibreOffice is one document's failure
                found["error"] = f"{type(exc).__name__}: {exc}"  # ("loaded" says how far it got)
                watchdog.cancel()
                office.stop()
                office = None
            finally:
                watchdog.cancel()
    finally:
        if office is not None:
            office.stop()
        shutil.rmtree(work, ignore_errors=True)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(results, f, ensure_ascii=False, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
