"""One safe XML parser for every part of a package, and the serialiser that writes parts back.

Every XML byte the project reads goes through :func:`parse_xml`; every part it writes goes
through :func:`serialize`. The parser is configured once (:func:`make_parser`):

- ``resolve_entities=False``, ``load_dtd=False``, ``dtd_validation=False``, ``no_network=True``:
  no entity is ever expanded and nothing outside the bytes is ever fetched (no XXE);
- ``huge_tree=False``: libxml2's own resource limits stay on — nesting deeper than 256
  elements, or a single text node, attribute value, comment or CDATA section over 10 MB, is a
  parse error, which :func:`parse_xml` turns into a typed refusal (``too_deep``,
  ``xml_node_too_large``);
- ``remove_blank_text=False`` (and comments and processing instructions kept): every
  semantically meaningful byte survives a parse/serialise round trip.

A DOCTYPE is refused outright (code ``dtd_forbidden``): Open Packaging Conventions forbid DTDs
in package XML (ECMA-376 Part 2, §8.1.4 [M1.17]), and refusing them removes entity expansion
attacks (billion laughs, external entities) at the root. :func:`find_doctype` is the cheap
byte-level prolog check the package loader runs on every XML part without parsing it;
:func:`parse_xml` runs it again and also checks the parsed tree's ``docinfo``.

:class:`PackageError` and :func:`syntax_refusal` live in :mod:`redline.errors` (the lowest
layer), with the one mapping of foreign exceptions to codes; they are re-exported here for the
readers that import them from this module.
"""

from __future__ import annotations

import codecs
import re
import threading
from typing import Any

from lxml import etree

from shared_schema import Code

from ..errors import PackageError, lxml_refusal, syntax_refusal

__all__ = [
    "DEPTH_PROBE",
    "XML_DECLARATION",
    "PackageError",
    "dtd_refusal",
    "find_doctype",
    "limits_parser",
    "make_parser",
    "one_deeper",
    "parse_xml",
    "parser",
    "parser_limits",
    "serialize",
    "syntax_refusal",
]

#: What Word writes before the root element of every part it saves.
XML_DECLARATION = b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n'


def make_parser(target: Any = None) -> etree.XMLParser:
    """A new lxml parser with the project's safe settings (see the module docstring), feeding
    ``target`` (lxml's parser-target interface) when one is given instead of building a tree."""
    return etree.XMLParser(
        target=target,
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_blank_text=False,
        remove_comments=False,
        remove_pis=False,
        strip_cdata=True,
        recover=False,
        collect_ids=False,
    )


_local = threading.local()


def parser() -> etree.XMLParser:
    """This thread's shared safe parser (lxml parsers must not be used by two threads at once)."""
    found: etree.XMLParser | None = getattr(_local, "parser", None)
    if found is None:
        found = make_parser()
        _local.parser = found
    return found


# The prolog: whitespace, the XML declaration, processing instructions and comments, in any
# order, before the root element or a DOCTYPE. Bytes and str flavours (UTF-16/32 parts are
# decoded first).
_PROLOG_B = re.compile(rb"(?:[ \t\r\n]+|<\?.*?\?>|<!--.*?-->)*", re.DOTALL)
_PROLOG_S = re.compile(r"(?:[ \t\r\n]+|<\?.*?\?>|<!--.*?-->)*", re.DOTALL)
_DOCTYPE_B = b"<!DOCTYPE"


def _wide_codec(head: bytes) -> str | None:
    """The codec of a UTF-16/UTF-32 document (by BOM or by the ``<`` pattern), else None."""
    if head.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return "utf-32"
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    if head.startswith(b"<\0\0\0"):
        return "utf-32-le"
    if head.startswith(b"\0\0\0<"):
        return "utf-32-be"
    if head.startswith(b"<\0"):
        return "utf-16-le"
    if head.startswith(b"\0<"):
        return "utf-16-be"
    return None


def find_doctype(data: bytes) -> bool:
    """True when ``data`` declares a DOCTYPE in its prolog (before the root element).

    A DOCTYPE can only appear in the prolog, so this looks nowhere else: a ``<!DOCTYPE`` inside
    a comment or a CDATA section further on is not a declaration. Cost: proportional to the
    prolog, not the part (plus a decode for the rare UTF-16/32 part).
    """
    start = 3 if data.startswith(codecs.BOM_UTF8) else 0
    codec = _wide_codec(data[:4])
    if codec is None:
        match = _PROLOG_B.match(data, start)
        end = match.end() if match else start
        return data[end : end + len(_DOCTYPE_B)].upper() == _DOCTYPE_B
    text = data.decode(codec, errors="replace").lstrip("\ufeff")
    found = _PROLOG_S.match(text)
    end = found.end() if found else 0
    return text[end : end + len(_DOCTYPE_B)].upper() == "<!DOCTYPE"


def dtd_refusal(part: str) -> PackageError:
    """The refusal for a part that declares a DTD."""
    return PackageError(
        Code.DTD_FORBIDDEN,
        f"The part {part} declares a DTD (<!DOCTYPE>), which Office documents never contain "
        "and which can hide entity-expansion or external-entity attacks; the file is refused.",
        part,
    )


