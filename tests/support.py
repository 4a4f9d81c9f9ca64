"""Helpers the test modules share: fixture documents, views and zip members.

Test modules import helpers from here (or from ``tests.oracles``, the external readers, and
``testing``, the document generators), never from one another.
"""

from __future__ import annotations

import functools
import io
import os
import zipfile
from pathlib import Path

from lxml import etree

from redline.read.annotations import Annotations, read_annotations
from redline.read.load import load_view
from redline.read.view import DocumentView
from testing.contractgen import generate_contract
from testing.zips import write_member

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_LEASE = ROOT / "sample_contracts" / "commercial-lease.docx"
COMMENT_DATE = "2020-01-01T00:00:00Z"


# -----------------------------------------------------------------------------------------
# The real-document corpus (tests take conftest's ``corpus_dir`` or ``corpus_docs``; these are
# for what is decided when the tests are collected: parametrize, skipif)


def corpus_folder() -> Path | None:
    """The folder ``$REDLINE_CORPUS`` names, or None when it is unset or not a folder."""
    value = os.environ.get("REDLINE_CORPUS")
    return Path(value) if value and Path(value).is_dir() else None


def corpus_paths() -> list[Path]:
    """The corpus's documents (``*.docx``), sorted; none without a corpus."""
    folder = corpus_folder()
    return sorted(folder.glob("*.docx")) if folder is not None else []


# -----------------------------------------------------------------------------------------
# Fixture documents


@functools.cache
def lease(seed: int = 0) -> bytes:
    """The generated lease (``testing.contractgen``) of ``seed``, built once per process."""
    return generate_contract("lease", seed=seed)


def view_of(source: bytes | Path) -> DocumentView:
    """redline's view of a document (its bytes or its path), which must be readable."""
    loaded = load_view(source)
    assert isinstance(loaded, tuple), loaded
    return loaded[1]


def read_back(data: bytes) -> Annotations:
    """The tracked changes and comments redline reads in ``data``."""
    loaded = load_view(data)
    assert isinstance(loaded, tuple), loaded
    return read_annotations(*loaded)


def comment(cid: int, text: str, author: str = "Opp", para_id: str | None = None) -> str:
    """A ``w:comment`` of one paragraph, for ``word/comments.xml``."""
    pid = f' w14:paraId="{para_id}"' if para_id else ""
    return (
        f'<w:comment w:id="{cid}" w:author="{author}" w:date="{COMMENT_DATE}"><w:p{pid}><w:r>'
        f"<w:t>{text}</w:t></w:r></w:p></w:comment>"
    )


# -----------------------------------------------------------------------------------------
# Zip members


def members(data: bytes) -> dict[str, bytes]:
    """Every member of the zip ``data``, by name, in the zip's order."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {i.filename: z.read(i) for i in z.infolist()}


def part(data: bytes, name: str) -> etree._Element:
    """The member ``name`` of ``data``, parsed."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return etree.fromstring(z.read(name))


def text_of(el: etree._Element) -> str:
    return "".join(str(t) for t in el.itertext())


def body_xml(data: bytes) -> str:
    """The main part's body, between ``<w:body>`` and the section properties."""
    text = members(data)["word/document.xml"].decode()
    return text[text.index("<w:body>") + 8 : text.index("<w:sectPr")]


def with_part(doc: bytes, name: str, data: bytes, rel_type: str, content_type: str) -> bytes:
    """``doc`` with the part ``name`` added: related from the main part, its type declared."""
    files = members(doc)
    files[name] = data
    rels = files["word/_rels/document.xml.rels"].decode()
    files["word/_rels/document.xml.rels"] = rels.replace(
        "</Relationships>",
        f'<Relationship Id="rIdX{len(files)}" Type="{rel_type}" Target="{name[5:]}"/></Relationships>',
    ).encode()
    types = files["[Content_Types].xml"].decode()
    files["[Content_Types].xml"] = types.replace(
        "</Types>", f'<Override PartName="/{name}" ContentType="{content_type}"/></Types>'
    ).encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files.items():
            write_member(z, n, d)
    return buf.getvalue()
