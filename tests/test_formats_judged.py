"""``format`` entries judged by LibreOffice on real and generated contracts (slow).

* ``$REDLINE_CORPUS`` documents: a run key on a passage of a body paragraph, and a style
  change, each written; LibreOffice's reject-all gives the input's characters, attributes and
  styles back exactly, and its accept-all puts the asked-for attribute on the quoted passage.
* A hypothesis property on generated contracts (``testing.contractgen``): format entries mixed
  with plain edits; whatever applies, LibreOffice's reject-all gives back the input's text and
  every character's attributes and every paragraph's style.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redline.apply import ApplyOptions, apply_reply
from redline.read.view import DocumentView, SpanFlag
from testing.contractgen import generate_contract
from tests.oracles_fmt import LO_VALUES, chars, lo_formats, styles
from tests.support import corpus_paths, view_of

OPTIONS = ApplyOptions(author="Counsel", date="2026-12-01T00:00:00Z")
KEYS: list[tuple[str, object]] = [
    ("bold", True), ("italic", True), ("underline", "double"), ("strike", True), ("caps", True),
    ("small_caps", True), ("highlight", "green"), ("bold", False), ("italic", False),
]  # fmt: skip


def _passages(view: DocumentView, rng: random.Random, n: int) -> list[str]:
    """Up to ``n`` passages of body paragraphs that occur once in the view, in no field."""
    found: list[str] = []
    paras = [p for p in view.paragraphs if p.story == "body" and p.end - p.start >= 30]
    rng.shuffle(paras)
    for p in paras:
        text = view.text[p.start : p.end]
        a = rng.randrange(0, len(text) - 20)
        b = a + rng.randrange(8, 20)
        quote = text[a:b]
        if not quote.strip() or quote != quote.strip() or view.text.count(quote) != 1:
            continue
        if view.flags_between(p.start + a, p.start + b) & SpanFlag.FIELD_RESULT:
            continue
        if any(quote in q or q in quote for q in found):
            continue
        found.append(quote)
        if len(found) == n:
            break
    return found


def _heading_style(data: bytes) -> str | None:
    import io
    import zipfile

    from lxml import etree

    try:
        root = etree.fromstring(zipfile.ZipFile(io.BytesIO(data)).read("word/styles.xml"))
    except KeyError:
        return None
    w = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
    for st_el in root.iter(f"{w}style"):
        if st_el.get(f"{w}type") == "paragraph" and (st_el.get(f"{w}styleId") or "").lower() == "heading2":
            return str(st_el.get(f"{w}styleId"))
    return None


def _lo_text(reading: dict[str, Any]) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    flat = [c for para in chars(reading) for c in [*para, ("\n", {})]]
    return "".join(ch for ch, _ in flat), flat


@pytest.mark.slow
def test_corpus_format_changes_accept_and_reject_in_libreoffice(tmp_path: Path) -> None:
    paths = corpus_paths()
    if not paths:
        pytest.skip("REDLINE_CORPUS is not set")
    rng = random.Random(29)
    picked = [p for p in paths if p.stat().st_size < 200_000][:4]
    jobs: list[tuple[Path, Path, list[dict[str, Any]]]] = []
    for path in picked:
        data = path.read_bytes()
        view = view_of(data)
        quotes = _passages(view, rng, 3)
        entries: list[dict[str, Any]] = [
            {"action": "format", "anchor": q, "format": {k: v}}
            for q, (k, v) in zip(quotes, rng.sample(KEYS[:7], len(quotes)), strict=False)
        ]
        style = _heading_style(data)
        if style is not None and quotes:
            entries.append({"action": "format", "anchor": quotes[0], "format": {"style": "heading 2"}})
        out = apply_reply(data, json.dumps(entries), OPTIONS)
        applied = [e for e, r in zip(entries, out.report.edits, strict=True) if r.status.value == "applied"]
        assert applied, (path.name, [(r.status.value, r.error) for r in out.report.edits])
        assert out.output is not None
        dst = tmp_path / f"{path.stem}.out.docx"
        dst.write_bytes(out.output)
        jobs.append((path, dst, applied))
    read = lo_formats([p for job in jobs for p in job[:2]], tmp_path)
    checked = 0
    for src, dst, applied in jobs:
        before, after = read[src], read[dst]
        if "error" in before:
            continue  # LibreOffice cannot open the input itself
        assert "error" not in after, (dst.name, after)
        assert chars(after["reject"]) == chars(before["as_is"]), src.name
        assert styles(after["reject"]) == styles(before["as_is"]), src.name
        text, flat = _lo_text(after["accept"])
        for entry in applied:
            for key, value in entry["format"].items():
                if key == "style":
                    continue
                attr, want = LO_VALUES[key][value]
                at = text.find(entry["anchor"])
                if at < 0:
                    continue  # LibreOffice shows the passage otherwise (a field, a label)
                got = {flat[i][1][attr] for i in range(at, at + len(entry["anchor"])) if flat[i][0].strip()}
                assert got == {want}, (src.name, entry, got)
                checked += 1
    assert checked >= 4  # passages judged on LibreOffice's side, not only written


# -- the property ------------------------------------------------------------------------------


@st.composite
def _batches(draw: st.DrawFn) -> list[tuple[int, list[dict[str, Any]]]]:
    cases = []
    for _ in range(draw(st.integers(2, 3))):
        seed = draw(st.integers(0, 5))
        rng = random.Random(draw(st.integers(0, 10_000)))
        view = view_of(generate_contract("lease", seed=seed))
        quotes = _passages(view, rng, 6)
        entries: list[dict[str, Any]] = []
        for q in quotes:
            kind = draw(st.sampled_from(["format", "format", "style", "edit", "delete"]))
            if kind == "format":
                k, v = draw(st.sampled_from(KEYS))
                entries.append({"action": "format", "anchor": q, "format": {k: v}})
            elif kind == "style":
                entries.append(
                    {
                        "action": "format",
                        "anchor": q,
                        "format": {"style": draw(st.sampled_from(["Normal", "Heading 1"]))},
                    }
                )
            elif kind == "edit":
                entries.append({"anchor": q, "replacement": q.upper()})
            else:
                entries.append({"anchor": q, "replacement": ""})
        cases.append((seed, entries))
    return cases


@pytest.mark.slow
@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(_batches())
def test_libreoffice_reject_all_gives_back_the_input_with_formats_and_edits_mixed(
    tmp_path_factory: pytest.TempPathFactory, batch: list[tuple[int, list[dict[str, Any]]]]
) -> None:
    tmp = tmp_path_factory.mktemp("fmt-property")
    docs: list[Path] = []
    for n, (seed, entries) in enumerate(batch):
        data = generate_contract("lease", seed=seed)
        out = apply_reply(data, json.dumps(entries), OPTIONS)
        assert out.output is not None
        src, dst = tmp / f"{n}.in.docx", tmp / f"{n}.out.docx"
        src.write_bytes(data)
        dst.write_bytes(out.output)
        docs += [src, dst]
    read = lo_formats(docs, tmp)
    for n in range(len(batch)):
        before, after = read[tmp / f"{n}.in.docx"], read[tmp / f"{n}.out.docx"]
        assert "error" not in before and "error" not in after
        assert chars(after["reject"]) == chars(before["as_is"]), batch[n]
        assert styles(after["reject"]) == styles(before["as_is"]), batch[n]
