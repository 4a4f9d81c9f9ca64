"""The second hostile catalogue (issue 20): nothing hangs, nothing balloons, nothing is published
that the loader would refuse.

Each case is an attack on one of the classes the issue closes -- inputs that are not regular
files, resources the input controls (text, namespaces, the work of a call), markup inside text
elements, outputs the loader would refuse, arguments, macros by type, MCP output paths and
locks, batches, ``redline stats`` -- run as a user runs it (``redline``/``summarize`` main, or
the tools), and asserts: the stable code (or sound output), nothing partial written, the inputs
unchanged, and its CPU time and peak resident memory under the budget below.

How it is measured (as ``tests/test_hostile.py``): the command-line cases run in one worker
process (``testing.measure jobs``) that calls ``main`` per case and resets its peak RSS before each
(``/proc/self/clear_refs``), so a case's CPU seconds (``time.process_time``: every thread, not
the wall clock a busy machine stretches) and peak are its own; the documents that are large on
purpose run in a second worker, with their own (stated) budgets. A case that hangs is caught
by the worker's wall-clock guard, never by a timing assertion.

Budgets (measured on a 2-core machine shared with two other test runs; worst observed in
brackets, ``pytest tests/test_hostile2.py -k numbers -s`` prints the table):

* every small case: ``CPU_LIMIT`` 1.5 CPU s [0.3], ``MEMORY_LIMIT_MB`` 200 MB [~75];
* the large ones: their own ``cpu``/``mb`` fields (e.g. 180 MB of text refused: 6 CPU s,
  640 MB [1.3 s, 425 MB: the 200 MB main part inflated and decoded is the floor]).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redline.apply import ApplyOptions
from redline.opc.package import Package
from redline.read.build import build_view
from redline.tools.session import DocumentTools
from redline_cli.redline import main as redline_main
from redline_review.runner import InProcess, run_review
from redline_review.storage import LocalStorage
from testing import hostile_docs as h
from testing import hostile_docs2 as h2
from testing.contractgen import generate_contract

ROOT = Path(__file__).resolve().parent.parent
MB = 1024 * 1024
DATE = "2026-01-01T00:00:00Z"
CPU_LIMIT = 1.5
"""CPU seconds of one small case, in process (imports paid by a warm-up run first)."""
MEMORY_LIMIT_MB = 200
"""Peak resident set of the worker during one small case, interpreter and imports included."""
HANG_GUARD = 300.0
"""Wall seconds after which the worker counts as hung, however busy the machine."""
RAW_WORDS = ("Traceback", "KeyError", "XMLSyntaxError", "zlib.error", "[Errno", "Error(")
GOOD = {"anchor": "pay rent", "replacement": "pay the rent"}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def reply(*edits: dict[str, Any]) -> bytes:
    return json.dumps({"edits": list(edits) or [GOOD]}).encode()


# =============================================================================================
# The worker: every command-line case in one process, each measured on its own

WORKER = [sys.executable, "-m", "testing.measure", "jobs"]
"""The worker (``testing/measure.py``): ``WORKER + [RESULTS]``, the jobs as JSON on stdin."""


@dataclass
class Run:
    rc: int | None
    crash: str | None
    stderr: str
    stdout: str
    cpu: float
    peak_mb: float


def run_worker(jobs: list[dict[str, Any]], folder: Path) -> dict[str, Run]:
    results = folder / "results.jsonl"
    proc = subprocess.run(
        [*WORKER, str(results)],
        input=json.dumps(jobs).encode(),
        capture_output=True,
        timeout=HANG_GUARD,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-5000:]
    runs = {}
    for line in results.read_text().splitlines():
        row = json.loads(line)
        runs[row["id"]] = Run(
            row["rc"], row["crash"], row["stderr"], row["stdout"], row["cpu"], row["peak_mb"]
        )
    return runs


# =============================================================================================
# The command-line cases


@dataclass
class Setup:
    """What a case's ``build`` made in its folder."""

    argv: list[str]
    prog: str = "redline"
    stdin: str | None = None
    inputs: list[Path] = field(default_factory=list)  # must be unchanged (regular files only)
    absent: list[Path] = field(default_factory=list)  # must not exist afterwards
    present: list[Path] = field(default_factory=list)  # must exist afterwards


@dataclass(frozen=True)
class Case:
    id: str
    build: Callable[[Path], Setup]
    exits: frozenset[int]
    code: str | None = None  # the code on stderr ("[code]"), when one is expected
    check: Callable[[Path, Run], None] | None = None
    large: bool = False
    cpu: float = CPU_LIMIT
    mb: float = MEMORY_LIMIT_MB


def _apply(
    doc: Callable[[Path], Path],
    answer: Callable[[Path], Path] | None = None,
    extra: tuple[str, ...] = (),
    dry: bool = False,
) -> Callable[[Path], Setup]:
    """``redline apply DOC REPLY -o OUT --report R --date D`` on what ``doc``/``answer`` make."""

    def build(folder: Path) -> Setup:
        d = doc(folder)
        r = answer(folder) if answer is not None else _file(folder, "reply.json", reply())
        out, rep = folder / "out.docx", folder / "report.json"
        argv = ["apply", str(d), str(r), "--report", str(rep), "--date", DATE, *extra]
        argv += ["--dry-run"] if dry else ["-o", str(out)]
        inputs = [p for p in (d, r) if p.is_file() and not p.is_symlink()]
        return Setup(argv, inputs=inputs, absent=[out])

    return build


