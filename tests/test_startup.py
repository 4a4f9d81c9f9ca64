"""Issue 22: a command imports what it needs when it needs it, and the work moved or deferred for
speed gives what the eager path gave.

The import checks run a fresh interpreter and read its ``sys.modules`` after the command: no
timing is asserted (the benchmark measures that), only which libraries a command pulled in.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from redline.apply import ApplyOptions, apply_reply
from redline.opc.package import Package
from redline.read import scan
from redline.read.build import build_view
from redline.read.view import DocumentView
from testing.contractgen import generate_contract

ROOT = Path(__file__).resolve().parent.parent

_PROBE = """
import contextlib, io, json, sys
from redline_cli.redline import main
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
    code = main(sys.argv[1:])
heavy = ("pydantic", "lxml", "rapidfuzz", "redline_review", "summarize", "shared_schema.models")
print(json.dumps({"code": code, "loaded": sorted(m for m in heavy if m in sys.modules),
                  "out": out.getvalue()[:200]}))
"""


def _run(*args: str) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


@pytest.fixture(scope="module")
def contract(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("startup") / "c.docx"
    path.write_bytes(generate_contract("msa", seed=3, pages=2))
    return path


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_import_no_library(flag: str) -> None:
    got = _run(flag)
    assert got["code"] == 0
    assert got["loaded"] == []
    assert "redline" in str(got["out"])


def test_view_builds_no_pydantic_model(contract: Path) -> None:
    got = _run("view", str(contract))
    assert got["code"] == 0
    assert "lxml" in got["loaded"]  # type: ignore[operator]
    assert "pydantic" not in got["loaded"]  # type: ignore[operator]
    assert "shared_schema.models" not in got["loaded"]  # type: ignore[operator]
    assert "rapidfuzz" not in got["loaded"]  # type: ignore[operator]


_APPLY_PROBE = """
import contextlib, io, json, sys
from redline_cli.redline import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    code = main(sys.argv[1:])
print(json.dumps({"code": code, "loaded": sorted(sys.modules)}))
"""

# what a plain reply (edits alone, no rationale) never needs: the decisions on others' revisions
# and their reading of every annotation, comments, the deflate threads of a long part, tracebacks
_NOT_FOR_PLAIN_EDITS = (
    "redline.match.decisions",
    "redline.write.decisions",
    "redline.read.annotations",
    "redline.write.comments",
    "concurrent.futures",
    "traceback",
    "summarize",
    "redline_review",
)


def _apply_loads(contract: Path, reply: dict[str, object], tmp: Path) -> tuple[int, set[str]]:
    (tmp / "reply.json").write_text(json.dumps(reply), encoding="utf-8")
    args = ["apply", str(contract), str(tmp / "reply.json"), "-o", str(tmp / "out.docx")]
    proc = subprocess.run(
        [sys.executable, "-c", _APPLY_PROBE, *args], cwd=ROOT, capture_output=True, text=True, check=True,
        timeout=120,
    )  # fmt: skip
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    return got["code"], set(got["loaded"])


def _an_anchor(contract: Path) -> str:
    view = build_view(Package.from_bytes(contract.read_bytes()))
    para = next(p for p in view.paragraphs if p.end - p.start > 40)
    return " ".join(view.paragraph_text(para).split(" ")[1:5])


def test_plain_edits_import_only_what_they_use(contract: Path, tmp_path: Path) -> None:
    anchor = _an_anchor(contract)
    code, loaded = _apply_loads(contract, {"edits": [{"anchor": anchor, "replacement": "x"}]}, tmp_path)
    assert code == 0
    assert "redline.write.writer" in loaded  # (the probe saw the run)
    assert "pydantic" not in loaded  # (issue 32: the apply path carries plain records)
    assert not [m for m in _NOT_FOR_PLAIN_EDITS if m in loaded or any(k.startswith(m + ".") for k in loaded)]


def test_a_rationale_imports_comments_and_nothing_of_decisions(contract: Path, tmp_path: Path) -> None:
    edit = {"anchor": _an_anchor(contract), "replacement": "x", "rationale": "why"}
    code, loaded = _apply_loads(contract, {"edits": [edit]}, tmp_path)
    assert code == 0
    assert "redline.write.comments" in loaded
    assert "redline.match.decisions" not in loaded and "redline.read.annotations" not in loaded


def test_schema_names_need_no_model() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", "import sys, shared_schema as s; print(s.DIALECTS, s.Code.INVALID, "
         "s.bidi_control('a'), 'pydantic' in sys.modules)"],
        cwd=ROOT, capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    assert proc.stdout.strip().endswith("False")


def test_the_rules_are_the_models_rules() -> None:
    from shared_schema import models, rules

    assert models.xml_unsafe_character is rules.xml_unsafe_character
    assert models.bidi_control is rules.bidi_control
    assert models.BIDI_CONTROLS is rules.BIDI_CONTROLS
    assert models.MAX_SECTION == rules.MAX_SECTION


def _labels(view: DocumentView) -> list[tuple[object, ...]]:
    return [(p.label, p.level, p.ilvl, p.section, p.title, p.heads) for p in view.paragraphs]


def _read(view: DocumentView) -> tuple[object, ...]:
    """What a view says (its span nodes are elements of its own trees: compared by position)."""
    nodes = [(n.tag, n.sourceline) for n in view.span_nodes[:200]]
    return (
        view.text,
        view.paragraphs,
        view.revision,
        view.span_starts,
        view.span_kinds,
        view.span_flags,
        nodes,
    )


def test_the_output_read_back_is_labelled_as_a_fresh_read() -> None:
    """The output's view is labelled on first use of Outcome.reloaded: the same labels,
    levels and sections as reading the output afresh."""
    data = generate_contract("msa", seed=5, pages=3)
    view = build_view(Package.from_bytes(data))
    para = next(p for p in view.paragraphs if p.label and p.end - p.start > 40)
    words = view.paragraph_text(para).split(" ")
    anchor = " ".join(words[2:6])
    reply = json.dumps({"edits": [{"anchor": anchor, "replacement": anchor + " promptly"}]})
    outcome = apply_reply(data, reply, ApplyOptions(date="2024-01-01T00:00:00Z"))
    assert outcome.output is not None and outcome.reloaded is not None
    fresh = build_view(Package.from_bytes(outcome.output))
    assert _labels(outcome.reloaded[1]) == _labels(fresh)
    assert any(label for label, *_ in _labels(fresh))
    assert _read(outcome.reloaded[1]) == _read(fresh)


def test_a_view_read_to_be_written_is_the_view_read_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    """trees=True (the main part's tree parsed beside the scan) changes when the tree is parsed,
    nothing the view says; the tree is there for the write, and checks out."""
    monkeypatch.setattr(scan.Check, "THREADED", 0)  # the check on its thread for any size
    data = generate_contract("msa", seed=6, pages=4)
    plain = build_view(Package.from_bytes(data))
    ready = build_view(Package.from_bytes(data), trees=True)
    assert _read(ready) == _read(plain) and _labels(ready) == _labels(plain)
    ready.check_tree()
    plain.check_tree()
    assert [p.element.sourceline for p in ready.paragraphs[:50]] == [
        p.element.sourceline for p in plain.paragraphs[:50]
    ]
