"""Every kind of output the project writes opens in LibreOffice (issue 30), and reads there, with
every change accepted, as we say it reads.

One representative of each kind is generated here: an applied reply tracked and untracked, with
and without rationale comments; a ``comment`` entry; replies and resolved threads (both ``w15``
namespaces); decisions on another author's changes; a comparison; comments about footnotes and
endnotes; new paragraphs; a deleted clause holding a field; and the sample contracts as
``redline review`` writes them.  Each is opened over UNO by the full ``libreoffice-writer``
(``tests/libreoffice_probe.py``: its ``-nogui`` build aborts on any document that holds a
comment) and must load, leave no tracked change after LibreOffice accepts all of them, and read
accepted as our own reading of the output reads accepted: the body's text, paragraph for
paragraph (every word of ours in LibreOffice's order, for the samples, whose list numbers
LibreOffice's text export adds).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from redline.apply import ApplyOptions, apply_reply
from redline.compare.diff import CompareOptions, compare
from redline.read.load import load_view
from redline_cli.redline import main as redline_main
from testing.docbuild import BmEnd, BmStart, CommentEnd, CommentStart, Del, Field, Ins, NoteRef, P, docx
from tests.oracles import fold, probe
from tests.support import ROOT, comment, view_of, with_part

DATE = "2024-05-01T00:00:00Z"
W15 = {"2012": "http://schemas.microsoft.com/office/word/2012/wordml",
       "2010-11": "http://schemas.microsoft.com/office/word/2010/11/wordml"}  # fmt: skip
CT = "application/vnd.openxmlformats-officedocument.wordprocessingml."


def base() -> bytes:
    return docx(
        P(BmStart("_Ref1", 1), "Definitions and interpretation", BmEnd(1)),
        P("The Tenant shall pay the rent within ten days of the invoice", NoteRef(1), "."),
        P(
            "The Landlord ",
            Ins("promptly ", author="Opp"),
            "repairs the roof",
            Del(" at its cost", author="Opp"),
            ".",
        ),
        P(
            "Late rent bears interest as set out in Section ",
            Field(" REF _Ref1 \\r \\h ", "1"),
            " of this Lease.",
        ),
        P("Either party may ", CommentStart(5), "terminate on notice", CommentEnd(5), "."),
        P("This Lease is governed by the laws of England", NoteRef(2, "endnote"), "."),
        comments=comment(5, "Which notice?", para_id="0A000005"),
        footnotes={1: ["Invoices are sent on the first business day of the month."]},
        endnotes={2: ["Including its conflict of laws rules."]},
    )


def threaded(ns: str) -> bytes:
    doc = base()
    ex = (
        f'<?xml version="1.0" encoding="UTF-8"?><w15:commentsEx xmlns:w15="{ns}">'
        '<w15:commentEx w15:paraId="0A000005" w15:done="0"/></w15:commentsEx>'
    )
    rel = "http://schemas.microsoft.com/office/2011/relationships/commentsExtended"
    return with_part(doc, "word/commentsExtended.xml", ex.encode(), rel, CT + "commentsExtended+xml")


EDITS: list[dict[str, Any]] = [
    {"anchor": "within ten days", "replacement": "within thirty days", "rationale": "Market standard."},
    {"anchor": "laws of England", "replacement": "laws of England and Wales", "rationale": "Jurisdiction."},
]


def applied(doc: bytes, entries: list[dict[str, Any]], **options: Any) -> bytes:
    out = apply_reply(doc, json.dumps({"edits": entries}), ApplyOptions(author="Us", date=DATE, **options))
    statuses = [e.status.value for e in out.report.edits]
    assert all(s == "applied" for s in statuses), [(e.status, e.error) for e in out.report.edits]
    assert out.output is not None
    return out.output


def outputs() -> dict[str, bytes]:
    """One output of every kind, by name."""
    doc = base()
    newer = applied(doc, [{"anchor": "repairs the roof", "replacement": "repairs and maintains the roof"}],
                    track=False, comments=False)  # fmt: skip
    compared = compare(doc, newer, CompareOptions(author="Us", date=DATE)).output
    assert compared is not None
    found = {
        "tracked-comments": applied(doc, EDITS),
        "tracked-no-comments": applied(doc, EDITS, comments=False),
        "untracked-comments": applied(doc, EDITS, track=False),
        "untracked-no-comments": applied(doc, EDITS, track=False, comments=False),
        "comment-entry": applied(
            doc, [{"action": "comment", "anchor": "repairs the roof", "text": "Scope?"}]
        ),
        "note-comments": applied(
            doc,
            [
                {"anchor": "first business day", "replacement": "fifth business day", "rationale": "Time."},
                {"action": "comment", "anchor": "conflict of laws", "text": "Renvoi?"},
            ],
        ),
        "decisions": applied(
            doc,
            [{"action": "accept", "author": "Opp"}],
        ),
        "rejections": applied(doc, [{"action": "reject", "author": "Opp"}]),
        "insert-after": applied(
            doc,
            [
                {
                    "action": "insert_after",
                    "anchor": "terminate on notice",
                    "text": "Notice is written.",
                    "rationale": "Form.",
                }
            ],
        ),
        "field-clause-deleted": applied(
            doc,
            [
                {
                    "anchor": "Late rent bears interest as set out in Section 1 of this Lease.",
                    "replacement": "",
                    "rationale": "Dropped.",
                }
            ],
        ),
        "compare": compared,
    }
    for name, ns in W15.items():
        found[f"reply-resolve-{name}"] = applied(
            threaded(ns),
            [
                {"action": "reply", "comment_id": "5", "text": "Thirty days."},
                {"action": "resolve", "comment_id": "5"},
            ],
        )
    return {f"{name}.docx": data for name, data in found.items()}


def body_paragraphs(data: bytes) -> list[str]:
    """Our reading of ``data`` with every change accepted: the body's paragraphs."""
    view = view_of(data)
    return [" ".join(view.paragraph_text(p).split()) for p in view.paragraphs if p.story == "body"]