def _file(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


def _doc(data: Callable[[], bytes]) -> Callable[[Path], Path]:
    return lambda folder: _file(folder, "contract.docx", data())


def _plain_doc(folder: Path) -> Path:
    return _file(folder, "contract.docx", h.docx())


def _fifo(name: str) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        path = folder / name
        os.mkfifo(path)
        return path

    return make


def _sparse(name: str, size: int) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        path = folder / name
        with open(path, "wb") as fh:
            fh.truncate(size)
        return path

    return make


def _folder(name: str) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        path = folder / name
        path.mkdir()
        return path

    return make


def _socket(name: str) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        path = folder / name
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        sock.close()  # the socket file stays
        return path

    return make


def _link_to_fifo(folder: Path) -> Path:
    os.mkfifo(folder / "pipe")
    (folder / "contract.docx").symlink_to(folder / "pipe")
    return folder / "contract.docx"


def _device(path: str) -> Callable[[Path], Path]:
    return lambda folder: Path(path)


def _reply_file(data: bytes) -> Callable[[Path], Path]:
    return lambda folder: _file(folder, "reply.json", data)


def _numbered_contract() -> Any:
    from testing.numbered import contract

    return contract(articles=40, clauses=6, seed=4)


def _retargets(n: int) -> bytes:
    """A reply typing another clause's number over ``n`` cross-references of the numbered
    contract."""
    doc = _numbered_contract()
    view = build_view(Package.from_bytes(doc.data))
    edits: list[dict[str, Any]] = []
    for para in view.paragraphs:
        text = view.paragraph_text(para)
        at = text.find(" as set out in Section ")
        if at < 0 or len(edits) == n:
            continue
        anchor = text[: text.index(" of this", at)]
        old = anchor.rsplit(" ", 1)[1]
        other = doc.labels[(doc.labels.index(old) + 7) % len(doc.labels)]
        edits.append({"anchor": anchor, "replacement": anchor[: -len(old)] + other})
    return reply(*edits)


def _new_refs(n: int) -> Callable[[Path, Run], None]:
    def check(folder: Path, run: Run) -> None:
        xml = Package.open(folder / "out.docx").read("word/document.xml").decode()
        assert xml.count("<w:ins ") >= n and xml.count("> REF _Ref") >= 2 * n, xml[-500:]

    return check


def _inserted_paragraphs(n: int) -> Callable[[Path, Run], None]:
    def check(folder: Path, run: Run) -> None:
        view = build_view(Package.open(folder / "out.docx"))
        assert len(view.paragraphs) >= n, len(view.paragraphs)

    return check


def _output_date_is(expected: str) -> Callable[[Path, Run], None]:
    def check(folder: Path, run: Run) -> None:
        pkg = Package.open(folder / "out.docx")
        xml = pkg.read("word/document.xml").decode()
        assert f'w:date="{expected}"' in xml, xml[-500:]

    return check


def _report_edit(status: str, reason: str | None = None) -> Callable[[Path, Run], None]:
    def check(folder: Path, run: Run) -> None:
        report = json.loads((folder / "report.json").read_text())
        [edit] = report["edits"]
        assert edit["status"] == status, edit
        if reason is not None:
            assert reason in json.dumps(report["reply"]["invalid"]), report["reply"]
        if status != "applied":
            assert not (folder / "out.docx").exists() or report["totals"]["applied"] == 0

    return check


def _view_cmd(make: Callable[[Path], Path], json_flag: bool = False) -> Callable[[Path], Setup]:
    def build(folder: Path) -> Setup:
        path = make(folder)
        return Setup(["view", str(path), *(["--json"] if json_flag else [])])

    return build


def _summarize(doc: Callable[[Path], Path], answer: Callable[[Path], Path]) -> Callable[[Path], Setup]:
    def build(folder: Path) -> Setup:
        d, r = doc(folder), answer(folder)
        return Setup(["check", str(d), str(r)], prog="summarize")

    return build


def _stdin_reply(device: str) -> Callable[[Path], Setup]:
    def build(folder: Path) -> Setup:
        d = _plain_doc(folder)
        out = folder / "out.docx"
        return Setup(["apply", str(d), "-", "-o", str(out), "--date", DATE], stdin=device, absent=[out])

    return build


def _with_args(*extra: str) -> Callable[[Path], Setup]:
    return _apply(_plain_doc, extra=extra)


def _review_args(*extra: str) -> Callable[[Path], Setup]:
    def build(folder: Path) -> Setup:
        src = folder / "batch"
        src.mkdir()
        (src / "a.docx").write_bytes(h.docx())
        (src / "a.reply.json").write_bytes(reply())
        out = folder / "out"
        return Setup(["review", str(src), "-o", str(out), "--jobs", "1", "--quiet", *extra], absent=[out])

    return build


# -- stats ----------------------------------------------------------------------------------


def _stats(files: dict[str, bytes | Callable[[Path], Path]], *extra: str) -> Callable[[Path], Setup]:
    def build(folder: Path) -> Setup:
        paths = []
        for name, data in files.items():
            paths.append(data(folder) if callable(data) else _file(folder, name, data))
        good = _file(folder, "good.report.json", _GOOD_REPORT)
        return Setup(["stats", *map(str, paths), str(good), *extra], inputs=[good])

    return build


_GOOD_REPORT = json.dumps(
    {
        "edits": [
            {"index": 0, "status": "not_found", "anchor": "x", "error": {"code": "not_found", "message": "m"}}
        ]
    }
).encode()


def _stats_counted(reports: int, unapplied: int) -> Callable[[Path, Run], None]:
    def check(folder: Path, run: Run) -> None:
        assert f"{reports} reports" in run.stdout and f"{unapplied} unapplied" in run.stdout, run.stdout

    return check


# -- batches ---------------------------------------------------------------------------------


def _hostile_batch(folder: Path) -> Setup:
    src = folder / "batch"
    src.mkdir()
    doc, answer = h.docx(), reply()
    for stem in ("ok", "Lease", "lease", "two", "fifo", "sparse", "dir", "big"):
        (src / f"{stem}.reply.json").write_bytes(answer)
    for stem in ("ok", "Lease", "lease", "two"):
        (src / f"{stem}.docx").write_bytes(doc)
    (src / "two.reply.txt").write_bytes(answer)
    os.mkfifo(src / "fifo.docx")
    with open(src / "sparse.docx", "wb") as fh:
        fh.truncate(3 * 1024 * MB)
    (src / "dir.docx").mkdir()
    (src / "big.docx").write_bytes(doc)
    with open(src / "big.reply.json", "wb") as fh:
        fh.truncate(1024 * MB)
    bad = os.fsdecode(b"bad\xff")
    (src / f"{bad}.docx").write_bytes(doc)
    (src / "orphan.reply.json").write_bytes(answer)
    (src / "lonely.docx").write_bytes(doc)
    out = folder / "out"
    out.mkdir()
    (out / "ok.redlined.docx").mkdir()  # an output in the way: that document's code, no more
    return Setup(
        ["review", str(src), "-o", str(out), "--jobs", "1", "--quiet", "--date", DATE],
        inputs=[src / "ok.docx", src / "two.reply.json"],
        present=[out / "summary.json", out / "report.html"],
    )


_BATCH_OUTCOMES = {
    "ok": "io_error",  # its output is blocked by a folder
    "Lease": "duplicate_name",
    "lease": "duplicate_name",
    "two": "ambiguous_reply",
    "fifo": "not_regular_file",
    "sparse": "too_large",
    "dir": "not_regular_file",
    "big": "too_large",
    "bad\\xff.docx": "invalid_file_name",
    "orphan": "missing_document",
    "lonely": "missing_reply",
}


def _batch_reports_every_input(folder: Path, run: Run) -> None:
    summary = json.loads((folder / "out" / "summary.json").read_text(encoding="utf-8"))
    got = {d["name"]: d["code"] for d in summary["documents"]}
    assert got == _BATCH_OUTCOMES, got
    assert {d["outcome"] for d in summary["documents"]} == {"refused"}
    page = (folder / "out" / "report.html").read_text(encoding="utf-8")
    for code in set(_BATCH_OUTCOMES.values()):
        assert code in page, code


def _batch_of_broken_only(folder: Path) -> Setup:
    src = folder / "batch"
    src.mkdir()
    os.mkfifo(src / "x.docx")
    (src / "x.reply.json").write_bytes(reply())
    out = folder / "out"
    return Setup(
        ["review", str(src), "-o", str(out), "--jobs", "1", "--quiet"],
        present=[out / "summary.json", out / "report.html"],
    )


def _batch_into_a_file(folder: Path) -> Setup:
    setup = _review_args()(folder)
    target = folder / "out"
    target.write_bytes(b"not a folder")
    setup.absent = []
    setup.inputs = [target]
    return setup


# -- the catalogue -----------------------------------------------------------------------------

E3, E2, E1, E0 = frozenset({3}), frozenset({2}), frozenset({1}), frozenset({0})
E01 = frozenset({0, 1})
_COMMENT = "<w:p><w:r><w:t>The Tenant shall pay <!-- a comment --> rent monthly.</w:t></w:r></w:p>"
_LONG = generate_contract("msa", pages=300)

CASES: list[Case] = [
    # -- not a regular file, or too large: refused before a byte is read
    Case("document is a FIFO", _apply(_fifo("contract.docx")), E3, "not_regular_file"),
    Case("document is a link to a FIFO", _apply(_link_to_fifo), E3, "not_regular_file"),
    Case("document is /dev/zero", _apply(_device("/dev/zero")), E3, "not_regular_file"),
    Case("document is /dev/null", _apply(_device("/dev/null")), E3, "not_regular_file"),
    Case("document is a folder", _apply(_folder("contract.docx")), E3, "not_regular_file"),
    Case("document is a socket", _apply(_socket("contract.docx")), E3, "not_regular_file"),
    Case("document is a sparse 3 GB file", _apply(_sparse("contract.docx", 3 * 1024 * MB)), E3, "too_large"),
    Case("document is missing", _apply(lambda f: f / "nope.docx"), E3, "io_error"),
    Case("reply is a FIFO", _apply(_plain_doc, _fifo("reply.json")), E3, "not_regular_file"),
    Case("reply is /dev/zero", _apply(_plain_doc, _device("/dev/zero")), E3, "not_regular_file"),
    Case("reply is a folder", _apply(_plain_doc, _folder("reply.json")), E3, "not_regular_file"),
    Case(
        "reply is a sparse 1 GB file", _apply(_plain_doc, _sparse("reply.json", 1024 * MB)), E3, "too_large"
    ),
    Case("reply on stdin is /dev/zero", _stdin_reply("/dev/zero"), E3, "too_large"),
    Case("dry run on a FIFO", _apply(_fifo("contract.docx"), dry=True), E3, "not_regular_file"),
    Case("view of a FIFO", _view_cmd(_fifo("contract.docx")), E3, "not_regular_file"),
    Case("view --json of /dev/zero", _view_cmd(_device("/dev/zero"), True), E3, "not_regular_file"),
    Case(
        "summarize: document is a FIFO",
        _summarize(_fifo("c.docx"), _reply_file(b"{}")),
        E3,
        "not_regular_file",
    ),
    Case(
        "summarize: reply is /dev/zero", _summarize(_plain_doc, _device("/dev/zero")), E3, "not_regular_file"
    ),
    Case(
        "summarize: reply is a sparse 1 GB file",
        _summarize(_plain_doc, _sparse("r.json", 1024 * MB)),
        E3,
        "too_large",
    ),
    # -- clause-level forms (issue 18): many inserted clauses, a long one, many retargets
    Case(
        "300 insert_after / insert_before entries on one paragraph, every level",
        _apply(
            _plain_doc,
            _reply_file(
                reply(
                    *(
                        {
                            "action": ("insert_after", "insert_before")[i % 2],
                            "anchor": "pay rent",
                            "text": f"New clause {i}.\n\n“Quoted” {i}",
                            "level": ("+1", "-1", "0")[i % 3],
                        }
                        for i in range(300)
                    )
                )
            ),
        ),
        E01,
        check=_inserted_paragraphs(600),
    ),
    Case(
        "an insert_after of one 2 MB line",
        _apply(
            _plain_doc,
            _reply_file(reply({"action": "insert_after", "anchor": "pay rent", "text": "x" * (2 * MB)})),
        ),
        E01 | E3,
    ),
    Case(
        "120 cross-references retargeted to other clauses in one reply",
        _apply(_doc(lambda: _numbered_contract().data), _reply_file(_retargets(120))),
        E0,
        check=_new_refs(120),
    ),
    # -- resources the input controls
    Case(
        "100,000 namespace declarations on the root",
        _apply(_doc(lambda: h2.many_namespaces(100_000))),
        E3,
        "too_many_namespaces",
    ),
    Case(
        "2,000 namespace declarations over the paragraphs",
        _apply(_doc(lambda: h2.many_namespaces(2_000, where="paragraphs"))),
        E3,
        "too_many_namespaces",
    ),
    Case(
        "998 namespace declarations (the most allowed) and three edits",
        _apply(
            _doc(lambda: h2.many_namespaces(998)),
            _reply_file(
                reply(
                    *({"anchor": f"pay rent {i}.", "replacement": f"pay the rent {i}."} for i in (1, 7, 200))
                )
            ),
        ),
        E0,
    ),
    # -- comments, processing instructions, elements inside text elements
    Case("a comment inside w:t", _apply(_doc(lambda: h2.body(_COMMENT))), E3, "markup_in_text"),
    Case(
        "a comment inside w:t, dry run",
        _apply(_doc(lambda: h2.body(_COMMENT)), dry=True),
        E3,
        "markup_in_text",
    ),
    Case(
        "a processing instruction inside w:t",
        _apply(_doc(lambda: h2.body(_COMMENT.replace("<!-- a comment -->", "<?pi x?>")))),
        E3,
        "markup_in_text",
    ),
    Case(
        "an element inside w:t",
        _apply(_doc(lambda: h2.body(_COMMENT.replace("<!-- a comment -->", "<w:b/>")))),
        E3,
        "markup_in_text",
    ),
    Case(
        "an element inside w:t, dry run",
        _apply(_doc(lambda: h2.body(_COMMENT.replace("<!-- a comment -->", "<w:b/>"))), dry=True),
        E3,
        "markup_in_text",
    ),
    Case(
        "a w:t inside w:t",
        _apply(_doc(lambda: h2.body(_COMMENT.replace("<!-- a comment -->", "<w:t>x</w:t>")))),
        E3,
        "markup_in_text",
    ),
    Case(
        "a comment inside w:t in a header", _apply(_doc(lambda: h2.in_header(_COMMENT))), E3, "markup_in_text"
    ),
    Case(
        "a comment between runs is kept",
        _apply(
            _doc(
                lambda: h2.body(
                    "<w:p><w:r><w:t>The Tenant shall </w:t></w:r><!-- c -->"
                    "<w:r><w:t>pay rent.</w:t></w:r></w:p>"
                )
            )
        ),
        E0,
    ),
    # -- never publish an output the loader would refuse
    Case(
        "a replacement whose output trips the ratio guard",
        _apply(_plain_doc, _reply_file(reply({"anchor": "pay rent", "replacement": "A" * 3_000_000}))),
        E3,
        "unloadable_output",
    ),
    # -- arguments
    Case("--date month 13", _with_args("--date", "2026-13-01T00:00:00Z"), E2),
    Case("--date not a date", _with_args("--date", "next tuesday"), E2),
    Case("--date February 30", _with_args("--date", "2026-02-30T00:00:00Z"), E2),
    Case("--date hour 24", _with_args("--date", "2026-01-01T24:00:00Z"), E2),
    Case("--date with a control character", _with_args("--date", "2026-01-01T00:00:00Z\x01"), E2),
    Case("--date with XML in it", _with_args("--date", '2026-01-01T00:00:00Z" w:author="x'), E2),
    Case(
        "--date a bare date means midnight UTC",
        _with_args("--date", "2026-03-04"),
        E0,
        check=_output_date_is("2026-03-04T00:00:00Z"),
    ),
    Case(
        "--date with a zone offset",
        _with_args("--date", "2026-03-04T10:00:00+02:00"),
        E0,
        check=_output_date_is("2026-03-04T10:00:00+02:00"),
    ),
    Case("--author empty", _with_args("--author", ""), E2),
    Case("--author only spaces", _with_args("--author", "   "), E2),
    Case("--author with a control character", _with_args("--author", "Ann\x01"), E2),
    Case("--author with a bidi override", _with_args("--author", "Ann\u202eeB"), E2),
    Case("--author of 256 characters", _with_args("--author", "A" * 256), E2),
    Case("--author a lone surrogate", _with_args("--author", "Ann\udc80"), E2),
    Case("review --date not a date", _review_args("--date", "soon"), E2),
    Case("review --author empty", _review_args("--author", ""), E2),
    # -- bidirectional controls in what a reviewer approves
    Case(
        "a bidi override in the anchor",
        _apply(_plain_doc, _reply_file(reply({"anchor": "pay \u202erent", "replacement": "x"}))),
        E1,
        check=_report_edit("invalid", "bidirectional control U+202E"),
    ),
    Case(
        "a bidi isolate in the replacement",
        _apply(_plain_doc, _reply_file(reply({"anchor": "pay rent", "replacement": "pay \u2066rent\u2069"}))),
        E1,
        check=_report_edit("invalid", "U+2066"),
    ),
    Case(
        "a bidi embedding in the rationale",
        _apply(
            _plain_doc,
            _reply_file(
                reply({"anchor": "pay rent", "replacement": "pay the rent", "rationale": "\u202bwhy"})
            ),
        ),
        E1,
        check=_report_edit("invalid", "U+202B"),
    ),
    Case(
        "a right-to-left mark is not a control",
        _apply(_plain_doc, _reply_file(reply({"anchor": "pay rent", "replacement": "pay \u200frent"}))),
        E0,
        check=_report_edit("applied"),
    ),
    Case(
        "an edit id that is a lone surrogate",
        _apply(
            _plain_doc,
            _reply_file(b'{"edits": [{"anchor": "pay rent", "replacement": "x", "id": "\\udc80"}]}'),
        ),
        E1,
        check=_report_edit("invalid", "not valid UTF-8"),
    ),
    # -- macros by type, whatever the part is called
    Case(
        "a VBA project by Default content type",
        _apply(_doc(lambda: h2.macro_by_default("dat", h2.VBA_CT, "word/code.dat"))),
        E3,
        "macro_enabled",
    ),
    Case(
        "a VBA signature by Override",
        _apply(_doc(lambda: h2.macro_by_override("word/sig.bin", h2.VBA_SIGNATURE_CT))),
        E3,
        "macro_enabled",
    ),
    Case(
        "VBA data by Default content type",
        _apply(_doc(lambda: h2.macro_by_default("vba", h2.VBA_DATA_CT, "word/data.vba"))),
        E3,
        "macro_enabled",
    ),
    Case(
        "a vbaProject relationship to an innocent name",
        _apply(_doc(lambda: h2.macro_by_relationship(h2.REL_VBA))),
        E3,
        "macro_enabled",
    ),
    Case(
        "a vbaProject relationship type in other case",
        _apply(_doc(lambda: h2.macro_by_relationship(h2.REL_VBA.upper()))),
        E3,
        "macro_enabled",
    ),
    Case(
        "a wordVbaData relationship",
        _apply(_doc(lambda: h2.macro_by_relationship(h2.REL_VBA_DATA))),
        E3,
        "macro_enabled",
    ),
    Case("key map customizations are not macros", _apply(_doc(h2.keymap_customizations)), E0),
    # -- redline stats survives malformed reports
    Case(
        "stats: JSON nested 200,000 deep",
        _stats({"deep.json": b"[" * 200_000 + b"]" * 200_000}),
        E3,
        "malformed_report",
        check=_stats_counted(1, 1),
    ),
    Case(
        "stats: a binary file",
        _stats({"bin.json": bytes(range(256)) * 8}),
        E3,
        "malformed_report",
        check=_stats_counted(1, 1),
    ),
    Case(
        "stats: NaN and wrong types",
        _stats({"nan.json": b'{"edits":[{"status":NaN,"error":{"code":[1]},"anchor":5,"index":NaN}]}'}),
        E0,
        check=_stats_counted(2, 2),
    ),
    Case(
        "stats: a call log with a line that is not JSON",
        _stats({"log.jsonl": b'{"tool":"apply_edits","error_code":"stale"}\n{oops\n'}),
        E3,
        "malformed_report",
        check=_stats_counted(1, 1),
    ),
    Case(
        "stats: /dev/zero",
        _stats({"zero": _device("/dev/zero")}),
        E3,
        "not_regular_file",
        check=_stats_counted(1, 1),
    ),
    Case(
        "stats: a FIFO",
        _stats({"fifo": _fifo("f.report.json")}),
        E3,
        "not_regular_file",
        check=_stats_counted(1, 1),
    ),
    Case(
        "stats: a sparse 1 GB report",
        _stats({"big": _sparse("big.report.json", 1024 * MB)}),
        E3,
        "too_large",
        check=_stats_counted(1, 1),
    ),
    # -- batches report every input
    Case("a batch of every hostile input", _hostile_batch, E1, check=_batch_reports_every_input),
    Case("a batch of nothing but broken inputs", _batch_of_broken_only, E1),
    Case("review -o an existing file", _batch_into_a_file, E2),
    # -- the large ones: bounded, with budgets of their own
    Case(
        "180 MB of text within every zip limit",
        _apply(_doc(h2.big_text)),
        E3,
        "too_much_text",
        large=True,
        cpu=6.0,
        mb=640,
    ),
    Case(
        "60 MB of text in one paragraph",
        _apply(_doc(h2.text_in_one_paragraph)),
        E3,
        "too_much_text",
        large=True,
        cpu=4.0,
        mb=400,
    ),
    Case(
        "9 million characters of text (under the limit), one edit",
        _apply(_doc(h2.text_near_the_limit)),
        E0,
        large=True,
        cpu=25.0,
        mb=1200,
    ),
    Case(
        "5,000 not-found anchors of common words on a 300-page contract",
        _apply(
            lambda f: _file(f, "contract.docx", _LONG),
            _reply_file(
                reply(
                    *(
                        {"anchor": f"the Supplier shall and the of {i} " * 60, "replacement": "x"}
                        for i in range(5000)
                    )
                )
            ),
            dry=True,
        ),
        E1,
        large=True,
        cpu=20.0,
        mb=400,
    ),
]

SMALL = [c for c in CASES if not c.large]
LARGE = [c for c in CASES if c.large]


@dataclass
class Prepared:
    case: Case
    folder: Path
    setup: Setup
    hashes: dict[Path, str]


def _prepare(base: Path, cases: list[Case]) -> tuple[list[dict[str, Any]], dict[str, Prepared]]:
    warm = base / "warm-up"
    warm.mkdir()
    setup = _apply(_plain_doc)(warm)
    jobs: list[dict[str, Any]] = [{"id": "warm-up", "prog": "redline", "argv": setup.argv}]
    prepared = {}
    for n, case in enumerate(cases):
        folder = base / f"case-{n:03d}"
        folder.mkdir()
        setup = case.build(folder)
        prepared[case.id] = Prepared(case, folder, setup, {p: sha256(p) for p in setup.inputs})
        jobs.append({"id": case.id, "prog": setup.prog, "argv": setup.argv, "stdin": setup.stdin})
    return jobs, prepared


def _run_cases(base: Path, cases: list[Case]) -> dict[str, tuple[Prepared, Run]]:
    jobs, prepared = _prepare(base, cases)
    runs = run_worker(jobs, base)
    return {cid: (prepared[cid], runs[cid]) for cid in prepared}


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Prepared, Run]]:
    return _run_cases(tmp_path_factory.mktemp("hostile2"), SMALL)


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Prepared, Run]]:
    return _run_cases(tmp_path_factory.mktemp("hostile2-large"), LARGE)


