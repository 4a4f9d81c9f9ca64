"""The load's count of ``xmlns`` is exactly ``bytes.count``'s.

The package's load counts the ``xmlns`` in every XML part (what the namespace limit and the
scanner's shortcut for redeclarations start from) with the regular expression engine instead of
``bytes.count`` (:func:`redline.opc.package.count_xmlns`), and with ``bytes.count`` past a few
matches.  Held here to ``bytes.count`` on bytes built of the word's pieces (the near misses, the
word cut and run together), on both sides of the point where the count changes hands, and on a
loaded package's counts.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from redline.opc.package import XMLNS_FEW, Package, count_xmlns
from testing.hostile_docs import Entry, document, docx_parts, raw_zip

_PIECES = st.sampled_from(
    [
        b"xmlns",
        b"xmlns:",
        b"xmln",
        b"mlns",
        b"x",
        b"xx",
        b"xmlnsxmlns",
        b"s",
        b"<",
        b" ",
        b"\x00",
        b"\xff",
        b"XMLNS",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=200), st.integers(0, 3))
def test_the_count_is_bytes_count(pieces: list[bytes], repeat: int) -> None:
    data = b"".join(pieces) * (repeat or 1)
    assert count_xmlns(data) == data.count(b"xmlns")


@given(st.integers(0, 3 * XMLNS_FEW), st.binary(max_size=20))
def test_the_count_on_both_sides_of_the_hand_over(n: int, filler: bytes) -> None:
    data = (filler + b"xmlns") * n + filler
    assert count_xmlns(data) == data.count(b"xmlns")


def test_a_package_counts_what_bytes_count_counts() -> None:
    decls = "".join(f' xmlns:p{i}="urn:p{i}"' for i in range(100))
    body = f"<w:p{decls}><w:r><w:t>xmlns xmln mlns</w:t></w:r></w:p>"
    data = document(body)
    package = Package.from_bytes(raw_zip([Entry(n, d) for n, d in docx_parts({"word/document.xml": data})]))
    for name in package.names:
        counts = package.counts(name)
        if counts is not None:
            held = package.read(name)
            assert counts == (held.count(b"<"), held.count(b"xmlns"))
    assert package.counts("word/document.xml") == (data.count(b"<"), data.count(b"xmlns"))
