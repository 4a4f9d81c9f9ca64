"""The third hostile catalogue (``tests/hostile3_catalogue.py``), every case through the command
line (or the tools), and what holds for every case besides the case's own answer: no traceback
and no bug's exit code (70), CPU time within a generous bound (never wall-clock), the inputs
byte for byte as they were, nothing written on a refusal (exit 3), and every document written
loadable by our loader and by python-docx."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import pytest

from redline.read.load import load_view
from redline.tools.session import DocumentTools
from redline_cli.redline import main
from shared_schema import Refusal
from tests.hostile3_catalogue import CASES, DATE, EDIT, Case, Result

CPU_SECONDS = 120.0  # generous: the slowest case takes a few seconds on a shared machine


def test_the_catalogue_has_at_least_sixty_cases_each_named_once() -> None:
    names = [c.name for c in CASES]
    assert len(names) >= 60 and len(set(names)) == len(names)


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _run(case: Case, root: Path, capsys: pytest.CaptureFixture[str]) -> Result:
    out_doc: str | None = None
    report_path = root / "report.json"
    if case.command == "tools":
        tools = DocumentTools(root, lock_dir=root.parent / "locks")
        if "markup" in case.args:
            read = tools.read_region("doc.docx", paragraphs="0-0", markup=True)
            return Result(0, str(read.get("text", json.dumps(read))), "", None, None)
        read = tools.read_region("doc.docx")
        done = tools.apply_edits("doc.docx", [EDIT], read["revision"], output="out.docx")
        out = root / "out.docx"
        return Result(0, json.dumps(done), "", None, out.read_bytes() if out.exists() else None)
    if case.command == "apply":
        names = [n for n in _files(root) if n.lower().endswith(".docx")]
        doc = next((a[1:] for a in case.args if a.startswith("@")), names[0])
        rest = [a for a in case.args if not a.startswith("@")]
        out_doc = rest[rest.index("-o") + 1] if "-o" in rest else "out.docx"
        args = [
            "apply",
            str(root / doc),
            str(root / "reply.json"),
            "--report",
            str(report_path),
            "--date",
            DATE,
        ]
        args += [str(root / out_doc) if a == out_doc else a for a in rest]
        if "-o" not in rest:
            args += ["-o", str(root / out_doc)]
    elif case.command == "compare":
        out_doc = "out.docx"
        args = ["compare", str(root / "old.docx"), str(root / "new.docx"), "-o", str(root / out_doc),
                "--report", str(report_path), "--date", DATE, *case.args]  # fmt: skip
    elif case.command == "view":
        args = ["view", str(root / "doc.docx"), *case.args]
    else:
        args = ["review", str(root / "in"), "-o", str(root / "out"), *case.args]
    code = main(args)
    printed = capsys.readouterr()
    report = json.loads(report_path.read_text()) if report_path.exists() else None
    output = (root / out_doc).read_bytes() if out_doc and (root / out_doc).exists() else None
    return Result(code, printed.out, printed.err, report, output)


def _loadable(data: bytes) -> None:
    import docx as python_docx

    loaded = load_view(data)
    assert not isinstance(loaded, Refusal), loaded.message
    python_docx.Document(io.BytesIO(data))  # raises when python-docx cannot open it


@pytest.mark.parametrize(
    "case", [pytest.param(c, id=c.name, marks=[pytest.mark.slow] if c.slow else []) for c in CASES]
)
def test_hostile3(case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "case"
    root.mkdir()
    for name, data in case.build().items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    inputs = _files(root)
    started = time.process_time()
    result = _run(case, root, capsys)
    spent = time.process_time() - started
    assert spent < CPU_SECONDS, f"{spent:.1f} CPU seconds"
    assert "Traceback" not in result.err and result.exit != 70, result.err
    assert "internal_error" not in result.err + result.out
    after = _files(root)
    for name, data in inputs.items():
        assert after[name] == data, f"{name} was changed"
    written = {n: d for n, d in after.items() if n not in inputs and n.lower().endswith(".docx")}
    if result.exit == 3 and case.command != "review":
        assert not written, f"a refusal wrote {sorted(written)}"
    for data in written.values():
        _loadable(data)
    result.files = after
    case.expect(result)