def check(prep: Prepared, run: Run) -> None:
    case = prep.case
    assert run.crash is None, run.crash
    for word in RAW_WORDS:
        assert word not in run.stderr, run.stderr[-3000:]
    assert run.rc in case.exits, (run.rc, run.stderr[-3000:])
    if case.code is not None:
        assert f"[{case.code}]" in run.stderr, run.stderr[-3000:]
    for path, digest in prep.hashes.items():
        assert sha256(path) == digest, f"{path} changed"
    for path in prep.setup.absent:
        if run.rc in (2, 3):  # refused: nothing written
            assert not path.exists(), f"{path} was written"
        elif path.suffix == ".docx" and path.is_file():  # handled: a sound output
            build_view(Package.open(path))
    for path in prep.setup.present:
        assert path.exists(), f"{path} was not written"
    partial = [p.name for p in prep.folder.rglob("*.tmp")]
    assert partial == [], partial
    if case.check is not None:
        case.check(prep.folder, run)
    assert run.cpu < case.cpu, f"{run.cpu:.2f} CPU seconds (budget {case.cpu})"
    assert run.peak_mb < case.mb, f"{run.peak_mb:.0f} MB (budget {case.mb})"


@pytest.mark.slow
@pytest.mark.parametrize("case_id", [c.id for c in SMALL])
def test_a_hostile_input_is_refused_or_handled_in_budget(
    case_id: str, small: dict[str, tuple[Prepared, Run]]
) -> None:
    check(*small[case_id])


