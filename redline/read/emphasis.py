"""Which characters of a paragraph are bold, as Word resolves it: the run's own ``w:b``, then its
character style's chain, its paragraph style's chain, the document defaults (the same reading
as :mod:`redline.read.headings`' looks, nearest setting first).

The proofreader asks it of the few paragraphs that may open with a bold defined term
("**Affiliate** means ...", "**Services:** ..."); nothing else reads run formatting from a view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import PackageError
from ..opc.namespaces import w
from .headings import _on, _Styles, _val
from .roles import SpanKind

if TYPE_CHECKING:
    from lxml import etree

    from .view import DocumentView, Paragraph

_R, _RPR, _PPR, _B = w("r"), w("rPr"), w("pPr"), w("b")
_RSTYLE, _PSTYLE = w("rStyle"), w("pStyle")


class Emphasis:
    """Bold ranges of a view's paragraphs, read on demand (the styles once per view)."""

    def __init__(self, view: DocumentView) -> None:
        self._view = view
        self._styles: _Styles | None = None

    def _style_table(self) -> _Styles:
        if self._styles is None:
            self._styles = _Styles.of_view(self._view)
        return self._styles

    def bold_ranges(self, para: Paragraph) -> list[tuple[int, int]]:
        """The view ranges of ``para``'s text that are bold, merged where adjacent; none when
        the view cannot say (a verify-only view has no runs to read)."""
        view = self._view
        try:
            styles = self._style_table()
            pstyle: str | None = None
            out: list[tuple[int, int]] = []
            for piece in view.pieces(para.start, para.end):
                if piece.kind is SpanKind.MARK:
                    continue
                run = _run_of(piece.node)
                if run is None:
                    continue
                if pstyle is None:
                    pstyle = _paragraph_style(run) or ""
                rpr = run.find(_RPR)
                own = rpr.find(_B) if rpr is not None else None
                if own is None:
                    rstyle = _val(rpr.find(_RSTYLE)) if rpr is not None else None
                    own = styles.find(_B, rstyle, pstyle or None)
                if not _on(own):
                    continue
                lo, hi = piece.view_start, piece.view_start + (piece.end - piece.start)
                if out and out[-1][1] == lo:
                    out[-1] = (out[-1][0], hi)
                else:
                    out.append((lo, hi))
            return out
        except (TypeError, PackageError):
            return []

    def is_bold(self, para: Paragraph, start: int, end: int) -> bool:
        """Whether every non-space character of the view range [start, end) is bold."""
        text = self._view.text
        ranges = self.bold_ranges(para)
        for i in range(start, end):
            if text[i].isspace():
                continue
            if not any(lo <= i < hi for lo, hi in ranges):
                return False
        return any(not text[i].isspace() for i in range(start, end))


def _run_of(node: etree._Element) -> etree._Element | None:
    parent = node.getparent()
    return parent if parent is not None and parent.tag == _R else None


def _paragraph_style(run: etree._Element) -> str | None:
    p = run.getparent()
    while p is not None and p.tag != w("p"):
        p = p.getparent()
    if p is None:
        return None
    ppr = p.find(_PPR)
    return _val(ppr.find(_PSTYLE)) if ppr is not None else None
