"""A complex field's code, for typing over its result (ECMA-376 Part 1, §17.16.18).

A complex field is a run of ``w:fldChar begin``, the runs of its instructions
(``w:instrText``), a run of ``w:fldChar separate``, the runs of its result, and a run of
``w:fldChar end``.  When an edit changes the result, Word deletes the field's code and keeps
the typed text as plain text: :func:`code_runs` finds the code runs around one run of the
result -- only when the whole field lies among the run's siblings (one paragraph, one
container) and nests no other field, so that deleting them is exactly the field and nothing
else.  Anything else (``w:fldSimple``, a field that spans paragraphs or containers, a nested
field) is None, and the edit is refused as before.
"""

from __future__ import annotations

from lxml import etree

from .ooxml import w

_R, _FLD_CHAR, _INSTR = w("r"), w("fldChar"), w("instrText")
_TYPE = w("fldCharType")


def _kind(run: etree._Element) -> str | None:
    """The fldCharType of a run's w:fldChar, if it holds one."""
    for child in run:
        if child.tag == _FLD_CHAR:
            return child.get(_TYPE)
    return None


def code_runs(result_text: etree._Element) -> list[etree._Element] | None:
    """The runs of the field's code (begin, instructions, separate, end) around the result
    text element ``result_text`` (a ``w:t`` of its result), or None (see the module)."""
    run = result_text.getparent()
    if run is None or run.tag != _R:
        return None
    before: list[etree._Element] = []
    node = run.getprevious()
    separate_seen = False
    while node is not None:
        if node.tag == _R:
            kind = _kind(node)
            if kind == "end":
                return None  # another field inside this one's result: not ours to unpick
            if kind == "separate":
                if separate_seen:
                    return None
                separate_seen = True
                before.append(node)
            elif kind == "begin":
                if not separate_seen:
                    return None
                before.append(node)
                break
            elif separate_seen:
                if not any(child.tag == _INSTR for child in node) and any(
                    isinstance(child.tag, str) and child.tag != w("rPr") for child in node
                ):
                    return None  # text among the instructions: not a field we know
                before.append(node)
        elif any(_kind(r) for r in node.iter(_R)):
            return None  # field characters inside a container: the field is not flat
        node = node.getprevious()
    else:
        return None  # no begin among the siblings: the field starts elsewhere
    node = run.getnext()
    while node is not None:
        if node.tag == _R:
            kind = _kind(node)
            if kind == "end":
                return [*reversed(before), node]
            if kind is not None:
                return None  # a nested field in the result
        elif any(_kind(r) for r in node.iter(_R)):
            return None
        node = node.getnext()
    return None