@pytest.mark.slow
@pytest.mark.parametrize("case_id", [c.id for c in LARGE])
def test_a_large_input_is_bounded(case_id: str, large: dict[str, tuple[Prepared, Run]]) -> None:
    check(*large[case_id])


@pytest.mark.slow
def test_the_second_catalogue_numbers(small: dict[str, tuple[Prepared, Run]]) -> None:
    """``-s`` prints every case's CPU seconds and peak (the numbers in the module docstring)."""
    rows = sorted(small.values(), key=lambda pr: -pr[1].cpu)
    print(f"\n{len(rows)} cases; worst CPU {rows[0][1].cpu:.2f} s ({rows[0][0].case.id})")
    worst = max(rows, key=lambda pr: pr[1].peak_mb)
    print(f"worst peak {worst[1].peak_mb:.0f} MB ({worst[0].case.id})")
    for prep, run in rows:
        print(f"  {run.cpu:6.2f} s {run.peak_mb:6.0f} MB  rc={run.rc}  {prep.case.id}")
    assert len(CASES) >= 60


# =============================================================================================
# Closed standard output: the reader went away (| head)


@pytest.mark.parametrize(
    "argv",
    [
        ["view", "{doc}"],
        ["view", "--json", "{doc}"],
        ["apply", "{doc}", "{reply}", "--report", "-", "-o", "{out}"],
    ],
    ids=["view", "view --json", "apply --report -"],
)
def test_a_closed_stdout_ends_quietly(argv: list[str], tmp_path: Path) -> None:
    doc = _file(tmp_path, "long.docx", _LONG)
    answer = _file(tmp_path, "reply.json", reply())
    args = [a.format(doc=doc, reply=answer, out=tmp_path / "out.docx") for a in argv]
    read_end, write_end = os.pipe()
    os.close(read_end)  # closed before anything is written
    proc = subprocess.run(
        [sys.executable, "-m", "redline", *args, "--date", DATE]
        if argv[0] == "apply"
        else [sys.executable, "-m", "redline", *args],
        stdout=write_end,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        timeout=HANG_GUARD,
        check=False,
    )
    os.close(write_end)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    assert proc.stderr.decode().strip() in ("",) or "applied" in proc.stderr.decode(), proc.stderr.decode()