def parse_xml(data: bytes, part: str) -> etree._Element:
    """Parse one part's bytes with the safe parser; return the root element.

    Raises :class:`PackageError` — ``dtd_forbidden`` (any DOCTYPE), ``too_deep`` (nesting over
    libxml2's limit of 256), ``xml_node_too_large`` (a text node, attribute, comment or CDATA
    section over 10 MB) or ``malformed_xml`` (anything else libxml2 rejects) — naming ``part``.
    Never lets an lxml exception escape.
    """
    if find_doctype(data):
        raise dtd_refusal(part)
    safe = parser()
    try:
        root = etree.fromstring(data, safe)
    except etree.LxmlError as exc:
        raise lxml_refusal(exc, part) from None
    if root is None:  # pragma: no cover - recover=False never yields an empty document
        raise PackageError(Code.MALFORMED_XML, f"The part {part} holds no XML element.", part)
    docinfo = root.getroottree().docinfo
    if getattr(docinfo, "doctype", "") or docinfo.internalDTD is not None or docinfo.externalDTD is not None:
        raise dtd_refusal(part)
    return root


def serialize(root: etree._Element) -> bytes:
    """The bytes of a part as Word writes it: the standalone UTF-8 declaration, CRLF, the tree.

    Namespace declarations are kept as they are on the elements (nothing is cleaned up or
    re-prefixed). When ``root`` is its document's root element, comments and processing
    instructions around it (e.g. ``<?mso-contentType?>`` in custom XML parts) are kept too.
    """
    tree = root.getroottree()
    target: etree._Element | etree._ElementTree = tree if tree.getroot() is root else root
    body = etree.tostring(target, encoding="UTF-8", xml_declaration=False)
    return XML_DECLARATION + body


#: The name of the element :func:`one_deeper` puts in; a part that holds it is left to the tree walk.
DEPTH_PROBE = b"redline-depth-probe"
_ROOT_B = re.compile(
    rb"""(?:\xef\xbb\xbf)?(?:[ \t\r\n]+|<\?.*?\?>|<!--.*?-->)*<[^\s/>!?]+"""
    rb"""(?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*\s*(/?)>""",
    re.DOTALL,
)


def one_deeper(data: bytes) -> bytes | None:
    """``data`` with one element more around everything inside its root element (put in
    after the root's start tag and before its end tag), or None when that cannot be done
    plainly (no root start tag read, no end tag after it, the probe's name in the part).

    Why: libxml2 counts depth one level more leniently when it builds no tree (a parser
    target, as :class:`redline.read.scan.Check` and the read-back use) than when it builds one (every tree
    parse: the write path, :func:`redline.opc.xmlparse.parse_xml`, python-docx) -- 257 levels
    pass the first and fail the second.  Parsed one level deeper, without a tree, a part
    passes exactly when a tree parse of it does: the loader's limit (256 levels) is the one
    every reader of the output has.  Everything else is the part's own verdict: a part is
    well-formed exactly when this is (the probe's start tag is the root's first child, its
    end tag closes just before the root's, and no other tag can close it: the name is not in
    the part), and no text node, name or attribute changes."""
    head = _ROOT_B.match(data)
    if head is None:
        return None
    if head.group(1):  # an empty root: one level deep
        return data
    end = data.rfind(b"</")
    if end < head.end() or data.find(DEPTH_PROBE) >= 0:
        return None
    at = head.end()
    view = memoryview(data)  # (slices of a view are not copies: the part is copied once, here)
    return b"".join((view[:at], b"<", DEPTH_PROBE, b">", view[at:end], b"</", DEPTH_PROBE, b">", view[end:]))


class _Nothing:
    """A parser target that keeps nothing: libxml2 parses at full speed and builds no tree."""

    def close(self) -> None:
        return None


def limits_parser() -> etree.XMLParser:
    """This thread's no-tree parser for :func:`parser_limits`, made once: its target keeps
    nothing, so one parser serves every part in turn (lxml resets its context and error log
    at each parse); making one per part cost more than a small part's parse."""
    found: etree.XMLParser | None = getattr(_local, "limits", None)
    if found is None:
        found = make_parser(_Nothing())
        _local.limits = found
    return found


def parser_limits(data: bytes, part: str) -> None:
    """Raise ``too_deep`` or ``xml_node_too_large`` when a tree parse of ``data`` would (its
    nesting over 256 levels, a text node, attribute, comment or CDATA value over 10 MB), the
    check every reader of a tree makes -- python-docx's included -- made without building one
    (:func:`one_deeper`).  Anything else libxml2 finds (a part malformed) is left to the
    reader that parses the part, as it was."""
    deeper = one_deeper(data)
    try:
        etree.fromstring(data if deeper is None else deeper, limits_parser())
    except etree.XMLSyntaxError as exc:
        refusal = syntax_refusal(exc, part)
        if refusal.code in (Code.TOO_DEEP, Code.XML_NODE_TOO_LARGE):
            raise refusal from None
    except etree.LxmlError:
        return
