"""redline compare: paragraphs NEW moved are written as native Word moves.

Judged by pandoc (its reject-all of OUT reads as OLD, its accept-all as NEW), by LibreOffice's
own accept-all (``tests/libreoffice_accept.py``), by our reader (OUT read accepted is NEW,
character for character) and by the raw XML (the move's ranges share one ``w:name``, marks
are moved, ids are unique) -- on generated documents, random permutations and edits
(hypothesis), corpus documents with a paragraph moved by lxml and a word changed by ``redline
apply --no-track``, and a 5,000-paragraph pair under a CPU-time bound.
"""

from __future__ import annotations

import io
import json
import random
import resource
import zipfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from redline.apply import ApplyOptions, apply_reply
from redline.compare.diff import CompareOptions, compare
from redline.compare.moves import MIN_WORDS, movable
from redline.opc.namespaces import W_NS, w
from redline.read.load import load_view
from redline_cli.redline import main
from testing.docbuild import B, I, P, Table, docx
from tests.oracles import check_compare, pandoc_folded
from tests.support import members

DATE = "2020-01-01T00:00:00Z"
NS = {"w": W_NS}
LONG = [
    "The Tenant shall pay the rent monthly in advance to the Landlord.",
    "The Landlord shall keep the structure and the roof of the premises in good repair.",
    "Either party may terminate this lease by giving three months written notice.",
    "The Tenant shall not assign or sublet the premises without prior consent.",
    "Any notice under this lease must be given in writing to the address above.",
    "This lease is governed by the laws of the State of New York.",
]


def _body(data: bytes) -> etree._Element:
    return etree.fromstring(members(data)["word/document.xml"])


def _moves(data: bytes) -> dict[str, dict[str, list[etree._Element]]]:
    """Each move name's range starts, by kind."""
    out: dict[str, dict[str, list[etree._Element]]] = {}
    for kind in ("moveFrom", "moveTo"):
        for el in _body(data).iter(w(f"{kind}RangeStart")):
            out.setdefault(el.get(w("name")) or "", {}).setdefault(kind, []).append(el)
    return out


def _ids_unique(data: bytes) -> None:
    """Every revision, range start and comment id is used once (range ends repeat their start's)."""
    root = _body(data)
    tags = ("ins", "del", "moveFrom", "moveTo", "moveFromRangeStart", "moveToRangeStart")
    ids = Counter(el.get(w("id")) for t in tags for el in root.iter(w(t)))
    assert all(n == 1 for n in ids.values()), [i for i, n in ids.items() if n > 1]
    for kind in ("moveFrom", "moveTo"):
        starts = {el.get(w("id")) for el in root.iter(w(f"{kind}RangeStart"))}
        ends = {el.get(w("id")) for el in root.iter(w(f"{kind}RangeEnd"))}
        assert starts == ends


def test_one_paragraph_moved_is_one_move(pandoc: str) -> None:
    old = docx(
        P(LONG[0]),
        P("The Tenant shall pay ", B("rent"), " on the first day of each month."),
        P(LONG[1]),
        P(LONG[2]),
    )
    new = docx(
        P(LONG[0]),
        P(LONG[1]),
        P(LONG[2]),
        P("The Tenant shall pay ", B("rent"), " on the first day of each month."),
    )
    outcome = compare(old, new, CompareOptions(author="Counsel", date=DATE))
    assert outcome.exit_code == 0 and outcome.output is not None
    out = outcome.output
    check_compare(pandoc, old, new, out)
    [change] = outcome.report.changes
    d = change.to_dict()
    assert d["kind"] == "move" and d["paragraph"] == 1 and d["to_paragraph"] == 3 and d["paragraphs"] == 1
    assert d["old"] == d["new"] == "The Tenant shall pay rent on the first day of each month."
    assert d["inner"] == [] and outcome.report.paragraphs["moved"] == 1
    moves = _moves(out)
    assert len(moves) == 1
    [(name, kinds)] = moves.items()
    assert name.startswith("move") and len(kinds["moveFrom"]) == len(kinds["moveTo"]) == 1
    root = _body(out)
    paras = root.findall(".//w:body/w:p", NS)
    src, dst = paras[1], paras[4]
    assert src.find("w:pPr/w:rPr/w:moveFrom", NS) is not None  # the mark moved away
    assert dst.find("w:pPr/w:rPr/w:moveTo", NS) is not None  # and here
    assert src.find("w:moveFrom/w:r/w:t", NS) is not None and src.find(".//w:delText", NS) is None
    assert dst.find("w:moveTo/w:r/w:rPr/w:b", NS) is not None  # formatting moves with it
    assert root.find(".//w:ins", NS) is None and root.find(".//w:del", NS) is None
    for el in root.iter(w("moveFrom"), w("moveTo"), w("moveFromRangeStart"), w("moveToRangeStart")):
        assert el.get(w("author")) == "Counsel" and el.get(w("date")) == DATE
    _ids_unique(out)
    # the range end follows the moved paragraph (its mark is in the move), in the body
    assert [el.tag for el in (src.getnext(), dst.getnext()) if el is not None] == [
        w("moveFromRangeEnd"),
        w("moveToRangeEnd"),
    ]
    a, b = members(old), members(out)
    assert list(a) == list(b) and [n for n in a if a[n] != b[n]] == ["word/document.xml"]


