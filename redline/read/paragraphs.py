"""The paragraph events every reader emits, and the one place that turns them into a story's text.

A reader (the tree walk of :mod:`redline.read.walk`, the scanner of :mod:`redline.read.scan`) goes through a
story in document order and tells an :class:`Assembler` where each paragraph begins and ends and
what text lies between; the assembler decides, the same way for every reader:

* paragraphs are separated by one MARK span (the mark of the paragraph before);
* a paragraph whose mark is deleted (``w:pPr/w:rPr/w:del``) joins the next one -- no separator --
  and, when no text is left in it, is dropped altogether (the document read as accepted);
* a paragraph that begins inside another (a text box) comes out before the paragraph that holds
  it: the outer one's text so far is set aside and taken up again when the inner one ends.

Text is appended straight to the :class:`StoryText` lists (``pieces``, ``offsets``, ``nodes``,
``kinds``, ``flags``) with :attr:`Assembler.size` kept up to date: that is the readers' hot loop,
and the scanner appends many runs at once.  Every span's piece is its text, one after the other,
so its offset is the length of the pieces before it: a reader may leave ``offsets`` to
:meth:`Assembler.finish` (``Assembler(offsets=False)``), which adds them up in one pass.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from itertools import accumulate, repeat
from operator import add
from typing import Any

from shared_schema import Code

from ..errors import PackageError
from ..opc.zipread import DEFAULT_LIMITS
from .roles import PLAIN, ParagraphProps, SpanKind

SEPARATOR = "\n"

#: The text a view may read, summed over its stories (:attr:`redline.opc.zipread.Limits.max_text_chars`
#: of the package being read: :func:`text_limit`); every reader checks it as it appends.
MAX_TEXT: ContextVar[int] = ContextVar("redline_max_text", default=DEFAULT_LIMITS.max_text_chars)


@contextlib.contextmanager
def text_limit(limit: int) -> Iterator[None]:
    """Read with ``limit`` characters of text at most (:data:`MAX_TEXT`)."""
    token = MAX_TEXT.set(limit)
    try:
        yield
    finally:
        MAX_TEXT.reset(token)


def too_much_text(limit: int, part: str | None = None) -> PackageError:
    """The refusal for a document whose text is over ``limit`` characters."""
    return PackageError(
        Code.TOO_MUCH_TEXT,
        f"The document holds more than {limit:,} characters of text; no real contract comes "
        "close, and a file like this is built to cost time and memory, so it is refused.",
        part,
    )


@dataclass(slots=True)
class StoryText:
    """One story's text and spans, offsets from the story's start; its paragraphs are
    separated (MARK spans) as in the view, so the view appends the whole story at once.
    ``nodes`` name each span's node: an element (tree walk) or its ordinal (scanner)."""

    pieces: list[str] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)
    nodes: list[Any] = field(default_factory=list)
    kinds: bytearray = field(default_factory=bytearray)
    flags: bytearray = field(default_factory=bytearray)
    # (start, end, the paragraph's node, its properties), in view order
    paragraphs: list[tuple[int, int, Any, ParagraphProps]] = field(default_factory=list)
    field_code: list[int] = field(default_factory=list)  # paragraphs that begin in a field's code
    # (paragraph, how many table cells it lies in) for each paragraph in a table cell
    cells: list[tuple[int, int]] = field(default_factory=list)
    size: int = 0


