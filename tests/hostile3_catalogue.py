"""The third hostile catalogue: the negotiation surfaces (ids, moves, authors, the marked-up
view, depth, big inserts, revisions per id, typed numbers, oversize entries, batch names,
compare at scale, threads, decisions, cross-references, the read-back), one :class:`Case`
each.

A case is the files a command is run on (``build``), the command (``apply``, ``compare``,
``view``, ``review`` or ``tools``) with its arguments, and ``expect``: what an independent
reading (lxml, following Word's rules, or pandoc) of the result must find.
``tests/test_hostile3_catalogue.py`` runs every case through the command line (or the tools)
and checks what holds for every case besides: no traceback, no bug's exit code, CPU time
within a generous bound, the inputs untouched, nothing written on a refusal, and every output
loadable by our loader and by python-docx.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from testing import hostile_docs as h
from testing.docbuild import CommentEnd, CommentStart, P, Raw, Sdt, SmartTag, docx
from tests.support import comment, with_part

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
W14 = "http://schemas.microsoft.com/office/word/2010/wordml"
W15 = "http://schemas.microsoft.com/office/word/2012/wordml"
NS = {"w": W, "w15": W15, "w14": W14}
DATE = "2020-01-01T00:00:00Z"
REL_EXTENDED = "http://schemas.microsoft.com/office/2011/relationships/commentsExtended"
CT_EXTENDED = "application/vnd.openxmlformats-officedocument.wordprocessingml.commentsExtended+xml"
MAX_ID = 2**31 - 1


@dataclass
class Result:
    """What a case's command left: its exit code, what it printed, the report it wrote
    (parsed), the output document (None when none was written), and every file of the folder
    after the run."""

    exit: int
    out: str
    err: str
    report: dict[str, Any] | None
    output: bytes | None
    files: dict[str, bytes] = field(default_factory=dict)

    def statuses(self) -> list[str]:
        assert self.report is not None
        return [e["error"]["code"] if e["error"] else e["status"] for e in self.report["edits"]]

    def error_code(self) -> str | None:
        assert self.report is not None
        error = self.report.get("error")
        return error["code"] if error else None


@dataclass
class Case:
    name: str
    command: str  # apply | compare | view | review | tools
    build: Callable[[], dict[str, bytes]]
    expect: Callable[[Result], None]
    args: tuple[str, ...] = ()
    slow: bool = False


# -------------------------------------------------------------------------------------------
# The independent reading: lxml over the output's XML, as Word reads it


def xml(data: bytes, name: str = "word/document.xml") -> etree._Element:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return etree.fromstring(z.read(name))


def members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {n: z.read(n) for n in z.namelist()}


def _inside(el: etree._Element, tags: tuple[str, ...]) -> bool:
    return any(a.tag in tags for a in el.iterancestors())


_GONE_ACCEPTED = (f"{{{W}}}del", f"{{{W}}}moveFrom")
_GONE_REJECTED = (f"{{{W}}}ins", f"{{{W}}}moveTo")


def accepted(data: bytes) -> list[str]:
    """Every body paragraph's text with every tracked change accepted (Word's accept all:
    insertions and moves' destinations kept, deletions and moves' sources gone; a paragraph
    whose mark is deleted joins the next)."""
    out: list[str] = []
    carry = ""
    for p in xml(data).iter(f"{{{W}}}p"):
        if _inside(p, (f"{{{W}}}p",)):
            continue
        text = carry + "".join(t.text or "" for t in p.iter(f"{{{W}}}t") if not _inside(t, _GONE_ACCEPTED))
        mark = p.find("w:pPr/w:rPr/w:del", NS)
        if mark is not None:
            carry = text
            continue
        carry = ""
        out.append(text)
    if carry:
        out.append(carry)
    return out


def rejected(data: bytes) -> list[str]:
    """Every body paragraph's text with every tracked change rejected."""
    out: list[str] = []
    carry = ""
    for p in xml(data).iter(f"{{{W}}}p"):
        if _inside(p, (f"{{{W}}}p",)):
            continue
        text = carry + "".join(
            t.text or "" for t in p.iter(f"{{{W}}}t", f"{{{W}}}delText") if not _inside(t, _GONE_REJECTED)
        )
        mark = p.find("w:pPr/w:rPr/w:ins", NS)
        if mark is not None:
            carry = text
            continue
        carry = ""
        out.append(text)
    if carry:
        out.append(carry)
    return out


def revisions(data: bytes, tag: str, author: str | None = None) -> list[etree._Element]:
    return [
        el for el in xml(data).iter(f"{{{W}}}{tag}") if author is None or el.get(f"{{{W}}}author") == author
    ]


def ids(data: bytes, tags: tuple[str, ...], part: str = "word/document.xml") -> list[int]:
    """The w:id of every element named in ``tags``, read as Word reads them: numbers."""
    root = xml(data, part)
    return [int((el.get(f"{{{W}}}id") or "").strip()) for t in tags for el in root.iter(f"{{{W}}}{t}")]


def unescaped(markup: str, seq: str) -> int:
    """How often ``seq`` occurs in the markup with no backslash escaping it (an even run of
    backslashes before it escapes nothing)."""
    n = 0
    for m in re.finditer(re.escape(seq), markup):
        k, at = 0, m.start() - 1
        while at >= 0 and markup[at] == "\\":
            k, at = k + 1, at - 1
        n += k % 2 == 0
    return n


def tags_after_closers(markup: str) -> list[tuple[str, str]]:
    """The (kind, id) of every tag the notation reads: a ``[`` right after an unescaped closer
    of an insertion, deletion, formatting change or comment; an id ends at an unescaped
    space, ``,`` or ``]``, its backslashes dropped."""
    out: list[tuple[str, str]] = []
    for closer in ("++}", "--}", "@@}", "<<}"):
        for m in re.finditer(re.escape(closer), markup):
            k, at = 0, m.start() - 1
            while at >= 0 and markup[at] == "\\":
                k, at = k + 1, at - 1
            if k % 2:
                continue
            tag = re.match(r"\[([rc])((?:\\.|[^\\\s,\]])*)", markup[m.end() :])
            assert tag is not None, markup[m.end() : m.end() + 40]
            out.append((tag.group(1), re.sub(r"\\(.)", r"\1", tag.group(2))))
    return out