def test_consecutive_paragraphs_move_as_one(pandoc: str) -> None:
    old = docx(*[P(t) for t in LONG])
    new = docx(*[P(t) for t in (LONG[2], LONG[3], LONG[0], LONG[1], LONG[4], LONG[5])])
    outcome = compare(old, new, CompareOptions(date=DATE))
    assert outcome.output is not None
    check_compare(pandoc, old, new, outcome.output)
    [change] = outcome.report.changes
    assert change.kind == "move" and change.paragraphs == 2
    assert len(_moves(outcome.output)) == 1
    _ids_unique(outcome.output)


def test_a_nearly_identical_move_carries_its_word_diff_flat(pandoc: str) -> None:
    """Words NEW dropped are deleted at the source, words it added inserted at the destination:
    nothing nested, so every reader accepts and rejects it alike."""
    edited = LONG[0].replace("monthly", "quarterly")
    old = docx(*[P(t) for t in LONG])
    new = docx(*[P(t) for t in (LONG[1], LONG[2], LONG[3], edited, LONG[4], LONG[5])])
    outcome = compare(old, new, CompareOptions(date=DATE))
    assert outcome.output is not None
    check_compare(pandoc, old, new, outcome.output)
    [change] = outcome.report.changes
    assert change.kind == "move" and change.new == edited
    assert change.inner == [{"kind": "replace", "old": "monthly", "new": "quarterly", "paragraph": 0}]
    root = _body(outcome.output)
    [deleted] = root.iter(w("del"))
    [inserted] = root.iter(w("ins"))
    assert deleted.findtext("w:r/w:delText", namespaces=NS) == "monthly"
    assert inserted.findtext("w:r/w:t", namespaces=NS) == "quarterly"
    src, dst = deleted.getparent(), inserted.getparent()
    assert src is not None and dst is not None and src.tag == dst.tag == w("p")  # not nested
    assert src.find("w:pPr/w:rPr/w:moveFrom", NS) is not None
    assert dst.find("w:pPr/w:rPr/w:moveTo", NS) is not None
    _ids_unique(outcome.output)


@pytest.mark.parametrize(
    ("moved", "is_move"),
    [
        ("1.", False),  # a number alone
        ("Yes, agreed here.", False),  # four words
        ("Yes, it is agreed here.", True),  # MIN_WORDS words
    ],
)
def test_short_paragraphs_are_not_moves(pandoc: str, moved: str, is_move: bool) -> None:
    assert len(moved.split()) < MIN_WORDS or is_move
    old = docx(P(moved), *[P(t) for t in LONG[:4]])
    new = docx(*[P(t) for t in LONG[:4]], P(moved))
    outcome = compare(old, new, CompareOptions(date=DATE))
    assert outcome.output is not None
    check_compare(pandoc, old, new, outcome.output)
    assert any(c.kind == "move" for c in outcome.report.changes) is is_move
    assert bool(_moves(outcome.output)) is is_move