class Assembler:
    """Assembles one :class:`StoryText` from a reader's paragraph events.

    ``last``/``joined``: the paragraph kept last before this text, and whether its mark was
    deleted -- for a story read in stretches (the streamed body), where the first paragraph of
    a stretch is separated from (or joined to) the last one of the stretch before.
    ``offsets=False``: the reader appends no offsets, :meth:`finish` makes them.
    """

    __slots__ = (
        "_cell", "_code", "_first", "_offsets", "_open", "_outer", "_sep", "_start", "deleted", "extra",
        "joined", "last", "max_size", "out", "props", "ref", "size",
    )  # fmt: skip

    def __init__(self, last: Any = None, joined: bool = False, offsets: bool = True) -> None:
        self.out = StoryText()
        self._offsets = offsets  # appended as spans are (else made by finish)
        self.size = 0
        self.max_size = MAX_TEXT.get()  # the readers check size against it as they append
        self.last, self.joined = last, joined
        # The open paragraph: its node (None: none is open), its properties and whether its
        # mark is deleted (the reader sets both before end()), and the reader's own data.
        self.ref: Any = None
        self.props: ParagraphProps = PLAIN
        self.deleted = False
        self.extra: Any = None
        self._code = False  # it begins inside a complex field's instructions
        self._cell = 0  # the table cells it lies in (nested tables: more than one)
        self._start = self._first = self._open = 0  # where its text starts; its first span; size before it
        self._sep = False  # a separator precedes it
        self._outer: list[tuple[Any, ...]] = []  # paragraphs set aside while a text box is read

    @property
    def outermost(self) -> bool:
        """Is the open paragraph in no other paragraph?"""
        return not self._outer

    def begin(self, ref: Any, code: bool, extra: Any = None, cell: int = 0) -> None:
        """A paragraph begins (``code``: inside a complex field's instructions; ``cell``: inside
        that many table cells)."""
        if self.ref is not None:  # inside another: that one's text so far is set aside
            self._set_aside()
        self.ref, self.props, self.deleted, self._code, self.extra = ref, PLAIN, False, code, extra
        self._cell = cell
        self._open_here()

    def _set_aside(self) -> None:
        out = self.out
        k, start = self._first, self._start
        cut = k + (1 if self._sep else 0)
        self._outer.append(
            (
                self.ref, self.props, self.deleted, self._code, self.extra, self._cell,
                [o - start for o in out.offsets[cut:]], out.nodes[cut:], out.kinds[cut:],
                out.flags[cut:], out.pieces[cut:], self.size - start,
            )
        )  # fmt: skip
        del out.offsets[k:], out.nodes[k:], out.kinds[k:], out.flags[k:], out.pieces[k:]
        self.size = self._open

    def end(self) -> None:
        """The open paragraph ends, with the :attr:`props` and :attr:`deleted` set on it."""
        size, deleted = self.size, self.deleted
        if deleted and size == self._start:  # a deleted mark and no text: it goes
            if self._sep:
                out = self.out
                del out.nodes[-1], out.kinds[-1], out.flags[-1], out.pieces[-1]
                if self._offsets:
                    del out.offsets[-1]
                self.size = size - 1
        else:
            out = self.out
            if self._code:
                out.field_code.append(len(out.paragraphs))
            if self._cell:
                out.cells.append((len(out.paragraphs), self._cell))
            ref = self.ref
            out.paragraphs.append((self._start, size, ref, self.props))
            self.last, self.joined = ref, deleted
        self.ref = None
        if self._outer:  # back to the paragraph that holds the text box
            self._take_up()

    def _take_up(self) -> None:
        out = self.out
        (self.ref, self.props, self.deleted, self._code, self.extra, self._cell,
         offsets, nodes, kinds, flags, pieces, held) = self._outer.pop()  # fmt: skip
        self._open_here()
        out.offsets.extend(map(add, offsets, repeat(self.size)))
        out.nodes.extend(nodes)
        out.kinds.extend(kinds)
        out.flags.extend(flags)
        out.pieces.extend(pieces)
        self.size += held

    def _open_here(self) -> None:
        out = self.out
        nodes, size, last = out.nodes, self.size, self.last
        self._first, self._open = len(nodes), size
        sep = self._sep = last is not None and not self.joined
        if sep:  # the mark of the paragraph before: a MARK span whose node is that paragraph
            if self._offsets:
                out.offsets.append(size)
            nodes.append(last)
            out.kinds.append(SpanKind.MARK)
            out.flags.append(0)
            out.pieces.append(SEPARATOR)
            size += 1
            self.size = size
        self._start = size

    def add(self, text: str, node: Any, kind: int, flags: int) -> None:
        """One span of the open paragraph (the tree walk's way; the scanner appends in bulk)."""
        out = self.out
        if self._offsets:
            out.offsets.append(self.size)
        out.nodes.append(node)
        out.kinds.append(kind)
        out.flags.append(flags)
        out.pieces.append(text)
        self.size += len(text)
        if self.size > self.max_size:
            raise too_much_text(self.max_size)

    def finish(self) -> StoryText:
        out = self.out
        out.size = self.size
        if not self._offsets:  # each span's offset: the length of the pieces before it
            offsets = list(accumulate(map(len, out.pieces), initial=0))
            if offsets.pop() != self.size:  # pragma: no cover - a reader's sizes are its pieces'
                raise AssertionError("the pieces' lengths are not the text's size")
            out.offsets = offsets
        return out