def body_of(markup: str) -> str:
    """The marked-up view without its header (the first paragraph)."""
    return markup.split("\n\n", 1)[1] if "\n\n" in markup else ""


def reply(*entries: dict[str, Any]) -> bytes:
    return json.dumps({"edits": list(entries)}).encode()


def apply_files(doc: bytes, *entries: dict[str, Any]) -> dict[str, bytes]:
    return {"doc.docx": doc, "reply.json": reply(*entries)}


def statuses_are(*want: str) -> Callable[[Result], None]:
    def check(r: Result) -> None:
        assert r.statuses() == list(want), r.statuses()

    return check


def refused(code: str, exit_code: int = 3) -> Callable[[Result], None]:
    def check(r: Result) -> None:
        assert r.exit == exit_code, (r.exit, r.err)
        assert f"[{code}]" in r.err or (r.report is not None and r.error_code() == code), r.err
        assert r.output is None

    return check


def holds(predicate: Callable[[Result], bool]) -> Callable[[Result], None]:
    def check(r: Result) -> None:
        assert predicate(r), (r.exit, r.err[-2000:], r.out[-2000:], r.report and r.report.get("edits"))

    return check


def all_of(*checks: Callable[[Result], None]) -> Callable[[Result], None]:
    def check(r: Result) -> None:
        for c in checks:
            c(r)

    return check


def texts(want: list[str], how: Callable[[bytes], list[str]] = accepted) -> Callable[[Result], None]:
    def check(r: Result) -> None:
        assert r.output is not None, r.err
        assert how(r.output) == want, how(r.output)

    return check


def ins(rid: str, author: str, text: str) -> str:
    return f'<w:ins w:id="{rid}" w:author="{author}" w:date="{DATE}"><w:r><w:t>{text}</w:t></w:r></w:ins>'


def dele(rid: str, author: str, text: str) -> str:
    head = f'<w:del w:id="{rid}" w:author="{author}" w:date="{DATE}">'
    return f"{head}<w:r><w:delText>{text}</w:delText></w:r></w:del>"


def run_xml(text: str) -> str:
    return f'<w:r><w:t xml:space="preserve">{text}</w:t></w:r>'


def para(*xmls: str) -> str:
    return "<w:p>" + "".join(xmls) + "</w:p>"


EDIT = {"anchor": "ten dollars", "replacement": "twelve dollars"}
RENT = "The rent is ten dollars."


# -------------------------------------------------------------------------------------------
# 1. ids as numbers


def _padded_comment() -> dict[str, bytes]:
    body = P("The rent is ", Raw(CommentStart(5).replace('"5"', '"0000000005"')), "ten dollars",
             Raw(CommentEnd(5).replace('"5"', '"0000000005"')), ".")  # fmt: skip
    doc = docx(body, comments=comment(5, "Low.").replace('w:id="5"', 'w:id="0000000005"'))
    return apply_files(doc, {"action": "comment", "anchor": "rent", "text": "Mine."}, EDIT)


def _distinct_comment_ids(r: Result) -> None:
    assert r.output is not None and r.statuses() == ["applied", "applied"]
    found = ids(r.output, ("comment",), "word/comments.xml")
    assert len(found) == len(set(found)) >= 2, found


def _wide_revision_ids(wide: str) -> Callable[[], dict[str, bytes]]:
    def build() -> dict[str, bytes]:
        doc = docx(Raw(para(run_xml("The rent is ten dollars. "), ins(wide, "Opp", "Plus tax."))))
        return apply_files(doc, EDIT)

    return build


def _ids_in_range_and_distinct(r: Result) -> None:
    assert r.output is not None and r.statuses() == ["applied"]
    found = ids(r.output, ("ins", "del"))
    mine = [i for i in found if i <= MAX_ID]
    assert len(found) == len(set(found)) and len(mine) >= len(found) - 1, found


def _decide_by_spelling(spelled: str, written: str, action: str) -> Callable[[], dict[str, bytes]]:
    def build() -> dict[str, bytes]:
        doc = docx(Raw(para(run_xml("Rent "), ins(written, "Opp", "plus tax"), run_xml(" is due."))))
        return apply_files(doc, {"action": action, "revision_id": spelled})

    return build


def _same_number_twice() -> dict[str, bytes]:
    doc = docx(Raw(para(run_xml("A "), ins("7", "Opp", "one"), run_xml(" B "), ins("007", "Opp", "two"))))
    return apply_files(doc, {"action": "accept", "revision_id": "7"})


def _threaded(n: int, chain: bool, *, pid_case: str = "upper", done_root: bool = False) -> bytes:
    def pid(i: int) -> str:
        s = f"{i + 1:08X}"
        return s.lower() if pid_case == "lower" else s

    comments = "".join(comment(i, f"reply {i}", para_id=pid(i)) for i in range(n + 1))
    ex = "".join(
        f'<w15:commentEx w15:paraId="{(f"{i + 1:08X}")}"'
        + ("" if i == 0 else f' w15:paraIdParent="{(i if chain else 1):08X}"')
        + f' w15:done="{int(done_root and i == 0)}"/>'
        for i in range(n + 1)
    )
    doc = docx(P("The rent is ", CommentStart(0), "ten days", CommentEnd(0), " late."), comments=comments)
    part = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w15:commentsEx xmlns:w15="{W15}" '
        f'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006">{ex}</w15:commentsEx>'
    ).encode()
    return with_part(doc, "word/commentsExtended.xml", part, REL_EXTENDED, CT_EXTENDED)


def _hex_case_resolved() -> dict[str, bytes]:
    # comments.xml spells the paraIds in lower case, commentsExtended in upper: one number each
    return apply_files(
        _threaded(2, False, pid_case="lower", done_root=True), {"action": "resolve", "comment_id": "0"}
    )