# =============================================================================================
# The tools: output paths, locks, unloadable writes (in process)


@pytest.fixture
def tools(tmp_path: Path) -> Iterator[tuple[DocumentTools, Path]]:
    root = tmp_path / "root"
    root.mkdir()
    (root / "lease.docx").write_bytes(h2.clauses(20))
    locks = tmp_path / "locks"
    yield DocumentTools(root, lock_dir=locks, lock_timeout=0.5), root


def _apply_call(tools: DocumentTools, **extra: Any) -> dict[str, Any]:
    region = tools.handle("read_region", {"path": "lease.docx", "paragraphs": "0-3"})
    edits = extra.pop("edits", [{"anchor": "pay rent 1.", "replacement": "pay the rent 1."}])
    return tools.handle(
        "apply_edits", {"path": "lease.docx", "revision": region["revision"], "edits": edits, **extra}
    )


def _code(result: dict[str, Any]) -> str | None:
    error = result.get("error")
    return error.get("code") if isinstance(error, dict) else None


@pytest.mark.parametrize(
    ("name", "make", "code"),
    [
        ("notes.txt", None, "output_not_document"),
        ("lease-copy.DOCX.bak", None, "output_not_document"),
        ("notes.docx", b"my own notes, not a document", "output_not_document"),
        ("empty.docx", b"", "output_not_document"),
        ("pipe.docx", "fifo", "output_not_document"),
        ("macro.docx", "macro", "output_not_document"),
        ("new.docx", None, None),
        ("other.docx", "docx", None),
    ],
)
def test_an_mcp_output_never_destroys_a_file(
    name: str, make: bytes | str | None, code: str | None, tools: tuple[DocumentTools, Path]
) -> None:
    tool, root = tools
    target = root / name
    if make == "fifo":
        os.mkfifo(target)
    elif make == "docx":
        target.write_bytes(h.docx())
    elif make == "macro":
        target.write_bytes(h2.macro_by_relationship(h2.REL_VBA))
    elif isinstance(make, bytes):
        target.write_bytes(make)
    before = sha256(target) if target.is_file() else None
    source = sha256(root / "lease.docx")
    started = time.process_time()
    result = _apply_call(tool, output=name)
    assert time.process_time() - started < CPU_LIMIT
    assert _code(result) == code, result
    assert sha256(root / "lease.docx") == source
    if code is None:
        assert result["written"] and build_view(Package.open(target)).text.count("pay the rent 1.") == 1
    elif before is not None:
        assert sha256(target) == before
    else:
        assert not target.exists() or make == "fifo"


