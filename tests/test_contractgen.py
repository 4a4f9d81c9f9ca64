"""The contract generator: deterministic, readable by independent readers, Word-like XML, and the
committed sample contracts with replies whose expected outcomes are recomputed here.

The expected outcome of every sample edit is derived by a small independent oracle of the
matching policy (``ARCHITECTURE.md``): the text of every story read straight from the .docx
XML, exact match first, then whitespace/quote/dash tolerant, every occurrence counted,
``expected_matches``, ``section`` scope, ``no_change``, overlaps.
"""

from __future__ import annotations

import io
import itertools
import json
import re
import shutil
import statistics
import subprocess
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import docx
import pytest
from lxml import etree

from redline.opc.namespaces import W_NS
from testing.contractgen import (
    NBSP,
    SAMPLES,
    contract_paragraphs,
    contract_text,
    generate_contract,
    main,
)

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "sample_contracts"
KINDS = ("lease", "nda", "msa")


def w(tag: str) -> str:
    return f"{{{W_NS}}}{tag}"


# --------------------------------------------------------------------------------------------
# An independent reader of the generated XML (the oracle)
# --------------------------------------------------------------------------------------------


@dataclass
class OPara:
    part: str
    text: str
    label: str | None
    scopes: list[str]  # labels and heading texts of every enclosing clause, outermost first