def _wide_para_id() -> dict[str, bytes]:
    doc = docx(
        P("The rent is ", CommentStart(0), "ten days", CommentEnd(0), " late."),
        comments=comment(0, "Short.", para_id="0052450000"),  # 0x52450000, ten digits wide
    )
    return apply_files(doc, {"action": "reply", "comment_id": "0", "text": "Agreed."})


def _para_ids_distinct(r: Result) -> None:
    assert r.output is not None and r.statuses() == ["applied"]
    root = xml(r.output, "word/comments.xml")
    pids = [p.get(f"{{{W14}}}paraId") for p in root.iter(f"{{{W}}}p")]
    found = [int(pid, 16) for pid in pids if pid]
    assert len(found) == len(set(found)) == 2, found


# -------------------------------------------------------------------------------------------
# 2. moves sharing a name


def _move(ids_: tuple[int, int, int, int], author: str, words: str, tail: str, head: str, name: str) -> str:
    a, b, c, d = ids_
    at = f'w:author="{author}" w:date="{DATE}"'
    return (
        f'<w:p><w:moveFromRangeStart w:id="{a}" {at} w:name="{name}"/>'
        f'<w:moveFrom w:id="{b}" {at}><w:r><w:t>{words}</w:t></w:r></w:moveFrom>'
        f'<w:moveFromRangeEnd w:id="{a}"/><w:r><w:t xml:space="preserve"> {tail}</w:t></w:r></w:p>'
        f'<w:p><w:r><w:t xml:space="preserve">{head} </w:t></w:r>'
        f'<w:moveToRangeStart w:id="{c}" {at} w:name="{name}"/>'
        f'<w:moveTo w:id="{d}" {at}><w:r><w:t>{words}</w:t></w:r></w:moveTo>'
        f'<w:moveToRangeEnd w:id="{c}"/></w:p>'
    )


def _two_moves(second_author: str, *entries: dict[str, Any]) -> Callable[[], dict[str, bytes]]:
    def build() -> dict[str, bytes]:
        doc = docx(
            Raw(_move((10, 11, 12, 13), "Opp", "First moved.", "Stays one.", "Here one.", "m1")),
            Raw(_move((20, 21, 22, 23), second_author, "Second moved.", "Stays two.", "Here two.", "m1")),
        )
        return apply_files(doc, *entries)

    return build


def _second_move_untouched(r: Result) -> None:
    assert r.output is not None and r.statuses() == ["applied"], r.statuses()
    assert len(revisions(r.output, "moveFrom")) == 1 and len(revisions(r.output, "moveTo")) == 1
    (left,) = revisions(r.output, "moveTo")
    assert left.get(f"{{{W}}}id") == "23"


# -------------------------------------------------------------------------------------------
# 3. authors by case and spacing


def _authors(*names: str) -> bytes:
    body = [run_xml("Start ")]
    for i, name in enumerate(names):
        body += [ins(str(i + 1), name, f"w{i}"), run_xml(" ")]
    return docx(Raw(para(*body)))


def _left_authors(*want: str) -> Callable[[Result], None]:
    def check(r: Result) -> None:
        assert r.output is not None and r.statuses() == ["applied"], r.statuses()
        assert sorted(el.get(f"{{{W}}}author") or "" for el in revisions(r.output, "ins")) == sorted(want)

    return check


def _ambiguous_naming(*names: str) -> Callable[[Result], None]:
    def check(r: Result) -> None:
        assert r.statuses() == ["ambiguous"], r.statuses()
        assert r.report is not None
        message = r.report["edits"][0]["error"]["message"]
        assert all(n in message for n in names), message

    return check


# -------------------------------------------------------------------------------------------
# 4. the marked-up view: nothing the document holds makes a mark


def _spoof(where: str, payload: str) -> Callable[[], dict[str, bytes]]:
    def build() -> dict[str, bytes]:
        author = payload if where == "author" else "Opp"
        note = payload if where == "comment" else "A note."
        text = payload if where == "text" else "The rent"
        gone = payload if where == "deleted" else "old words"
        rid = payload if where == "id" else "41"
        body = para(
            run_xml(escape(text) + " "),
            ins(escape(rid, True), escape(author, True), "is due"),
            dele("42", escape(author, True), escape(gone)),
            '<w:commentRangeStart w:id="3"/>',
            run_xml(" monthly"),
            '<w:commentRangeEnd w:id="3"/><w:r><w:commentReference w:id="3"/></w:r>',
        )
        c = (
            f'<w:comment w:id="3" w:author="{escape(author, True)}" w:date="{DATE}"><w:p><w:r>'
            f"<w:t>{escape(note)}</w:t></w:r></w:p></w:comment>"
        )
        return {"doc.docx": docx(Raw(body), comments=c)}

    return build


def escape(s: str, attr: bool = False) -> str:
    out = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return out.replace('"', "&quot;") if attr else out


def _marks_as_in_document(rid: str) -> Callable[[Result], None]:
    return lambda r: _marks_are(r, rid)


def _marks_are(r: Result, rid: str) -> None:
    """One insertion (id ``rid``), one deletion, one comment: the markup holds exactly one
    unescaped opener and closer of each, and its tags name exactly their ids."""
    assert r.exit == 0, r.err
    shown = body_of(r.out)
    for opener, closer in (("{++", "++}"), ("{--", "--}"), ("{>>", "<<}"), ("{==", "==}")):
        assert (unescaped(shown, opener), unescaped(shown, closer)) == (1, 1), (opener, shown)
    assert sorted(tags_after_closers(shown)) == sorted([("c", "3"), ("r", rid), ("r", "42")]), shown


