"""Issue 35's measure: real contracts nobody here wrote, with model-style replies that cite
clauses as lawyers do -- at least 97% of edits get their ideal outcome, none is misplaced.

For every ``$REDLINE_CORPUS`` document that is a contract (``MANIFEST.tsv``: a template of a
contract collection, or a file named a contract or an agreement), a seeded generator writes
model-style edit entries.  It reads the page as a reader does -- each body paragraph's shown
number (Word's label, held to LibreOffice's in ``tests/test_numbering.py``, or the number typed
at its start), its heading style (the style's name or outline level, read from ``styles.xml``
here) and whether it lies in a table -- and from that alone, by rules of its own (not the
outline's), it decides each clause's citation and its extent.  From a paragraph of the clause it
takes a quote that occurs once in the clause but, where it can, elsewhere in the document too,
and cites the clause as lawyers and models write it: "Clause 4.2", "Section 4.2", "§ 4.2",
"4.2", "Section 3(b)", "Article IV", "4.2 Payment", "Schedule 2, paragraph 1", the heading's
text, "the Governing Law clause".

The oracle is the generator's: it knows the paragraph and the offset it took the quote from.
An edit's outcome is *ideal* when it is verified at exactly that place, *misplaced* when it is
verified anywhere else, *refused* otherwise.  The table (per document, per cite form) is
printed; ``python -m tests.test_cite_outcomes_corpus`` prints it with the misses.
"""

from __future__ import annotations

import csv
import random
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from redline.match.locate import Locator
from redline.match.verify import verify
from redline.opc.namespaces import REL_STYLES, w
from redline.opc.package import Package, PackageError
from redline.read.build import build_view
from redline.read.view import DocumentView, Paragraph
from shared_schema import Edit, EditBatch, EditStatus
from testing.contractgen import generate_contract
from testing.docbuild import P, docx
from tests.support import corpus_folder

SEED = 35
PER_DOCUMENT = 60  # clauses cited per document at most
IDEAL_SHARE = 0.97

_WORDS = ["Article", "Section", "Clause", "Schedule", "Annex", "Exhibit", "Part"]
_WORD = "(?P<word>" + "|".join(f"{word}|{word.upper()}" for word in _WORDS) + ")"
# the generator's own reading of a shown number (a label, or the start of a paragraph's text)
_NUMBER = re.compile(
    rf"[\s\u00a0]*(?:{_WORD}\s+(?P<wnum>\d{{1,3}}|[IVXL]{{1,6}}|[A-Z])\b\.?"
    r"|(?P<dec>\d{1,3}(?:\.\d{1,3})+)\.?(?=[\s\u00a0])"
    r"|(?P<one>\d{1,3})\.(?=[\s\u00a0])"
    r"|\(?(?P<paren>\d{1,3})\)(?=[\s\u00a0])"
    r"|\((?P<item>[a-z]{1,2})\)(?=[\s\u00a0])"
    r"|(?P<bare>[a-z]{1,2})[.)](?=[\s\u00a0]))"
)
_CONTAINERS = {"schedule", "annex", "exhibit", "part"}


@dataclass
class Clause:
    """One clause as the generator reads it."""

    index: int  # its numbered paragraph
    kind: str  # "article", "schedule" (annex, exhibit, part), "decimal", "item"
    number: str  # "4.2", "IV", "b"
    word: str = ""  # "Article", "Schedule", ...
    level: int = 0
    parent: Clause | None = None
    container: Clause | None = None  # the schedule it lies in
    title: str = ""  # the words after the number, up to a full stop (or its heading text)
    heading: bool = False  # its paragraph is in a heading style
    last: int = 0  # the last paragraph of its extent
    paragraphs: list[int] = field(default_factory=list)
    citable: bool = True  # the generator is sure how a lawyer cites it


@dataclass
class Case:
    document: str
    form: str  # the cite form's name
    section: str
    anchor: str
    paragraph: int
    start: int  # the view offset the quote was taken from
    unique_in_document: bool