def _letters(n: int) -> str:
    return "abcdefghijklmnopqrstuvwxyz"[(n - 1) % 26] * ((n - 1) // 26 + 1)


def _roman(n: int) -> str:
    table = [(10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")]
    out = ""
    for value, numeral in table:
        while n >= value:
            out += numeral
            n -= value
    return out


def one(el: etree._Element | None, path: str) -> etree._Element:
    assert el is not None
    found = el.find(path)
    assert found is not None, path
    return found


def val(el: etree._Element | None, path: str, attr: str = "val") -> str:
    value = one(el, path).get(w(attr))
    assert value is not None
    return value


def _rtext(r: etree._Element) -> str:
    return "".join(t.text or "" for t in r.iter(w("t")))


def _ptext(p: etree._Element) -> str:
    out = []
    for el in p.iter(w("t"), w("tab")):
        out.append("\t" if el.tag == w("tab") else el.text or "")
    return "".join(out)


def read_docx(data: bytes) -> list[OPara]:
    """Every paragraph of every story, body first, with Word's list labels computed."""
    z = zipfile.ZipFile(io.BytesIO(data))
    names = z.namelist()
    parts = ["word/document.xml"]
    parts += sorted(n for n in names if re.fullmatch(r"word/header\d+\.xml", n))
    parts += sorted(n for n in names if re.fullmatch(r"word/footer\d+\.xml", n))
    parts += [n for n in ("word/footnotes.xml",) if n in names]
    out: list[OPara] = []
    counters = [0] * 9
    scopes: list[tuple[str, str]] = []  # (label, heading text) per level
    for part in parts:
        root = etree.fromstring(z.read(part))
        for p in root.iter(w("p")):
            text = _ptext(p)
            if part != "word/document.xml":
                out.append(OPara(part, text, None, []))
                continue
            style = p.find(f"{w('pPr')}/{w('pStyle')}")
            style_id = style.get(w("val")) if style is not None else None
            ilvl = p.find(f"{w('pPr')}/{w('numPr')}/{w('ilvl')}")
            level = 0 if style_id == "Heading1" else None
            if ilvl is not None:
                level = int(ilvl.get(w("val")) or 0)
            label = None
            if level is not None:
                counters[level] += 1
                counters[level + 1 :] = [0] * (8 - level)
                c = counters
                label = [
                    f"{c[0]}.",
                    f"{c[0]}.{c[1]}",
                    f"({_letters(c[2])})",
                    f"({_roman(c[3])})",
                ][level]
                first = p.find(w("r"))
                bold = first is not None and first.find(f"{w('rPr')}/{w('b')}") is not None
                heading = text if level == 0 else (text.split(".")[0] if bold else "")
                key = label.rstrip(".") if level < 2 else scopes[-1][0] + label
                del scopes[level:]
                scopes.append((key, heading))
            elif style_id == "Heading2":  # an unnumbered schedule heading
                scopes[:] = [("", text)]
            names_ = [s for pair in scopes for s in pair if s]
            out.append(OPara(part, text, label, names_))
    return out


_QUOTES = str.maketrans({c: "'" for c in "‘’‚‛′"} | {c: '"' for c in "“”„‟″"})
_DASHES = re.compile("[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]")


def norm(s: str) -> str:
    s = s.translate(_QUOTES).replace("…", "...")
    s = re.sub("[\u00ad\u200b\u200c\u200d\u2060\ufeff]", "", s)
    return re.sub(r"\s+", " ", _DASHES.sub("-", s))


def _find_all(hay: str, needle: str) -> Iterator[int]:
    i = hay.find(needle)
    while i >= 0:
        yield i
        i = hay.find(needle, i + len(needle))


# --------------------------------------------------------------------------------------------
# Replies as a model sends them, read with the legacy names of docs/replies.md
# --------------------------------------------------------------------------------------------

_ANCHOR_KEYS = (
    "anchor",
    "find",
    "search",
    "old_text",
    "oldText",
    "original",
    "quote",
    "target_text",
)
_REPL_KEYS = (
    "replacement",
    "replace",
    "new_text",
    "newText",
    "revised",
    "new_string",
    "suggestion",
)


def load_reply(path: Path) -> list[dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        m = re.search(r"```json\n(.*?)```", text, re.S)
        assert m, "the .md reply holds a ```json fence"
        text = m.group(1)
    elif path.suffix == ".txt":
        text = text[text.index("{") : text.rindex("}") + 1]
    data = json.loads(text)
    if isinstance(data, dict):
        for key in ("edits", "redlines", "changes", "proposed_edits"):
            if key in data:
                data = data[key]
                break
    edits = []
    for raw in data:
        anchor = next(raw[k] for k in _ANCHOR_KEYS if k in raw)
        deleting = raw.get("action", raw.get("op")) in ("delete", "remove")
        replacement = "" if deleting else next(raw[k] for k in _REPL_KEYS if k in raw)
        edits.append(
            {
                "id": raw["id"],
                "anchor": anchor,
                "replacement": replacement,
                "section": raw.get("section"),
                "expected_matches": raw.get("expected_matches"),
            }
        )
    return edits


def reply_path(stem: str) -> Path:
    found = [SAMPLE_DIR / f"{stem}.reply.{ext}" for ext in ("json", "txt", "md")]
    existing = [p for p in found if p.exists()]
    assert len(existing) == 1, f"exactly one reply for {stem}: {existing}"
    return existing[0]


def _in_scope(section: str, para: OPara) -> bool:
    want = re.sub(r"^(Section|§)\s*", "", section.strip()).rstrip(".").casefold()
    return any(want == s.casefold() for s in para.scopes)


def oracle_statuses(paras: list[OPara], edits: list[dict[str, Any]]) -> dict[str, str]:
    statuses: dict[str, str] = {}
    located: dict[str, list[tuple[int, int, int]]] = {}
    for e in edits:
        anchor = e["anchor"]
        exact = [(i, s) for i, p in enumerate(paras) for s in _find_all(p.text, anchor)]
        normal = [(i, s) for i, p in enumerate(paras) for s in _find_all(norm(p.text), norm(anchor))]
        if exact:
            assert len(exact) == len(normal), f"{e['id']}: tolerant matching would count differently"
        count = len(normal)
        spans = [(i, s, s + len(norm(anchor))) for i, s in normal]
        if count == 0:
            status = "not_found"
        elif e["expected_matches"] is not None and count != e["expected_matches"]:
            status = "count_mismatch"
        elif e["expected_matches"] is None and count > 1:
            status = "ambiguous"
        elif e["section"] is not None and not all(_in_scope(e["section"], paras[i]) for i, _ in normal):
            status = "out_of_scope"
        elif e["replacement"] == anchor:
            status = "no_change"
        else:
            status = "applied"
            located[e["id"]] = spans
        statuses[e["id"]] = status
    # overlaps, judged on every candidate of every located edit
    ids = list(located)
    for a in ids:
        for b in ids:
            if a < b and any(
                i == j and s < f2 and s2 < f for i, s, f in located[a] for j, s2, f2 in located[b]
            ):
                statuses[a] = statuses[b] = "overlap"
    return statuses


def summary_statuses(paras: list[OPara], path: Path) -> dict[str, str]:
    data = json.loads(path.read_text(encoding="utf-8"))
    out = {}
    for pi, point in enumerate(data["points"]):
        for qi, quote in enumerate(point["quotes"]):
            found = any(norm(quote) in norm(p.text) for p in paras)
            out[f"{pi}/{qi}"] = "verified" if found else "not_found"
    return out


# --------------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def big_msa() -> bytes:
    return generate_contract("msa", seed=3, pages=8, runs_per_paragraph=20)


def test_the_same_seed_gives_the_same_bytes(lease: bytes, big_msa: bytes) -> None:
    assert generate_contract("lease") == lease
    assert generate_contract("msa", seed=3, pages=8, runs_per_paragraph=20) == big_msa


def test_another_seed_changes_the_text_and_run_splitting_never_does() -> None:
    assert contract_text("lease", seed=0) != contract_text("lease", seed=1)
    a = read_docx(generate_contract("nda", seed=2, runs_per_paragraph=1))
    b = read_docx(generate_contract("nda", seed=2, runs_per_paragraph=25))
    assert [p.text for p in a] == [p.text for p in b]


def test_core_properties_and_zip_timestamps_are_fixed(lease: bytes) -> None:
    z = zipfile.ZipFile(io.BytesIO(lease))
    assert {i.date_time for i in z.infolist()} == {(1980, 1, 1, 0, 0, 0)}
    core = docx.Document(io.BytesIO(lease)).core_properties
    assert core.created == core.modified
    assert core.created.year == 2025


@pytest.mark.parametrize("kind", KINDS)
def test_the_docx_text_is_exactly_the_planned_text(kind: str) -> None:
    planned = contract_paragraphs(kind, seed=5)  # type: ignore[arg-type]
    read = read_docx(generate_contract(kind, seed=5, runs_per_paragraph=12))  # type: ignore[arg-type]
    read = [p for p in read if p.text or p.part == "word/document.xml"]  # footnote separators
    assert [p.text for p in read] == [p.text for p in planned]
    assert [p.label for p in read] == [p.label for p in planned]


def test_python_docx_opens_it_and_reads_the_same_body_text(lease: bytes) -> None:
    d = docx.Document(io.BytesIO(lease))
    body = [p.text for p in d.paragraphs]
    planned = [p for p in contract_paragraphs("lease") if p.story == "body"]
    cells = [c.text for t in d.tables for r in t.rows for c in r.cells]
    assert sorted(body + cells) == sorted(p.text for p in planned)
    assert len(d.tables) == 1 and len(d.tables[0].rows) == 5
    assert "Harbor Point Properties LLC" in d.sections[0].header.paragraphs[0].text
    assert d.sections[0].footer.paragraphs[0].text.startswith("Confidential")


@pytest.mark.skipif(shutil.which("pandoc") is None, reason="pandoc is not installed")
def test_pandoc_reads_it(lease: bytes, tmp_path: Path) -> None:
    path = tmp_path / "lease.docx"
    path.write_bytes(lease)
    out = subprocess.run(
        ["pandoc", "-t", "plain", "--wrap=none", str(path)],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout  # fmt: skip
    assert "Tenant shall pay Operating Expenses in an amount equal to" in out
    assert "$433,594.07" in out
    assert "Rentable area is measured" in out  # the footnote
    words = set(contract_text("lease").split())
    assert len(words & set(out.split())) / len(words) > 0.95


def test_paragraphs_are_split_into_many_runs_as_word_saves_them(big_msa: bytes) -> None:
    root = etree.fromstring(zipfile.ZipFile(io.BytesIO(big_msa)).read("word/document.xml"))
    clauses = [p for p in root.iter(w("p")) if p.find(f"{w('pPr')}/{w('numPr')}") is not None]
    clauses = [p for p in clauses if len(_ptext(p)) > 200]
    runs = [len(p.findall(w("r"))) for p in clauses]
    assert statistics.mean(runs) >= 15
    mid_word = same_format = 0
    for p in clauses:
        rs = p.findall(w("r"))
        assert all(r.get(w("rsidR")) for r in rs)
        for a, b in itertools.pairwise(rs):
            ta, tb = _rtext(a), _rtext(b)
            mid_word += bool(ta and tb and ta[-1].isalpha() and tb[0].isalpha())
            fa, fb = a.find(w("rPr")), b.find(w("rPr"))
            same_format += (fa is None and fb is None) or (
                fa is not None and fb is not None and etree.tostring(fa) == etree.tostring(fb)
            )
    assert mid_word > 100 and same_format > 1000
    for tag in ("proofErr", "bookmarkStart", "bookmarkEnd", "lastRenderedPageBreak"):
        assert root.find(f".//{w(tag)}") is not None, tag
    starts = [str(b.get(w("id"))) for b in root.iter(w("bookmarkStart"))]
    assert sorted(starts) == sorted(str(b.get(w("id"))) for b in root.iter(w("bookmarkEnd")))


@pytest.mark.parametrize("kind", KINDS)
def test_the_text_has_real_contract_typography(kind: str) -> None:
    text = contract_text(kind)  # type: ignore[arg-type]
    for ch in "“”’–—":
        assert ch in text, ch
    assert f"Schedule{NBSP}1" in text
    assert re.search(f"Section{NBSP}\\d+(\\.\\d+)?", text)
    assert re.search("20\\d\\d–20\\d\\d", text)
    assert '"' not in text and "'" not in text


def test_defined_terms_and_amounts_are_bold(lease: bytes) -> None:
    root = etree.fromstring(zipfile.ZipFile(io.BytesIO(lease)).read("word/document.xml"))
    bold = "".join(_rtext(r) for r in root.iter(w("r")) if r.find(f"{w('rPr')}/{w('b')}") is not None)
    for term in ("Premises", "Tenant", "Operating Expenses", "ten (10)", "Security Deposit"):
        assert term in bold


def test_numbering_is_one_multilevel_list_that_word_computes(lease: bytes) -> None:
    z = zipfile.ZipFile(io.BytesIO(lease))
    numbering = etree.fromstring(z.read("word/numbering.xml"))
    styles = etree.fromstring(z.read("word/styles.xml"))
    body = etree.fromstring(z.read("word/document.xml"))
    num_ids = {p.get(w("val")) for p in body.iter(w("numId"))}
    assert len(num_ids) == 1
    (num_id,) = num_ids
    abstract_id = val(numbering, f"{w('num')}[@{w('numId')}='{num_id}']/{w('abstractNumId')}")
    abstract = one(numbering, f"{w('abstractNum')}[@{w('abstractNumId')}='{abstract_id}']")
    levels = {
        lvl.get(w("ilvl")): (val(lvl, w("numFmt")), val(lvl, w("lvlText")))
        for lvl in abstract.findall(w("lvl"))
    }
    assert levels["0"] == ("decimal", "%1.")
    assert levels["1"] == ("decimal", "%1.%2")
    assert levels["2"] == ("lowerLetter", "(%3)")
    assert levels["3"] == ("lowerRoman", "(%4)")
    assert val(abstract, f"{w('lvl')}/{w('pStyle')}") == "Heading1"
    heading = one(styles, f"{w('style')}[@{w('styleId')}='Heading1']")
    assert val(heading, f"{w('pPr')}/{w('numPr')}/{w('numId')}") == num_id
    paras = read_docx(lease)
    labels = [p.label for p in paras if p.label]
    assert {"4.", "4.2", "(a)", "(i)", "(ii)", "10.1"} <= set(labels)
    assert not any(re.match(r"\(?\d+(\.\d+)*[.)]?\s", p.text) for p in paras)  # never typed


def test_the_text_grows_linearly_with_pages() -> None:
    one = read_docx(generate_contract("lease", seed=1, pages=1, runs_per_paragraph=20))
    thirty = read_docx(generate_contract("lease", seed=1, pages=30, runs_per_paragraph=20))
    size_one = sum(len(p.text) for p in one)
    size_thirty = sum(len(p.text) for p in thirty)
    assert 27 <= size_thirty / size_one <= 33
    words = sum(len(p.text.split()) for p in thirty)
    assert 0.97 * 30 * 500 <= words <= 1.05 * 30 * 500


def test_long_contracts_keep_numbering_and_vary_their_clauses() -> None:
    paras = contract_paragraphs("nda", seed=4, pages=20)
    headings = [p.text for p in paras if p.level == 0]
    assert len(headings) == len(set(headings))  # "Remedies (Program 2)", …
    clauses = [p.text for p in paras if p.level == 1]
    assert len(set(clauses)) / len(clauses) > 0.7
    assert sum("Tenant shall" in p.text for p in contract_paragraphs("lease")) >= 10


def test_parties_can_be_named_and_bad_kinds_are_refused() -> None:
    text = contract_text("msa", parties=("Acme Corp.", "Widget & Sons LLP"))
    assert "Acme Corp." in text and "Widget & Sons LLP" in text
    assert "Meridian" not in text
    with pytest.raises(ValueError, match="unknown contract kind"):
        generate_contract("loan")  # type: ignore[arg-type]


def _members(data: bytes) -> list[tuple[str, bytes]]:
    z = zipfile.ZipFile(io.BytesIO(data))
    return [(i.filename, z.read(i)) for i in z.infolist()]


def test_main_regenerates_the_committed_samples(tmp_path: Path) -> None:
    lines: list[str] = []
    assert main([str(tmp_path)], out=lines.append) == 0
    assert len(lines) == len(SAMPLES)
    for stem in SAMPLES:
        fresh = (tmp_path / f"{stem}.docx").read_bytes()
        committed = (SAMPLE_DIR / f"{stem}.docx").read_bytes()
        # every part, in order, byte for byte (only the deflate stream may vary with zlib)
        assert _members(committed) == _members(fresh), (
            f"sample_contracts/{stem}.docx drifted: run `python -m testing.contractgen sample_contracts`"
        )


def test_every_sample_has_a_reply_and_the_expected_outcomes_are_true() -> None:
    expected = json.loads((SAMPLE_DIR / "expected.json").read_text(encoding="utf-8"))
    seen_status: set[str] = set()
    for stem in SAMPLES:
        paras = read_docx((SAMPLE_DIR / f"{stem}.docx").read_bytes())
        edits = load_reply(reply_path(stem))
        assert 6 <= len(edits) <= 9
        ids = [e["id"] for e in edits]
        assert len(set(ids)) == len(ids)
        assert oracle_statuses(paras, edits) == expected[stem]
        seen_status |= set(expected[stem].values())
    assert seen_status >= {
        "applied", "not_found", "ambiguous", "count_mismatch", "out_of_scope", "no_change",
    }  # fmt: skip
    summary = SAMPLE_DIR / "commercial-lease.summary.json"
    paras = read_docx((SAMPLE_DIR / "commercial-lease.docx").read_bytes())
    assert summary_statuses(paras, summary) == expected["commercial-lease.summary"]


def test_replies_exercise_what_models_really_send() -> None:
    md = (SAMPLE_DIR / "commercial-lease.reply.md").read_text(encoding="utf-8")
    assert "```json" in md and not md.lstrip().startswith("```")
    nda = (SAMPLE_DIR / "mutual-nda.reply.json").read_text(encoding="utf-8")
    for legacy in ('"redlines"', '"find"', '"old_text"', '"oldText"', '"action": "delete"'):
        assert legacy in nda
    edits = [e for stem in SAMPLES for e in load_reply(reply_path(stem))]
    assert any(e["expected_matches"] for e in edits)
    assert any(e["replacement"] == "" for e in edits)
    assert any('"' in e["anchor"] or "'" in e["anchor"] for e in edits)