def test_a_lock_held_elsewhere_is_refused_busy_in_time(tools: tuple[DocumentTools, Path]) -> None:
    tool, _ = tools
    path = tool.lock_path("lease.docx")
    tool.handle("read_region", {"path": "lease.docx"})  # makes the lock folder
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        cpu, wall = time.process_time(), time.monotonic()
        calls: list[Callable[[], dict[str, Any]]] = [
            lambda: tool.handle("read_region", {"path": "lease.docx"}),
            lambda: _apply_call_with(tool, "sha256:x"),
        ]
        for call in calls:
            result = call()
            assert _code(result) == "busy", result
            assert "again" in result["error"]["hint"]
        assert time.process_time() - cpu < 0.5  # polling, not spinning
        assert time.monotonic() - wall < HANG_GUARD
    finally:
        os.close(fd)
    assert _code(tool.handle("read_region", {"path": "lease.docx"})) is None


def _apply_call_with(tool: DocumentTools, revision: str) -> dict[str, Any]:
    return tool.handle("apply_edits", {"path": "lease.docx", "revision": revision, "edits": [GOOD]})


@pytest.mark.parametrize("attack", ["a link", "open to others", "a file"])
def test_a_planted_lock_folder_is_refused(attack: str, tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "lease.docx").write_bytes(h2.clauses(3))
    locks = tmp_path / "locks"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    if attack == "a link":
        locks.symlink_to(elsewhere)
    elif attack == "open to others":
        locks.mkdir()
        locks.chmod(0o777)
    else:
        locks.write_bytes(b"")
    tool = DocumentTools(root, lock_dir=locks, lock_timeout=0.5)
    result = tool.handle("read_region", {"path": "lease.docx"})
    assert _code(result) == "lock_failed", result
    assert list(elsewhere.iterdir()) == []


def test_the_default_lock_folder_is_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from redline.tools.locks import default_lock_dir, private_lock_dir

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    folder = private_lock_dir()
    assert folder == default_lock_dir() and folder.parent == tmp_path
    assert str(os.getuid()) in folder.name
    assert (folder.stat().st_mode & 0o777) == 0o700
    folder.chmod(0o755)
    with pytest.raises(Exception) as caught:
        private_lock_dir()
    assert getattr(caught.value, "code", None) == "lock_failed"


def test_an_in_place_write_the_loader_would_refuse_is_refused(tools: tuple[DocumentTools, Path]) -> None:
    tool, root = tools
    before = sha256(root / "lease.docx")
    result = _apply_call(tool, edits=[{"anchor": "pay rent 1.", "replacement": "A" * 3_000_000}])
    assert _code(result) == "unloadable_output", result
    assert sha256(root / "lease.docx") == before
    again = tool.handle("read_region", {"path": "lease.docx"})
    assert _code(again) is None


