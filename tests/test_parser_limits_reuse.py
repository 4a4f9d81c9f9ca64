"""The load's parser-limits pass gives every part the verdict a parser of its own gives it.

:func:`redline.opc.xmlparse.parser_limits` parses every part with one no-tree parser per thread,
made once, instead of a new one per part.  Held here to the long way (a parser made for the part)
over runs of parts one after the other -- well-formed, malformed at any point, nested around the
256 levels a tree parse allows, a node over the 10 MB limit -- so that what one part leaves in
the shared parser (an error, its depth, its prefixes) cannot change the next part's verdict.
"""

from __future__ import annotations

import threading

from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from redline.errors import PackageError, syntax_refusal
from redline.opc.xmlparse import limits_parser, make_parser, one_deeper, parser_limits
from shared_schema import Code


class _Keep:
    def close(self) -> None:
        return None


def _long_way(data: bytes, part: str) -> None:
    """parser_limits as it was: a parser of its own for the part."""
    deeper = one_deeper(data)
    try:
        etree.fromstring(data if deeper is None else deeper, make_parser(_Keep()))
    except etree.XMLSyntaxError as exc:
        refusal = syntax_refusal(exc, part)
        if refusal.code in (Code.TOO_DEEP, Code.XML_NODE_TOO_LARGE):
            raise refusal from None
    except etree.LxmlError:
        return


def _verdict(check: object, data: bytes, part: str) -> tuple[str, str, str | None] | None:
    try:
        check(data, part)  # type: ignore[operator]
    except PackageError as exc:
        return (str(exc.code), exc.message, exc.part)
    return None


_PREFIX = st.sampled_from(["", "w:", "x:"])
_BREAK = st.sampled_from(
    [
        None,
        "cut",  # the part ends early
        "mismatch",  # an end tag of another name
        "junk",  # a stray "<" in text
        "undeclared",  # an undeclared prefix
        "after",  # content after the root
        "amp",  # a bad entity reference
    ]
)


@st.composite
def _parts(draw: st.DrawFn) -> bytes:
    depth = draw(st.one_of(st.integers(0, 8), st.integers(250, 262)))
    prefix = draw(_PREFIX)
    decl = ' xmlns:w="urn:w" xmlns:x="urn:x"'
    name = f"{prefix}e"
    text = draw(st.text(alphabet="ab <&;", max_size=6)).replace("<", "&lt;").replace("&", "&amp;")
    body = f"<{name}>" * depth + text + f"</{name}>" * depth
    if draw(st.booleans()):
        body = f"<{name} a='1'/>" + body + "<!-- c --><?pi x?>"
    doc = f'<?xml version="1.0" encoding="UTF-8"?>\r\n<root{decl}>{body}</root>'
    broken = draw(_BREAK)
    if broken is not None:
        at = draw(st.integers(0, len(doc)))
        if broken == "cut":
            doc = doc[:at]
        elif broken == "mismatch":
            doc = doc[:at] + "</zz>" + doc[at:]
        elif broken == "junk":
            doc = doc[:at] + "<" + doc[at:]
        elif broken == "undeclared":
            doc = doc[:at] + "<q:u/>" + doc[at:]
        elif broken == "after":
            doc += "<root/>"
        else:
            doc = doc[:at] + "&nope;" + doc[at:]
    return doc.encode()


@settings(max_examples=300, deadline=None)
@given(st.lists(_parts(), min_size=1, max_size=6))
def test_the_shared_parser_gives_each_part_its_own_verdict(parts: list[bytes]) -> None:
    for i, data in enumerate(parts):
        name = f"word/part{i}.xml"
        assert _verdict(parser_limits, data, name) == _verdict(_long_way, data, name)


def test_the_verdicts_around_a_node_over_the_limit_and_the_depth_limit() -> None:
    big = b'<r a="' + b"x" * 10_000_001 + b'"/>'
    deep = b"<r>" + b"<e>" * 256 + b"</e>" * 256 + b"</r>"
    fine = b"<r><e/></r>"
    runs = [big, fine, deep, fine, big, deep[:-3], fine]
    verdicts = [_verdict(parser_limits, d, "p.xml") for d in runs]
    assert verdicts == [_verdict(_long_way, d, "p.xml") for d in runs]
    big_code, deep_code = str(Code.XML_NODE_TOO_LARGE), str(Code.TOO_DEEP)
    assert [v[0] if v else None for v in verdicts] == [
        big_code,
        None,
        deep_code,
        None,
        big_code,
        deep_code,
        None,
    ]


def test_each_thread_has_a_parser_of_its_own() -> None:
    here = limits_parser()
    assert limits_parser() is here
    there: list[etree.XMLParser] = []
    worker = threading.Thread(target=lambda: there.append(limits_parser()))
    worker.start()
    worker.join()
    assert there and there[0] is not here