def test_similarity_threshold(pandoc: str) -> None:
    """Moved with one word of twelve changed (ratio >= 90): a move; with half its words
    changed: a deletion here and an insertion there."""
    base = LONG[1]
    near = base.replace("good", "sound")
    far = "The Landlord must maintain every wall and the roofing of this building in fine order."
    for text, is_move in ((near, True), (far, False)):
        old = docx(*[P(t) for t in LONG])
        new = docx(P(LONG[0]), P(LONG[2]), P(LONG[3]), P(LONG[4]), P(text), P(LONG[5]))
        outcome = compare(old, new, CompareOptions(date=DATE))
        assert outcome.output is not None
        check_compare(pandoc, old, new, outcome.output)
        assert any(c.kind == "move" for c in outcome.report.changes) is is_move, text


def test_a_paragraph_changed_in_place_is_not_a_move(pandoc: str) -> None:
    old = docx(*[P(t) for t in LONG])
    new = docx(P(LONG[0]), P(LONG[1].replace("good", "sound")), *[P(t) for t in LONG[2:]])
    outcome = compare(old, new, CompareOptions(date=DATE))
    assert [(c.kind, c.old, c.new) for c in outcome.report.changes] == [("replace", "good", "sound")]


def test_moves_out_of_a_table_are_written_as_deletion_and_insertion(pandoc: str) -> None:
    old = docx(P(LONG[0]), Table([[LONG[1], "x"]]), P(LONG[2]), P(LONG[3]))
    new = docx(P(LONG[0]), Table([["", "x"]]), P(LONG[2]), P(LONG[3]), P(LONG[1]))
    outcome = compare(old, new, CompareOptions(date=DATE))
    assert outcome.output is not None
    check_compare(pandoc, old, new, outcome.output)
    assert not _moves(outcome.output)
    assert all(c.kind != "move" for c in outcome.report.changes)
    assert any(c.moved for c in outcome.report.changes)  # still reported as moved


def test_command_line_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old, new, out = tmp_path / "old.docx", tmp_path / "new.docx", tmp_path / "out.docx"
    old.write_bytes(docx(*[P(t) for t in LONG]))
    new.write_bytes(docx(*[P(t) for t in (*LONG[1:], LONG[0])]))
    assert main(["compare", str(old), str(new), "-o", str(out), "--report", "-", "--date", DATE]) == 0
    report = json.loads(capsys.readouterr().out)
    [change] = report["changes"]
    assert change["kind"] == "move" and change["to_paragraph"] == 5 and change["where"] == "paragraph 0"
    assert report["totals"]["paragraphs"]["moved"] == 1


# -------------------------------------------------------------------------------------------
# Random permutations and edits


_WORDS = st.sampled_from(
    ["rent", "Tenant", "shall", "pay", "the", "Landlord", "within", "days", "10", "notice"]
)
_PARA = st.lists(_WORDS, min_size=1, max_size=10).map(" ".join)


@st.composite
def _shuffled(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    old = draw(st.lists(_PARA, min_size=2, max_size=8))
    new = list(old)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["move", "move", "insert", "delete", "word"]))
        at = draw(st.integers(0, len(new) - 1))
        if op == "move":
            k = draw(st.integers(1, 3))
            chunk = new[at : at + k]
            del new[at : at + k]
            to = draw(st.integers(0, len(new)))
            new[to:to] = chunk
        elif op == "insert":
            new.insert(draw(st.integers(0, len(new))), draw(_PARA))
        elif op == "delete" and len(new) > 1:
            del new[at]
        elif op == "word":
            words = new[at].split()
            words[draw(st.integers(0, len(words) - 1))] = draw(_WORDS) + "s"
            new[at] = " ".join(words)
    return old, new


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_shuffled())
def test_property_permutations(pandoc: str, docs: tuple[list[str], list[str]]) -> None:
    old_paras, new_paras = docs
    # OLD's runs split where NEW's are not, one formatting throughout (compare writes formatting
    # differences too, or reports them: issue 29; tests/test_compare_structure.py)
    old = docx(*[P(t) if n % 2 else P(t[:3], t[3:]) for n, t in enumerate(old_paras)])
    new = docx(*[P(t) for t in new_paras])
    outcome = compare(old, new, CompareOptions(date=DATE))
    assert outcome.exit_code == 0 and outcome.output is not None, outcome.report.to_dict()["changes"]
    assert pandoc_folded(pandoc, outcome.output, "reject") == pandoc_folded(pandoc, old, "reject")
    assert pandoc_folded(pandoc, outcome.output, "accept") == pandoc_folded(pandoc, new, "accept")
    loaded = load_view(outcome.output)
    assert isinstance(loaded, tuple) and loaded[1].text == "\n".join(new_paras)
    _ids_unique(outcome.output)
    for kinds in _moves(outcome.output).values():
        assert len(kinds.get("moveFrom", [])) == len(kinds.get("moveTo", [])) == 1


