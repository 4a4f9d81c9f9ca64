"""The outline: the sections a view's paragraphs head, how they nest, and the names they answer to.

:func:`build_outline` reads, per paragraph, its displayed label, list level, outline level and the
start of its text (:class:`Entry`), and gives an :class:`Outline`: every :class:`Head` (a
numbered clause or a heading), where its section ends, its citation and title, and the head each
paragraph lies under.  The rules -- what is a number, how sections nest by rank, how a head is
named -- are :mod:`redline.read.sections`'s docstring; :meth:`Outline.named` finds the sections a
reference names.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final, NamedTuple

from .sections import (
    _RANK_OF_KIND,
    _ROMAN,
    MAX_REFERENCE,
    NAMESPACES,
    Kind,
    Number,
    Reference,
    _key_text,
    _roman_value,
    is_number,
    label_form,
    number_and_title,
    numerals_form,
    parse_reference,
    read_number,
    typed_number,
)


class Entry(NamedTuple):
    """What the outline needs of one paragraph of a story (a named tuple: a view makes one per
    paragraph, and a tuple is made in a third of a frozen dataclass's time)."""

    story: str  # a new story starts the outline again (only the body has numbers)
    label: str | None  # the label Word displays, or None
    ilvl: int | None  # its list level
    outline: int | None  # the paragraph's outline level (a heading), or None
    # The start of the paragraph's text: enough for a typed number and a title (240
    # characters) or, when build_outline is given where the titles are (text_of), enough for a
    # typed number (TYPED_SPAN characters; none when the label is a number).
    text: str
    contents: bool = False  # a line of a table of contents (redline.read.contents): no section
    cell: bool = False  # it lies in a table's cell: a head there ends with the table

    def as_contents(self) -> Entry:
        """This entry read as a contents line."""
        return self._replace(contents=True)


@dataclass(slots=True, eq=False)
class Head:
    """One section: the paragraph that heads it, and where it ends."""

    index: int  # the heading paragraph's position among the entries
    number: Number | None  # None for an unnumbered heading
    shown: str | None  # the number as shown: the label, or the typed number
    typed: bool
    heading: bool  # an outline heading (True), or a numbered clause (False)
    rank: float
    parent: Head | None = None
    last: int = -1  # the position of the section's last paragraph
    depth: int = 0  # 0 for a top-level section, its parent's + 1 inside one
    style: str = ""  # its number's style ("1", "a", "A", "i", "I"), "(i)" read as roman or letter
    cell: bool = False  # it lies in a table's cell (a number there yields to the body's)
    children: list[Head] = field(default_factory=list, repr=False)
    # Its names (cite, title, path, namespace below), made from its entry on first use: most
    # sections of a document are never named (an edit names a few, a report the ones it lands in).
    entry: Entry | None = field(default=None, repr=False)
    text_of: Callable[[int], str] | None = field(default=None, repr=False)  # see build_outline
    _cite: str = ""
    _title: str = ""
    _path: tuple[str, ...] = ()
    _namespace: Head | None = None

    @property
    def cite(self) -> str:
        """ "4.2(b)", "Article IV", "Schedule 2"; a heading's text when unnumbered."""
        self._named()
        return self._cite

    @property
    def title(self) -> str:
        """ "4.2 Operating Expenses"; prefixed with its container in a schedule."""
        self._named()
        return self._title

    @property
    def path(self) -> tuple[str, ...]:
        """The full number: ("4", "2", "b") for an "(b)" inside 4.2."""
        self._named()
        return self._path

    @property
    def namespace(self) -> Head | None:
        """The schedule (annex, ...) it lies in, if any."""
        self._named()
        return self._namespace

    def _named(self) -> None:
        entry = self.entry
        if entry is not None:
            _name(self, entry)  # (the same names, whichever thread makes them first)
            self.entry = None

    def within(self, other: Head) -> bool:
        """Whether this section lies inside ``other`` (or is it)."""
        head: Head | None = self
        while head is not None:
            if head is other:
                return True
            head = head.parent
        return False


@dataclass
class Outline:
    heads: list[Head]
    head_of: list[Head | None]  # per entry: the section it lies in (its own, for a head)
    # the heads by number and by text: each made on its first look-up (a document whose edits
    # name no section never asks, a reference by number needs no text, and indexing every
    # head's texts is a fifth of reading it)
    _by_number: dict[tuple[Kind, tuple[str, ...]], list[Head]] | None = field(
        default=None, repr=False, compare=False
    )
    _by_text: dict[str, list[Head]] | None = field(default=None, repr=False, compare=False)
    # the short unnumbered body paragraphs by their text as a key (redline.read.headings reads
    # them once, on the first name the outline does not know)
    short_lines: dict[str, list[int]] | None = field(default=None, repr=False, compare=False)

    def _numbers(self) -> dict[tuple[Kind, tuple[str, ...]], list[Head]]:
        if self._by_number is None:
            by_number: dict[tuple[Kind, tuple[str, ...]], list[Head]] = {}
            paths: dict[int, tuple[str, ...]] = {}
            for head in self.heads:
                if head.number is not None:
                    key = (head.number.kind, _path_of(head, paths))
                    by_number.setdefault(key, []).append(head)
                    own = (head.number.kind, head.number.path)
                    if own != key:
                        by_number.setdefault(own, []).append(head)
            self._by_number = by_number
        return self._by_number

    def _texts(self) -> dict[str, list[Head]]:
        if self._by_text is None:
            by_text: dict[str, list[Head]] = {}
            for head in self.heads:
                words = _title_words(head) if head.number is not None else head.title
                texts = {head.title, head.cite, words}
                if head.heading:  # a heading's title is its whole line: its run-in title too
                    run_in = _run_in(words)
                    if run_in:
                        texts.add(run_in)
                        if head.number is not None:
                            texts.add(f"{head.cite} {run_in}")
                for text in texts:
                    if text:
                        by_text.setdefault(_key_text(text), []).append(head)
            self._by_text = by_text
        return self._by_text

    def named(self, name: str) -> list[Head]:
        """Every section ``name`` names (several when it is ambiguous), best reading first."""
        if not isinstance(name, str) or not name.strip() or len(name) > MAX_REFERENCE:
            return []
        ref = parse_reference(name)
        if ref.target is not None:
            found = self._numbered(ref)
            if found:
                return _best(found, ref.written)
        by_text = self._texts().get(ref.text)
        if by_text:
            return list(by_text)
        return self._number_and_title(name)

    def _number_and_title(self, name: str) -> list[Head]:
        """The sections a name of a number and a title names ("3. Payment Terms", "3 Payment",
        "Clause 3 \u2013 Payment Terms"): those the number names whose title (its words after
        the number) begins with the rest, word for word."""
        split = number_and_title(name)
        if split is None:
            return []
        ref, rest = split
        heads = self._numbered(ref)
        found = [h for h in heads if _starts_words(_key_text(_title_words(h)), rest)]
        return _best(found, ref.written)

    def _numbered(self, ref: Reference) -> list[Head]:
        assert ref.target is not None
        kind, path = ref.target
        by_number = self._numbers()
        found = by_number.get((kind, path), [])
        if not found and kind in (Kind.CLAUSE, Kind.ARTICLE):  # "Section 4" for "Article 4"
            other = Kind.ARTICLE if kind is Kind.CLAUSE else Kind.CLAUSE
            found = by_number.get((other, path), [])
        if ref.within:
            containers = [self._numbered(Reference((), target, "")) for target in ref.within]
            return [h for h in found if all(any(h.within(c) for c in group) for group in containers)]
        # a number in a table's cell is named only when the body has no clause of that number
        found = [h for h in found if not h.cell] or found
        outside = [h for h in found if h.namespace is None or h.namespace is h]
        # a full path is exact; the short form of a relative label ("(b)") only when alone
        full = [h for h in outside or found if h.path == path]
        return _unique(full or outside or found)

    def unique_cite(self, head: Head, avoid: str = "") -> str | None:
        """A citation that names ``head`` alone (its number, with its schedule when it is in
        one; its full title; the schedule and the title), never one that reads as ``avoid``
        (the name that was refused); None when every one of them names another section too."""
        namespace = head.namespace
        inside = namespace is not None and namespace is not head
        title = _title_words(head)
        options = [f"{namespace.cite}, {head.cite}" if inside and namespace else head.cite, head.title]
        if title:
            options.append(f"{head.cite} {title}")
            if inside and namespace is not None:
                options.append(f"{namespace.cite}, {head.cite} {title}")
        banned = _key_text(avoid) if avoid else None
        for option in options:
            if option and _key_text(option) != banned and _unique(self.named(option)) == [head]:
                return option
        return None

    def near(self, head: Head | None, limit: int = 6) -> list[Head]:
        """The sections around ``head``: its parent, its siblings and itself, in order."""
        if head is None:
            return self.heads[:limit]
        parent = head.parent
        family = parent.children if parent is not None else [h for h in self.heads if h.parent is None]
        at = family.index(head) if head in family else 0
        lo = max(0, at - limit // 2)
        out = ([parent] if parent is not None else []) + family[lo : lo + limit]
        return out[:limit]


def _unique(heads: Iterable[Head]) -> list[Head]:
    seen: set[int] = set()
    out = []
    for h in heads:
        if id(h) not in seen:
            seen.add(id(h))
            out.append(h)
    return out


def _title_words(head: Head) -> str:
    """The title without its number (or its schedule): "Operating Expenses"."""
    title = head.title
    namespace = head.namespace
    if namespace is not None and namespace is not head:
        title = title.removeprefix(f"{namespace.cite} \u203a ")
    if head.shown and title.startswith(head.cite):
        return title[len(head.cite) :].strip()
    return ""


def _run_in(text: str) -> str:
    """The title a heading's line begins with, up to its first ". " or ": " within 60
    characters ("Termination" of "Termination. Either party may..."), or "" when it has none."""
    stops = [i for i in (text.find(". ", 1, 62), text.find(": ", 1, 62)) if i > 0]
    return text[: min(stops)] if stops else ""


def _starts_words(title: str, start: str) -> bool:
    """Whether ``title`` begins with ``start``, ending where a word does."""
    if not title.startswith(start):
        return False
    rest = title[len(start) :]
    return not rest or not (rest[0].isalnum() and start[-1:].isalnum())


def _best(heads: list[Head], written: str) -> list[Head]:
    """Of the sections a number names, the ones it names best: a label exactly as written
    ("\u00a7 2" for the paragraph labelled "\u00a7 2", "II" for "II."), else the same numerals
    ("Clause 2" for "2." and "\u00a7 2"), else every numeric equivalent ("II" for "2."); only
    equally good readings are ambiguous."""
    if len(heads) < 2 or not written:
        return heads
    exact, numerals = label_form(written), numerals_form(written)
    tiers: list[list[Head]] = [[], [], []]
    for head in heads:
        shown = head.shown or ""
        if exact in (label_form(shown), label_form(head.cite)):
            tiers[0].append(head)
        elif numerals in (numerals_form(shown), numerals_form(head.cite)):
            tiers[1].append(head)
        else:
            tiers[2].append(head)
    return next(t for t in tiers if t)


def build_outline(entries: Sequence[Entry], text_of: Callable[[int], str] | None = None) -> Outline:
    """The sections of a view's paragraphs (see the module's docstring).

    ``text_of(i)``: the start of entry ``i``'s text as a title needs it (240 characters), for
    entries that carry only enough for a typed number -- a head keeps its entry until it is
    first named, and a title read from the view's text when it is costs no copy of thousands
    of paragraph starts."""
    heads: list[Head] = []
    head_of: list[Head | None] = []
    stack: list[Head] = []
    stand_ins: dict[int | None, Entry] = {}
    story = None
    floor = -1  # in a table: the sections open before it (its own end with it), else -1
    for i, entry in enumerate(entries):
        if entry.story != story:
            _close(stack, None, i)
            story, floor = entry.story, -1
        if entry.cell != (floor >= 0):
            if floor >= 0:  # the table has ended, and every section begun in it
                _close(stack, None, i, floor)
            floor = len(stack) if entry.cell else -1
        head = _head(i, entry, stack) if entry.story == "body" else None
        if head is None:
            head_of.append(stack[-1] if stack else None)
            continue
        head.cell = entry.cell
        _close(stack, head.rank, i, max(floor, 0))
        if head.number is None:
            _close_typed(stack, i, max(floor, 0))
        head.parent = stack[-1] if stack else None
        # named on first use (Head.cite, .title, .path, .namespace): from its entry, or from
        # text_of and, for the rest naming reads (the list level), one stand-in per level
        if text_of is None:
            head.entry = entry
        else:
            head.entry = stand_ins.get(entry.ilvl) or stand_ins.setdefault(
                entry.ilvl, Entry(entry.story, None, entry.ilvl, None, "")
            )
            head.text_of = text_of
        if head.parent is not None:
            head.depth = head.parent.depth + 1
            head.parent.children.append(head)
        stack.append(head)
        heads.append(head)
        head_of.append(head)
    _close(stack, None, len(entries))
    return Outline(heads, head_of)


def _close(stack: list[Head], rank: float | None, at: int, floor: int = 0) -> None:
    """End the open sections of ``rank`` or below (all, for None) before entry ``at``, but
    not the first ``floor`` of them (those open before the table the entry is in)."""
    while len(stack) > floor and (rank is None or stack[-1].rank >= rank):
        stack.pop().last = at - 1


def _typed_clause(head: Head) -> bool:
    return head.typed and head.number is not None and head.number.kind is Kind.CLAUSE


def _close_typed(stack: list[Head], at: int, floor: int) -> None:
    """An unnumbered heading ends the typed clause numbers open under the heading before it: a
    heading ranks above a typed "3." or "(a)" as an article does ("1. ... 2. ..." under
    "Payment", then "Termination": 2 ends)."""
    k = _open_heading(stack, floor)
    if k is not None:
        while len(stack) > k + 1 and _typed_clause(stack[-1]):
            stack.pop().last = at - 1


def _typed_base(entry: Entry, stack: list[Head]) -> float:
    """The rank a typed decimal number counts its depth from: that of the typed numbers open
    under the innermost open unnumbered heading, if any are (so "8.1.9.1" in a heading style
    lies inside a plain "8.1.9"), else just below that heading (a "1." under a Heading 2, as
    under a Heading 1, is inside it), else 0."""
    k = _open_heading(stack, 0)
    for other in reversed(stack[k + 1 :] if k is not None else stack):
        number = other.number
        if other.typed and number is not None and number.kind is Kind.CLAUSE and not number.parenthesised:
            return other.rank - (len(number.path) - 1)
    k = _open_heading(stack, 0, entry.outline)
    return max(0.0, stack[k].rank + 0.5) if k is not None else 0.0


def _open_heading(stack: list[Head], floor: int, below: int | None = None) -> int | None:
    """The place in ``stack`` of the innermost open unnumbered heading (of an outline level
    above ``below``, when given), not below ``floor``."""
    for k in range(len(stack) - 1, floor - 1, -1):
        other = stack[k]
        if other.number is None and other.heading and (below is None or other.rank + 0.5 < below):
            return k
    return None


def _head(i: int, entry: Entry, stack: list[Head]) -> Head | None:
    if entry.contents:
        return None
    shown: str | None = entry.label if is_number(entry.label) else None
    typed = False
    if shown is None:
        shown = typed_number(entry.text)
        typed = shown is not None
    number = read_number(shown) if shown else None
    heading = entry.outline is not None
    if number is None and not heading:
        return None
    if number is None:
        assert entry.outline is not None
        rank = entry.outline - 0.5  # the numbered clauses of its level lie inside it
    elif number.kind in _RANK_OF_KIND:
        rank = _RANK_OF_KIND[number.kind]
    elif not typed and entry.ilvl is not None:
        rank = _rank(entry.ilvl)
    elif number.parenthesised and len(number.path) == 1:
        head = Head(i, number, shown, typed, heading, 0.0, style=number.style)
        head.rank = _item_rank(head, stack)
        return head
    elif heading and entry.outline is not None and not typed:
        rank = _rank(entry.outline)
    elif typed:
        rank = _rank(len(number.path) - 1) + _typed_base(entry, stack)
    else:
        rank = _rank(len(number.path) - 1)
    return Head(i, number, shown, typed, heading, rank, style=number.style if number else "")


_RANKS: Final = tuple(float(n) for n in range(16))


def _rank(n: int) -> float:
    """``float(n)``, one object for each small rank (a float each is 100 KB of an outline)."""
    return _RANKS[n] if 0 <= n < len(_RANKS) else float(n)


def _item_rank(head: Head, stack: list[Head]) -> float:
    """A typed "(a)": the sibling of an open item of its style, else one below the top.  A
    letter that is also a roman numeral is a letter after the letter before it ("(h)" then
    "(i)"), a numeral after the numeral before it ("(iv)" then "(v)"), and "(i)" otherwise."""
    assert head.number is not None
    value = head.number.path[0]
    ambiguous = len(value) == 1 and value in "ivxlcdm"
    for other in reversed(stack):
        n = other.number
        if n is None or not n.parenthesised or len(n.path) != 1:
            continue
        if ambiguous:
            if other.style in "aA" and _continues(n.path[0], value):
                head.style = other.style
                return other.rank
            if (
                other.style in "iI"
                and _ROMAN.fullmatch(n.path[0])
                and (_roman_value(value) == _roman_value(n.path[0]) + 1)
            ):
                head.style = other.style
                return other.rank
        elif other.style == head.style:
            return other.rank
    if ambiguous and value == "i":
        head.style = "i"
    elif ambiguous:  # a letter no letter list precedes: one of its own
        for other in reversed(stack):
            if other.style == head.style and other.number is not None and other.number.parenthesised:
                return other.rank
    return (stack[-1].rank + 1) if stack else 0.0


def _continues(previous: str, value: str) -> bool:
    """Whether ``value`` is the letter after ``previous`` ("h" then "i": a letter, not i)."""
    return len(previous) == 1 and len(value) == 1 and ord(value) == ord(previous) + 1


def _relative(head: Head, number: Number, entry: Entry) -> bool:
    """Whether a numbered head's number is read inside its parent's ("(b)" of 4.2: 4.2(b))."""
    parent = head.parent
    return (
        parent is not None
        and parent.number is not None
        and parent.number.kind in (Kind.CLAUSE, Kind.ARTICLE)
        and number.kind is Kind.CLAUSE
        and len(number.path) == 1
        and (number.parenthesised or number.style != "1" or (not head.typed and (entry.ilvl or 0) > 0))
    )


def _path_of(head: Head, known: dict[int, tuple[str, ...]]) -> tuple[str, ...]:
    """A numbered head's full number (:attr:`Head.path`), without naming it (its citation and
    title are made on their first use); ``known``: the paths read so far, by id of head."""
    entry = head.entry
    number = head.number
    if entry is None or number is None:
        return head.path
    found = known.get(id(head))
    if found is None:
        parent = head.parent
        if parent is not None and _relative(head, number, entry):
            found = (*_path_of(parent, known), *number.path)
        else:
            found = number.path
        known[id(head)] = found
    return found


def _name(head: Head, entry: Entry) -> None:
    """Set the head's full number, citation and title."""
    parent = head.parent
    number = head.number
    text = " ".join((entry.text if head.text_of is None else head.text_of(head.index))[:240].split())
    if number is None:
        head._cite = head._title = _short(text, 80)
    else:
        relative = _relative(head, number, entry)
        as_typed = " ".join(unicodedata.normalize("NFKC", head.shown or "").split())
        shown = as_typed.rstrip(".: ")
        if shown.endswith(")") and "(" not in shown:
            shown = shown[:-1]  # "1)" is cited as 1, "a)" as (a) inside its clause
        if relative:
            assert parent is not None
            head._path = (*parent.path, *number.path)
            head._cite = f"{parent.cite}({shown.strip('()').rstrip('.')})"
        else:
            head._path = number.path
            head._cite = shown
        body = text
        if head.typed and as_typed and unicodedata.normalize("NFKC", body).startswith(as_typed):
            body = body[len(as_typed) :].lstrip(" .:\u2013\u2014-\t")
        head._title = f"{head._cite} {_heading_words(body, head.heading)}".strip()
    namespace = head if number is not None and number.kind in NAMESPACES else None
    if namespace is None and parent is not None:
        namespace = parent.namespace
    head._namespace = namespace
    if namespace is not None and namespace is not head:
        head._title = f"{namespace.cite} \u203a {head._title}"


def _heading_words(text: str, is_heading: bool) -> str:
    if is_heading:
        return _short(text, 80)
    # up to the first ". " or ": " when that comes within 60 characters, else 8 words
    stops = [i for i in (text.find(". ", 1, 62), text.find(": ", 1, 62)) if i > 0]
    if stops:
        return text[: min(stops)]
    words = text.split(" ", 8)
    return " ".join(words[:8]) + ("\u2026" if len(words) > 8 else "")


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"
