"""``redline compare``: formatting NEW changed on the words a changed paragraph kept (issue 29).

A paragraph whose text changed and whose unchanged words changed formatting gets both: the
text's ``w:ins`` / ``w:del`` and a ``w:rPrChange`` on the runs of the kept words whose
formatting changed.  Judged by LibreOffice over UNO (``tests/libreoffice_props.py``): accept-all
of OUT reads as NEW and reject-all as OLD, per portion; by an lxml reading following Word's
rules (``tests/word_decide.py``: every change rejected gives OLD's characters with OLD's run
properties); by our reader (every change accepted gives NEW's); and by a hypothesis property
over random formatting and word changes: every one is written (exit 0) and holds -- a kept word
in a run the text change beside it rewrote included (written once the writer is done,
:func:`redline.compare.formatting.format_kept`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import docx
import pytest

from redline.compare import compare
from tests import word_decide
from tests.test_compare_structure import OPTIONS, judge, run_props, save

Doc = Any
_TEXTS = [
    "The Premises are let to the Tenant for a term of five years.",
    "Definitions and Interpretation",
    "The Rent is payable monthly in advance on the first day of each month.",
]


def _bold(r: Any) -> None:
    r.bold = True


def _italic(r: Any) -> None:
    r.italic = True


def _underline(r: Any) -> None:
    r.underline = True


def _strike(r: Any) -> None:
    r.font.strike = True


def _caps(r: Any) -> None:
    r.font.all_caps = True


_KEYS: list[Callable[[Any], None]] = [_bold, _italic, _underline, _strike, _caps]


def document(
    keys: list[list[int]], words: dict[tuple[int, int], str] | None = None, runs: str = "word"
) -> bytes:
    """A document of ``_TEXTS`` whose k-th paragraph's n-th word carries run key
    ``keys[k][n]`` (-1: none), ``words`` replacing some words ((paragraph, word) -> text; "" drops
    it); ``runs``: "word" (a run a word) or "joined" (words of the same keys in one run)."""
    d = docx.Document()
    for k, (text, marks) in enumerate(zip(_TEXTS, keys, strict=True)):
        p = d.add_paragraph()
        tokens = text.split(" ")
        pieces: list[tuple[str, int]] = []
        for n, token in enumerate(tokens):
            token = (words or {}).get((k, n), token)
            if not token:
                continue
            pieces.append((token, marks[n]))
        spaced = [(t + (" " if i < len(pieces) - 1 else ""), m) for i, (t, m) in enumerate(pieces)]
        if runs == "joined":
            merged: list[tuple[str, int]] = []
            for t, m in spaced:
                if merged and merged[-1][1] == m:
                    merged[-1] = (merged[-1][0] + t, m)
                else:
                    merged.append((t, m))
            spaced = merged
        for t, m in spaced:
            run = p.add_run(t)
            if m >= 0:
                _KEYS[m](run)
    return save(d)


def plain() -> list[list[int]]:
    return [[-1] * len(t.split(" ")) for t in _TEXTS]


def marked(*where: tuple[int, int, int]) -> list[list[int]]:
    keys = plain()
    for k, n, key in where:
        keys[k][n] = key
    return keys


# (OLD keys, NEW keys, NEW's word changes, runs): a paragraph whose text and kept words'
# formatting both change
PAIRS: dict[str, tuple[list[list[int]], list[list[int]], dict[tuple[int, int], str], str]] = {
    "bold_before_a_replaced_word": (plain(), marked((0, 1, 0)), {(0, 10): "seven"}, "word"),
    "bold_after_a_replaced_word": (plain(), marked((0, 10, 0)), {(0, 1): "Property"}, "word"),
    "italic_beside_a_deleted_word": (plain(), marked((2, 5, 1)), {(2, 4): ""}, "word"),
    "underline_beside_an_inserted_word": (plain(), marked((2, 3, 2)), {(2, 4): "monthly and"}, "word"),
    "bold_removed_beside_a_change": (marked((0, 1, 0)), plain(), {(0, 4): "leased"}, "word"),
    "strike_in_one_run_with_the_change": (plain(), marked((0, 2, 3), (0, 3, 3)), {(0, 6): "a"}, "joined"),
    "caps_in_a_one_run_paragraph": (plain(), marked((1, 0, 4)), {(1, 2): "Construction"}, "joined"),
    "two_keys_two_paragraphs": (plain(), marked((0, 5, 0), (2, 7, 1)), {(0, 0): "These", (2, 13): "quarter."},
                                "word"),
}  # fmt: skip


def pair(name: str) -> tuple[bytes, bytes]:
    old_keys, new_keys, words, runs = PAIRS[name]
    return document(old_keys, runs=runs), document(new_keys, words, runs=runs)


def check_written(old: bytes, new: bytes, out: bytes) -> None:
    """Our accept (the view of OUT) gives NEW's characters with NEW's run properties; Word's
    reject (lxml) gives OLD's with OLD's."""
    assert run_props(out) == run_props(new)
    assert run_props(word_decide.reject_all(out)) == run_props(old)


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_kept_words_formatting_is_written_beside_the_text_change(name: str) -> None:
    old, new = pair(name)
    outcome = compare(old, new, OPTIONS)
    changes = outcome.report.to_dict()["changes"]
    assert outcome.exit_code == 0, changes
    assert {"format"} <= {c["kind"] for c in changes}
    assert any(c["kind"] != "format" for c in changes)
    assert outcome.output is not None
    check_written(old, new, outcome.output)


@pytest.mark.slow
def test_libreoffice_accept_is_new_reject_is_old(tmp_path: Path) -> None:
    pairs = []
    for name in sorted(PAIRS):
        old, new = pair(name)
        out = compare(old, new, OPTIONS).output
        assert out is not None
        pairs.append((name, old, new, out))
    assert judge(pairs, tmp_path) == []


def test_property_random_formatting_and_words() -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    keys = st.tuples(
        *[st.lists(st.integers(-1, len(_KEYS) - 1), min_size=len(t.split(" ")), max_size=len(t.split(" ")))
          for t in _TEXTS]
    )  # fmt: skip
    words = st.dictionaries(
        st.sampled_from([(k, n) for k, t in enumerate(_TEXTS) for n in range(len(t.split(" ")))]),
        st.sampled_from(["", "altered", "two words"]),
        max_size=3,
    )

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(keys, keys, words, st.sampled_from(["word", "joined"]))
    def check(
        a: tuple[list[int], ...], b: tuple[list[int], ...], w: dict[tuple[int, int], str], runs: str
    ) -> None:
        old, new = document(list(a), runs=runs), document(list(b), w, runs=runs)
        outcome = compare(old, new, OPTIONS)
        out = outcome.output
        assert out is not None
        changes = outcome.report.to_dict()["changes"]
        assert outcome.exit_code == 0, changes  # (a kept word in a run the writer rewrote: issue 29)
        check_written(old, new, out)

    check()