def test_a_tool_author_is_checked(tools: tuple[DocumentTools, Path]) -> None:
    tool, _ = tools
    for author in ("", "x\x01", "\u202eevil", "A" * 300, 7):
        result = _apply_call(tool, author=author)
        assert _code(result) == "invalid_arguments", (author, result)


# =============================================================================================
# Concurrency and faults through the real MCP stdio protocol (the official SDK's client)


def _server_params(root: Path, lockbase: Path, pidfile: Path | None = None) -> Any:
    from mcp.client.stdio import StdioServerParameters

    env = {"TMPDIR": str(lockbase), "PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "")}
    command = [sys.executable, "-m", "redline", "mcp", "--root", str(root)]
    if pidfile is not None:  # the server's pid, to kill it
        script = f'echo $$ > "{pidfile}"; exec "$@"'
        return StdioServerParameters(
            command="/bin/sh", args=["-c", script, "sh", *command], env=env, cwd=str(root)
        )
    return StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=str(root))


async def _call(client: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(name, arguments)
    data: dict[str, Any] = json.loads(result.content[0].text)
    return data


@pytest.mark.slow
def test_two_servers_several_agents_one_document_lose_no_update(tmp_path: Path) -> None:
    import anyio
    from mcp import Client

    root = tmp_path / "root"
    root.mkdir()
    (root / "lease.docx").write_bytes(h2.clauses(12))
    lockbase = tmp_path / "tmp"
    lockbase.mkdir()
    agents = 6
    refusals: list[str] = []
    applied: list[dict[str, Any]] = []

    async def agent(client: Any, n: int) -> None:
        anchor = f"pay rent {n}."
        for _ in range(200):
            region = await _call(client, "read_region", {"path": "lease.docx", "paragraphs": "0-11"})
            if "error" in region:
                refusals.append(region["error"]["code"])
                continue
            result = await _call(
                client,
                "apply_edits",
                {
                    "path": "lease.docx",
                    "revision": region["revision"],
                    "edits": [{"anchor": anchor, "replacement": f"pay rent {n} [agent {n}]."}],
                },
            )
            if "error" in result:
                refusals.append(result["error"]["code"])
                continue
            assert result["status"] == "applied", result
            applied.append(result)
            return
        raise AssertionError(f"agent {n} never applied")

    async def main() -> None:
        with anyio.fail_after(HANG_GUARD):
            async with (
                Client(_server_params(root, lockbase)) as one,
                Client(_server_params(root, lockbase)) as two,
                anyio.create_task_group() as tg,
            ):
                for n in range(agents):
                    tg.start_soon(agent, one if n % 2 else two, n)

    anyio.run(main)
    assert set(refusals) <= {"stale", "busy"}, refusals
    assert len(applied) == agents
    chain = {r["previous_revision"]: r["revision"] for r in applied}
    assert len(chain) == agents  # one chain: no two calls applied to the same revision
    final = build_view(Package.open(root / "lease.docx"))
    for n in range(agents):
        assert final.text.count(f"[agent {n}]") == 1
    assert final.revision in chain.values()
    assert [p.name for p in root.iterdir()] == ["lease.docx"]


@pytest.mark.slow
def test_a_server_killed_while_writing_publishes_no_partial_file(tmp_path: Path) -> None:
    import anyio
    from mcp import Client

    root = tmp_path / "root"
    root.mkdir()
    doc = root / "lease.docx"
    doc.write_bytes(_LONG)
    lockbase = tmp_path / "tmp"
    lockbase.mkdir()
    rnd = random.Random(20)
    known = {Package.open(doc).revision}
    view = build_view(Package.open(doc))
    sentences = [p for p in view.paragraphs if len(view.paragraph_text(p)) > 80][:40]

    async def round_(delay: float, k: int) -> None:
        pidfile = tmp_path / f"pid{k}"
        with contextlib.suppress(Exception):
            async with Client(_server_params(root, lockbase, pidfile)) as client:
                region = await _call(client, "read_region", {"path": "lease.docx"})
                text = view.paragraph_text(sentences[k % len(sentences)])[:60]
                edit = {"anchor": text, "replacement": text + f" [round {k}]"}

                async def kill() -> None:
                    await anyio.sleep(delay)
                    os.kill(int(pidfile.read_text()), signal.SIGKILL)

                async with anyio.create_task_group() as tg:
                    tg.start_soon(kill)
                    with anyio.fail_after(HANG_GUARD):
                        result = await _call(
                            client,
                            "apply_edits",
                            {"path": "lease.docx", "revision": region["revision"], "edits": [edit]},
                        )
                    if "revision" in result:
                        known.add(result["revision"])

    for k in range(6):
        current = build_view(Package.open(doc))
        view = current
        anyio.run(round_, rnd.uniform(0.0, 1.5), k)
        # whatever the moment of the kill: the published file is a whole document, old or new
        loaded = Package.open(doc)
        build_view(loaded)
        published = [p for p in root.iterdir() if not p.name.startswith(".")]
        assert published == [doc], published
        for leftover in root.glob(".*.tmp"):  # a temporary the kill left, never published
            leftover.unlink()


# =============================================================================================
# Bounded fuzzing over the new surfaces (python -m benchmarks.fuzz runs them long)

FUZZ_SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None
)

_ARG_TEXT = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        [
            "2026-01-01",
            "2026-01-01T00:00:00Z",
            "2026-02-29T00:00:00Z",
            "9999-12-31T23:59:59.999+14:00",
            "0000-00-00T00:00:00",
            "2026-01-01T00:00:00-00:00",
            "",
        ]
    ),
    st.text(alphabet=st.sampled_from("0123456789-T:Z+.\u202e\x00 "), max_size=30),
)
_DOC = h.docx()


def check_cli_arguments(author: str, date: str, folder: Path) -> None:
    """Any --author/--date: exit 0/1 with a valid w:date, or 2 -- never 70, never a traceback."""
    doc, answer, out = folder / "d.docx", folder / "r.json", folder / "o.docx"
    doc.write_bytes(_DOC)
    answer.write_bytes(reply())
    out.unlink(missing_ok=True)
    argv = ["apply", str(doc), str(answer), "-o", str(out), "--author", author, "--date", date]
    with open(os.devnull, "w") as sink, contextlib.redirect_stderr(sink):
        rc = redline_main(argv)
    assert rc in (0, 1, 2), rc
    if rc == 2:
        assert not out.exists()
    else:
        xml = Package.open(out).read("word/document.xml").decode()
        from redline.write.arguments import check_date

        assert f'w:date="{check_date(date)}"' in xml


