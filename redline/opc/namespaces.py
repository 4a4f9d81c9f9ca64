"""WordprocessingML names: namespaces and the qualified tag names the project reads and writes."""

from __future__ import annotations

from collections.abc import Mapping

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
W_STRICT_NS = "http://purl.oclc.org/ooxml/wordprocessingml/main"
R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
MC_NS = "http://schemas.openxmlformats.org/markup-compatibility/2006"
W14_NS = "http://schemas.microsoft.com/office/word/2010/wordml"
W15_NS = "http://schemas.microsoft.com/office/word/2012/wordml"
# Word 2013's pre-release namespace for the same w15 names (comment threads, people): files
# written by the Word 2013 preview, and by tools that copied them, use it
W15_PRE_NS = "http://schemas.microsoft.com/office/word/2010/11/wordml"
W15_NAMESPACES = (W15_NS, W15_PRE_NS)
XML_NS = "http://www.w3.org/XML/1998/namespace"
PKG_REL_NS = "http://schemas.openxmlformats.org/package/2006/relationships"
CT_NS = "http://schemas.openxmlformats.org/package/2006/content-types"

REL_OFFICE_DOCUMENT = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
REL_STRICT_OFFICE_DOCUMENT = "http://purl.oclc.org/ooxml/officeDocument/relationships/officeDocument"
REL_BASE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
REL_HEADER = REL_BASE + "header"
REL_FOOTER = REL_BASE + "footer"
REL_FOOTNOTES = REL_BASE + "footnotes"
REL_ENDNOTES = REL_BASE + "endnotes"
REL_NUMBERING = REL_BASE + "numbering"
REL_STYLES = REL_BASE + "styles"
REL_COMMENTS = REL_BASE + "comments"
REL_COMMENTS_EXTENDED = "http://schemas.microsoft.com/office/2011/relationships/commentsExtended"

M_NS = "http://schemas.openxmlformats.org/officeDocument/2006/math"

CT_COMMENTS = "application/vnd.openxmlformats-officedocument.wordprocessingml.comments+xml"


def w(tag: str) -> str:
    """Clark notation for a tag in the main WordprocessingML namespace: ``w("p")``."""
    return f"{{{W_NS}}}{tag}"


XML_SPACE = f"{{{XML_NS}}}space"


def quoted_attribute(value: str) -> str:
    """``value`` as a quoted XML attribute value, exactly as ``xml.sax.saxutils.quoteattr``
    spells it (``&``, ``<``, ``>`` and the three whitespace controls escaped; double quotes
    around it unless it holds one and no single quote) -- written out here because importing
    ``xml.sax.saxutils`` brings ``urllib.request``, ``http.client`` and ``email`` with it, about
    a tenth of an ``apply``'s start-up (issue 32)."""
    value = value.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")
    value = value.replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    if '"' in value:
        if "'" in value:
            return '"' + value.replace('"', "&quot;") + '"'
        return "'" + value + "'"
    return '"' + value + '"'


def declarations(nsmap: Mapping[str | None, str]) -> str:
    """The namespace declarations of ``nsmap`` (an lxml element's ``nsmap``), in its order,
    each with a leading space: `` xmlns="…" xmlns:w="…"``."""
    return "".join(
        f" xmlns={quoted_attribute(uri)}" if prefix is None else f" xmlns:{prefix}={quoted_attribute(uri)}"
        for prefix, uri in nsmap.items()
    )