def contracts(folder: Path) -> list[Path]:
    """The corpus documents that are contracts, by MANIFEST.tsv."""
    manifest = folder / "MANIFEST.tsv"
    if not manifest.exists():
        return []
    out = []
    with manifest.open(encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            name, repo, path = row["file"], row["source_repo"], row["path_in_repo"]
            if (
                repo == "open-agreements/open-agreements"
                or re.search(r"contract|agreement", f"{name} {path}", re.IGNORECASE)
            ) and (folder / name).exists():
                out.append(folder / name)
    return sorted(out)


def _heading_styles(view: DocumentView) -> set[str]:
    """The style ids whose name is "heading N" or "Title", or that set an outline level."""
    working = view.working
    if working is None:
        return set()
    package = working.package
    parts = package.related(package.main_part, REL_STYLES)
    if not parts:
        return set()
    root = package.xml(parts[0])
    out: set[str] = set()
    for st in root.iter(w("style")):
        name_el = st.find(w("name"))
        name = (name_el.get(w("val")) or "") if name_el is not None else ""
        level = st.find(f"{w('pPr')}/{w('outlineLvl')}")
        if re.fullmatch(r"(?i)heading [1-9]|title", name) or (
            level is not None and level.get(w("val")) != "9"
        ):
            out.add(st.get(w("styleId")) or "")
    return out


def _style_of(para: Paragraph) -> str:
    p = para.element
    el = p.find(f"{w('pPr')}/{w('pStyle')}")
    return (el.get(w("val")) or "") if el is not None else ""


def read_clauses(view: DocumentView) -> tuple[list[Clause], dict[int, Clause | None]]:
    """The generator's reading: every numbered body paragraph outside tables, with its
    citation's parts and extent, by its own rules (levels: article and schedule 0, a decimal
    number its count of parts, an item below any decimal; a heading-styled paragraph ends every
    extent; a schedule's clauses are the schedule's)."""
    headings = _heading_styles(view)
    body = [p for p in view.paragraphs if p.story == "body"]
    clauses: list[Clause] = []
    owner: dict[int, Clause | None] = {}
    open_: list[Clause] = []
    container: Clause | None = None
    for para in body:
        text = view.paragraph_text(para)
        styled = _style_of(para) in headings if headings else False
        if para.cell:
            owner[para.index] = None  # table text is no clause's here
            continue
        shown = para.label if para.label and any(c.isalnum() for c in para.label) else None
        m = _NUMBER.match(shown + " " if shown else text)
        clause = _clause_of(m, para, text, bool(shown)) if m else None
        if (
            clause is not None
            and clause.kind == "decimal"
            and para.label
            and para.ilvl
            and "." not in clause.number
        ):
            clause = None  # a lone number shown at a deeper list level: cited as the page does not say
        if clause is None:
            if styled and text.strip():
                for c in open_:
                    c.last = para.index - 1
                open_ = []
                owner[para.index] = None
                if re.match(r"(?i)\s*(schedule|annex|exhibit|appendix)\b", text):
                    container = None
                continue
            owner[para.index] = open_[-1] if open_ else None
            if open_:
                open_[-1].paragraphs.append(para.index)
            continue
        clause.heading = styled
        while open_ and open_[-1].level >= clause.level:
            open_.pop().last = para.index - 1
        if clause.kind == "schedule":
            container = clause
            for c in open_:
                c.last = para.index - 1
            open_ = []
        else:
            clause.container = container
        clause.parent = open_[-1] if open_ else None
        clause.paragraphs.append(para.index)
        open_.append(clause)
        clauses.append(clause)
        owner[para.index] = clause
    for c in open_:
        c.last = body[-1].index if body else 0
    return clauses, owner


def _clause_of(m: re.Match[str], para: Paragraph, text: str, labelled: bool) -> Clause | None:
    rest = text if labelled else text[m.end() :]
    rest = rest.lstrip(" \t\u00a0.:\u2013\u2014-")
    title = re.split(r"(?<=[a-z\)])\.\s|:\s|\t", rest, maxsplit=1)[0].strip().rstrip(".:")
    title = title if 0 < len(title.split()) <= 6 else ""
    word = m.group("word")
    if word:
        kind = (
            "schedule"
            if word.casefold() in _CONTAINERS
            else "article"
            if word.casefold() == "article"
            else ""
        )
        if not kind:  # "Section 4.2", "Clause 3": a decimal number with its word
            return Clause(para.index, "decimal", m.group("wnum"), word.title(), 1, title=title)
        return Clause(para.index, kind, m.group("wnum"), word.title(), 0, title=title)
    if m.group("dec"):
        number = m.group("dec")
        return Clause(para.index, "decimal", number, "", number.count(".") + 1, title=title)
    if m.group("one"):
        return Clause(para.index, "decimal", m.group("one"), "", 1, title=title)
    if m.group("paren"):  # "1)", "(1)": an item, its citation as the page does not say
        return Clause(para.index, "item", m.group("paren"), "", 20, title=title, citable=False)
    item = m.group("item") or m.group("bare")
    if item:  # a letter that may be a roman numeral is a clause, but one not cited here
        return Clause(
            para.index, "item", item, "", 20, title=title, citable=len(item) == 1 and item not in "ivxlcdm"
        )
    return None


def _number_key(clause: Clause) -> tuple[object, ...]:
    inside = clause.container.index if clause.container is not None else None
    parent = clause.parent.number if clause.kind == "item" and clause.parent is not None else ""
    return (inside, clause.kind, clause.number.casefold(), parent)


def cites(clause: Clause, rng: random.Random, twice: set[str | tuple[object, ...]]) -> list[tuple[str, str]]:
    """(form, citation) pairs for ``clause``, as lawyers and models write them; none by a
    number or a title the page shows for another clause too (``twice``: a lawyer qualifies
    those, and the document says not how)."""
    out: list[tuple[str, str]] = []
    if _number_key(clause) in twice or not clause.citable:
        return out
    inside = clause.container
    prefix = f"{inside.word} {inside.number}, " if inside is not None else ""
    if clause.kind == "decimal":
        n = clause.number
        if inside is not None:
            out.append(("Schedule N, paragraph n", f"{prefix}paragraph {n}"))
        else:
            word = rng.choice(["Clause", "Section"])
            out += [(f"{word} n", f"{word} {n}"), ("n", n), ("§ n", f"\u00a7 {n}")]
            if clause.title:
                first = " ".join(clause.title.split()[: rng.choice([1, 2, 3])])
                out.append(("n Title", f"{n} {first}"))
    elif clause.kind == "item":
        parent = clause.parent
        if parent is None or parent.kind != "decimal" or inside is not None:
            return []
        if any(c.kind == "item" for c in _chain(parent)):
            return []
        out.append(("Section n(x)", f"Section {parent.number}({clause.number})"))
    elif clause.kind == "article":
        out.append(("Article N", f"Article {clause.number}"))
    elif clause.kind == "schedule":
        out.append(("Schedule N", f"{clause.word} {clause.number}"))
    if (
        clause.title
        and clause.kind in ("decimal", "article")
        and inside is None
        and (clause.title.casefold() not in twice)
        and (clause.heading or len(clause.title.split()) <= 4)
    ):
        out.append(("heading text", clause.title))
        out.append(("the Title clause", f"the {clause.title} clause"))
    return out


def _chain(clause: Clause) -> list[Clause]:
    out = []
    node: Clause | None = clause
    while node is not None:
        out.append(node)
        node = node.parent
    return out


def _quote(view: DocumentView, locator: Locator, clause: Clause, index: int, extent: str,
           rng: random.Random) -> tuple[str, int, bool] | None:  # fmt: skip
    """A quote of paragraph ``index``: once in the clause's extent, and (where one can be
    found) more than once in the document; (quote, view offset, unique in the document)."""
    para = view.paragraphs[index]
    text = view.paragraph_text(para)
    words = list(re.finditer(r"\S+", text))
    if len(words) < 5:
        return None
    spans = []
    for size in (4, 5, 6):
        for k in range(1, len(words) - size + 1):
            a, b = words[k].start(), words[k + size - 1].end()
            spans.append((a, b))
    rng.shuffle(spans)
    fallback = None
    for a, b in spans[:200]:
        quote = text[a:b].strip(" ,;:")
        if len(quote) < 12 or extent.count(quote) != 1 or text.count(quote) != 1:
            continue
        a = text.index(quote)
        n = locator.count(quote, 2)
        if n >= 2 and view.text.count(quote) == n:
            return quote, para.start + a, False
        if n == 1 and fallback is None:
            fallback = (quote, para.start + a, True)
    return fallback


def generate(view: DocumentView, name: str, seed: int = SEED) -> list[Case]:
    """The edits of one document (see the module's docstring)."""
    rng = random.Random(f"{seed}:{name}")
    locator = Locator(view)
    clauses, _ = read_clauses(view)
    seen = Counter([_number_key(c) for c in clauses] + [c.title.casefold() for c in clauses if c.title])
    twice = {key for key, n in seen.items() if n > 1}
    citable = list(clauses)
    rng.shuffle(citable)
    out: list[Case] = []
    for clause in citable:
        forms = cites(clause, rng, twice)
        if not forms:
            continue
        paras = [i for i in range(clause.index, clause.last + 1) if view.paragraphs[i].story == "body"]
        if not paras:
            continue
        extent = "\n".join(view.paragraph_text(view.paragraphs[i]) for i in paras)
        # its own paragraph, one of its body text and (a container's) one of its sub-clauses'
        inner = [i for i in paras if i not in clause.paragraphs]
        sources = [clause.index, *rng.sample(clause.paragraphs[1:], min(1, len(clause.paragraphs) - 1))]
        sources += rng.sample(inner, min(2, len(inner)))
        for form, section in forms:
            source = rng.choice(sources)
            found = _quote(view, locator, clause, source, extent, rng)
            if found is None:
                continue
            quote, start, unique = found
            out.append(Case(name, form, section, quote, source, start, unique))
        if len({c.section for c in out}) >= PER_DOCUMENT * 3:
            break
    return out


@dataclass
class Tally:
    ideal: int = 0
    refused: int = 0
    misplaced: int = 0
    misses: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.ideal + self.refused + self.misplaced


def judge(view: DocumentView, cases: list[Case]) -> dict[str, Counter[str]]:
    """Each case's outcome, by document and by form: {"ideal"|"refused"|"misplaced": n}."""
    locator = Locator(view)
    out: dict[str, Counter[str]] = {}
    for case in cases:
        edit = Edit(anchor=case.anchor, replacement=case.anchor + " (amended)", section=case.section)
        [result] = verify(locator, EditBatch(edits=[edit]), dry_run=True).results
        if result.status == EditStatus.VERIFIED:
            places = [(loc.paragraph, loc.start) for loc in result.locations]
            outcome = "ideal" if places == [(case.paragraph, case.start)] else "misplaced"
        else:
            outcome = "refused"
        for key in (case.document, f"form: {case.form}"):
            out.setdefault(key, Counter())[outcome] += 1
        if outcome != "ideal":
            why = result.error.message if result.error is not None else f"at {result.locations}"
            out.setdefault("misses", Counter())[
                f"{outcome} {case.document} {case.section!r} quote {case.anchor!r} (paragraph "
                f"{case.paragraph}, {'unique' if case.unique_in_document else 'not unique'} in the "
                f"document): {why[:160]}"
            ] += 1
    return out


def measure(folder: Path) -> dict[str, Counter[str]]:
    """Every contract of the corpus, generated and judged: the counts by document and form."""
    total: dict[str, Counter[str]] = {}
    for path in contracts(folder):
        try:
            view = build_view(Package.from_bytes(path.read_bytes()))
        except PackageError:
            continue
        for key, counts in judge(view, generate(view, path.name)).items():
            total.setdefault(key, Counter()).update(counts)
    return total


def table(counts: dict[str, Counter[str]]) -> str:
    rows = [f"{'':44} {'edits':>6} {'ideal':>6} {'refused':>8} {'misplaced':>10}"]
    keys = sorted(k for k in counts if k != "misses" and not k.startswith("form: "))
    keys += sorted(k for k in counts if k.startswith("form: "))
    for key in keys:
        c = counts[key]
        n = sum(c.values())
        rows.append(f"{key:44} {n:6} {c['ideal']:6} {c['refused']:8} {c['misplaced']:10}")
    ideal = sum(counts[k]["ideal"] for k in keys if not k.startswith("form: "))
    n = sum(sum(counts[k].values()) for k in keys if not k.startswith("form: "))
    rows.append(f"{'all':44} {n:6} {ideal:6} ({ideal / max(n, 1):.1%} ideal)")
    return "\n".join(rows)


CORPUS = corpus_folder()

_ROMANS = ["I", "II", "III", "IV", "V", "VI"]
_TITLES = ["Definitions", "Services", "Payment Terms", "Confidentiality", "Liability", "Termination"]
_BOILER = [
    "in accordance with this Agreement",
    "within thirty days of written notice",
    "at its own cost and expense",
    "subject to the limits set out below",
]


def typed_contract(seed: int) -> bytes:
    """A contract with typed articles ("ARTICLE II PAYMENT TERMS"), typed clauses ("2.1") and
    items, and two schedules with paragraphs of their own ("1."), whose sentences share
    boilerplate (so quotes repeat across clauses) -- the forms the corpus contracts lack."""
    rng = random.Random(seed)
    blocks: list[object] = [P("THIS AGREEMENT is made between the parties named on the cover page.")]
    for a, (roman, title) in enumerate(zip(_ROMANS[:5], _TITLES, strict=False), start=1):
        blocks.append(P(f"ARTICLE {roman} {title.upper()}"))
        for c in range(1, rng.randint(2, 4) + 1):
            word = rng.choice(["Notice", "Scope", "Records", "Audit", "Review", "Reports"])
            blocks.append(P(f"{a}.{c} {word} {a}{c}. The parties act {rng.choice(_BOILER)} for item {a}{c}."))
            if rng.random() < 0.4:
                for letter in "ab":
                    blocks.append(
                        P(f"({letter}) each party acts {rng.choice(_BOILER)} as to {a}{c}{letter};")
                    )
            blocks.append(P(f"This applies {rng.choice(_BOILER)} to matter {a}-{c}."))
    for n, title in ((1, "SERVICES"), (2, "FEES")):
        blocks.append(P(f"SCHEDULE {n} {title}"))
        for k in range(1, 4):
            blocks.append(P(f"{k}. The Supplier provides part {n}{k} {rng.choice(_BOILER)} in schedule {n}."))
    return docx(*blocks)


@pytest.mark.corpus
@pytest.mark.slow
@pytest.mark.skipif(CORPUS is None, reason="set REDLINE_CORPUS to the real-document corpus")
def test_lawyers_cites_on_real_contracts_get_their_ideal_outcome() -> None:
    assert CORPUS is not None
    folder = Path(CORPUS)
    assert len(contracts(folder)) >= 10
    counts = measure(folder)
    print("\n" + table(counts), file=sys.stderr)
    docs = [k for k in counts if k != "misses" and not k.startswith("form: ")]
    ideal = sum(counts[k]["ideal"] for k in docs)
    misplaced = sum(counts[k]["misplaced"] for k in docs)
    total = sum(sum(counts[k].values()) for k in docs)
    misses = "\n".join(list(counts.get("misses", Counter()))[:40])
    assert total >= 300, total
    assert misplaced == 0, misses
    assert ideal >= IDEAL_SHARE * total, f"{ideal}/{total} ideal\n{misses}"
    forms = {k for k in counts if k.startswith("form: ")}
    assert len(forms) >= 8, forms  # every cite form was tried


def test_lawyers_cites_on_generated_contracts_get_their_ideal_outcome() -> None:
    """The same generator and judge on generated contracts (``testing.contractgen``'s three
    kinds) and on typed-article contracts with schedules: every form, none misplaced."""
    counts: dict[str, Counter[str]] = {}
    documents = [(f"{kind}-{seed}", generate_contract(kind, seed=seed)) for kind in ("lease", "nda", "msa")
                 for seed in (1, 2)]  # fmt: skip
    documents += [(f"typed-{seed}", typed_contract(seed)) for seed in (1, 2, 3)]
    for name, data in documents:
        view = build_view(Package.from_bytes(data))
        for key, found in judge(view, generate(view, name)).items():
            counts.setdefault(key, Counter()).update(found)
    docs = [k for k in counts if k != "misses" and not k.startswith("form: ")]
    ideal = sum(counts[k]["ideal"] for k in docs)
    total = sum(sum(counts[k].values()) for k in docs)
    misses = "\n".join(list(counts.get("misses", Counter()))[:20])
    assert sum(counts[k]["misplaced"] for k in docs) == 0, misses
    assert ideal >= IDEAL_SHARE * total and total >= 500, f"{ideal}/{total}\n{misses}"
    for form in ("Article N", "Schedule N", "Schedule N, paragraph n", "Section n(x)", "the Title clause"):
        assert counts.get(f"form: {form}", Counter())["ideal"] > 0, (form, table(counts))


if __name__ == "__main__":
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else (CORPUS or "."))
    found = measure(folder)
    print(table(found))
    for miss in found.get("misses", Counter()):
        print(miss)