# -------------------------------------------------------------------------------------------
# Corpus


def _parent_tag(el: etree._Element) -> object:
    parent = el.getparent()
    return None if parent is None else parent.tag


def _move_one(data: bytes, rnd: random.Random) -> tuple[bytes, str] | None:
    """``data`` with one plain body paragraph of 8 words or more moved by lxml before another
    body paragraph at least three away, and its text; None when it has none."""
    loaded = load_view(data)
    if not isinstance(loaded, tuple):
        return None
    _, view = loaded
    body = [p for p in view.paragraphs if p.story == "body" and _parent_tag(p.element) == w("body")]
    candidates = [p for p in body if len(view.paragraph_text(p).split()) >= 8 and movable(view, p)]
    if not candidates or len(body) < 6:
        return None
    src = rnd.choice(candidates)
    far = [q for q in body if abs(q.index - src.index) >= 3 and view.paragraph_text(q).strip()]
    if not far:
        return None
    dst = rnd.choice(far)
    root = src.element.getroottree().getroot()
    dst.element.addprevious(src.element)
    xml = etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
    buf = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as zin, zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            zout.writestr(info, xml if info.filename == "word/document.xml" else zin.read(info))
    return buf.getvalue(), view.paragraph_text(src)


@pytest.mark.slow
def test_corpus_moved_paragraph_and_untracked_edit(corpus_dir: Path, pandoc: str) -> None:
    compared = moved = 0
    for path in sorted(corpus_dir.glob("*.docx")):
        data = path.read_bytes()
        rnd = random.Random(path.name)
        found = _move_one(data, rnd)
        if found is None:
            continue
        new, moved_text = found
        loaded = load_view(new)
        assert isinstance(loaded, tuple)
        _, view = loaded
        paras = [
            p for p in view.paragraphs
            if p.story == "body"
            and len(view.paragraph_text(p).split()) > 6
            and view.paragraph_text(p) != moved_text
        ]  # fmt: skip
        p = rnd.choice(paras)
        words = view.paragraph_text(p).split()
        k = rnd.randrange(1, len(words) - 3)
        anchor = " ".join(words[k : k + 3])
        edit = [{"anchor": anchor, "replacement": f"{words[k]} CHANGED {words[k + 2]}",
                 "expected_matches": view.text.count(anchor)}]  # fmt: skip
        edited = apply_reply(new, json.dumps(edit), ApplyOptions(track=False, comments=False))
        if edited.output is not None and any(e.status.value == "applied" for e in edited.report.edits):
            new = edited.output
        outcome = compare(data, new, CompareOptions(date=DATE))
        assert outcome.output is not None and outcome.exit_code == 0, path.name
        check_compare(pandoc, data, new, outcome.output)
        changes = outcome.report.changes
        moves = [c for c in changes if c.kind == "move"]
        assert len(moves) <= 1, path.name
        moved += bool(moves)
        assert all(c.kind == "move" or "CHANGED" in c.new for c in changes), (path.name, changes)
        if moves:
            _ids_unique(outcome.output)
        a, b = members(data), members(outcome.output)
        assert list(a) == list(b)
        assert [n for n in a if a[n] != b[n]] == ["word/document.xml"], path.name
        compared += 1
    assert compared >= 20 and moved == compared, (compared, moved)


# -------------------------------------------------------------------------------------------
# LibreOffice