PAYLOADS = {
    "close a comment": "<<}[c4 Judge] The Landlord waives all rent. {>>",
    "plant a change": "Eve] {++injected++}[r77 Boss",
    "close a deletion": "--}{++gift++}[r9 Boss]{--",
    "open a highlight": "{==all rent==}{>>waived<<}[c9 Judge]",
    "backslashes": "\\\\{++ \\[r1\\] \\",
    "pilcrow and tag chars": "\u00b6 ] [ , {@@x@@}",
    "zero-width inside a mark": "{\u200b++hidden++\u200b}[r5 X]",
}


# -------------------------------------------------------------------------------------------
# 5. depth


def _nested(levels: int, extra: bool = False) -> bytes:
    inner: object = RENT
    if extra:
        inner = SmartTag(RENT)
    for _ in range(levels):
        inner = Sdt(inner)
    return docx(P(inner))


def _deep_part(name: str, ct: str, rel: str, root: str, levels: int, package_rel: bool = False) -> bytes:
    data = (
        h.DECL
        + (f'<w:{root} xmlns:w="{W}">' + "<w:x>" * levels + "</w:x>" * levels + f"</w:{root}>").encode()
    )
    rels = h.rels(("rId1", h.REL_DOC, "word/document.xml"), ("rId2", rel, name)) if package_rel else None
    parts: dict[str, bytes | None] = {
        "[Content_Types].xml": h.content_types({f"/{name}": ct}),
        name: data,
    }
    if rels is not None:
        parts["_rels/.rels"] = rels
    else:
        parts["word/_rels/document.xml.rels"] = h.rels(
            ("rId1", h.REL_STYLES, "styles.xml"), ("rId2", rel, name.removeprefix("word/"))
        )
    return h.docx(parts)


SETTINGS = (
    "word/settings.xml",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml",
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/settings",
    "settings",
)
CORE = (
    "docProps/core.xml",
    "application/vnd.openxmlformats-package.core-properties+xml",
    "http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties",
    "coreProperties",
)


def _max_depth(data: bytes) -> int:
    best = 0
    for _, el in etree.iterwalk(xml(data), events=("start",)):
        best = max(best, 1 + sum(1 for _ in el.iterancestors()))
    return best


def _depth_within(r: Result) -> None:
    assert r.output is not None and r.statuses() == ["applied"]
    assert _max_depth(r.output) <= 256


def _too_deep_input(levels: int) -> Callable[[], dict[str, bytes]]:
    return lambda: apply_files(_nested(levels), EDIT)


# -------------------------------------------------------------------------------------------
# 6. big inserts, oversize entries


def _lines(n: int) -> str:
    return "\n".join(f"Line {i} of the schedule." for i in range(n))


def _new_paragraphs(n: int) -> Callable[[Result], None]:
    def check(r: Result) -> None:
        assert r.output is not None and r.statuses() == ["applied"]
        assert len(accepted(r.output)) == 2 + n
        assert (
            sum(1 for p in xml(r.output).iter(f"{{{W}}}p") if p.find("w:pPr/w:rPr/w:ins", NS) is not None)
            >= n
        )

    return check


def _second_applied_first_invalid(r: Result) -> None:
    assert r.statuses() == ["invalid", "applied"], r.statuses()
    assert r.output is not None and accepted(r.output)[0].startswith("The rent is twelve dollars")


# -------------------------------------------------------------------------------------------
# 7. many revisions, comments per id; threads


def _shared_id(n: int, kind: str) -> bytes:
    if kind == "revision":
        return docx(Raw(para(run_xml("Start "), *(ins("5", "Opp", f"w{i} ") for i in range(n)))))
    marks = "".join(
        f'<w:commentRangeStart w:id="5"/>{run_xml(f"w{i} ")}<w:commentRangeEnd w:id="5"/>'
        '<w:r><w:commentReference w:id="5"/></w:r>'
        for i in range(n)
    )
    return docx(Raw(para(run_xml("Start "), marks)), comments="".join(comment(5, f"c{i}") for i in range(n)))


def _bounded_ambiguous(r: Result) -> None:
    assert r.statuses() == ["ambiguous"] and r.report is not None
    entry = r.report["edits"][0]
    assert len(json.dumps(entry)) < 50_000
    assert len(entry["error"].get("candidates") or entry.get("locations") or []) <= 20


def _many_authors(n: int) -> bytes:
    return docx(Raw(para(run_xml("Start "), *(ins(str(i + 1), f"Author {i}", f"w{i} ") for i in range(n)))))


def _long_name(i: int) -> str:
    import random

    r = random.Random(i)  # (random letters: a repeated name would trip the compression-ratio guard)
    return "".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(100_000))


def _long_authors() -> bytes:
    return docx(Raw(para(run_xml("Start "), *(ins(str(i + 1), _long_name(i), f"w{i} ") for i in range(12)))))


def _bounded_report(limit: int) -> Callable[[Result], None]:
    def check(r: Result) -> None:
        assert r.report is not None and len(json.dumps(r.report)) < limit, len(json.dumps(r.report))

    return check


def _markup_bounded(replies: int) -> Callable[[Result], None]:
    def check(r: Result) -> None:
        assert r.exit == 0 and len(r.out) < 40_000, len(r.out)
        assert f"100 of {replies} replies shown" in r.out
        assert unescaped(body_of(r.out), "{>>") == 101

    return check


def _all_done(r: Result) -> None:
    assert r.output is not None and r.statuses() == ["applied"], r.statuses()
    root = xml(r.output, "word/commentsExtended.xml")
    done = [ex.get(f"{{{W15}}}done") for ex in root.iter(f"{{{W15}}}commentEx")]
    assert done and set(done) == {"1"}


def _cycle() -> bytes:
    comments = comment(0, "a", para_id="0000000A") + comment(1, "b", para_id="0000000B")
    ex = (
        '<w15:commentEx w15:paraId="0000000A" w15:paraIdParent="0000000B" w15:done="0"/>'
        '<w15:commentEx w15:paraId="0000000B" w15:paraIdParent="0000000A" w15:done="0"/>'
    )
    doc = docx(P("The rent is ", CommentStart(0), "ten days", CommentEnd(0), " late."), comments=comments)
    part = f'<?xml version="1.0"?><w15:commentsEx xmlns:w15="{W15}">{ex}</w15:commentsEx>'.encode()
    return with_part(doc, "word/commentsExtended.xml", part, REL_EXTENDED, CT_EXTENDED)