@FUZZ_SETTINGS
@given(author=_ARG_TEXT, date=_ARG_TEXT)
def test_fuzz_cli_arguments(author: str, date: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    check_cli_arguments(author, date, tmp_path_factory.mktemp("args"))


_JSONISH = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=20)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
_PATHS = st.sampled_from(
    [
        "lease.docx",
        "../x.docx",
        "/etc/passwd",
        "",
        "nope.docx",
        "sub",
        "lease.docx/x",
        "pipe.docx",
        "\udc80.docx",
        "a\x00b",
    ]
)


@st.composite
def tool_call(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    name = draw(st.sampled_from(["read_region", "apply_edits", "apply_edits", "nope"]))
    args: dict[str, Any] = {"path": draw(st.one_of(_PATHS, _JSONISH))}
    if draw(st.booleans()):
        args["section"] = draw(st.one_of(st.text(max_size=10), _JSONISH))
    if draw(st.booleans()):
        args["paragraphs"] = draw(st.one_of(st.sampled_from(["0-3", "5", "3-1", "-1", "0-999999"]), _JSONISH))
    if name != "read_region":
        args.pop("section", None), args.pop("paragraphs", None)
        args["revision"] = draw(st.one_of(st.just("CURRENT"), _JSONISH))
        args["edits"] = draw(
            st.one_of(
                st.just([GOOD]),
                _JSONISH,
                st.lists(
                    st.fixed_dictionaries(
                        {"anchor": st.text(max_size=20), "replacement": st.text(max_size=20)}
                    ),
                    max_size=3,
                ),
            )
        )
        if draw(st.booleans()):
            args["output"] = draw(
                st.one_of(_PATHS, st.sampled_from(["out.docx", "notes.txt", "sub/o.docx"]), _JSONISH)
            )
        if draw(st.booleans()):
            args["author"] = draw(st.one_of(st.text(max_size=10), _JSONISH))
    if draw(st.integers(0, 9)) == 0:
        args[draw(st.text(max_size=5))] = 1
    return name, args


def check_tool_call(call: tuple[str, dict[str, Any]], folder: Path) -> None:
    """Any call: a result or a refusal with a catalogue code -- never internal_error; a file
    that was not a document is never overwritten."""
    from shared_schema import Code

    root = folder / "root"
    root.mkdir(exist_ok=True)
    (root / "lease.docx").write_bytes(h2.clauses(6))
    (root / "notes.txt").write_bytes(b"notes")
    (root / "sub").mkdir(exist_ok=True)
    if not (root / "pipe.docx").exists():
        os.mkfifo(root / "pipe.docx")
    tool = DocumentTools(root, lock_dir=folder / "locks", lock_timeout=2)
    name, args = call
    if args.get("revision") == "CURRENT":
        args["revision"] = Package.open(root / "lease.docx").revision
    result = tool.handle(name, args)
    code = _code(result)
    assert code != "internal_error", result
    assert code is None or code in set(Code), result
    assert (root / "notes.txt").read_bytes() == b"notes"
    build_view(Package.open(root / "lease.docx"))


@FUZZ_SETTINGS
@given(call=tool_call())
def test_fuzz_tool_actions(
    call: tuple[str, dict[str, Any]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    check_tool_call(call, tmp_path_factory.mktemp("tools"))


_NAME = st.one_of(
    st.text(
        alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="/\x00"),
        min_size=1,
        max_size=12,
    ),
    st.binary(min_size=1, max_size=8).filter(lambda b: b"/" not in b and b"\x00" not in b).map(os.fsdecode),
)


@st.composite
def batch_names(draw: st.DrawFn) -> list[tuple[str, str]]:
    stems = draw(st.lists(_NAME, min_size=1, max_size=6))
    files = []
    for stem in stems:
        for suffix in draw(
            st.lists(
                st.sampled_from(
                    [".docx", ".DOCX", ".reply.json", ".reply.txt", ".Reply.md", ".summary.json", ".txt"]
                ),
                min_size=1,
                max_size=3,
                unique=True,
            )
        ):
            files.append((stem + suffix, draw(st.sampled_from(["doc", "reply", "junk", "fifo", "dir"]))))
    return files


def check_batch_names(files: list[tuple[str, str]], folder: Path) -> None:
    """Any names: the batch ends, summary.json and report.html are written, and every
    document or reply name of the folder is in summary.json."""
    from redline_review.job import pair

    src, out = folder / "src", folder / "out"
    src.mkdir()
    out.mkdir()
    made = []
    for name, kind in files:
        path = src / name
        if name in (".", "..") or os.path.lexists(path):
            continue
        try:
            if kind == "fifo":
                os.mkfifo(path)
            elif kind == "dir":
                path.mkdir()
            else:
                path.write_bytes(_DOC if kind == "doc" else reply() if kind == "reply" else b"\xff junk")
        except OSError:  # a name the file system will not take
            continue
        made.append(name)
    source = LocalStorage(src)
    jobs = pair(source.list())
    if not jobs:
        return
    summary = run_review(source, LocalStorage(out), ApplyOptions(date=DATE), InProcess())
    data = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert (out / "report.html").exists()
    assert len(data["documents"]) == len(jobs) == len(summary.documents)
    for job in jobs:
        entry = next(d for d in data["documents"] if d["name"] == job.name)
        assert entry["outcome"] in {"applied", "unapplied", "refused"} or entry["message"], entry


@FUZZ_SETTINGS
@given(files=batch_names())
def test_fuzz_batch_names(files: list[tuple[str, str]], tmp_path_factory: pytest.TempPathFactory) -> None:
    check_batch_names(files, tmp_path_factory.mktemp("batch"))


#: What ``python -m benchmarks.fuzz`` runs long over the new surfaces (with a scratch folder).
FUZZ_TARGETS_2: dict[str, tuple[dict[str, st.SearchStrategy[Any]], Callable[..., None]]] = {
    "cli arguments": ({"author": _ARG_TEXT, "date": _ARG_TEXT}, check_cli_arguments),
    "tool actions": ({"call": tool_call()}, check_tool_call),
    "batch names": ({"files": batch_names()}, check_batch_names),
}