def _random_moves(seed: int, count: int) -> list[tuple[bytes, list[str]]]:
    """``count`` compared documents (OUT, NEW's paragraphs) with a move in each: random
    paragraphs, some moved, edited, inserted, deleted."""
    words = ["rent", "Tenant", "shall", "pay", "the", "Landlord", "within", "days", "notice", "lease"]
    rnd = random.Random(seed)
    out: list[tuple[bytes, list[str]]] = []
    while len(out) < count:
        paras = [
            " ".join(rnd.choice(words) for _ in range(rnd.randint(3, 12))) for _ in range(rnd.randint(3, 8))
        ]
        new = list(paras)
        for _ in range(rnd.randint(1, 3)):
            op = rnd.choice(["move", "move", "edit", "insert", "delete"])
            if op == "move":
                i, k = rnd.randrange(len(new)), rnd.randint(1, 2)
                chunk = new[i : i + k]
                del new[i : i + k]
                j = rnd.randint(0, len(new))
                new[j:j] = chunk
            elif op == "edit":
                i = rnd.randrange(len(new))
                ws = new[i].split()
                ws[rnd.randrange(len(ws))] = "CHANGED"
                new[i] = " ".join(ws)
            elif op == "insert":
                new.insert(rnd.randint(0, len(new)), " ".join(rnd.choice(words) for _ in range(6)))
            elif len(new) > 1:
                del new[rnd.randrange(len(new))]
        old = docx(*[P(t[:4], B(t[4:])) for t in paras])
        outcome = compare(old, docx(*[P(t) for t in new]), CompareOptions(date=DATE))
        if outcome.output is not None and any(c.kind == "move" for c in outcome.report.changes):
            out.append((outcome.output, new))
    return out


@pytest.mark.slow
def test_libreoffice_accepts_moves(tmp_path: Path, soffice: str) -> None:
    """LibreOffice opens every output and its own accept-all reads as NEW: a move with a word
    changed inside it (formatting on the source), and random moves among other changes."""
    from tests.oracles import text_exports, uno_python

    if uno_python() is None:
        pytest.skip("no Python with LibreOffice's uno module")
    old = docx(
        P(LONG[0]),
        P("The Tenant shall pay ", I("rent"), " on the first day of each month."),
        *[P(t) for t in LONG[1:4]],
    )
    new_paras = [
        LONG[0],
        LONG[1],
        LONG[2],
        "The Tenant shall pay rent on the first day of every month.",
        LONG[3],
    ]
    outcome = compare(old, docx(*[P(t) for t in new_paras]), CompareOptions(date=DATE))
    assert outcome.output is not None and any(c.kind == "move" for c in outcome.report.changes)
    cases = {tmp_path / "c0.docx": (outcome.output, new_paras)}
    for n, case in enumerate(_random_moves(7, 6), start=1):
        cases[tmp_path / f"c{n}.docx"] = case
    for doc, (data, _) in cases.items():
        doc.write_bytes(data)
    plain, accepted = text_exports(list(cases), list(cases), tmp_path / "lo", soffice)
    assert set(plain) == set(cases)  # LibreOffice opens each
    for doc, (_, paras) in cases.items():
        assert accepted[doc].lstrip("\ufeff").split("\n")[:-1] == paras, doc.name


# -------------------------------------------------------------------------------------------
# Large


def test_five_thousand_paragraphs_under_a_cpu_bound() -> None:
    """A 5,000-paragraph pair, blocks moved and paragraphs edited; and one whose every
    paragraph changed: each compared within a generous CPU-time bound (a hang guard)."""
    rnd = random.Random(5)
    words = ["rent", "Tenant", "shall", "pay", "the", "Landlord", "within", "days", "notice", "lease", "term"]
    paras = [f"{k}. " + " ".join(rnd.choice(words) for _ in range(rnd.randint(6, 20))) for k in range(5000)]
    moved = list(paras)
    for _ in range(40):
        i = rnd.randrange(len(moved))
        chunk = moved[i : i + 3]
        del moved[i : i + 3]
        j = rnd.randint(0, len(moved))
        moved[j:j] = chunk
    for _ in range(40):
        i = rnd.randrange(len(moved))
        moved[i] += " amended"
    every = [p.replace("the", "THE") + " x" for p in paras]
    old = docx(*[P(t) for t in paras])
    for new_paras in (moved, every):
        new = docx(*[P(t) for t in new_paras])
        before = resource.getrusage(resource.RUSAGE_SELF).ru_utime
        outcome = compare(old, new, CompareOptions(date=DATE))
        spent = resource.getrusage(resource.RUSAGE_SELF).ru_utime - before
        assert outcome.output is not None and outcome.exit_code == 0
        loaded = load_view(outcome.output)
        assert isinstance(loaded, tuple) and loaded[1].text == "\n".join(new_paras)
        assert spent < 120, spent
    assert sum(c.kind == "move" for c in outcome.report.changes) == 0