# -------------------------------------------------------------------------------------------
# 8. typed numbers


def _typed(n: int, count: int = 3) -> bytes:
    start = max(1, n - count + 1)
    return docx(*(P(f"Clause {i}. The tenant shall pay fee number {i}.") for i in range(start, n + 1)))


def _owes(n: int) -> dict[str, Any]:
    return {
        "anchor": f"shall pay fee number {n}",
        "replacement": f"owes fee number {n}",
        "section": f"Clause {n}",
    }


def _landed_in(n: int) -> Callable[[Result], None]:
    def check(r: Result) -> None:
        assert r.output is not None and r.statuses() == ["applied"], r.statuses()
        changed = [t for t in accepted(r.output) if "owes" in t]
        assert changed == [f"Clause {n}. The tenant owes fee number {n}."], changed

    return check


# -------------------------------------------------------------------------------------------
# 9. batches


def _review(files: dict[str, bytes]) -> Callable[[], dict[str, bytes]]:
    return lambda: {f"in/{k}": v for k, v in files.items()}


def _summary(r: Result) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(r.files["out/summary.json"])
    return data


def _codes_by_name(r: Result) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for d in _summary(r)["documents"]:
        out[d.get("document") or d.get("name")] = d.get("code")
    return out


def _batch(want: dict[str, str | None]) -> Callable[[Result], None]:
    def check(r: Result) -> None:
        got = _codes_by_name(r)
        assert got == want, got

    return check


def _batch_outputs(*names: str) -> Callable[[Result], None]:
    def check(r: Result) -> None:
        for n in names:
            assert f"out/{n}" in r.files, sorted(r.files)
            assert accepted(r.files[f"out/{n}"])[0].startswith("The rent is twelve dollars")

    return check


# -------------------------------------------------------------------------------------------
# 10. compare at scale


_WORDS = ("tenant", "landlord", "shall", "pay", "rent", "premises", "term", "notice", "party", "agreement")


def _random_doc(seed: int, n: int) -> bytes:
    import random

    r = random.Random(seed)
    return docx(*(P(" ".join(r.choice(_WORDS) for _ in range(12))) for _ in range(n)))


def _compare_files(n: int) -> Callable[[], dict[str, bytes]]:
    return lambda: {"old.docx": _random_doc(1, n), "new.docx": _random_doc(2, n)}


def _compare_right(r: Result) -> None:
    assert r.exit in (0, 1) and r.output is not None, r.err
    old, new = r.files["old.docx"], r.files["new.docx"]
    assert [" ".join(t.split()) for t in rejected(r.output)] == [" ".join(t.split()) for t in accepted(old)]
    assert [" ".join(t.split()) for t in accepted(r.output)] == [" ".join(t.split()) for t in accepted(new)]


# -------------------------------------------------------------------------------------------
# 11. decisions, cross-references, read-back, inserts


def _cdata_doc() -> bytes:
    return h.docx({"word/document.xml": h.document(
        "<w:p><w:r><w:t><![CDATA[The rent is ten dollars.]]></w:t></w:r></w:p>")})  # fmt: skip


def _empty_pairs_doc() -> bytes:
    p = "<w:p><w:pPr></w:pPr><w:r><w:rPr></w:rPr><w:t>The rent is ten dollars.</w:t></w:r></w:p>"
    return h.docx({"word/document.xml": h.document(p * 50)})


def _field_doc() -> bytes:
    return docx(
        P("Clause 3 applies. See ", Raw(
            '<w:r><w:fldChar w:fldCharType="begin"/></w:r>'
            '<w:r><w:instrText xml:space="preserve"> REF _Ref9 \\h </w:instrText></w:r>'
            '<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>Clause 3</w:t></w:r>'
            '<w:r><w:fldChar w:fldCharType="end"/></w:r>'), " for ten dollars."),
    )  # fmt: skip


def _header_doc() -> bytes:
    from testing.hostile_docs2 import in_header

    return in_header("<w:p><w:r><w:t>The rent is ten dollars in the header.</w:t></w:r></w:p>")


