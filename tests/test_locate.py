"""The locator: exact, else tolerant of typography only; every occurrence counted; never a pick.

Property tests plant an anchor in random contract-like text with random typography and check the
locator against an oracle built from the words themselves; corpus tests draw anchors from the
real documents in ``$REDLINE_CORPUS``.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from lxml import etree

from redline.match.hints import describe_difference, nearest, unique_extension
from redline.match.locate import MAX_MATCHES, Locator
from redline.match.verify import verify
from redline.opc.namespaces import W_NS
from redline.opc.package import Package, PackageError
from redline.read.build import build_view, flatten
from redline.read.view import DocumentView, Story
from redline.text.normalize import normalize
from shared_schema import Edit, EditStatus, MatchKind
from tests.support import corpus_paths

ROOT = Path(__file__).resolve().parent.parent


def view_of(*paragraphs: str, run_size: int = 5) -> DocumentView:
    """A body of ``paragraphs``, each cut into runs of ``run_size`` characters; ``\\t`` and
    ``\\n`` become ``w:tab`` and ``w:br``."""
    body = []
    for text in paragraphs:
        runs = []
        for i in range(0, len(text), run_size):
            chunk = text[i : i + run_size]
            parts = re.split("([\t\n])", chunk)
            xml = "".join(
                {"\t": "<w:tab/>", "\n": "<w:br/>"}.get(p) or f'<w:t xml:space="preserve">{escape(p)}</w:t>'
                for p in parts
                if p
            )
            runs.append(f"<w:r>{xml}</w:r>")
        body.append(f"<w:p>{''.join(runs)}</w:p>")
    root = etree.fromstring(f'<w:body xmlns:w="{W_NS}">{"".join(body)}</w:body>'.encode())
    return flatten([Story("word/document.xml", "body", root)], revision="sha256:test")


LEASE = [
    "Operating Expenses. Tenant shall pay Tenant\u2019s Proportionate Share of Operating Expenses within "
    "thirty (30) days after receipt of Landlord\u2019s statement.",
    "Late Charge. If any Rent is not paid within five (5) days after it is due, Tenant shall pay a late "
    "charge \u2014 five percent (5%) of the overdue amount \u2026 as Additional Rent.",
    "Notices under Section\u00a04.2 must be in writing;\tcopies to counsel.",
]


# -- finding ------------------------------------------------------------------------------------


def test_exact_and_tolerant_matches_are_told_apart() -> None:
    loc = Locator(view_of(*LEASE))
    exact = loc.find("Tenant shall pay Tenant\u2019s Proportionate Share")
    assert exact.kind == MatchKind.EXACT and exact.tolerances == [] and len(exact.ranges) == 1
    tolerant = loc.find("Tenant shall pay Tenant's Proportionate Share")
    assert tolerant.kind == MatchKind.NORMALIZED and tolerant.tolerances == ["quotes"]
    assert tolerant.ranges == exact.ranges
    both = loc.find("charge - five percent (5%) of the overdue amount ... as Additional")
    assert both.tolerances == ["dashes", "ellipsis"] and len(both.ranges) == 1
    spaced = loc.find("Section 4.2 must be in writing; copies")
    assert spaced.tolerances == ["whitespace"]
    assert loc.view.text[slice(*spaced.ranges[0])] == "Section\u00a04.2 must be in writing;\tcopies"


@pytest.mark.parametrize("invisible", ["\u00ad", "\u200b", "\ufeff"])
def test_an_invisible_character_at_a_matchs_edge_is_not_taken_into_it(invisible: str) -> None:
    """Normalisation drops an invisible character into its neighbour; a quote that starts or
    ends with the whitespace next to one is still found verbatim, without it (found by the long
    fuzz run: a soft hyphen before a paragraph mark made "\n rent" a tolerant match that kept
    the mark the replacement removed)."""
    loc = Locator(view_of(f"Section a{invisible}", " rent is due", f"{invisible}later"))
    text = loc.view.text
    for quote in ("\n rent is", "is due\n", f"a{invisible}\n rent"):
        found = loc.find(quote)
        assert found.kind == MatchKind.EXACT, (quote, found)
        assert [text[s:e] for s, e in found.ranges] == [quote]
    # one whitespace run split by an invisible character: the quote's trailing "\n " is the
    # start of it, not the mark after the soft hyphen (which the writer would then delete)
    split = Locator(view_of("Tenant pays rent.", f"  {invisible} ", "", "Next line"))
    found = split.find("pays rent.\n ")
    assert found.kind == MatchKind.EXACT
    assert [split.view.text[s:e] for s, e in found.ranges] == ["pays rent.\n "]
    # a quote whose own edge run holds the invisible character is found as it is
    own = Locator(view_of("a-b ", invisible, "\tThe fee", "x\t", invisible))
    for quote in (f" \n{invisible}\n\tThe", f"fee\nx\t\n{invisible}"):
        found = own.find(quote)
        assert found.kind == MatchKind.EXACT, (quote, found)
        assert [own.view.text[s:e] for s, e in found.ranges] == [quote]
    # and one that begins or ends with the invisible character itself, next to a word
    inner = Locator(view_of(f"Pay {invisible}rent now and{invisible} then"))
    for quote in (f"{invisible}rent now", f"now and{invisible}"):
        found = inner.find(quote)
        assert found.kind == MatchKind.EXACT, (quote, found)
        assert [inner.view.text[s:e] for s, e in found.ranges] == [quote]
    tolerant = loc.find("a\n rent")  # without the invisible character: tolerant, spanning it
    assert tolerant.kind == MatchKind.NORMALIZED
    assert text[slice(*tolerant.ranges[0])] == f"a{invisible}\n rent"


def test_a_quote_cannot_end_inside_an_expanded_ellipsis() -> None:
    loc = Locator(view_of("the overdue amount\u2026 as Additional Rent"))
    assert loc.find("amount.").ranges == []
    assert loc.find("amount..").ranges == []
    assert loc.find(". as Additional").ranges == []
    assert len(loc.find("amount... as").ranges) == 1


def test_blank_and_unknown_quotes_are_not_found() -> None:
    loc = Locator(view_of(*LEASE))
    assert loc.find("   ").ranges == [] and loc.find("\u00ad").ranges == []
    assert loc.find("The Purchaser shall indemnify").ranges == []
    assert loc.count("Tenant shall pay") == 2


def test_every_occurrence_is_counted_and_more_than_the_cap_is_flagged() -> None:
    loc = Locator(view_of(" ".join(["the Rent"] * (MAX_MATCHES + 5))))
    found = loc.find("the Rent")
    assert found.truncated and len(found.ranges) == MAX_MATCHES
    assert loc.count("the Rent", limit=10) == 11


def test_overlapping_occurrences_are_each_counted() -> None:
    loc = Locator(view_of("Signature: ____________"))
    assert len(loc.find("______").ranges) == 7


def test_the_token_index_finds_exactly_what_a_scan_finds() -> None:
    rng = random.Random(4)
    words = ["Tenant", "Landlord", "shall", "pay", "the", "Rent", "of", "thirty", "(30)", "Section\u00a04.2"]
    paras = [" ".join(rng.choice(words) for _ in range(rng.randrange(5, 40))) for _ in range(200)]
    view = view_of(*paras)
    indexed = Locator(view)
    indexed.prepare()
    text = view.text
    for _ in range(400):
        s = rng.randrange(len(text) - 10)
        quote = text[s : s + rng.randrange(1, 60)]
        if rng.random() < 0.3:
            quote = quote.replace("\u00a0", " ").replace("the", "teh")
        scanning = Locator(view)  # a fresh locator scans the text for its first quotes
        assert indexed.find(quote) == scanning.find(quote)
        assert scanning._tokens is None


_WORDS = ["Tenant", "shall", "pay", "the", "Rent", "of", "(30)", "Section\u00a04.2", "…", "“x”"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    paras=st.lists(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=12), min_size=1, max_size=12),
    cuts=st.lists(st.tuples(st.integers(0, 10_000), st.integers(1, 60)), min_size=1, max_size=20),
)
def test_quotes_scanned_and_indexed_are_found_alike(
    paras: list[list[str]], cuts: list[tuple[int, int]]
) -> None:
    # the locator scans for its first few quotes and indexes after: either way every quote
    # is found at the same places, with the same kind and tolerances
    view = view_of(*(" ".join(words) for words in paras))
    text = view.text
    indexed = Locator(view)
    indexed.prepare()
    for at, size in cuts:
        s = at % len(text)
        quote = text[s : s + size]
        scanning = Locator(view)  # (a fresh one scans for its first few quotes)
        assert scanning.find(quote) == indexed.find(quote)
        assert scanning.count(quote, limit=3) == indexed.count(quote, limit=3)
        assert scanning._tokens is None


# -- reporting ----------------------------------------------------------------------------------


def test_a_location_names_its_paragraph_and_a_short_context() -> None:
    view = view_of(*LEASE)
    loc = Locator(view)
    (rng,) = loc.find("within five (5) days").ranges
    where = loc.location(*rng)
    assert where.paragraph == 1 and where.part == "word/document.xml"
    assert (where.start, where.end) == rng
    assert (
        where.context is not None and where.context.startswith("\u2026") and where.context.endswith("\u2026")
    )
    assert "within five (5) days" in where.context and "\n" not in where.context
    assert loc.where(rng[0]) == "paragraph 1"


# -- near misses ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "quote, passage, difference",
    [
        ("Tenant shall pay all Tenant\u2019s Proportionate Share",
         "Tenant shall pay Tenant\u2019s Proportionate Share", "your quote adds 'all'"),
        ("If any Rent is not paid within (5) days", "If any Rent is not paid within five (5) days",
         "your quote is missing 'five'"),
        ("Tenant shall pay a late fee", "Tenant shall pay a late charge",
         "your quote has 'fee' where the document has 'charge'"),
        ("tenant shall pay a late charge", "Tenant shall pay a late charge",
         "your quote has 'tenant' where the document has 'Tenant' (case differs)"),
        ("Notices under Section 4.2 may be in writing", "Notices under Section\u00a04.2 must be in writing",
         "your quote has 'may' where the document has 'must'"),
    ],
)  # fmt: skip
def test_the_nearest_passage_is_the_one_the_quote_came_from_and_says_what_differs(
    quote: str, passage: str, difference: str
) -> None:
    loc = Locator(view_of(*LEASE))
    assert loc.find(quote).ranges == []
    near = nearest(loc, quote)
    assert near is not None
    assert near.text == passage
    assert loc.view.text[near.start : near.end] == passage
    assert difference in near.differences


def test_nothing_close_gives_no_nearest_passage() -> None:
    loc = Locator(view_of(*LEASE))
    assert nearest(loc, "Purchaser indemnifies Vendor against third-party claims") is None
    assert nearest(loc, "   ") is None


def test_differences_are_described_word_by_word() -> None:
    assert describe_difference("pay all rent", "pay rent") == ["your quote adds 'all'"]
    assert describe_difference("pay rent", "pay the rent") == ["your quote is missing 'the'"]
    assert describe_difference("Tenant\u2019s rent", "Tenant's rent") == []  # typography is no difference


# -- unique extensions ----------------------------------------------------------------------------


def test_no_unique_extension_when_the_passage_repeats_verbatim() -> None:
    clause = "Tenant shall keep the Premises in good repair at its own cost and expense."
    loc = Locator(view_of(clause, clause))
    first, second = loc.find("good repair").ranges
    # the paragraph repeats, so the shortest unique extension reaches into the next one
    assert unique_extension(loc, "good repair", *first) == "good repair at its own cost and expense.\nTenant"
    assert (
        unique_extension(loc, "good repair", *second)
        == "expense.\nTenant shall keep the Premises in good repair"
    )
    loc = Locator(view_of("x " + clause, "y " + clause, "y " + clause))
    third = loc.find("good repair").ranges[2]
    assert unique_extension(loc, "good repair", *third, max_words=12) is None


# -- property tests: an oracle from the words themselves ------------------------------------------

VOCAB = ("Tenant", "Landlord", "shall", "pay", "Rent", "Premises", "within", "thirty", "days", "notice",
         "Section", "4.2", "Lease", "Term", "costs", "Operating", "Expenses", "of", "the", "or")  # fmt: skip
DECOS = ("plain", "plain", "possessive", "quoted", "invisible", "ellipsis", "range")
SEPARATORS = (" ", " ", " ", "\u00a0", "  ", "\t", "\u2009", "\u202f", " \n", "\u3000", " \u200b ", "\u00ad ")


def canonical(base: str, deco: str) -> str:
    return {
        "possessive": base + "'s",
        "quoted": f'"{base}"',
        "ellipsis": base + "...",
        "range": "2025-2030",
    }.get(deco, base)


def render(base: str, deco: str, rnd: random.Random) -> str:
    """One typographic rendering of the word (base, deco)."""
    if deco == "possessive":
        return base + rnd.choice(["\u2019", "'", "\u02bc"]) + "s"
    if deco == "quoted":
        opening, closing = rnd.choice([("\u201c", "\u201d"), ('"', '"'), ("\u201e", "\u201c")])
        return f"{opening}{base}{closing}"
    if deco == "invisible" and len(base) > 1:
        k = rnd.randrange(1, len(base))
        return base[:k] + rnd.choice(["\u00ad", "\u200b", "\u2060", "\ufeff"]) + base[k:]
    if deco == "ellipsis":
        return base + rnd.choice(["\u2026", "..."])
    if deco == "range":
        return "2025" + rnd.choice("-\u2013\u2014\u2011\u2212") + "2030"
    return base


@dataclass
class Doc:
    words: list[tuple[str, str]]  # (base, deco) of every word, in order
    text: str
    starts: list[int]  # view span of each rendered word
    ends: list[int]
    view: DocumentView
    canon: str  # the canonical text: what the normalised view text must equal
    cstarts: list[int]


def make_doc(paragraphs: list[list[tuple[str, str]]], rnd: random.Random) -> Doc:
    texts, words, starts, ends = [], [], [], []
    offset = 0
    for para in paragraphs:
        parts = []
        for k, word in enumerate(para):
            if k:
                sep = rnd.choice(SEPARATORS)
                parts.append(sep)
                offset += len(sep)
            rendered = render(*word, rnd)
            words.append(word)
            starts.append(offset)
            ends.append(offset + len(rendered))
            parts.append(rendered)
            offset += len(rendered)
        texts.append("".join(parts))
        offset += 1  # the paragraph separator
    view = view_of(*texts, run_size=rnd.randrange(1, 9))
    canon_words = [canonical(*w) for w in words]
    cstarts, pos = [], 0
    for cw in canon_words:
        cstarts.append(pos)
        pos += len(cw) + 1
    return Doc(words, view.text, starts, ends, view, " ".join(canon_words), cstarts)


def oracle_ranges(doc: Doc, canon_anchor: str) -> list[tuple[int, int]] | None:
    """The view ranges of every occurrence of the canonical anchor, found among the canonical
    words; None when an occurrence does not begin and end at word boundaries."""
    by_start = {c: k for k, c in enumerate(doc.cstarts)}
    by_end = {c + len(canonical(*w)): k for k, (c, w) in enumerate(zip(doc.cstarts, doc.words, strict=True))}
    out = []
    pos = doc.canon.find(canon_anchor)
    while pos >= 0:
        first, last = by_start.get(pos), by_end.get(pos + len(canon_anchor))
        if first is None or last is None:
            return None
        out.append((doc.starts[first], doc.ends[last]))
        pos = doc.canon.find(canon_anchor, pos + 1)
    return out


def render_anchor(words: list[tuple[str, str]], rnd: random.Random) -> str:
    return "".join((rnd.choice(SEPARATORS) if k else "") + render(*w, rnd) for k, w in enumerate(words))


word_st = st.tuples(st.sampled_from(VOCAB), st.sampled_from(DECOS))
paragraphs_st = st.lists(st.lists(word_st, min_size=1, max_size=14), min_size=1, max_size=6)
PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _plant(
    data: st.DataObject, paragraphs: list[list[tuple[str, str]]]
) -> tuple[Doc, int, int, random.Random]:
    rnd = random.Random(data.draw(st.integers(0, 2**32), label="seed"))
    doc = make_doc(paragraphs, rnd)
    assert normalize(doc.text) == doc.canon  # the oracle's premise
    first = data.draw(st.integers(0, len(doc.words) - 1), label="first")
    last = data.draw(st.integers(first, min(len(doc.words) - 1, first + 7)), label="last")
    return doc, first, last, rnd


def _locator(doc: Doc, indexed: bool) -> Locator:
    loc = Locator(doc.view)
    if indexed:
        loc.prepare()
    return loc


@PROPERTY
@given(paragraphs_st, st.booleans(), st.data())
def test_typography_only_transformations_are_located_at_the_planted_offsets(
    paragraphs: list[list[tuple[str, str]]], indexed: bool, data: st.DataObject
) -> None:
    doc, first, last, rnd = _plant(data, paragraphs)
    words = doc.words[first : last + 1]
    anchor = render_anchor(words, rnd)
    expected = oracle_ranges(doc, " ".join(canonical(*w) for w in words))
    assume(expected is not None)
    found = _locator(doc, indexed).find(anchor)
    planted = (doc.starts[first], doc.ends[last])
    assert planted in found.ranges
    assert found.ranges == expected
    exact = all(doc.text[s:e] == anchor for s, e in found.ranges)
    assert found.kind == (MatchKind.EXACT if exact else MatchKind.NORMALIZED)


@PROPERTY
@given(paragraphs_st, st.booleans(), st.sampled_from(["add", "drop", "change", "case"]), st.data())
def test_a_word_level_change_is_never_located_where_it_was_planted(
    paragraphs: list[list[tuple[str, str]]], indexed: bool, how: str, data: st.DataObject
) -> None:
    doc, first, last, rnd = _plant(data, paragraphs)
    words = list(doc.words[first : last + 1])
    if how == "add":
        k = data.draw(st.integers(1, max(1, len(words) - 1)), label="at")
        words.insert(k, (data.draw(st.sampled_from(VOCAB), label="word"), "plain"))
    elif how == "drop":
        assume(len(words) >= 3)
        del words[data.draw(st.integers(1, len(words) - 2), label="at")]
    elif how == "change":
        k = data.draw(st.integers(0, len(words) - 1), label="at")
        new = data.draw(st.sampled_from([v for v in VOCAB if v != words[k][0]]), label="word")
        words[k] = (new, "plain" if words[k][1] == "range" else words[k][1])  # "range" ignores its base
    else:
        cased = [k for k, (base, deco) in enumerate(words) if base[0].isalpha() and deco != "range"]
        assume(cased)
        k = data.draw(st.sampled_from(cased), label="at")
        words[k] = (words[k][0].swapcase(), words[k][1])
    anchor = render_anchor(words, rnd)
    expected = oracle_ranges(doc, " ".join(canonical(*w) for w in words))
    assume(expected is not None)
    found = _locator(doc, indexed).find(anchor)
    assert (doc.starts[first], doc.ends[last]) not in found.ranges
    assert found.ranges == expected  # found only where the changed words really are (usually nowhere)


@PROPERTY
@given(paragraphs_st, st.booleans(), st.data())
def test_an_anchor_that_occurs_twice_is_always_ambiguous(
    paragraphs: list[list[tuple[str, str]]], indexed: bool, data: st.DataObject
) -> None:
    doc, first, last, rnd = _plant(data, paragraphs)
    words = doc.words[first : last + 1]
    para_of = [n for n, para in enumerate(paragraphs) for _ in para]
    inside = range(para_of[first] + 1, para_of[last] + 1)  # a copy there would split the planted words
    copy_at = data.draw(
        st.sampled_from([i for i in range(len(paragraphs) + 1) if i not in inside]), label="at"
    )
    paragraphs = [*paragraphs[:copy_at], list(words), *paragraphs[copy_at:]]
    doc = make_doc(paragraphs, rnd)
    anchor = render_anchor(words, rnd)
    expected = oracle_ranges(doc, " ".join(canonical(*w) for w in words))
    assume(expected is not None)
    assert expected is not None  # (for the type checker: assume() has just made sure)
    assert len(expected) >= 2
    loc = _locator(doc, indexed)
    result = verify(loc, [Edit(anchor=anchor, replacement="REPLACED")], dry_run=True).results[0]
    assert result.status == EditStatus.AMBIGUOUS
    assert result.error is not None and result.error.actual_matches == len(expected)
    assert [(c.start, c.end) for c in result.error.candidates] == expected


# -- the real documents ---------------------------------------------------------------------------

CORPUS_DOCS = corpus_paths()
_STRIP = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-", "\u2011": "-",
     "\u00a0": " ", "\u202f": " ", "\u2009": " ", "\u00ad": "", "\u200b": "", "\u2026": "..."}
)  # fmt: skip
_FILLER = ("hereby", "promptly", "all", "such")


def _corpus_view(path: Path) -> DocumentView:
    try:
        view = build_view(Package.from_bytes(path.read_bytes()))
    except PackageError as exc:
        pytest.skip(f"{path.name} is refused at load ({exc.code})")
    if not any(len(view.paragraph_text(p).split()) >= 6 for p in view.paragraphs):
        pytest.skip(f"{path.name} has no paragraph of six words")
    return view


def _draw(view: DocumentView, rnd: random.Random, n: int) -> list[tuple[int, int, list[str]]]:
    """Up to ``n`` passages of 4-10 whitespace-separated words, each inside one paragraph."""
    paras = [p for p in view.paragraphs if len(view.paragraph_text(p).split()) >= 6]
    out = []
    for para in rnd.sample(paras, min(n, len(paras))):
        spans = [
            (m.start() + para.start, m.end() + para.start)
            for m in re.finditer(r"\S+", view.paragraph_text(para))
        ]
        size = rnd.randrange(4, min(10, len(spans)) + 1)
        k = rnd.randrange(len(spans) - size + 1)
        out.append((spans[k][0], spans[k + size - 1][1], [view.text[s:e] for s, e in spans[k : k + size]]))
    return out


def _oracle_count(view: DocumentView, quote: str) -> int:
    hay, needle = normalize(view.text), normalize(quote)
    n, pos = 0, hay.find(needle)
    while pos >= 0:
        n, pos = n + 1, hay.find(needle, pos + 1)
    return n


@pytest.mark.corpus
@pytest.mark.parametrize("path", CORPUS_DOCS, ids=lambda p: p.stem)
def test_corpus_anchors_are_located_at_their_paragraph_or_refused_never_picked(path: Path) -> None:
    view = _corpus_view(path)
    rnd = random.Random(zlib.crc32(path.name.encode()))
    loc = Locator(view)
    checked = 0
    for s, e, words in _draw(view, rnd, 12):
        paragraph = view.paragraph_at(s).index
        verbatim = view.text[s:e]
        stripped = verbatim.translate(_STRIP)
        rewrapped = "".join(w + rnd.choice(["\n", "  ", "\t", " \u00a0", " "]) for w in words).rstrip()
        for anchor in (verbatim, stripped, rewrapped):
            found = loc.find(anchor)
            assert (s, e) in found.ranges, (anchor, found.ranges)
            result = verify(
                loc, [Edit(anchor=anchor, replacement=anchor + " (amended)")], dry_run=True
            ).results[0]
            assert any(c.paragraph == paragraph and (c.start, c.end) == (s, e) for c in result.locations)
            if len(found.ranges) > 1:  # never silently resolved to one of several
                assert result.status == EditStatus.AMBIGUOUS
                assert len(result.locations) == len(found.ranges)
            else:
                assert result.status in (EditStatus.VERIFIED, EditStatus.UNSUPPORTED)
            checked += 1
        if len(words) >= 3:
            k = rnd.randrange(1, len(words) - 1)
            added = " ".join([*words[:k], rnd.choice(_FILLER), *words[k:]])
            dropped = " ".join(words[:k] + words[k + 1 :])
            for anchor in (added, dropped):
                found = loc.find(anchor)
                assert (s, e) not in found.ranges
                assert len(found.ranges) == min(_oracle_count(view, anchor), MAX_MATCHES)
                if not found.ranges:
                    result = verify(loc, [Edit(anchor=anchor, replacement="x")], dry_run=True).results[0]
                    assert result.status == EditStatus.NOT_FOUND
    assert checked > 0


# -- the benchmark runs ---------------------------------------------------------------------------------


def test_the_benchmark_command_runs() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.bench_locate",
            "--pages",
            "8",
            "--anchors",
            "40",
            "--repeats",
            "1",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "bare lxml parse" in proc.stdout and "near-miss" in proc.stdout
    assert "40/40" in proc.stdout  # every anchor located at its planted offsets, or refused if absent