# -------------------------------------------------------------------------------------------
# Hostile


def test_hostile_command_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One file as OLD and NEW: no changes, the output (OLD's very bytes) still written, the
    report saying 0; the output over OLD or NEW under another spelling of its path, or over the
    report: refused (3), nothing written; an unreadable NEW: refused (3), nothing written."""
    old = tmp_path / "old.docx"
    old.write_bytes(docx(*[P(t) for t in LONG]))
    before = old.read_bytes()
    out, report = tmp_path / "out.docx", tmp_path / "r.json"
    assert main(["compare", str(old), str(old), "-o", str(out), "--report", str(report)]) == 0
    assert out.read_bytes() == before
    data = json.loads(report.read_text())
    assert data["totals"]["changes"] == 0 and data["changes"] == []
    out.unlink()
    for target in (old, tmp_path / "." / "old.docx", tmp_path / "sub" / ".." / "old.docx"):
        (tmp_path / "sub").mkdir(exist_ok=True)
        assert main(["compare", str(old), str(old), "-o", str(target)]) == 3
    assert main(["compare", str(old), str(old), "-o", str(out), "--report", str(out)]) == 3
    bad = tmp_path / "bad.docx"
    for junk in (b"", b"PK\x05\x06" + b"\x00" * 18, b"<w:document/>"):
        bad.write_bytes(junk)
        assert main(["compare", str(old), str(bad), "-o", str(out), "--report", str(report)]) == 3
        assert main(["compare", str(bad), str(old), "-o", str(out)]) == 3
        assert not out.exists()
    assert old.read_bytes() == before
    assert "refused" in capsys.readouterr().err


def test_marker_characters_in_the_documents_themselves() -> None:
    """The private-use characters that mark where a move lands are never ones either document
    holds: a document full of them compares as any other."""
    odd = "".join(chr(0xF0000 + k) for k in range(4))
    paras = [f"{t} {odd}" for t in LONG]
    old = docx(*[P(t) for t in paras])
    new_paras = [paras[1], paras[2], paras[0], paras[3] + odd, paras[4], paras[5]]
    outcome = compare(old, docx(*[P(t) for t in new_paras]), CompareOptions(date=DATE))
    assert outcome.output is not None and [c.kind for c in outcome.report.changes] == ["move", "insert"]
    loaded = load_view(outcome.output)
    assert isinstance(loaded, tuple) and loaded[1].text == "\n".join(new_paras)


def test_similarity_boundary_is_ninety() -> None:
    """Edited word by word until rapidfuzz's ratio drops below 90: the last variant at or
    above it moves (with its inner diff), the first below it is a deletion and an insertion."""
    from rapidfuzz import fuzz

    from redline.compare.moves import NEAR

    base = LONG[1].split()
    variants = []
    for k in range(len(base)):
        words = base[:]
        for n in range(k + 1):
            words[n] = words[n].upper() if n % 2 else words[n] + "x"
        variants.append(" ".join(words))
    scores = [fuzz.ratio(LONG[1], v) for v in variants]
    above = max(k for k, s in enumerate(scores) if s >= NEAR)
    below = above + 1
    assert scores[below] < NEAR <= scores[above]
    for k, is_move in ((above, True), (below, False)):
        old = docx(*[P(t) for t in LONG])
        new = docx(P(LONG[0]), *[P(t) for t in LONG[2:5]], P(variants[k]), P(LONG[5]))
        outcome = compare(old, new, CompareOptions(date=DATE))
        moves = [c for c in outcome.report.changes if c.kind == "move"]
        assert bool(moves) is is_move, (k, scores[k])
        if moves:
            assert moves[0].inner and moves[0].new == variants[k]
        loaded = load_view(outcome.output or b"")
        assert isinstance(loaded, tuple) and loaded[1].text == "\n".join(
            [LONG[0], *LONG[2:5], variants[k], LONG[5]]
        )