def lo_paragraphs(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.split("\n")]


def words(text: str) -> list[str]:
    return [fold(w) for w in re.findall(r"\w+", text)]


def in_order(ours: list[str], theirs: list[str]) -> bool:
    it = iter(theirs)
    return all(any(w == t for t in it) for w in ours)


@pytest.mark.slow
def test_libreoffice_opens_every_kind_of_output(soffice: str) -> None:
    made = outputs()
    try:
        found = probe(made, soffice)
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    failures = []
    for name, data in made.items():
        got = found[name]
        if not got["loaded"]:
            failures.append((name, got.get("error")))
            continue
        if got["left_after_accept"] != 0:
            failures.append((name, "tracked changes left after accepting all"))
        theirs = [p for p in lo_paragraphs("\n".join(got["accepted_body"])) if p]
        ours = [p for p in body_paragraphs(data) if p]
        if [fold(p) for p in theirs] != [fold(p) for p in ours]:
            failures.append((name, {"ours": ours, "libreoffice": theirs}))
    assert not failures, failures
    # the kinds with comments show them
    shown = {name: [c["content"] for c in found[name]["comments"]] for name in made}
    assert "Market standard." in shown["tracked-comments.docx"]
    assert "Thirty days." in shown["reply-resolve-2010-11.docx"]
    assert {"Time.", "Renvoi?"} <= set(shown["note-comments.docx"])


@pytest.mark.slow
def test_libreoffice_opens_the_review_of_the_samples(soffice: str, tmp_path: Path) -> None:
    made = _sample_outputs(tmp_path)
    try:
        found = probe(made, soffice)
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    for name, data in made.items():
        got = found[name]
        assert got["loaded"], (name, got.get("error"))
        assert got["left_after_accept"] == 0, name
        ours = words("\n".join(body_paragraphs(data)))
        assert in_order(ours, words(got["accepted"])), name
        assert got["comments"], name  # the rationale comments are there


def _sample_outputs(tmp: Path) -> dict[str, bytes]:
    out = tmp / "out"
    args = ["review", str(ROOT / "sample_contracts"), "-o", str(out), "--jobs", "1", "--date", DATE]
    assert redline_main(args) in (0, 1)
    return {f"sample-{p.name}": p.read_bytes() for p in sorted(out.glob("*.redlined.docx"))}


def test_the_test_script_installs_the_full_libreoffice_writer() -> None:
    """``scripts/test`` (and so ``.ci/run``, which runs it) asks for Debian's full
    ``libreoffice-writer`` package and ``python3-uno`` by package, not for any ``soffice``."""
    script = (ROOT / "scripts" / "test").read_text(encoding="utf-8")
    assert "dpkg-query -W -f='${Status}' libreoffice-writer" in script
    assert "need+=(libreoffice-writer)" in script and "need+=(python3-uno)" in script
    assert "nogui" not in script.replace("-nogui build", "")
    assert "bash scripts/test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def _note_edit_outputs(paths: list[Path]) -> dict[str, bytes]:
    """Each corpus document with a footnote or endnote, an edit with a rationale applied in its
    first note whose text can be quoted once."""
    made = {}
    for path in paths:
        data = path.read_bytes()
        loaded = load_view(data)
        if not isinstance(loaded, tuple):
            continue  # a document refused whole (strict OOXML, say): nothing written
        view = loaded[1]
        for para in view.paragraphs:
            text = view.paragraph_text(para).strip()
            if para.story not in ("footnote", "endnote") or len(text) < 12:
                continue
            anchor = text[:40].strip()
            if view.text.count(anchor) != 1:
                continue
            entry = {"anchor": anchor, "replacement": anchor + " (as amended)", "rationale": "Clarity."}
            out = apply_reply(data, json.dumps({"edits": [entry]}), ApplyOptions(author="Us", date=DATE))
            if out.output is not None and out.report.edits[0].status.value == "applied":
                made[path.name] = out.output
                break
    return made


@pytest.mark.slow
@pytest.mark.corpus
def test_libreoffice_opens_corpus_documents_edited_in_their_notes(
    corpus_docs: list[Path], soffice: str
) -> None:
    made = _note_edit_outputs(corpus_docs)
    if not made:
        pytest.skip("no corpus document has a note to edit")
    try:
        found = probe(made, soffice)
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    failures = [(name, got.get("error")) for name, got in found.items() if not got["loaded"]]
    assert not failures, failures
    for name, got in found.items():
        if any(c["content"] == "Clarity." for c in got["comments"]):
            shown = next(c for c in got["comments"] if c["content"] == "Clarity.")
            assert shown["story"] != "note", name  # never inside the note
