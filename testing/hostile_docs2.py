"""Builders for the second hostile catalogue (issue 20): documents within every zip limit that
cost what they should not, markup where Word writes none, macros under other names.

Everything is made in code from :mod:`testing.hostile_docs`; nothing binary is checked in.
"""

from __future__ import annotations

import random

from redline.opc.namespaces import W_NS
from testing import hostile_docs as h

VBA_CT = "application/vnd.ms-office.vbaProject"
VBA_SIGNATURE_CT = "application/vnd.ms-office.vbaProjectSignature"
VBA_DATA_CT = "application/vnd.ms-word.vbaData+xml"
KEYMAP_CT = "application/vnd.ms-word.keyMapCustomizations+xml"
REL_VBA = "http://schemas.microsoft.com/office/2006/relationships/vbaProject"
REL_VBA_DATA = "http://schemas.microsoft.com/office/2006/relationships/wordVbaData"
REL_KEYMAP = "http://schemas.microsoft.com/office/2006/relationships/keyMapCustomizations"
REL_HEADER = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/header"
HEADER_CT = "application/vnd.openxmlformats-officedocument.wordprocessingml.header+xml"

PAY_RENT = "<w:p><w:r><w:t>The Tenant shall pay rent.</w:t></w:r></w:p>"


def body(xml: str) -> bytes:
    """A valid package whose body is ``xml``."""
    return h.docx({"word/document.xml": h.document(xml)})


def big_text(megabytes: int = 180, node: int = 8 * 1024 * 1024) -> bytes:
    """``megabytes`` of text in paragraphs of one ``node``-byte text node each, plus enough
    random text for every member's compression ratio to stay under the limit: a 2 MB file
    within every zip and XML limit (issue 20: 1.2 GB resident to read)."""
    noise = random.Random(1).randbytes(1_200_000).hex()
    paras = [f"<w:p><w:r><w:t>The Tenant shall pay rent. {noise}</w:t></w:r></w:p>"]
    chunk = ("lorem ipsum dolor sit amet " * (node // 27 + 1))[:node]
    paras += [f"<w:p><w:r><w:t>{chunk}</w:t></w:r></w:p>"] * (megabytes * 1024 * 1024 // node)
    return body("".join(paras))


def text_in_one_paragraph(megabytes: int = 60) -> bytes:
    """``megabytes`` of text in one paragraph of 1 MB runs: refused before the paragraph ends."""
    noise = random.Random(2).randbytes(700_000).hex()
    run = "<w:r><w:t>" + ("dolor sit amet " * 70_000)[: 1024 * 1024] + "</w:t></w:r>"
    return body(f"<w:p><w:r><w:t>The Tenant shall pay rent. {noise}</w:t></w:r>{run * megabytes}</w:p>")


def text_near_the_limit(chars: int = 9_000_000, per_paragraph: int = 3_000) -> bytes:
    """A document of ``chars`` characters of text (under the 10 million limit), in paragraphs
    of ``per_paragraph``: the most text a document may hold."""
    rnd = random.Random(4)
    words = ["rent", "lease", "term", "party", "notice", "premises", "tenant", "landlord", "shall"]
    paras = [PAY_RENT]
    made = 0
    while made < chars:
        text = " ".join(rnd.choice(words) for _ in range(per_paragraph // 6))[:per_paragraph]
        paras.append(f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>")
        made += len(text)
    return body("".join(paras))


def many_namespaces(count: int, paragraphs: int = 300, where: str = "root") -> bytes:
    """``count`` namespace declarations on the root (``where="root"``) or spread over the
    paragraphs (``"paragraphs"``), and ``paragraphs`` paragraphs ``Clause i: The Tenant shall
    pay rent i.``"""
    decls = [f'xmlns:n{i}="urn:x:{i}"' for i in range(count)]
    root = " ".join(decls) if where == "root" else ""
    paras = []
    for i in range(paragraphs):
        own = " ".join(decls[i::paragraphs]) if where == "paragraphs" else ""
        paras.append(f"<w:p {own}><w:r><w:t>Clause {i}: The Tenant shall pay rent {i}.</w:t></w:r></w:p>")
    xml = f'<w:document xmlns:w="{W_NS}" {root}><w:body>{"".join(paras)}</w:body></w:document>'
    return h.docx({"word/document.xml": h.DECL + xml.encode()})


def in_header(paragraph: str) -> bytes:
    """A document whose header holds ``paragraph``."""
    header = h.DECL + f'<w:hdr xmlns:w="{W_NS}">{paragraph}</w:hdr>'.encode()
    ref = (
        "<w:p><w:r><w:t>The Tenant shall pay rent.</w:t></w:r></w:p><w:sectPr><w:headerReference "
        'w:type="default" r:id="rId2"/></w:sectPr>'
    )
    return h.docx(
        {
            "[Content_Types].xml": h.content_types({"/word/header1.xml": HEADER_CT}),
            "word/document.xml": h.document(ref),
            "word/_rels/document.xml.rels": h.rels(
                ("rId1", h.REL_STYLES, "styles.xml"), ("rId2", REL_HEADER, "header1.xml")
            ),
            "word/header1.xml": header,
        }
    )


def macro_by_default(ext: str, ct: str, name: str) -> bytes:
    """A member ``name`` whose content type is macro content by the Default for ``ext``."""
    return h.docx({"[Content_Types].xml": h.content_types(defaults={ext: ct}), name: b"\xd0\xcf\x11\xe0vba"})


def macro_by_override(name: str, ct: str) -> bytes:
    return h.docx({"[Content_Types].xml": h.content_types({"/" + name: ct}), name: b"\x00vba"})


def macro_by_relationship(rel_type: str, target: str = "stuff.dat") -> bytes:
    return h.docx(
        {
            "word/_rels/document.xml.rels": h.rels(
                ("rId1", h.REL_STYLES, "styles.xml"), ("rId9", rel_type, target)
            ),
            "word/" + target: b"\x00vba",
        }
    )


def keymap_customizations() -> bytes:
    """Word's key bindings (a plain .docx may hold them): not macro content."""
    keymap = h.DECL + b'<wne:tcg xmlns:wne="http://schemas.microsoft.com/office/word/2006/wordml"/>'
    return h.docx(
        {
            "[Content_Types].xml": h.content_types({"/word/customizations.xml": KEYMAP_CT}),
            "word/_rels/document.xml.rels": h.rels(
                ("rId1", h.REL_STYLES, "styles.xml"), ("rId2", REL_KEYMAP, "customizations.xml")
            ),
            "word/customizations.xml": keymap,
        }
    )


def clauses(n: int) -> bytes:
    """``n`` paragraphs ``Clause i: The Tenant shall pay rent i.``"""
    return body(
        "".join(
            f"<w:p><w:r><w:t>Clause {i}: The Tenant shall pay rent {i}.</w:t></w:r></w:p>" for i in range(n)
        )
    )