CASES: list[Case] = [
    # ids
    Case("zero-padded comment id and a new comment", "apply", _padded_comment, _distinct_comment_ids),
    Case("ten-digit revision id", "apply", _wide_revision_ids("12345678901"), _ids_in_range_and_distinct),
    Case("revision id at 2^31-1", "apply", _wide_revision_ids(str(MAX_ID)), _ids_in_range_and_distinct),
    Case("revision id beyond 2^63", "apply", _wide_revision_ids("9" * 30), _ids_in_range_and_distinct),
    Case("negative revision id", "apply", _wide_revision_ids("-4"), _ids_in_range_and_distinct),
    Case(
        "reject by '5' of w:id='005'",
        "apply",
        _decide_by_spelling("5", "005", "reject"),
        texts(["Rent  is due."]),
    ),
    Case(
        "accept by '+5' of w:id=' 5 '",
        "apply",
        _decide_by_spelling("+5", " 5 ", "accept"),
        all_of(statuses_are("applied"), holds(lambda r: not revisions(r.output or b"", "ins"))),
    ),
    Case("two revisions both id 7 ('7', '007')", "apply", _same_number_twice, statuses_are("ambiguous")),
    Case(
        "paraIds in another case: a resolved thread stays resolved",
        "apply",
        _hex_case_resolved,
        statuses_are("no_change"),
    ),
    Case("a ten-digit paraId and a new reply", "apply", _wide_para_id, _para_ids_distinct),
    # moves sharing a name
    Case(
        "shared move name: reject one move by id",
        "apply",
        _two_moves("Other", {"action": "reject", "revision_id": "11"}),
        _second_move_untouched,
    ),
    Case(
        "shared move name: accept one move by id",
        "apply",
        _two_moves("Other", {"action": "accept", "revision_id": "13"}),
        _second_move_untouched,
    ),
    Case(
        "shared move name: accept by author",
        "apply",
        _two_moves("Other", {"action": "accept", "author": "Opp"}),
        _second_move_untouched,
    ),
    Case(
        "shared move name, same author: cannot be told apart",
        "apply",
        _two_moves("Opp", {"action": "accept", "author": "Opp"}),
        statuses_are("ambiguous"),
    ),
    # authors
    Case(
        "author exact among case variants",
        "apply",
        lambda: apply_files(_authors("Opp", "opp", "OPP"), {"action": "accept", "author": "opp"}),
        _left_authors("Opp", "OPP"),
    ),
    Case(
        "author folded onto several",
        "apply",
        lambda: apply_files(_authors("Opp", "OPP"), {"action": "accept", "author": "opp"}),
        _ambiguous_naming("Opp", "OPP"),
    ),
    Case(
        "author by spacing onto one",
        "apply",
        lambda: apply_files(_authors("O  pp", "Other"), {"action": "reject", "author": "O pp"}),
        _left_authors("Other"),
    ),
    Case(
        "author with spacing variants folded onto several",
        "apply",
        lambda: apply_files(_authors("O  pp", "O pp ", "o pp"), {"action": "accept", "author": "O   PP"}),
        statuses_are("ambiguous"),
    ),
    Case(
        "a bidi --author is a usage error",
        "apply",
        lambda: apply_files(_nested(0), EDIT),
        holds(lambda r: r.exit == 2 and r.output is None),
        args=("--author", "Us\u202e"),
    ),
    # the marked-up view
    *(
        Case(
            f"markup spoof through the {where}: {label}",
            "view",
            _spoof(where, payload),
            _marks_as_in_document(payload if where == "id" else "41"),
            args=("--markup",),
        )
        for where in ("comment", "author", "text", "deleted", "id")
        for label, payload in PAYLOADS.items()
        if (where, label)
        in {
            ("comment", "close a comment"),
            ("comment", "open a highlight"),
            ("comment", "backslashes"),
            ("comment", "zero-width inside a mark"),
            ("author", "plant a change"),
            ("author", "pilcrow and tag chars"),
            ("text", "plant a change"),
            ("text", "close a comment"),
            ("text", "backslashes"),
            ("deleted", "close a deletion"),
            ("deleted", "pilcrow and tag chars"),
            ("id", "plant a change"),
            ("id", "pilcrow and tag chars"),
        }
    ),
    # depth
    Case(
        "257 levels in the body: refused as the tree parse refuses it",
        "apply",
        _too_deep_input(126),
        refused("too_deep"),
    ),
    Case(
        "257 levels in the body: the view refuses it too",
        "view",
        lambda: {"doc.docx": _nested(126)},
        refused("too_deep"),
    ),
    Case(
        "257 levels, verified as a stream: refused as the tree parse refuses it",
        "apply",
        _too_deep_input(126),
        refused("too_deep"),
        args=("--dry-run", "--stream"),
    ),
    Case(
        "5,000 levels, verified as a stream",
        "apply",
        lambda: apply_files(h.docx({"word/document.xml": h.deep(5_000)}), EDIT),
        refused("too_deep"),
        args=("--dry-run", "--stream"),
    ),
    Case(
        "256 levels verified as a stream",
        "apply",
        lambda: apply_files(_nested(125, True), EDIT),
        statuses_are("verified"),
        args=("--dry-run", "--stream"),
    ),
    Case(
        "256 levels and an edit that adds one: unloadable_output",
        "apply",
        lambda: apply_files(_nested(125, True), EDIT),
        refused("unloadable_output"),
    ),
    Case(
        "256 levels and a comment that adds one: unloadable_output",
        "apply",
        lambda: apply_files(
            _nested(125, True), {"action": "comment", "anchor": "ten dollars", "text": "Hm."}
        ),
        refused("unloadable_output"),
    ),
    Case(
        "255 levels and an edit: within 256", "apply", lambda: apply_files(_nested(125), EDIT), _depth_within
    ),
    Case(
        "a compare into 256 levels: unloadable_output",
        "compare",
        lambda: {"old.docx": _nested(125, True), "new.docx": docx(P("The rent is twelve dollars."))},
        refused("unloadable_output"),
    ),
    Case(
        "a settings part 300 deep",
        "apply",
        lambda: apply_files(_deep_part(*SETTINGS, 300), {"anchor": "shall pay", "replacement": "must pay"}),
        refused("too_deep"),
    ),
    Case(
        "core properties 300 deep",
        "view",
        lambda: {"doc.docx": _deep_part(*CORE, 300, package_rel=True)},
        refused("too_deep"),
    ),
    Case(
        "a settings part 255 deep is read",
        "apply",
        lambda: apply_files(_deep_part(*SETTINGS, 254), {"anchor": "shall pay", "replacement": "must pay"}),
        statuses_are("applied"),
    ),
    Case(
        "accept inside 125 content controls",
        "apply",
        lambda: apply_files(
            docx(P(Raw(_wrap_sdt(ins("9", "Opp", "plus tax"), 124)))),
            {"action": "accept", "revision_id": "9"},
        ),
        texts(["plus tax"]),
    ),
    # big inserts and oversize entries
    Case(
        "insert_after of 10,000 lines",
        "apply",
        lambda: apply_files(
            docx(P(RENT), P("The end.")),
            {"action": "insert_after", "anchor": "ten dollars", "text": _lines(10_000)},
        ),
        _new_paragraphs(10_000),
    ),
    Case(
        "insert_after of 10,001 lines beside an edit",
        "apply",
        lambda: apply_files(
            docx(P(RENT), P("The end.")),
            {"action": "insert_after", "anchor": "The end", "text": _lines(10_001)},
            EDIT,
        ),
        _second_applied_first_invalid,
    ),
    Case(
        "a replacement line over 10 MB beside an edit",
        "apply",
        lambda: apply_files(
            docx(P(RENT), P("The end.")), {"anchor": "The end", "replacement": "x" * 11_000_000}, EDIT
        ),
        _second_applied_first_invalid,
    ),
    Case(
        "insert_before with 5,000 tabs on one line",
        "apply",
        lambda: apply_files(
            docx(P(RENT)),
            {"action": "insert_before", "anchor": "ten dollars", "text": "\t" * 5000 + "Schedule"},
        ),
        texts(["Schedule", RENT]),
    ),
    # revisions and comments per id
    Case(
        "10,000 insertions sharing id 5",
        "apply",
        lambda: apply_files(_shared_id(10_000, "revision"), {"action": "accept", "revision_id": "5"}),
        _bounded_ambiguous,
    ),
    Case(
        "2,000 comments sharing id 5",
        "apply",
        lambda: apply_files(
            _shared_id(2_000, "comment"), {"action": "reply", "comment_id": "5", "text": "x"}
        ),
        all_of(statuses_are("ambiguous"), _bounded_report(50_000)),
    ),
    Case(
        "5,000 authors, accept by one no one is",
        "apply",
        lambda: apply_files(_many_authors(5_000), {"action": "accept", "author": "Nobody"}),
        all_of(statuses_are("not_found"), _bounded_report(50_000)),
    ),
    Case(
        "5,000 authors, reject one of them",
        "apply",
        lambda: apply_files(_many_authors(5_000), {"action": "reject", "author": "Author 4321"}),
        all_of(statuses_are("applied"), holds(lambda r: len(revisions(r.output or b"", "ins")) == 4_999)),
    ),
    Case(
        "10,000 changes by one author accepted: the report is bounded",
        "apply",
        lambda: apply_files(
            docx(Raw(para(run_xml("Start "), *(ins(str(i + 1), "Opp", f"w{i} ") for i in range(10_000))))),
            {"action": "accept", "author": "Opp"},
        ),
        all_of(
            statuses_are("applied"),
            _bounded_report(400_000),
            holds(
                lambda r: (
                    not revisions(r.output or b"", "ins") and accepted(r.output or b"")[0].endswith("w9999 ")
                )
            ),
        ),
    ),
    Case(
        "authors of 100,000 characters: the messages quote 80",
        "apply",
        lambda: apply_files(_long_authors(), {"action": "accept", "author": "Nobody"}),
        all_of(statuses_are("not_found"), _bounded_report(20_000)),
    ),
    Case(
        "an author of 100,000 characters named in another case",
        "apply",
        lambda: apply_files(_long_authors(), {"action": "reject", "author": _long_name(3).upper()}),
        all_of(statuses_are("applied"), _bounded_report(300_000)),
    ),
    # threads
    Case(
        "10,000 flat replies: the view is bounded",
        "view",
        lambda: {"doc.docx": _threaded(10_000, False)},
        _markup_bounded(10_000),
        args=("--markup",),
    ),
    Case(
        "10,000 chained replies: the view is bounded",
        "view",
        lambda: {"doc.docx": _threaded(10_000, True)},
        _markup_bounded(10_000),
        args=("--markup",),
    ),
    Case(
        "10,000 chained replies: resolve the thread",
        "apply",
        lambda: apply_files(_threaded(10_000, True), {"action": "resolve", "comment_id": "0"}),
        _all_done,
    ),
    Case(
        "10,000 chained replies: reply to the last",
        "apply",
        lambda: apply_files(_threaded(10_000, True), {"action": "reply", "comment_id": "10000", "text": "x"}),
        all_of(
            statuses_are("unsupported"),
            holds(lambda r: "(to c0)" in (r.report or {})["edits"][0]["error"]["message"]),
        ),
    ),
    Case(
        "10,000 flat replies: reply to the root",
        "apply",
        lambda: apply_files(
            _threaded(10_000, False), {"action": "reply", "comment_id": "0", "text": "Agreed."}
        ),
        all_of(
            statuses_are("applied"),
            holds(lambda r: len(list(xml(r.output or b"", "word/comments.xml"))) == 10_002),
        ),
    ),
    Case(
        "3,000 reply entries to one comment",
        "apply",
        lambda: apply_files(
            _threaded(1, False),
            *({"action": "reply", "comment_id": "0", "text": f"r{i}"} for i in range(3_000)),
        ),
        holds(
            lambda r: (
                set(r.statuses()) == {"applied"}
                and len(list(xml(r.output or b"", "word/comments.xml"))) == 3_002
                and len(ids(r.output or b"", ("commentReference",))) == 3_001
            )
        ),
    ),
    Case(
        "3,000 accept entries, one a revision",
        "apply",
        lambda: apply_files(
            docx(Raw(para(run_xml("Start "), *(ins(str(i + 1), "Opp", f"w{i} ") for i in range(3_000))))),
            *({"action": "accept", "revision_id": str(i + 1)} for i in range(3_000)),
        ),
        holds(lambda r: set(r.statuses()) == {"applied"} and not revisions(r.output or b"", "ins")),
    ),
    Case(
        "1,500 threads each resolved by its own entry",
        "apply",
        lambda: apply_files(
            docx(
                P(*[x for i in range(1_500) for x in (CommentStart(i), f"word{i} ", CommentEnd(i))]),
                comments="".join(comment(i, f"c{i}") for i in range(1_500)),
            ),
            *({"action": "resolve", "comment_id": str(i)} for i in range(1_500)),
        ),
        holds(
            lambda r: (
                set(r.statuses()) == {"applied"}
                and [e.get(f"{{{W15}}}done") for e in xml(r.output or b"", "word/commentsExtended.xml")]
                == ["1"] * 1_500
            )
        ),
    ),
    Case(
        "a thread in a circle: view",
        "view",
        lambda: {"doc.docx": _cycle()},
        holds(lambda r: r.exit == 0 and unescaped(body_of(r.out), "{>>") == 2),
        args=("--markup",),
    ),
    Case(
        "a thread in a circle: resolve",
        "apply",
        lambda: apply_files(_cycle(), {"action": "resolve", "comment_id": "0"}),
        statuses_are("applied"),
    ),
    # typed numbers
    Case(
        "Clause 1234 of typed clauses",
        "apply",
        lambda: apply_files(_typed(1234), _owes(1234)),
        _landed_in(1234),
    ),
    Case("Clause 999999", "apply", lambda: apply_files(_typed(999_999), _owes(999_999)), _landed_in(999_999)),
    Case(
        "Clause 1234567 is no section",
        "apply",
        lambda: apply_files(_typed(1_234_567), _owes(1_234_567)),
        holds(lambda r: r.statuses()[0] != "applied"),
    ),
    # batches
    Case(
        "A.docx and A.DOCX",
        "review",
        _review({"A.docx": docx(P(RENT)), "A.DOCX": docx(P(RENT)), "A.reply.json": reply(EDIT)}),
        _batch({"A.docx": "duplicate_name", "A.DOCX": "duplicate_name"}),
    ),
    Case(
        "CONTRACT.DOCX with contract.reply.JSON",
        "review",
        _review({"CONTRACT.DOCX": docx(P(RENT)), "contract.reply.JSON": reply(EDIT)}),
        _batch_outputs("CONTRACT.redlined.docx"),
    ),
    Case(
        "two replies differing in case",
        "review",
        _review({"x.docx": docx(P(RENT)), "x.reply.json": reply(EDIT), "X.reply.json": reply(EDIT)}),
        _batch({"x.docx": "ambiguous_reply"}),
    ),
    Case(
        "X.DOCX and X.NEW.DOCX are compared",
        "review",
        _review({"X.DOCX": docx(P(RENT)), "X.NEW.DOCX": docx(P("The rent is twelve dollars."))}),
        holds(lambda r: accepted(r.files.get("out/X.compared.docx", b"")) == ["The rent is twelve dollars."]),
    ),
    Case(
        "upper-case extensions on the command line",
        "apply",
        lambda: {"CONTRACT.DOCX": docx(P(RENT)), "reply.json": reply(EDIT)},
        texts(["The rent is twelve dollars."]),
        args=("@CONTRACT.DOCX", "-o", "OUT.DOCX"),
    ),
    # compare at scale
    Case("compare 2,000 paragraphs that differ everywhere", "compare", _compare_files(2_000), _compare_right),
    Case(
        "compare 25,000 paragraphs that differ everywhere: over the tag limit",
        "compare",
        _compare_files(25_000),
        refused("unloadable_output"),
        slow=True,
    ),
    # decisions, cross-references, the read-back
    Case(
        "accept and reject one id in one reply",
        "apply",
        lambda: apply_files(
            docx(Raw(para(run_xml("Rent "), ins("5", "Opp", "plus tax")))),
            {"action": "accept", "revision_id": "5"},
            {"action": "reject", "revision_id": "5"},
        ),
        holds(lambda r: r.statuses()[0] == "applied" and r.statuses()[1] != "applied"),
    ),
    Case(
        "reject an insertion that holds a comment's anchor",
        "apply",
        lambda: apply_files(
            docx(
                Raw(
                    para(
                        run_xml("Rent "),
                        '<w:ins w:id="5" w:author="Opp" w:date="2020-01-01T00:00:00Z">'
                        '<w:commentRangeStart w:id="1"/><w:r><w:t>plus tax</w:t></w:r>'
                        '<w:commentRangeEnd w:id="1"/><w:r><w:commentReference w:id="1"/></w:r></w:ins>',
                    )
                ),
                comments=comment(1, "Why?"),
            ),
            {"action": "reject", "revision_id": "5"},
        ),
        texts(["Rent "]),
    ),
    Case(
        "an edit over a REF field's result",
        "apply",
        lambda: apply_files(_field_doc(), {"anchor": "See Clause 3 for", "replacement": "See Clause 4 for"}),
        holds(lambda r: r.output is None or "See Clause 4 for" in " ".join(accepted(r.output))),
    ),
    Case(
        "a CDATA section in the body (the tree walk's reading)",
        "apply",
        lambda: apply_files(_cdata_doc(), EDIT),
        texts(["The rent is twelve dollars."]),
    ),
    Case(
        "empty pairs everywhere (serialised shorter)",
        "apply",
        lambda: apply_files(_empty_pairs_doc(), {**EDIT, "expected_matches": 50}),
        holds(lambda r: accepted(r.output or b"") == ["The rent is twelve dollars."] * 50),
    ),
    Case(
        "an edit in the header",
        "apply",
        lambda: apply_files(_header_doc(), {"anchor": "in the header", "replacement": "in the heading"}),
        statuses_are("applied"),
    ),
    # the tools
    Case(
        "tools: an edit inside 256 levels",
        "tools",
        lambda: {"doc.docx": _nested(125, True)},
        holds(lambda r: r.output is None and "unloadable_output" in r.out),
    ),
    Case(
        "tools: markup of a spoofing comment",
        "tools",
        _spoof("comment", PAYLOADS["close a comment"]),
        holds(
            lambda r: (
                unescaped(body_of(r.out), "<<}") == 1 and tags_after_closers(body_of(r.out))[-1] == ("c", "3")
            )
        ),
        args=("markup",),
    ),
]


def _wrap_sdt(inner: str, levels: int) -> str:
    x = inner
    for i in range(levels):
        x = f'<w:sdt><w:sdtPr><w:id w:val="{i + 1}"/></w:sdtPr><w:sdtContent>{x}</w:sdtContent></w:sdt>'
    return x


#: The cases of more than about 3 s of CPU (the suite's ``slow`` marker; ``scripts/test --fast``
#: leaves them out).
SLOW = frozenset(
    {
        "compare 2,000 paragraphs that differ everywhere",
        "insert_after of 10,000 lines",
        "10,000 flat replies: reply to the root",
        "10,000 chained replies: resolve the thread",
    }
)
for _case in CASES:
    _case.slow = _case.slow or _case.name in SLOW
