"""Hostile and broken inputs end to end (issue 9): refused cleanly, quickly, nothing written or lost.

Every case of the catalogue (``tests/hostile_catalogue.py``'s ``CATALOGUE``, built by
``testing/hostile_docs.py``), every hostile reply and every hostile output path goes through
``redline apply`` as a user runs it, and must come out as a typed refusal: exit code 3, one
sentence with its stable code on stderr, no traceback, no output document, no temporary file,
the inputs' bytes unchanged, under a second and well under 256 MB. Wrappers a real document
carries (``mc:AlternateContent``, unknown namespaces) must be handled, not refused.

How it is measured:

* the whole catalogue runs in **one worker subprocess** (``testing.measure jobs``) that calls
  :func:`redline_cli.redline.main` once per case; before each case it resets the process's peak resident
  set (``/proc/self/clear_refs``), so each case reports its own wall time *in process* (no
  interpreter start-up) and its own peak RSS (the interpreter and its imports included);
* a representative subset also runs as ``python -m redline apply`` in a real subprocess, whose
  own peak RSS comes from ``os.wait4``;
* documents that are too costly to share a process with (the amplification cases found while
  writing this file) run one per subprocess under a timeout and an address-space cap.

``test_the_catalogue_numbers`` prints the table (cases, refusals by code, worst time, worst
memory); run ``pytest tests/test_hostile.py -k numbers -s`` to see it.

Fuzzing here is bounded (about 100 examples a strategy); ``python -m benchmarks.fuzz`` runs the
same strategies for as long as it is given.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import random
import re
import resource
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from redline.apply import ApplyOptions, Outcome, apply_reply
from redline.opc.namespaces import MC_NS, R_NS, REL_COMMENTS, REL_HEADER, REL_NUMBERING, W_NS, W_STRICT_NS, w
from redline.opc.package import CODES, Package, PackageError
from redline.read.build import build_view
from redline.read.roles import RANGE_MARKUP
from redline_cli.redline import main as redline_main
from shared_schema import EditStatus
from testing import hostile_docs as h
from tests.hostile_catalogue import CATALOGUE

ROOT = Path(__file__).resolve().parent.parent
MB = 1024 * 1024
DATE = "2026-01-01T00:00:00Z"
TIME_LIMIT = 1.0
"""CPU seconds, in process, for every document case and every small reply. CPU time (every
thread of the process, ``time.process_time``), not wall time: a machine busy with other work
stretches the wall clock, never the work a refusal costs."""
BIG_REPLY_TIME_LIMIT = 3.0
"""CPU seconds for the replies that are 50 MB (or 5,000 edits) long: reading and decoding them
is most of it; ``tests/test_parse.py`` allows the parser alone 5 s for the same input."""
HANG_GUARD = 60.0
"""Wall seconds after which a case counts as hung, however busy the machine."""
MEMORY_LIMIT_MB = 192
"""Peak resident set of the whole process, interpreter and imports included: well under 256."""

REPLY_CODES = frozenset({"unparseable_reply"})
CLI_CODES = frozenset({"output_is_input"})
KNOWN_CODES = frozenset(CODES) | REPLY_CODES | CLI_CODES
RAW_WORDS = ("Traceback", "KeyError", "BadZipFile", "XMLSyntaxError", "zlib.error", "[Errno", "Error(")
REFUSAL = re.compile(r"^redline apply: refused: (?P<message>.+) \[(?P<code>[a-z_]+)\]$", re.MULTILINE)

GOOD_EDIT = {"anchor": "pay rent", "replacement": "pay the rent"}
VALID_REPLY = json.dumps({"edits": [GOOD_EDIT]}).encode()
_REV = 'w:id="{i}" w:author="A" w:date="2020-01-01T00:00:00Z"'


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def assert_sentence(message: str) -> None:
    """A refusal a person reads: a capitalised sentence of several words, no exception jargon."""
    assert message[:1].isupper(), message
    assert message.rstrip().endswith((".", ")")), message
    assert len(message.split()) >= 4, message
    for word in RAW_WORDS:
        assert word not in message, message


def assert_refusal_line(stderr: str, code: str) -> None:
    assert "Traceback" not in stderr, stderr
    found = REFUSAL.search(stderr)
    assert found is not None, f"no refusal line on stderr: {stderr!r}"
    assert found["code"] == code, stderr
    assert found["code"] in KNOWN_CODES
    assert_sentence(found["message"])


# =============================================================================================
# The cases


@dataclass(frozen=True)
class Case:
    id: str
    document: Callable[[], bytes]
    code: str | None
    """The refusal code; None when the input must be handled (exit 0 or 1)."""
    reply: Callable[[], bytes] = lambda: VALID_REPLY
    exits: frozenset[int] = frozenset({3})
    time_limit: float = TIME_LIMIT
    invalid: int | None = None
    """Replies: how many entries the report must list as ``invalid``."""
    applied: int | None = None
    """How many edits the report must list as applied."""


def _handled(case_id: str, document: Callable[[], bytes], reply: bytes, applied: int) -> Case:
    return Case(case_id, document, None, lambda: reply, frozenset({0, 1}), applied=applied)


# Read only when the pipeline asks for the part: the CLI never reads a media part, so the bomb is
# copied raw (its compressed bytes) into the output and nothing is inflated.
_HANDLED_IN_THE_PIPELINE = {"zip bomb in a media part, on read"}

_ALT_REPLY = json.dumps(
    {"edits": [{"anchor": "choice", "replacement": "selected"}, {"anchor": "wrapped", "replacement": "kept"}]}
).encode()
_MC_PARAGRAPH = (
    '<mc:AlternateContent><mc:Choice Requires="w14"><w:p><w:r><w:t>The Tenant shall pay rent.</w:t>'
    "</w:r></w:p></mc:Choice><mc:Fallback><w:p><w:r><w:t>An older text.</w:t></w:r></w:p>"
    "</mc:Fallback></mc:AlternateContent>"
)
_UNKNOWN_WRAPPERS = (
    '<x:block xmlns:x="urn:example:unknown"><w:p><x:inline xmlns:x="urn:example:unknown" x:a="1">'
    '<w:r><x:deep xmlns:x="urn:example:unknown"><w:t>The Tenant shall pay rent.</w:t></x:deep></w:r>'
    "</x:inline></w:p></x:block>"
)
_IGNORABLE_ROOT = (
    h.DECL
    + (
        f'<w:document xmlns:w="{W_NS}" xmlns:mc="{MC_NS}" xmlns:w99="urn:example:future" '
        'mc:Ignorable="w99" w99:flag="1"><w:body><w:p w99:id="7"><w:r><w99:future/><w:t>'
        "The Tenant shall pay rent.</w:t></w:r></w:p><w99:section/></w:body></w:document>"
    ).encode()
)


# End to end, the view's readers meet these before the parser does (issue 20): the scanner
# counts a 30 MB text node against Limits.max_text_chars (10 million) as it reads it, and the
# parser's 10 MB node limit is never reached.
_CODE_END_TO_END = {"a 30 MB text node": "too_much_text"}


def _document_cases() -> list[Case]:
    cases = []
    for label, builder, code, _stage in CATALOGUE:
        if label in _HANDLED_IN_THE_PIPELINE:
            cases.append(_handled(label, builder, VALID_REPLY, 1))
        else:
            cases.append(Case(label, builder, _CODE_END_TO_END.get(label, code)))
    for cut in (1, 2, 10, 31, 100, 0.25, 0.5, 0.9, -30, -22, -10, -1):
        cases.append(Case(f"zip truncated at {cut}", _truncated(cut), "truncated"))
    cases += [
        _handled(
            "mc:AlternateContent and an unknown wrapper (hostile_docs)",
            lambda: h.docx({"word/document.xml": h.document(h.ALTERNATE_CONTENT_BODY)}),
            _ALT_REPLY,
            2,
        ),
        _handled(
            "mc:AlternateContent around a paragraph",
            lambda: h.docx({"word/document.xml": h.document(_MC_PARAGRAPH)}),
            VALID_REPLY,
            1,
        ),
        _handled(
            "unknown-namespace wrappers at block, inline and run level",
            lambda: h.docx({"word/document.xml": h.document(_UNKNOWN_WRAPPERS)}),
            VALID_REPLY,
            1,
        ),
        _handled(
            "mc:Ignorable namespace with unknown elements and attributes",
            lambda: h.docx({"word/document.xml": _IGNORABLE_ROOT}),
            VALID_REPLY,
            1,
        ),
    ]
    return cases


def _truncated(cut: float) -> Callable[[], bytes]:
    def build() -> bytes:
        valid = h.docx()
        at = int(len(valid) * cut) if isinstance(cut, float) else cut
        return valid[:at]

    return build


def _reply(text: str | bytes) -> Callable[[], bytes]:
    return lambda: text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text


_G = json.dumps(GOOD_EDIT)
_FILLER = "The Supplier shall perform the Services with reasonable care (see clause {4.2}). "


def _reply_cases() -> list[Case]:
    def refused(case_id: str, text: Callable[[], bytes], limit: float = TIME_LIMIT) -> Case:
        return Case(case_id, h.docx, "unparseable_reply", text, time_limit=limit)

    def partial(case_id: str, text: Callable[[], bytes], invalid: int, limit: float = TIME_LIMIT) -> Case:
        return Case(case_id, h.docx, None, text, frozenset({1}), limit, invalid=invalid, applied=1)

    return [
        refused("reply: a list nested 100,000 deep", _reply("[" * 100_000 + "]" * 100_000)),
        refused("reply: an object nested 100,000 deep", _reply('{"a":' * 100_000 + "1" + "}" * 100_000)),
        refused(
            "reply: nesting 50,000 deep inside an edit",
            _reply('{"edits": [' + '{"x": [' * 50_000 + "1" + "]}" * 50_000 + "]}"),
        ),
        refused("reply: over the 50 MB cap", lambda: b"x" * 50_000_001, BIG_REPLY_TIME_LIMIT),
        refused(
            "reply: 50 MB of tiny JSON values",
            _reply("[" + ",".join(['{"a": 1}'] * 5_500_000) + "]"),
            BIG_REPLY_TIME_LIMIT,
        ),
        Case(
            "reply: 49 MB of prose around one fenced edit",
            h.docx,
            None,
            lambda: (
                (
                    _FILLER * (49_000_000 // len(_FILLER))
                    + "\n```json\n"
                    + json.dumps({"edits": [GOOD_EDIT]})
                ).encode()
                + b"\n```\n"
            ),
            frozenset({0}),
            BIG_REPLY_TIME_LIMIT,
            invalid=0,
            applied=1,
        ),
        partial(
            "reply: a 5000-digit number in one entry",
            _reply(
                '{"edits": [{"anchor": "Tenant", "replacement": "x", "expected_matches": '
                + "9" * 5000
                + "}, "
                + _G
                + "]}"
            ),
            1,
        ),
        refused("reply: a 5000-digit number alone", _reply("1" * 5000)),
        partial(
            "reply: a duplicate key in one entry",
            _reply('{"edits": [{"anchor": "Tenant", "replacement": "x", "anchor": "rent"}, ' + _G + "]}"),
            1,
        ),
        refused("reply: the container key twice", _reply('{"edits": [' + _G + '], "edits": [' + _G + "]}")),
        partial(
            "reply: a raw NUL inside an anchor",
            _reply('[{"anchor": "Ten\x00ant", "replacement": "x"}, ' + _G + "]"),
            1,
        ),
        partial(
            "reply: an escaped NUL and U+FFFE",
            _reply(
                '[{"anchor": "Tenant\\u0000", "replacement": "x"}, {"anchor": "rent", "replacement": '
                '"y\\ufffe"}, ' + _G + "]"
            ),
            2,
        ),
        partial(
            "reply: invalid UTF-8 inside an entry",
            lambda: b'[{"anchor": "Ten\xffant", "replacement": "x"}, ' + _G.encode() + b"]",
            1,
        ),
        Case(
            "reply: more edits than the cap of 5000",
            h.docx,
            None,
            _reply(
                json.dumps(
                    [GOOD_EDIT] + [{"anchor": f"clause {i}", "replacement": "x"} for i in range(5_002)]
                )
            ),
            frozenset({1}),
            BIG_REPLY_TIME_LIMIT,
            invalid=3,
            applied=1,
        ),
        refused("reply: truncated JSON", _reply('{"edits": [{"anchor": "pay rent", "replacement": "pay th')),
        refused("reply: prose only", _reply("I'm sorry, but I can't help with modifying this contract.")),
        refused("reply: empty", _reply(b"")),
        refused("reply: binary bytes", _reply(bytes(range(256)) * 64)),
        refused(
            "reply: a YAML list", _reply("edits:\n  - anchor: pay rent\n    replacement: pay the rent\n")
        ),
    ]


DOCUMENT_CASES = _document_cases()
REPLY_CASES = _reply_cases()
ALL_CASES = DOCUMENT_CASES + REPLY_CASES
assert len({c.id for c in ALL_CASES}) == len(ALL_CASES)


# =============================================================================================
# The worker: one process, every case, time (wall and CPU) and peak memory per case

WORKER = [sys.executable, "-m", "testing.measure", "jobs"]
"""The worker (``testing/measure.py``): ``WORKER + [RESULTS]``, the jobs as JSON on stdin."""


@dataclass
class Prepared:
    folder: Path
    doc: Path
    reply: Path
    out: Path
    report: Path
    doc_hash: str
    reply_hash: str

    def argv(self) -> list[str]:
        return [
            "apply",
            str(self.doc),
            str(self.reply),
            "-o",
            str(self.out),
            "--report",
            str(self.report),
            "--date",
            DATE,
        ]


@dataclass
class Run:
    rc: int | None
    crash: str | None
    stderr: str
    seconds: float  # wall
    cpu: float  # CPU seconds of the process, every thread
    peak_mb: float
    base_mb: float
    reset: bool


def _slug(text: str) -> str:
    readable = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:50]
    return f"{readable}-{hashlib.sha1(text.encode()).hexdigest()[:8]}"


def prepare(base: Path, case: Case) -> Prepared:
    folder = base / _slug(case.id)
    (folder / "in").mkdir(parents=True)
    (folder / "out").mkdir()
    doc, reply = folder / "in" / "contract.docx", folder / "in" / "contract.reply.json"
    doc.write_bytes(case.document())
    reply.write_bytes(case.reply())
    out, report = folder / "out" / "contract.redlined.docx", folder / "out" / "contract.report.json"
    return Prepared(folder, doc, reply, out, report, sha256(doc), sha256(reply))


def _warm_up_job(base: Path) -> dict[str, Any]:
    """A valid run first, so the first case does not pay for lazy imports."""
    warm = prepare(base, Case("warm-up", h.docx, None, reply=lambda: VALID_REPLY))
    return {"id": "warm-up", "argv": [*warm.argv(), "--author", "warm up"]}


def run_worker(jobs: list[dict[str, Any]], folder: Path, timeout: float = 300) -> dict[str, Run]:
    results = folder / "results.jsonl"
    proc = subprocess.run(
        [*WORKER, str(results)],
        input=json.dumps(jobs).encode(),
        capture_output=True,
        timeout=timeout,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-5000:]
    runs = {}
    for line in results.read_text().splitlines():
        row = json.loads(line)
        runs[row["id"]] = Run(
            row["rc"],
            row["crash"],
            row["stderr"],
            row["seconds"],
            row["cpu"],
            row["peak_kb"] / 1024,
            row["base_kb"] / 1024,
            row["reset"],
        )
    return runs


@pytest.fixture(scope="module")
def e2e(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Prepared, Run]]:
    base = tmp_path_factory.mktemp("hostile-e2e")
    jobs = [_warm_up_job(base)]
    prepared: dict[str, Prepared] = {}
    for case in ALL_CASES:
        prepared[case.id] = prepare(base, case)
        jobs.append({"id": case.id, "argv": prepared[case.id].argv()})
    runs = run_worker(jobs, base)
    return {case.id: (prepared[case.id], runs[case.id]) for case in ALL_CASES}


def check_case(case: Case, prep: Prepared, run: Run) -> None:
    assert run.crash is None, run.crash
    assert "Traceback" not in run.stderr, run.stderr
    assert run.rc in case.exits, (run.rc, run.stderr[-2000:])
    assert sha256(prep.doc) == prep.doc_hash, "the input document changed"
    assert sha256(prep.reply) == prep.reply_hash, "the reply changed"
    left = sorted(p.name for p in prep.out.parent.iterdir())
    report = json.loads(prep.report.read_text())
    if case.code is not None:
        assert_refusal_line(run.stderr, case.code)
        assert not prep.out.exists(), "a refused input produced an output document"
        assert left == [prep.report.name], left  # no output, no temporary file
        assert report["error"]["code"] == case.code
        assert report["output"] is None and report["edits"] == []
    else:
        assert left == sorted([prep.out.name, prep.report.name]), left
        assert report["error"] is None
        reloaded = Package.from_bytes(prep.out.read_bytes())
        build_view(reloaded)
        statuses = Counter(e["status"] for e in report["edits"])
        if case.applied is not None:
            assert statuses["applied"] == case.applied, statuses
        if case.invalid is not None:
            assert statuses["invalid"] == case.invalid == len(report["reply"]["invalid"]), statuses
            for e in report["edits"]:
                if e["status"] == "invalid":
                    assert e["error"]["code"] == "invalid" and e["error"]["message"]
        assert [e["index"] for e in report["edits"]] == list(range(len(report["edits"])))
    assert run.cpu < case.time_limit, f"took {run.cpu:.2f} CPU seconds in process"
    assert run.seconds < HANG_GUARD, f"took {run.seconds:.0f}s wall in process"
    assert run.peak_mb < MEMORY_LIMIT_MB, f"peak RSS {run.peak_mb:.0f} MB"


@pytest.mark.slow
@pytest.mark.parametrize("case", DOCUMENT_CASES, ids=[c.id for c in DOCUMENT_CASES])
def test_a_hostile_document_is_refused_end_to_end(case: Case, e2e: dict[str, tuple[Prepared, Run]]) -> None:
    check_case(case, *e2e[case.id])


@pytest.mark.slow
@pytest.mark.parametrize("case", REPLY_CASES, ids=[c.id for c in REPLY_CASES])
def test_a_hostile_reply_is_refused_or_its_bad_entries_are_invalid(
    case: Case, e2e: dict[str, tuple[Prepared, Run]]
) -> None:
    check_case(case, *e2e[case.id])


@pytest.mark.slow
def test_the_catalogue_numbers(e2e: dict[str, tuple[Prepared, Run]]) -> None:
    """The numbers for the issue: cases, refusals by code, worst time, worst memory."""
    runs = {case.id: e2e[case.id][1] for case in ALL_CASES}
    codes = Counter(c.code or "handled" for c in ALL_CASES)
    slowest = max(runs, key=lambda k: runs[k].cpu)
    biggest = max(runs, key=lambda k: runs[k].peak_mb)
    lines = [
        f"cases: {len(ALL_CASES)} ({len(DOCUMENT_CASES)} documents, {len(REPLY_CASES)} replies)",
        "by expected outcome: " + ", ".join(f"{k} {v}" for k, v in sorted(codes.items())),
        f"worst time in process: {runs[slowest].cpu:.3f} CPU s, "
        f"{runs[slowest].seconds:.3f} s wall ({slowest})",
        f"worst peak RSS: {runs[biggest].peak_mb:.0f} MB ({biggest}); "
        f"interpreter baseline {min(r.base_mb for r in runs.values()):.0f} MB; "
        f"per-case reset: {all(r.reset for r in runs.values())}",
    ]
    slow = sorted(runs.items(), key=lambda kv: -kv[1].cpu)[:8]
    lines += [f"  {r.cpu:6.3f} CPU s {r.seconds:6.3f} s {r.peak_mb:5.0f} MB  {k}" for k, r in slow]
    print("\n" + "\n".join(lines))
    assert set(runs) == {c.id for c in ALL_CASES}
    assert runs[biggest].peak_mb < MEMORY_LIMIT_MB


# --- a representative subset as a real `python -m redline apply` ---------------------------

SUBPROCESS_SUBSET = [
    "empty file",
    "random bytes",
    "OLE file: encrypted docx",
    "macro-enabled content type",
    "'..' segment",
    "zip bomb in document.xml (sizes lie)",
    "billion laughs",
    "a 30 MB text node",
    "zip truncated at 0.5",
    "mc:AlternateContent and an unknown wrapper (hostile_docs)",
    "reply: a list nested 100,000 deep",
    "reply: a duplicate key in one entry",
]


@dataclass
class ChildRun:
    rc: int
    stderr: str
    wall: float
    cpu: float  # the child's user + system seconds, from os.wait4
    peak_mb: float


# A small launcher between pytest and the child: a forked child's peak RSS counts the pages it
# shared with its parent before exec, so the parent must be small for the number to be the
# child's own. The launcher (a bare interpreter, ~10 MB) reports the child's os.wait4 usage.
LAUNCHER = [sys.executable, "-m", "testing.measure", "launch"]


def run_cli_subprocess(argv: list[str], scratch: Path, timeout: float = HANG_GUARD) -> ChildRun:
    """``python -m redline ARGV`` in a child process; its own CPU time and peak RSS from
    ``os.wait4``."""
    result, err = scratch / "child.json", scratch / "child.stderr"
    started = time.perf_counter()
    subprocess.run(
        [*LAUNCHER, str(result), str(err), sys.executable, "-m", "redline", *argv],
        cwd=ROOT,
        timeout=timeout,
        check=True,
    )
    wall = time.perf_counter() - started
    row = json.loads(result.read_text())
    return ChildRun(row["rc"], err.read_text(errors="replace"), wall, row["cpu"], row["maxrss_kb"] / 1024)


@pytest.fixture(scope="module")
def subprocess_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Prepared, ChildRun]]:
    base = tmp_path_factory.mktemp("hostile-subprocess")
    by_id = {c.id: c for c in ALL_CASES}
    prepared = {name: prepare(base, by_id[name]) for name in SUBPROCESS_SUBSET}
    with ThreadPoolExecutor(2) as pool:
        runs = dict(
            zip(
                prepared,
                pool.map(lambda p: run_cli_subprocess(p.argv(), p.folder), prepared.values()),
                strict=True,
            )
        )
    return {name: (prepared[name], runs[name]) for name in SUBPROCESS_SUBSET}


@pytest.mark.slow
@pytest.mark.parametrize("name", SUBPROCESS_SUBSET)
def test_python_m_redline_apply_refuses_in_a_real_subprocess(
    name: str, subprocess_runs: dict[str, tuple[Prepared, ChildRun]]
) -> None:
    case = next(c for c in ALL_CASES if c.id == name)
    prep, child = subprocess_runs[name]
    as_run = Run(child.rc, None, child.stderr, 0.0, 0.0, child.peak_mb, 0.0, True)
    check_case(case, prep, as_run)
    # interpreter start-up and imports included; the wall clock is guarded by the timeout
    assert child.cpu < 10, f"{child.cpu:.1f} CPU seconds ({child.wall:.1f}s wall)"


# =============================================================================================
# Beyond the catalogue: hostile documents found while writing this file

REL_FOOTNOTES = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes"


def _numbering(level_text: str, fmt: str = "decimal", extra: str = "") -> bytes:
    return (
        h.DECL
        + (
            f'<w:numbering xmlns:w="{W_NS}"><w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0">'
            f'<w:start w:val="1"/><w:numFmt w:val="{fmt}" {extra}/><w:lvlText w:val="{level_text}"/></w:lvl>'
            '</w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>'
        ).encode()
    )


def _numbered_document(numbering: bytes, paragraphs: int) -> bytes:
    item = (
        '<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr>'
        "<w:r><w:t>Item {i}</w:t></w:r></w:p>"
    )
    body = "<w:p><w:r><w:t>The Tenant shall pay rent.</w:t></w:r></w:p>" + "".join(
        item.format(i=i) for i in range(paragraphs)
    )
    return h.docx(
        {
            "word/document.xml": h.document(body),
            "word/_rels/document.xml.rels": h.rels(
                ("rId1", h.REL_STYLES, "styles.xml"), ("rId2", REL_NUMBERING, "numbering.xml")
            ),
            "word/numbering.xml": numbering,
        }
    )


def _many_empty_paragraphs(count: int = 1_000_000) -> bytes:
    """``count`` empty paragraphs (6 bytes each) plus enough random bytes in a comment to keep
    the compression ratio under the limit: a 40 KB file within every package limit."""
    closing = b"</w:body></w:document>"
    head = h.document()[: -len(closing)]
    body = b"<w:p/>" * count
    noise = b"<!--" + random.Random(9).randbytes(len(body) // 300).hex().encode() + b"-->"
    return h.docx({"word/document.xml": head + noise + body + closing})


AMPLIFICATION_CASES = [
    pytest.param(
        lambda: _numbered_document(_numbering("%1" * 500_000), 50),
        id="a 1 MB numbering level text on 50 paragraphs",
    ),
    pytest.param(
        lambda: _numbered_document(_numbering("%1", "custom", 'w:format="' + "0" * 1_000_000 + '"'), 400),
        id="a 1 MB custom number format on 400 paragraphs",
    ),
    pytest.param(
        _many_empty_paragraphs,
        id="a million empty paragraphs in a 40 KB file",
    ),
]


def _limit_address_space() -> None:  # pragma: no cover - runs in the child
    resource.setrlimit(resource.RLIMIT_AS, (3 * 1024 * MB, 3 * 1024 * MB))


@pytest.mark.parametrize("builder", AMPLIFICATION_CASES)
def test_a_small_file_that_costs_a_lot_is_refused_or_handled_in_budget(
    builder: Callable[[], bytes], tmp_path: Path
) -> None:
    """Run alone, in a capped process, under a timeout: such a case must not take the suite down."""
    case = Case("amplification", builder, None, exits=frozenset({0, 1, 3}))
    prep = prepare(tmp_path, case)
    results = tmp_path / "results.jsonl"
    proc = subprocess.Popen(
        [*WORKER, str(results)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        preexec_fn=_limit_address_space,
    )
    try:
        _, err = proc.communicate(json.dumps([{"id": "x", "argv": prep.argv()}]).encode(), timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError(f"still running after {HANG_GUARD:.0f}s (limit: {TIME_LIMIT} CPU s)") from None
    assert proc.returncode == 0, err.decode(errors="replace")[-3000:]
    row = json.loads(results.read_text().splitlines()[0])
    run = Run(
        row["rc"], row["crash"], row["stderr"], row["seconds"], row["cpu"], row["peak_kb"] / 1024, 0.0, True
    )
    assert run.crash is None, run.crash
    assert run.rc in case.exits
    if run.rc == 3:
        found = REFUSAL.search(run.stderr)
        assert found is not None and found["code"] in KNOWN_CODES, run.stderr
        assert not prep.out.exists()
    assert sha256(prep.doc) == prep.doc_hash
    assert run.cpu < TIME_LIMIT, f"{run.cpu:.1f} CPU seconds"
    assert run.peak_mb < MEMORY_LIMIT_MB, f"{run.peak_mb:.0f} MB"


def _sym(char: str) -> Callable[[], bytes]:
    body = (
        '<w:p><w:r><w:t>The Tenant shall pay rent.</w:t><w:sym w:font="Symbol" w:char="'
        + char
        + '"/></w:r></w:p>'
    )
    return lambda: h.docx({"word/document.xml": h.document(body)})


def _header_is_the_main_document() -> bytes:
    body = (
        "<w:p><w:r><w:t>The Tenant shall pay rent.</w:t></w:r></w:p><w:sectPr>"
        f'<w:headerReference xmlns:r="{R_NS}" w:type="default" r:id="rId9"/></w:sectPr>'
    )
    return h.docx(
        {
            "word/document.xml": h.document(body),
            "word/_rels/document.xml.rels": h.rels(
                ("rId1", h.REL_STYLES, "styles.xml"), ("rId9", REL_HEADER, "document.xml")
            ),
        }
    )


def _comments_part_is(target: str) -> Callable[[], bytes]:
    def build() -> bytes:
        return h.docx(
            {
                "word/_rels/document.xml.rels": h.rels(
                    ("rId1", h.REL_STYLES, "styles.xml"), ("rId7", REL_COMMENTS, target)
                )
            }
        )

    return build


def _mark_deleted(p: etree._Element) -> bool:
    rpr = p.find(f"{w('pPr')}/{w('rPr')}")
    return rpr is not None and (rpr.find(w("del")) is not None or rpr.find(w("moveFrom")) is not None)


def _joined(view: Any) -> list[int]:
    """View offsets of the paragraph separators that accepting every revision removes: after a
    paragraph whose mark is deleted, Word joins the next paragraph to it (for a view that keeps
    them apart; a view that joins them already has no separator there)."""
    return [
        p.end
        for p, nxt in zip(view.paragraphs, view.paragraphs[1:], strict=False)
        if p.part == nxt.part and p.story == nxt.story and nxt.start > p.end and _mark_deleted(p.element)
    ]


def _emptied_last(view: Any, spots: list[tuple[int, int, str]]) -> list[int]:
    """The separator before a story's last paragraph whose mark is deleted and whose text the
    ``spots`` delete whole: the paragraph is gone with every revision accepted (nothing follows
    for it to join), and a view reads it so (as any emptied paragraph with a deleted mark)."""
    gone = {i for start, end, replacement in spots if not replacement for i in range(start, end)}
    paras = view.paragraphs
    out = []
    for k in range(1, len(paras)):
        prev, p = paras[k - 1], paras[k]
        nxt = paras[k + 1] if k + 1 < len(paras) else None
        last = nxt is None or (nxt.part, nxt.story) != (p.part, p.story)
        if not last or (prev.part, prev.story) != (p.part, p.story) or not p.start > prev.end:
            continue
        if gone.issuperset(range(p.start, p.end)) and _mark_deleted(p.element):
            out.append(prev.end)
    return out


def _accepted(view: Any, spots: list[tuple[int, int, str]] | None = None) -> str:
    """The view's text with ``spots`` replaced and the paragraphs Word would join joined. A line
    break inside a paragraph (``w:br``) counts as whitespace: the writer keeps the document's own
    whitespace where the model's differs only in kind, breaks included, by design."""
    separators = {
        p.end for p, nxt in zip(view.paragraphs, view.paragraphs[1:], strict=False) if nxt.start > p.end
    }
    chars = [" " if c == "\n" and i not in separators else c for i, c in enumerate(view.text)]
    for at in _joined(view) + _emptied_last(view, spots or []):
        chars[at] = ""
    # Each spot's characters go and its text stands before the character it starts at (spots at
    # one place in their order): new paragraphs put at the end of a paragraph a strike takes
    # whole stay, as they do in the document.
    before: dict[int, list[str]] = {}
    for start, end, text in spots or []:
        chars[start:end] = [""] * (end - start)
        before.setdefault(start, []).append(text)
    return "".join("".join(before.get(k, ())) + c for k, c in enumerate(chars)) + "".join(
        before.get(len(chars), ())
    )


def accepted_text(data: bytes) -> str:
    """The document's text as Word shows it with every revision accepted."""
    return _accepted(build_view(Package.from_bytes(data)))


def _inserted(view: Any, e: Any, entry: dict[str, object]) -> list[tuple[int, int, str]]:
    """Where an applied insert_after / insert_before entry's paragraphs stand in the accepted
    text: at the end (start) of the paragraph holding each located anchor, one line each (blank
    lines none).  After a paragraph whose mark is deleted, the first new paragraph is what it
    joins, so the separator goes after the new lines."""
    text = str(entry.get("text") or "").replace("\r", "\n")
    lines = "\n".join(line for line in text.split("\n") if line.strip())
    spots = []
    joins = set(_joined(view))
    for loc in e.locations:
        if entry["action"] == "insert_after":
            para = view.paragraph_at(max(loc.start, loc.end - 1))
            while para.index + 1 < len(view.paragraphs) and view.paragraphs[para.index + 1].start == para.end:
                para = view.paragraphs[para.index + 1]  # (joined to it as the view reads: one paragraph)
            if not _mark_deleted(para.element):
                spots.append((para.end, para.end, f"\n{lines}"))
            else:  # (its separator, if it has one in its story, goes after the new lines)
                spots.append((para.end, para.end, f"{lines}\n" if para.end in joins else lines))
        else:
            para = view.paragraph_at(loc.start)
            while para.index > 0 and view.paragraphs[para.index - 1].end == para.start:
                para = view.paragraphs[para.index - 1]
            spots.append((para.start, para.start, f"{lines}\n"))
    return spots if lines else []


def expected_text(
    data: bytes,
    outcome: Outcome,
    breaks: bool | tuple[bool, ...] = True,
    entries: list[dict[str, object]] | None = None,
) -> str:
    """The input's accepted text with every applied edit's replacement at its locations. With
    ``breaks=False`` a line break in a replacement is a line break, not a new paragraph: what the
    writer falls back to where no paragraph can end (inside a content control, ``mc:Choice``).
    A tuple chooses per location (in report order): the fallback is decided where each edit lands."""
    view = build_view(Package.from_bytes(data))
    inserts = [
        spot
        for e in outcome.report.edits
        if e.status == EditStatus.APPLIED
        and entries
        and entries[e.index].get("action", "replace") != "replace"
        for spot in _inserted(view, e, entries[e.index])
    ]
    places = [
        (loc.start, loc.end, e.replacement)
        for e in outcome.report.edits
        if e.status == EditStatus.APPLIED
        and not (entries and entries[e.index].get("action", "replace") != "replace")
        for loc in e.locations
    ]
    choice = breaks if isinstance(breaks, tuple) else (breaks,) * len(places)
    spots = [
        (start, end, text if keep else text.replace("\n", " "))
        for (start, end, text), keep in zip(places, choice, strict=True)
    ]
    struck = [_struck(view, spot) for spot in spots]
    # after a paragraph struck whole (its mark too), the new paragraphs are what it joins
    inserts = [
        (a, b, f"{text[1:]}\n")
        if text.startswith("\n") and any(s <= a < e and not t for s, e, t in struck)
        else (a, b, text)
        for a, b, text in inserts
    ]
    return _accepted(view, struck + inserts)


def _struck(view: Any, spot: tuple[int, int, str]) -> tuple[int, int, str]:
    """A spot that strikes whole paragraphs takes their separators too (README, "Strike a
    clause"): the paragraphs join the next one when it is their element's next sibling
    paragraph in the same story (not across a table, a content control, a story's end)."""
    start, end, text = spot
    if text.strip():
        return spot
    paras = view.paragraphs_between(start, end)
    first, last = paras[0], paras[-1]
    whole = view.text[first.start : start].strip() == "" and view.text[end : last.end].strip() == ""
    if not whole or not view.text[first.start : first.end].strip():
        return spot
    k = last.index + 1
    if k >= len(view.paragraphs) or view.paragraphs[k].story_no != last.story_no:
        return spot
    after = view.paragraphs[k]
    sibling = last.element.getnext()
    while sibling is not None and sibling.tag in RANGE_MARKUP:
        sibling = sibling.getnext()
    if sibling is not after.element or last.field_code or after.field_code:
        return spot
    return (first.start, after.start, text)


def expected_texts(data: bytes, outcome: Outcome, entries: list[dict[str, object]] | None = None) -> set[str]:
    """Every :func:`expected_text`, each location's line breaks a new paragraph or not (the
    paragraphs of ``entries`` that are insert actions are always paragraphs)."""

    def replaces(e: Any) -> bool:
        return not (entries and entries[e.index].get("action", "replace") != "replace")

    count = sum(
        len(e.locations) for e in outcome.report.edits if e.status == EditStatus.APPLIED and replaces(e)
    )
    if count > 6:  # (the fuzz makes at most three edits)
        return {expected_text(data, outcome, True, entries), expected_text(data, outcome, False, entries)}
    return {
        expected_text(data, outcome, choice, entries)
        for choice in itertools.product((True, False), repeat=count)
    }


_TOLERATED = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033", '"'),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys("\u00ad\u200b\u200c\u200d\u2060\ufeff", ""),
        "\u2026": "...",
    }
)


def tolerant(text: str) -> str:
    """Text up to the differences the writer deliberately keeps from the document (its own
    whitespace, quote, dash and invisible characters where the model's text differs only there).
    Line breaks are kept: a paragraph joined or split is a difference."""
    return "\n".join(" ".join(line.translate(_TOLERATED).split()) for line in text.split("\n"))


def _in_their_insertion(inner: str) -> Callable[[], bytes]:
    body = (
        '<w:p><w:r><w:t xml:space="preserve">A </w:t></w:r><w:ins w:id="100" w:author="A" '
        f'w:date="2020-01-01T00:00:00Z">{inner}</w:ins></w:p>'
    )
    return lambda: h.docx({"word/document.xml": h.document(body)})


STRUCTURAL_CASES = [
    pytest.param(
        _sym(char),
        json.dumps({"edits": [GOOD_EDIT]}),
        id=f"w:sym w:char={char}",
    )
    for char, exc in (("110000", "ValueError"), ("FFFFFFFFFFFFFFFFFFFF", "OverflowError"))
] + [
    pytest.param(_sym("FFFE"), json.dumps({"edits": [GOOD_EDIT]}), id="w:sym w:char=FFFE"),
    pytest.param(_sym("-1"), json.dumps({"edits": [GOOD_EDIT]}), id="w:sym w:char=-1"),
    pytest.param(
        _header_is_the_main_document,
        json.dumps({"edits": [{**GOOD_EDIT, "expected_matches": 2}]}),
        id="a header relationship that targets the main document",
    ),
    pytest.param(
        _comments_part_is("document.xml"),
        json.dumps({"edits": [{**GOOD_EDIT, "rationale": "clearer"}]}),
        id="a comments relationship that targets the main document",
    ),
    pytest.param(
        _comments_part_is("styles.xml"),
        json.dumps({"edits": [{**GOOD_EDIT, "rationale": "clearer"}]}),
        id="a comments relationship that targets styles.xml",
    ),
    *[
        pytest.param(
            _in_their_insertion(inner),
            json.dumps({"edits": [{"anchor": "Tenant", "replacement": "Lessee"}]}),
            id=f"{what} inside another author's w:ins (found by fuzzing)",
        )
        for what, inner in (
            (
                "a hyperlink",
                '<w:hyperlink w:anchor="x"><w:r><w:t>Tenant</w:t><w:t xml:space="preserve"> B</w:t>'
                "</w:r></w:hyperlink>",
            ),
            (
                "a w:ins",
                f'<w:ins {_REV.format(i=101)}><w:r><w:t>Tenant</w:t><w:t xml:space="preserve"> B</w:t>'
                "</w:r></w:ins>",
            ),
        )
    ],
    pytest.param(
        lambda: h.docx(
            {
                "word/document.xml": h.document(
                    '<w:p><w:r><w:t xml:space="preserve">The </w:t></w:r><w:hyperlink w:anchor="x">'
                    '<w:smartTag w:element="x"><w:r><w:t>Tenant</w:t></w:r></w:smartTag></w:hyperlink>'
                    '<w:r><w:t xml:space="preserve"> more</w:t></w:r></w:p>'
                )
            }
        ),
        json.dumps({"edits": [{"anchor": "The T", "replacement": "a\nb"}]}),
        id="a paragraph break before a smartTag inside a hyperlink (found by fuzzing)",
    ),
    pytest.param(
        lambda: h.docx(
            {
                "word/document.xml": h.document(
                    "<w:p><w:r><w:t>Tenant</w:t><w:br/><w:softHyphen/><w:t>The end</w:t></w:r></w:p>"
                )
            }
        ),
        json.dumps({"edits": [{"anchor": "enant\n\u00adT", "replacement": " x "}]}),
        id="a soft hyphen after a line break (found by fuzzing)",
    ),
    pytest.param(
        _comments_part_is("media/a.bin"),
        json.dumps({"edits": [{**GOOD_EDIT, "rationale": "clearer"}]}),
        id="a comments relationship that targets a missing part",
    ),
    pytest.param(
        lambda: h.docx(
            {"word/document.xml": h.DECL + b'<x xmlns="urn:x"><p>The Tenant shall pay rent.</p></x>'}
        ),
        json.dumps({"edits": [GOOD_EDIT]}),
        id="a main part in an unknown namespace",
    ),
    pytest.param(
        lambda: h.docx(
            {
                "word/styles.xml": h.DECL
                + (
                    f'<w:styles xmlns:w="{W_NS}"><w:style w:type="paragraph" w:styleId="A">'
                    '<w:basedOn w:val="B"/></w:style><w:style w:type="paragraph" w:styleId="B">'
                    '<w:basedOn w:val="A"/></w:style></w:styles>'
                ).encode(),
                "word/document.xml": h.document(
                    '<w:p><w:pPr><w:pStyle w:val="A"/></w:pPr><w:r><w:t>The Tenant shall '
                    "pay rent.</w:t></w:r></w:p>"
                ),
            }
        ),
        json.dumps({"edits": [GOOD_EDIT]}),
        id="styles based on each other in a cycle",
    ),
    pytest.param(
        lambda: h.docx(
            {
                "word/_rels/document.xml.rels": h.rels(
                    ("rId1", h.REL_STYLES, "styles.xml"),
                    ("rId2", REL_FOOTNOTES, "document.xml"),
                    ("rId3", REL_NUMBERING, "document.xml"),
                )
            }
        ),
        json.dumps({"edits": [GOOD_EDIT]}),
        id="footnotes and numbering relationships that target the main document",
    ),
]


@pytest.mark.parametrize(("builder", "reply"), STRUCTURAL_CASES)
def test_a_document_whose_structure_lies_is_refused_or_edited_correctly(
    builder: Callable[[], bytes], reply: str
) -> None:
    """Never a crash; when edits are applied, the output is a sound package whose text (every
    revision accepted) is the input's text with the reported replacements, nothing more."""
    data = builder()
    started = time.process_time()
    outcome = apply_reply(data, reply, ApplyOptions(date=DATE))
    assert time.process_time() - started < TIME_LIMIT
    check_outcome(outcome)
    if outcome.output is not None:
        assert tolerant(accepted_text(outcome.output)) == tolerant(expected_text(data, outcome))
        out = Package.from_bytes(outcome.output)
        for name in out.names:
            if out.is_xml(name) and out.xml(name).tag != w("comments"):
                assert next(out.xml(name).iter(w("comment")), None) is None, f"a w:comment in {name}"


@pytest.mark.parametrize(
    ("anchor", "replacement"),
    [("shall pay rent. ", "shall pay the rent."), (" The Landlord", "The Owner")],
    ids=["trailing space", "leading space"],
)
def test_an_anchor_with_edge_whitespace_does_not_take_the_paragraph_mark(
    anchor: str, replacement: str
) -> None:
    """Models often copy a sentence with the space after it; the paragraph break is not theirs."""
    doc = h.docx(
        {
            "word/document.xml": h.document(
                "<w:p><w:r><w:t>The Tenant shall pay rent.</w:t></w:r></w:p>"
                "<w:p><w:r><w:t>The Landlord shall repair.</w:t></w:r></w:p>"
            )
        }
    )
    text = build_view(Package.from_bytes(doc)).text
    outcome = apply_reply(
        doc, json.dumps([{"anchor": anchor, "replacement": replacement}]), ApplyOptions(date=DATE)
    )
    [edit] = outcome.report.edits
    assert edit.status == EditStatus.APPLIED
    assert outcome.output is not None
    for loc in edit.locations:
        assert "\n" not in text[loc.start : loc.end], f"the match takes the paragraph mark: {loc}"
    root = Package.from_bytes(outcome.output).xml("word/document.xml")
    assert not any(_mark_deleted(p) for p in root.iter(w("p"))), "a paragraph mark was deleted"
    assert len(accepted_text(outcome.output).split("\n")) == 2


# =============================================================================================
# Outputs


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    rc = redline_main(argv)
    return rc, capsys.readouterr().err


@pytest.fixture
def work(tmp_path: Path) -> Prepared:
    return prepare(tmp_path, Case("valid", h.docx, None))


def _temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.name.endswith(".tmp") or p.name.startswith("."))


@pytest.mark.parametrize(
    "variant",
    [
        "same path",
        "./ relative",
        "dir/../ detour",
        "symlink to the input",
        "hard link to the input",
        "input is a symlink to the output",
    ],
)
def test_an_output_that_is_the_input_is_refused(
    variant: str, work: Prepared, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = work.doc.parent
    doc = str(work.doc)
    monkeypatch.chdir(folder)
    if variant == "same path":
        out = doc
    elif variant == "./ relative":
        out = "./" + work.doc.name
    elif variant == "dir/../ detour":
        (folder / "sub").mkdir()
        out = f"sub/../{work.doc.name}"
    elif variant == "symlink to the input":
        (folder / "link.docx").symlink_to(work.doc)
        out = "link.docx"
    elif variant == "hard link to the input":
        os.link(work.doc, folder / "hard.docx")
        out = "hard.docx"
    else:
        (folder / "alias.docx").symlink_to(work.doc)
        doc, out = "alias.docx", str(work.doc)
    rc, err = _cli(["apply", doc, str(work.reply), "-o", out, "--date", DATE], capsys)
    assert rc == 3
    assert_refusal_line(err, "output_is_input")
    assert sha256(work.doc) == work.doc_hash
    assert _temporaries(folder) == []


def test_an_output_in_a_missing_folder_is_refused(work: Prepared, capsys: pytest.CaptureFixture[str]) -> None:
    out = work.folder / "missing" / "deeper" / "out.docx"
    rc, err = _cli(
        ["apply", str(work.doc), str(work.reply), "-o", str(out), "--report", str(work.report)], capsys
    )
    assert rc == 3
    assert_refusal_line(err, "io_error")
    assert "does not exist" in err
    assert not out.parent.exists()
    assert sha256(work.doc) == work.doc_hash
    assert list(work.out.parent.iterdir()) == []


class _FailingHandle:
    """What ``os.fdopen`` returns when the disk fills up half-way through the write."""

    def __init__(self, handle: Any, error: BaseException) -> None:
        self.handle, self.error = handle, error

    def __enter__(self) -> _FailingHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.handle.close()

    def write(self, data: bytes) -> int:
        self.handle.write(data[:100])
        raise self.error

    def flush(self) -> None:  # pragma: no cover - write raised first
        self.handle.flush()

    def fileno(self) -> int:  # pragma: no cover
        return int(self.handle.fileno())


@pytest.mark.parametrize("fail_in", ["write: disk full", "write: RuntimeError", "fsync", "replace"])
@pytest.mark.parametrize("existing", [False, True], ids=["no previous output", "a previous output"])
def test_a_failure_while_writing_the_output_leaves_nothing_behind(
    fail_in: str,
    existing: bool,
    work: Prepared,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if existing:
        work.out.write_bytes(b"previous output")

    def boom(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    if fail_in.startswith("write"):
        error: BaseException = OSError(28, "No space left on device")
        if fail_in.endswith("RuntimeError"):
            error = RuntimeError("injected")
        real_fdopen = os.fdopen
        monkeypatch.setattr(
            "redline.opc.package.os.fdopen", lambda fd, mode: _FailingHandle(real_fdopen(fd, mode), error)
        )
    else:
        monkeypatch.setattr(f"redline.opc.package.os.{fail_in}", boom)
    rc, err = _cli(
        [
            "apply",
            str(work.doc),
            str(work.reply),
            "-o",
            str(work.out),
            "--report",
            str(work.report),
            "--date",
            DATE,
        ],
        capsys,
    )
    monkeypatch.undo()
    if fail_in.endswith("RuntimeError"):  # not the file system's failure: a bug, exit 70
        assert rc == 70 and "internal_error" in err
    else:
        assert rc == 3
        assert_refusal_line(err, "io_error")
    assert sha256(work.doc) == work.doc_hash
    if existing:
        assert work.out.read_bytes() == b"previous output"
    else:
        assert not work.out.exists()
    assert _temporaries(work.folder) == []


@pytest.mark.parametrize("target", ["the input document", "the output document", "the reply"])
def test_a_report_path_that_is_an_input_or_the_output_is_refused(
    target: str, work: Prepared, capsys: pytest.CaptureFixture[str]
) -> None:
    report = {"the input document": work.doc, "the output document": work.out, "the reply": work.reply}[
        target
    ]
    rc, err = _cli(
        ["apply", str(work.doc), str(work.reply), "-o", str(work.out), "--report", str(report)], capsys
    )
    assert sha256(work.doc) == work.doc_hash
    assert sha256(work.reply) == work.reply_hash
    assert rc == 3
    assert_refusal_line(err, "output_is_input")


def test_a_report_in_a_missing_folder_is_refused_before_anything_is_written(
    work: Prepared, capsys: pytest.CaptureFixture[str]
) -> None:
    report = work.folder / "missing" / "report.json"
    rc, err = _cli(
        ["apply", str(work.doc), str(work.reply), "-o", str(work.out), "--report", str(report)], capsys
    )
    assert rc == 3
    assert_refusal_line(err, "io_error")
    assert not work.out.exists(), "exit 3 promises no output document"


# =============================================================================================
# Fuzzing (bounded): mutated packages, random WordprocessingML, hostile replies


def check_outcome(outcome: Outcome) -> None:
    """What every ``apply_reply`` result must be: a typed refusal, or a report of every edit."""
    report = outcome.report
    if report.error is not None:
        assert report.error.code in KNOWN_CODES, report.error.code
        assert report.error.message
        assert outcome.output is None and report.edits == []
        assert outcome.exit_code == 3
        return
    assert report.totals.proposed == len(report.edits)
    assert report.totals.applied == sum(1 for e in report.edits if e.status.ok)
    assert sorted(e.index for e in report.edits) == list(range(len(report.edits)))
    for e in report.edits:
        assert (e.error is None) == e.status.ok, e
        if e.status == EditStatus.APPLIED:
            assert e.locations
    assert outcome.exit_code in (0, 1)
    assert outcome.output is not None
    out = Package.from_bytes(outcome.output)
    build_view(out)


def safe_apply(data: bytes, reply: str | bytes) -> Outcome:
    try:
        outcome = apply_reply(data, reply, ApplyOptions(date=DATE))
    except PackageError as exc:  # pragma: no cover - reported as the failure it is
        raise AssertionError(f"a PackageError escaped apply_reply: {exc!r}") from exc
    check_outcome(outcome)
    return outcome


FUZZ_BODY = (
    "<w:p><w:r><w:t>The Tenant shall pay rent monthly.</w:t></w:r></w:p>"
    '<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t xml:space="preserve">4.2 </w:t></w:r>'
    "<w:r><w:rPr><w:b/></w:rPr><w:t>Operating Expenses</w:t></w:r></w:p>"
    '<w:p><w:r><w:t>The Landlord</w:t></w:r><w:ins w:id="1" w:author="A" w:date="2020-01-01T00:00:00Z">'
    '<w:r><w:t xml:space="preserve"> shall</w:t></w:r></w:ins><w:del w:id="2" w:author="A" '
    'w:date="2020-01-01T00:00:00Z"><w:r><w:delText> may</w:delText></w:r></w:del><w:r>'
    '<w:t xml:space="preserve"> maintain the premises.</w:t><w:tab/><w:t>End</w:t></w:r></w:p>'
    + _MC_PARAGRAPH
    + "<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Fee</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r>"
    "<w:t>ten dollars</w:t></w:r></w:p></w:tc></w:tr></w:tbl>"
)
FUZZ_DOC_PARTS = h.docx_parts({"word/document.xml": h.document(FUZZ_BODY)})
FUZZ_NAMES = [n for n, _ in FUZZ_DOC_PARTS]
FUZZ_REPLY = json.dumps(
    {
        "edits": [
            {"anchor": "pay rent monthly", "replacement": "pay the rent monthly"},
            {
                "anchor": "maintain the premises",
                "replacement": "keep the premises in repair",
                "rationale": "clearer",
            },
            {"anchor": "ten dollars", "replacement": ""},
        ]
    }
)
_CONTENT_TYPE_VARIANTS = [
    h.content_types({"/word/document.xml": h.MACRO_MAIN_CT}),
    h.content_types({"/word/document.xml": h.XLSX_MAIN_CT}),
    h.content_types({"/word/document.xml": "application/xml"}),
    h.content_types({}, {"xml": h.W_MAIN_CT}),
    h.content_types({"/word/styles.xml": h.W_MAIN_CT}),
    h.content_types({"/word/vbaProject.bin": "application/vnd.ms-office.vbaProject"}),
    b"<Types/>",
]
_NAME_VARIANTS = [
    *FUZZ_NAMES,
    "Word/Document.XML",
    "word/../word/document.xml",
    "word\\document.xml",
    "/word/document.xml",
    "word/media/image1.png",
    "word/vbaProject.bin",
    "word/%64ocument.xml",
]
_WRAP_TAGS = ["p", "r", "t", "tbl", "ins"]


def _wrap(data: bytes, tag: str, index: int, how: str) -> bytes:
    """Wrap the ``index``-th ``w:tag`` of a part in mc:AlternateContent or an unknown element."""
    try:
        root = etree.fromstring(data)
    except etree.XMLSyntaxError:
        return data
    found = list(root.iter(w(tag)))
    if not found:
        return data
    el = found[index % len(found)]
    parent = el.getparent()
    if parent is None:
        return data
    at = parent.index(el)
    if how == "mc":
        wrapper = etree.Element(f"{{{MC_NS}}}AlternateContent", nsmap={"mc": MC_NS})
        choice = etree.SubElement(wrapper, f"{{{MC_NS}}}Choice", Requires="w14")
        fallback = etree.SubElement(wrapper, f"{{{MC_NS}}}Fallback")
        fallback.append(etree.fromstring(etree.tostring(el)))
        choice.append(el)
    else:
        wrapper = etree.Element("{urn:example:unknown}wrap", nsmap={"x": "urn:example:unknown"})
        wrapper.append(el)
    parent.insert(at, wrapper)
    return h.DECL + etree.tostring(root)


@st.composite
def mutated_package(draw: st.DrawFn) -> bytes:
    """A valid package, then up to five of: drop, duplicate or rename a member; swap the content
    types; inject a DOCTYPE; wrap an element in mc:AlternateContent or an unknown namespace;
    corrupt, truncate or store a member; corrupt the finished zip."""
    parts: list[list[Any]] = [list(p) for p in FUZZ_DOC_PARTS]  # [name, data] pairs, changed in place
    methods: dict[int, int] = {}
    zip_flips: list[tuple[int, int]] = []
    for _ in range(draw(st.integers(1, 4))):
        op = draw(
            st.sampled_from(
                [
                    "drop",
                    "dup",
                    "rename",
                    "ct",
                    "doctype",
                    "wrap",
                    "wrap",
                    "wrap",
                    "corrupt",
                    "truncate",
                    "store",
                    "zipflip",
                    "vba",
                    "strict",
                    "garbage",
                ]
            )
        )
        i = draw(st.integers(0, max(len(parts) - 1, 0)))
        if not parts:
            break
        data = parts[i][1]
        if op == "drop":
            del parts[i]
        elif op == "dup":
            parts.append([draw(st.sampled_from(_NAME_VARIANTS)), data])
        elif op == "rename":
            parts[i][0] = draw(st.sampled_from(_NAME_VARIANTS))
        elif op == "ct":
            for p in parts:
                if p[0] == "[Content_Types].xml":
                    p[1] = draw(st.sampled_from(_CONTENT_TYPE_VARIANTS))
        elif op == "doctype":
            decl_end = data.find(b"?>") + 2 if data.startswith(b"<?xml") else 0
            dtd = draw(
                st.sampled_from(
                    [
                        b'<!DOCTYPE x [<!ENTITY a "b">]>',
                        b"<!DOCTYPE html>",
                        b'<!DOCTYPE r SYSTEM "http://example.com/x.dtd">',
                    ]
                )
            )
            parts[i][1] = data[:decl_end] + dtd + data[decl_end:]
        elif op == "wrap":
            parts[i][1] = _wrap(
                data,
                draw(st.sampled_from(_WRAP_TAGS)),
                draw(st.integers(0, 20)),
                draw(st.sampled_from(["mc", "unknown"])),
            )
        elif op == "corrupt" and data:
            at = draw(st.integers(0, len(data) - 1))
            parts[i][1] = data[:at] + bytes([draw(st.integers(0, 255))]) + data[at + 1 :]
        elif op == "truncate":
            parts[i][1] = data[: draw(st.integers(0, len(data)))]
        elif op == "store":
            methods[i] = 0
        elif op == "zipflip":
            zip_flips.append((draw(st.integers(0, 4000)), draw(st.integers(0, 255))))
        elif op == "vba":
            parts.append(["word/vbaProject.bin", b"\xcc" * 64])
        elif op == "strict":
            parts[i][1] = data.replace(W_NS.encode(), W_STRICT_NS.encode())
        elif op == "garbage":
            parts[i][1] = draw(st.binary(max_size=64))
    out = bytearray(h.raw_zip([h.Entry(n, d, method=methods.get(k, 8)) for k, (n, d) in enumerate(parts)]))
    for pos, value in zip_flips:
        if out:
            out[pos % len(out)] = value
    return bytes(out)


FUZZ_SETTINGS = settings(
    max_examples=100,
    deadline=None,
    database=None,
    derandomize=True,  # the same examples on every CI run; benchmarks/fuzz.py explores at random
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def check_mutated_package(data: bytes) -> None:
    safe_apply(data, FUZZ_REPLY)


@FUZZ_SETTINGS
@given(data=mutated_package())
def test_fuzz_a_mutated_package_is_refused_with_a_code_or_edited(data: bytes) -> None:
    check_mutated_package(data)


# --- random WordprocessingML: the view, the locator and the writer under structures ----------

_WORDS = ["The ", "Tenant", " shall ", "pay", " rent", ".", " ", "\u00a0", "“q”", "a–b", "fee", "  ", "x"]


def _t(text: str) -> str:
    space = ' xml:space="preserve"' if text != text.strip() or not text else ""
    return f"<w:t{space}>{text}</w:t>"


@st.composite
def run_xml(draw: st.DrawFn) -> str:
    items = []
    for _ in range(draw(st.integers(1, 4))):
        kinds = ["t"] * 8 + ["tab", "br", "sym", "soft", "nbh", "fld", "instr", "cr"]
        if KNOWN_BUGS["soft hyphen after a break"]:
            kinds.remove("soft")
        kind = draw(st.sampled_from(kinds))
        if kind == "t":
            items.append(_t(draw(st.sampled_from(_WORDS))))
        elif kind == "tab":
            items.append("<w:tab/>")
        elif kind == "br":
            items.append("<w:br/>")
        elif kind == "cr":
            items.append("<w:cr/>")
        elif kind == "sym":
            items.append(
                f'<w:sym w:font="Symbol" w:char="{draw(st.sampled_from(["F0B7", "0041", "2022", "ZZ"]))}"/>'
            )
        elif kind == "soft":
            items.append("<w:softHyphen/>")
        elif kind == "nbh":
            items.append("<w:noBreakHyphen/>")
        elif kind == "fld":
            items.append(
                f'<w:fldChar w:fldCharType="{draw(st.sampled_from(["begin", "separate", "end"]))}"/>'
            )
        else:
            items.append("<w:instrText> PAGE </w:instrText>")
    rpr = draw(st.sampled_from(["", "<w:rPr><w:b/></w:rPr>", "<w:rPr><w:vanish/></w:rPr>"]))
    return f"<w:r>{rpr}{''.join(items)}</w:r>"


KNOWN_BUGS = {"nested inline containers": False, "edge whitespace": False, "soft hyphen after a break": False}
"""Structures a known bug mishandles, to leave out of the bounded CI fuzzing while it is open
(with a strict xfail test of its own); none is open now. ``python -m benchmarks.fuzz --known``
fuzzes them whatever this says."""


@st.composite
def inline_xml(draw: st.DrawFn, depth: int = 0, inside: tuple[str, ...] = ()) -> str:
    kinds = ["run", "run", "run"]
    if depth < 2:
        kinds += [
            "ins",
            "del",
            "hyperlink",
            "smartTag",
            "sdt",
            "fldSimple",
            "mc",
            "unknown",
            "bookmark",
            "comment",
            "moveTo",
            "moveFrom",
            "field",
        ]
    if KNOWN_BUGS["nested inline containers"] and {"ins", "hyperlink", "smartTag"} & set(inside):
        kinds = ["run"]
    kind = draw(st.sampled_from(kinds))
    if kind == "run":
        return draw(run_xml())
    i = draw(st.integers(100, 999))
    if kind == "field":  # a whole complex field: a cross-reference or a page number, its result
        instr = draw(st.sampled_from([" REF _Ref123 \\r \\h ", " PAGE ", " NOTEREF _Ref9 \\h "]))
        result = draw(st.sampled_from(["4.2", "7", "Section 4.2", "12 (b)"]))
        return (
            '<w:r><w:fldChar w:fldCharType="begin"/></w:r>'
            f'<w:r><w:instrText xml:space="preserve">{instr}</w:instrText></w:r>'
            f'<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r>{_t(result)}</w:r>'
            '<w:r><w:fldChar w:fldCharType="end"/></w:r>'
        )
    inner = "".join(draw(st.lists(inline_xml(depth + 1, (*inside, kind)), min_size=1, max_size=3)))
    if kind == "ins":
        return f"<w:ins {_REV.format(i=i)}>{inner}</w:ins>"
    if kind == "del":
        deleted = inner.replace("w:t>", "w:delText>").replace("<w:t ", "<w:delText ")
        return f"<w:del {_REV.format(i=i)}>{deleted}</w:del>"
    if kind == "hyperlink":
        return f'<w:hyperlink w:anchor="x">{inner}</w:hyperlink>'
    if kind == "smartTag":
        return f'<w:smartTag w:element="x">{inner}</w:smartTag>'
    if kind == "sdt":
        return f"<w:sdt><w:sdtPr/><w:sdtContent>{inner}</w:sdtContent></w:sdt>"
    if kind == "fldSimple":
        return f'<w:fldSimple w:instr=" PAGE ">{inner}</w:fldSimple>'
    if kind == "mc":
        other = draw(run_xml())
        return (
            f'<mc:AlternateContent><mc:Choice Requires="w14">{inner}</mc:Choice><mc:Fallback>{other}'
            "</mc:Fallback></mc:AlternateContent>"
        )
    if kind == "unknown":
        return f'<x:u xmlns:x="urn:example:unknown">{inner}</x:u>'
    if kind == "bookmark":
        return f'<w:bookmarkStart w:id="{i}" w:name="b{i}"/>{inner}<w:bookmarkEnd w:id="{i}"/>'
    if kind in ("moveTo", "moveFrom"):  # one side of another author's move (its range around it)
        if kind == "moveFrom":
            inner = inner.replace("w:t>", "w:delText>").replace("<w:t ", "<w:delText ")
        return (
            f'<w:{kind}RangeStart {_REV.format(i=i)} w:name="move{i}"/><w:{kind} {_REV.format(i=i + 1000)}>'
            f'{inner}</w:{kind}><w:{kind}RangeEnd w:id="{i}"/>'
        )
    return f'<w:commentRangeStart w:id="{i}"/>{inner}<w:commentRangeEnd w:id="{i}"/>'


@st.composite
def paragraph_xml(draw: st.DrawFn) -> str:
    ppr = draw(
        st.sampled_from(
            [
                "",
                '<w:pPr><w:pStyle w:val="Heading1"/></w:pPr>',
                f"<w:pPr><w:rPr><w:del {_REV.format(i=5)}/></w:rPr></w:pPr>",
                f"<w:pPr><w:rPr><w:ins {_REV.format(i=6)}/></w:rPr></w:pPr>",
                '<w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr>',
            ]
        )
    )
    inner = "".join(draw(st.lists(inline_xml(), min_size=1, max_size=5)))
    return f"<w:p>{ppr}{inner}</w:p>"


@st.composite
def body_xml(draw: st.DrawFn) -> str:
    blocks = []
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["p", "p", "p", "tbl", "sdt", "mc", "unknown"]))
        paragraphs = "".join(draw(st.lists(paragraph_xml(), min_size=1, max_size=3)))
        if kind == "p":
            blocks.append(paragraphs)
        elif kind == "tbl":
            blocks.append(f"<w:tbl><w:tr><w:tc>{paragraphs}</w:tc><w:tc><w:p/></w:tc></w:tr></w:tbl>")
        elif kind == "sdt":
            blocks.append(f"<w:sdt><w:sdtContent>{paragraphs}</w:sdtContent></w:sdt>")
        elif kind == "mc":
            blocks.append(
                f'<mc:AlternateContent><mc:Choice Requires="w14">{paragraphs}</mc:Choice>'
                "<mc:Fallback><w:p/></mc:Fallback></mc:AlternateContent>"
            )
        else:
            blocks.append(f'<x:block xmlns:x="urn:example:unknown">{paragraphs}</x:block>')
    return "".join(blocks)


_EDGE = " \t\n\r\u00a0\u00ad\u200b\u200c\u200d\u2060\ufeff"


def check_random_wordprocessingml(body: str, data: st.DataObject) -> None:
    """Any structure the view reads: edits quoted from its text apply, and the output's text
    (every revision accepted) is the input's text with the reported replacements."""
    doc = h.docx({"word/document.xml": h.document(body)})
    text = build_view(Package.from_bytes(doc)).text
    edits: list[dict[str, object]] = []
    for _ in range(data.draw(st.integers(1, 3), label="edits")):
        if text.strip() and data.draw(st.integers(0, 4), label="quoted") > 0:
            start = data.draw(st.integers(0, len(text) - 1), label="start")
            end = data.draw(st.integers(start + 1, min(len(text), start + 25)), label="end")
            anchor = text[start:end]
            if KNOWN_BUGS["edge whitespace"]:
                anchor = anchor.strip(_EDGE) or anchor
        else:
            anchor = data.draw(st.sampled_from(["Tenant", "pay rent", "fee", "The"]), label="anchor")
        action = data.draw(
            st.sampled_from(["replace", "replace", "insert_after", "insert_before"]), label="action"
        )
        if action == "replace":
            replacement = data.draw(
                st.sampled_from(["", "Lessee", "shall not", "the fee", " x ", "“new”", "a\nb"]),
                label="replacement",
            )
            edits.append({"anchor": anchor, "replacement": replacement})
        else:
            entry: dict[str, object] = {"action": action, "anchor": anchor}
            entry["text"] = data.draw(st.sampled_from(INSERTED_TEXTS), label="text")
            level = data.draw(st.sampled_from([None, "+1", "-1", "0", "+9", 3]), label="level")
            if level is not None:
                entry["level"] = level
            edits.append(entry)
    outcome = safe_apply(doc, json.dumps({"edits": edits}))
    for e in outcome.report.edits:
        for loc in e.locations if e.status == EditStatus.APPLIED else ():
            found = text[loc.start : loc.end]
            assert not (found.endswith("\n") and not e.anchor.endswith("\n")), ("mark taken", e.anchor, loc)
            assert not (found.startswith("\n") and not e.anchor.startswith("\n")), (
                "mark taken",
                e.anchor,
                loc,
            )
    if outcome.output is not None:
        got = tolerant(accepted_text(outcome.output))
        assert got in {tolerant(text) for text in expected_texts(doc, outcome, edits)}


INSERTED_TEXTS = [
    "A new clause.",
    "First new clause.\n\nSecond new clause.",
    "“Quoted” words and an apostrophe’s",
    "tab\there",
    "<w:p>&amp; not markup",
    "line\r\nnext",
    "\u200bzero width",
    "é" * 80,
    " padded ",
]
"""Texts of insert_after / insert_before entries, hostile ones among them."""


@pytest.mark.slow
@FUZZ_SETTINGS
@given(body=body_xml(), data=st.data())
def test_fuzz_random_wordprocessingml_is_edited_exactly_as_reported(body: str, data: st.DataObject) -> None:
    check_random_wordprocessingml(body, data)


# --- replies ------------------------------------------------------------------------------

_ALIASES = [
    "anchor",
    "find",
    "old_text",
    "oldText",
    "quote",
    "replacement",
    "replace",
    "new_text",
    "newText",
    "rationale",
    "expected_matches",
    "section",
    "id",
    "action",
    "op",
    "type",
    "position",
    "count",
]
_JSON_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=False),
    st.sampled_from(
        ["pay rent", "Tenant", "", " ", "delete", "replace", "insert", "\x00", "\ufffe", "4.2", "x" * 300]
    ),
    st.text(max_size=20),
)
_JSON = st.recursive(
    _JSON_LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(_ALIASES) | st.text(max_size=8), inner, max_size=5),
    ),
    max_leaves=25,
)
_EDITISH = st.dictionaries(st.sampled_from(_ALIASES), _JSON_LEAVES | _JSON, min_size=1, max_size=5)


@st.composite
def hostile_reply(draw: st.DrawFn) -> str | bytes:
    value: Any = draw(
        st.one_of(
            st.lists(_EDITISH, max_size=6),
            st.fixed_dictionaries(
                {
                    draw(st.sampled_from(["edits", "changes", "redlines", "Edits"])): st.lists(
                        _EDITISH, max_size=6
                    )
                }
            ),
            _EDITISH,
            _JSON,
        )
    )
    text = json.dumps(value, ensure_ascii=draw(st.booleans()))
    wrapping = draw(st.sampled_from(["bare", "fence", "prose", "truncate", "splice", "bytes"]))
    if wrapping == "fence":
        text = f"Here are the edits:\n```json\n{text}\n```\nThanks."
    elif wrapping == "prose":
        text = f"I suggest {text} (see clause {{4.2}})."
    elif wrapping == "truncate":
        text = text[: draw(st.integers(0, len(text)))]
    elif wrapping == "splice":
        at = draw(st.integers(0, len(text)))
        text = (
            text[:at]
            + draw(st.sampled_from(["{", "]", '"', ",", "\x00", "```", "\ud800", "[" * 80]))
            + text[at:]
        )
    if wrapping == "bytes":
        raw = text.encode("utf-8", "surrogatepass")
        at = draw(st.integers(0, len(raw)))
        return raw[:at] + draw(st.binary(max_size=4)) + raw[at:]
    return text


def check_hostile_reply(reply: str | bytes) -> None:
    outcome = safe_apply(h.docx(), reply)
    if outcome.report.error is not None:
        assert outcome.report.error.code == "unparseable_reply"


@FUZZ_SETTINGS
@given(reply=hostile_reply())
def test_fuzz_a_hostile_reply_is_refused_whole_or_entry_by_entry(reply: str | bytes) -> None:
    check_hostile_reply(reply)


BYTE_EDITS = st.lists(
    st.tuples(st.integers(0, 100_000), st.integers(0, 255), st.sampled_from("xid")), min_size=1, max_size=6
)


@FUZZ_SETTINGS
@given(edits=BYTE_EDITS)
def test_fuzz_a_corrupted_file_goes_through_the_whole_pipeline(edits: list[tuple[int, int, str]]) -> None:
    check_corrupted_file(edits)


def check_corrupted_file(edits: list[tuple[int, int, str]]) -> None:
    data = h.raw_zip([h.Entry(n, d) for n, d in FUZZ_DOC_PARTS])
    safe_apply(h.mutate_bytes(data, edits), FUZZ_REPLY)


FUZZ_TARGETS: dict[str, tuple[dict[str, st.SearchStrategy[Any]], Callable[..., None]]] = {
    "mutated packages": ({"data": mutated_package()}, check_mutated_package),
    "random WordprocessingML": ({"body": body_xml(), "data": st.data()}, check_random_wordprocessingml),
    "hostile replies": ({"reply": hostile_reply()}, check_hostile_reply),
    "corrupted files": ({"edits": BYTE_EDITS}, check_corrupted_file),
}
"""What ``python -m benchmarks.fuzz`` runs: strategies and the property each example must keep."""


# =============================================================================================
# Concurrency and load


def _clauses_doc(n: int) -> bytes:
    body = "".join(f"<w:p><w:r><w:t>Clause {i}: the fee is {i} dollars.</w:t></w:r></w:p>" for i in range(n))
    return h.docx({"word/document.xml": h.document(body)})


def test_threads_applying_to_one_document_through_the_library_lose_no_update() -> None:
    """Sixteen writers, one document: each reads it, applies its edit outside any lock, and
    commits only if nobody committed since it read (the revision it read is still current),
    else starts again. Every edit must be in the final document, each exactly once."""
    writers = 16
    state: dict[str, Any] = {"doc": _clauses_doc(writers), "commits": 0}
    lock = threading.Lock()
    errors: list[BaseException] = []

    def writer(i: int) -> None:
        try:
            for _attempt in range(200):
                with lock:
                    current = state["doc"]
                revision = Package.from_bytes(current).revision
                reply = json.dumps([{"anchor": f"fee is {i} dollars", "replacement": f"fee is {i} euros"}])
                outcome = apply_reply(current, reply, ApplyOptions(date=DATE, author=f"writer {i}"))
                assert outcome.report.revision == revision
                assert outcome.exit_code == 0, outcome.report.to_json()
                assert outcome.output is not None
                with lock:
                    if Package.from_bytes(state["doc"]).revision == revision:
                        state["doc"] = outcome.output
                        state["commits"] += 1
                        return
            raise AssertionError(f"writer {i} never committed")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert state["commits"] == writers
    text = accepted_text(state["doc"])
    for i in range(writers):
        assert text.count(f"fee is {i} euros") == 1, i
        assert f"fee is {i} dollars" not in text


def test_threads_produce_the_same_bytes_as_one_thread() -> None:
    """``apply_reply`` shares nothing between calls: 8 threads x 6 replies, same bytes as serial."""
    doc = _clauses_doc(12)
    replies = [
        json.dumps([{"anchor": f"Clause {i}:", "replacement": f"Section {i}:", "rationale": "names"}])
        for i in range(6)
    ]
    options = ApplyOptions(date=DATE)
    expected = [apply_reply(doc, r, options).output for r in replies]

    def job(k: int) -> tuple[int, bytes | None]:
        return k % len(replies), apply_reply(doc, replies[k % len(replies)], options).output

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(job, range(48)))
    for k, output in results:
        assert output == expected[k]


def test_document_tools_serialise_calls_on_one_document(tmp_path: Path) -> None:
    tools_module = pytest.importorskip("redline.tools.session")
    tools_class = getattr(tools_module, "DocumentTools", None)
    if tools_class is None:
        pytest.skip("redline.tools has no DocumentTools")
    writers = 8
    path = tmp_path / "contract.docx"
    path.write_bytes(_clauses_doc(writers))
    tools = tools_class(tmp_path)

    def call(name: str, **arguments: Any) -> dict[str, Any]:
        if hasattr(tools, "handle"):
            result: dict[str, Any] = tools.handle(name, arguments)
        else:
            result = getattr(tools, name)(**arguments)
        return result

    errors: list[BaseException] = []

    def writer(i: int) -> None:
        try:
            for _attempt in range(100):
                revision = call("read_region", path=str(path))["revision"]
                result = call(
                    "apply_edits",
                    path=str(path),
                    revision=revision,
                    edits=[{"anchor": f"fee is {i} dollars", "replacement": f"fee is {i} euros"}],
                )
                statuses = {e["status"] for e in result["edits"]}
                if statuses == {"applied"}:
                    return
                assert statuses == {"stale"}, result
            raise AssertionError(f"writer {i} never applied")
        except BaseException as exc:  # pragma: no cover
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    text = accepted_text(path.read_bytes())
    for i in range(writers):
        assert text.count(f"fee is {i} euros") == 1


def test_document_tools_refuse_hostile_documents_with_their_code(tmp_path: Path) -> None:
    tools_module = pytest.importorskip("redline.tools.session")
    tools_class = getattr(tools_module, "DocumentTools", None)
    if tools_class is None or not hasattr(tools_class, "handle"):
        pytest.skip("redline.tools has no DocumentTools.handle")
    root = tmp_path / "root"
    root.mkdir()
    by_id = {c.id: c for c in ALL_CASES}
    files = {}
    for i, label in enumerate(BATCH_HOSTILE):
        path = root / f"hostile-{i:02d}.docx"
        path.write_bytes(by_id[label].document())
        files[path] = (by_id[label].code, sha256(path))
    tools = tools_class(root)
    for path, (code, digest) in files.items():
        started = time.process_time()
        read = tools.handle("read_region", {"path": path.name})
        applied = tools.handle(
            "apply_edits", {"path": path.name, "revision": "sha256:" + "0" * 64, "edits": [GOOD_EDIT]}
        )
        assert time.process_time() - started < 2 * TIME_LIMIT
        for result in (read, applied):
            assert result["error"]["code"] == code, (path.name, result)
            assert_sentence(result["error"]["message"])
        assert sha256(path) == digest
    assert sorted(p.name for p in root.iterdir()) == sorted(p.name for p in files)


# --- a batch of a few hundred documents, hostile ones mixed in -----------------------------

BATCH_HOSTILE = [
    "empty file",
    "random bytes",
    "plain text renamed .docx",
    "OLE file: legacy .doc",
    "encrypted member flag",
    "unknown compression method",
    "vbaProject.bin member",
    "no package relationships",
    "an .xlsx renamed .docx",
    "Strict officeDocument relationship",
    "case-duplicate part name",
    "'..' segment",
    "backslash name",
    "declared size over the cap",
    "high compression ratio",
    "too many members",
    "CRC mismatch",
    "zip bomb in document.xml (sizes lie)",
    "XXE in document.xml",
    "billion laughs",
    "nesting deeper than the parser allows",
    "malformed document.xml",
    "zip truncated at 0.5",
]


@dataclass
class BatchPlan:
    valid: list[str] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)


def _build_batch(src: Path, valid: int) -> BatchPlan:
    from testing.contractgen import Kind, generate_contract

    kinds: tuple[Kind, ...] = ("lease", "nda", "msa")
    plan = BatchPlan()
    by_id = {c.id: c for c in ALL_CASES}
    for k in range(valid):
        name = f"valid-{k:03d}"
        if k % 10 == 0:
            kind = kinds[k // 10 % 3]
            data = generate_contract(kind, seed=k, pages=1)
            view = build_view(Package.from_bytes(data))
            anchor = next(
                p_text[:40]
                for p in view.paragraphs
                if len(p_text := view.paragraph_text(p)) > 60 and view.text.count(p_text[:40]) == 1
            )
            edit = {"anchor": anchor, "replacement": anchor.upper()}
        else:
            body = f"<w:p><w:r><w:t>Document {k}: the Tenant shall pay rent of {k} dollars.</w:t></w:r></w:p>"
            data = h.docx({"word/document.xml": h.document(body)})
            edit = {"anchor": f"rent of {k} dollars", "replacement": f"rent of {k + 1} dollars"}
        (src / f"{name}.docx").write_bytes(data)
        (src / f"{name}.reply.json").write_text(json.dumps({"edits": [edit]}))
        plan.valid.append(name)
    for i, label in enumerate(BATCH_HOSTILE):
        name = f"hostile-{i:02d}"
        case = by_id[label]
        (src / f"{name}.docx").write_bytes(case.document())
        (src / f"{name}.reply.json").write_bytes(VALID_REPLY)
        assert case.code is not None
        plan.refused[name] = case.code
    for i, case in enumerate(c for c in REPLY_CASES if c.code is not None and c.time_limit == TIME_LIMIT):
        name = f"reply-{i:02d}"
        (src / f"{name}.docx").write_bytes(h.docx())
        (src / f"{name}.reply.json").write_bytes(case.reply())
        plan.refused[name] = "unparseable_reply"
    return plan


def _cpu_with_children() -> float:
    """CPU seconds of this process and of its children that have ended (the pool's workers,
    once the pool is shut down)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def test_a_batch_of_hundreds_with_hostile_documents_finishes_and_refuses_each(tmp_path: Path) -> None:
    from redline_review.runner import LocalPool, run_review
    from redline_review.storage import LocalStorage

    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    out.mkdir()
    plan = _build_batch(src, valid=200)
    before = {p.name: sha256(p) for p in src.iterdir()}
    started, cpu_started = time.perf_counter(), _cpu_with_children()
    summary = run_review(LocalStorage(src), LocalStorage(out), ApplyOptions(date=DATE), LocalPool(2))
    elapsed, cpu = time.perf_counter() - started, _cpu_with_children() - cpu_started
    data = json.loads((out / "summary.json").read_text())
    docs = {d["name"]: d for d in data["documents"]}
    assert len(docs) == len(plan.valid) + len(plan.refused) >= 200
    for name in plan.valid:
        assert docs[name]["outcome"] == "applied", docs[name]
        Package.from_bytes((out / f"{name}.redlined.docx").read_bytes())
    for name, code in plan.refused.items():
        d = docs[name]
        assert d["outcome"] == "refused" and d["exit"] == 3, d
        assert d["message"].endswith(f"[{code}]"), d
        assert d["output"] is None
        assert not (out / f"{name}.redlined.docx").exists()
        report = json.loads((out / f"{name}.report.json").read_text())
        assert report["error"]["code"] == code
    assert summary.exit_code == 1
    assert data["totals"]["by_outcome"] == {"applied": len(plan.valid), "refused": len(plan.refused)}
    assert {p.name: sha256(p) for p in src.iterdir()} == before
    assert _temporaries(out) == []
    assert cpu < 2 * 60, f"{cpu:.0f} CPU seconds"  # a minute on each of the pool's two workers
    assert elapsed < 10 * HANG_GUARD, f"{elapsed:.0f}s wall"


# --- clause-level edits in awkward places (issue 18) --------------------------------------

_FIELD_REF = (
    '<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> REF _Ref5 '
    '\\r \\h </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>4.2</w:t></w:r>'
    '<w:r><w:fldChar w:fldCharType="end"/></w:r>'
)
_MOVE_A = 'w:author="Mover" w:date="2020-01-01T00:00:00Z"'


def _p(text: str, ppr: str = "") -> str:
    return f"<w:p>{ppr}<w:r>{_t(text)}</w:r></w:p>"


def _body_doc(body: str) -> Callable[[], bytes]:
    return lambda: h.docx({"word/document.xml": h.document(body)})


_WML_CT = "application/vnd.openxmlformats-officedocument.wordprocessingml."


def _footnote_doc() -> bytes:
    """A body paragraph with a footnote of two paragraphs (and Word's separator notes)."""
    ns = f'xmlns:w="{W_NS}"'
    notes = (
        f'<w:footnotes {ns}><w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p>'
        '</w:footnote><w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:r>'
        "<w:continuationSeparator/>"
        '</w:r></w:p></w:footnote><w:footnote w:id="1"><w:p><w:r><w:footnoteRef/></w:r>'
        f"<w:r>{_t(' The first note paragraph.')}</w:r></w:p>{_p('The last note paragraph.')}</w:footnote>"
        "</w:footnotes>"
    )
    body = (
        f"<w:p><w:r>{_t('The Tenant shall pay rent.')}</w:r>"
        '<w:r><w:footnoteReference w:id="1"/></w:r></w:p>' + _p("Second clause.")
    )
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes"
    return h.docx(
        {
            "[Content_Types].xml": h.content_types({"/word/footnotes.xml": f"{_WML_CT}footnotes+xml"}),
            "word/document.xml": h.document(body),
            "word/_rels/document.xml.rels": h.rels(
                (
                    "rId1",
                    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles",
                    "styles.xml",
                ),
                ("rId2", rel, "footnotes.xml"),
            ),
            "word/footnotes.xml": h.DECL + notes.encode(),
        }
    )


CLAUSE_CASES = [
    pytest.param(
        _body_doc(
            f"<w:p><w:r>{_t('Pay as set out in Section ')}</w:r>{_FIELD_REF}"
            f"<w:r>{_t(' within ten days.')}</w:r></w:p>"
        ),
        [{"anchor": "as set out in Section 4.2 within", "replacement": "within"}],
        id="a deletion spanning a field",
    ),
    pytest.param(
        _body_doc(f"<w:p><w:r>{_t('See ')}</w:r>{_FIELD_REF}{_FIELD_REF}<w:r>{_t(' twice.')}</w:r></w:p>"),
        [{"anchor": "See 4.24.2 twice.", "replacement": ""}],
        id="a strike of a paragraph of two adjacent fields (both deleted whole, code and result)",
    ),
    pytest.param(
        _body_doc(
            "<w:tbl><w:tr><w:tc>"
            + _p("Cell first paragraph.")
            + _p("Cell last paragraph.")
            + "</w:tc><w:tc>"
            + _p("Other cell.")
            + "</w:tc></w:tr></w:tbl>"
            + _p("After the table.")
        ),
        [{"action": "insert_after", "anchor": "Cell last paragraph.", "text": "New cell line.\n\nAnother."}],
        id="an insertion after the last paragraph of a table cell",
    ),
    pytest.param(
        _footnote_doc,
        [{"action": "insert_after", "anchor": "The last note paragraph.", "text": "A new note paragraph."}],
        id="an insertion after the last paragraph of a footnote",
    ),
    pytest.param(
        _body_doc(
            _p("First clause.")
            + _p(
                "Last clause, ending a section.",
                '<w:pPr><w:sectPr><w:pgSz w:w="12240" w:h="15840"/></w:sectPr></w:pPr>',
            )
            + '<w:sectPr><w:pgSz w:w="15840" w:h="12240"/></w:sectPr>'
        ),
        [
            {
                "action": "insert_after",
                "anchor": "ending a section",
                "text": "After the section break.",
                "level": "+1",
            }
        ],
        id="an insertion after the last paragraph of the document and a section",
    ),
    pytest.param(
        _body_doc(_p("One clause.") + _p("Two clause.")),
        [
            {"action": "insert_after", "anchor": "One clause", "text": "First inserted."},
            {"action": "insert_after", "anchor": "One", "text": "Second inserted."},
            {"action": "insert_before", "anchor": "Two", "text": "Third inserted."},
        ],
        id="insertions at one place keep the reply's order",
    ),
    pytest.param(
        _body_doc(_p("Only paragraph of the document.")),
        [{"action": "insert_before", "anchor": "Only paragraph", "text": "“Quoted” first.\r\nSecond."}],
        id="an insertion before the only paragraph",
    ),
    pytest.param(
        _body_doc(
            f'<w:p><w:r>{_t("Start. ")}</w:r><w:moveFromRangeStart w:id="31" {_MOVE_A} w:name="m1"/>'
            f'<w:moveFrom w:id="32" {_MOVE_A}><w:r><w:delText>Moved words here.</w:delText></w:r>'
            "</w:moveFrom>"
            '<w:moveFromRangeEnd w:id="31"/></w:p>'
            f'<w:p><w:r>{_t("Target. ")}</w:r><w:moveToRangeStart w:id="33" {_MOVE_A} w:name="m1"/>'
            f'<w:moveTo w:id="34" {_MOVE_A}><w:r>{_t("Moved words here.")}</w:r></w:moveTo>'
            '<w:moveToRangeEnd w:id="33"/></w:p>'
        ),
        [{"anchor": "Moved words here.", "replacement": "Moved and changed words here.\nA new one."}],
        id="edits inside moved-to text",
    ),
    pytest.param(
        _body_doc(
            f'<w:p><w:r>{_t("Target. ")}</w:r><w:moveTo w:id="34" {_MOVE_A}>'
            f"<w:r>{_t('Unpaired move words.')}</w:r>"
            "</w:moveTo></w:p>"
        ),
        [{"anchor": "Unpaired move words.", "replacement": ""}],
        id="a strike of moved-to text with no move source",
    ),
    pytest.param(
        _body_doc(
            f'<w:p><w:ins w:id="40" {_MOVE_A}><w:moveTo w:id="41" {_MOVE_A}>'
            f"<w:r>{_t('Nested move words.')}</w:r>"
            "</w:moveTo></w:ins></w:p>" + _p("Next.")
        ),
        [{"anchor": "Nested move", "replacement": "Changed nested move"}],
        id="an edit of a move inside an insertion",
    ),
]


@pytest.mark.parametrize(("builder", "entries"), CLAUSE_CASES)
def test_a_clause_level_edit_in_an_awkward_place_is_refused_or_written_right(
    builder: Callable[[], bytes], entries: list[dict[str, object]], request: pytest.FixtureRequest
) -> None:
    """Never a crash; an applied edit's output reads (every revision accepted) as the input with
    the edits made, and pandoc's reject-all reads as the input."""
    data = builder()
    started = time.process_time()
    outcome = apply_reply(data, json.dumps(entries), ApplyOptions(date=DATE))
    assert time.process_time() - started < TIME_LIMIT
    check_outcome(outcome)
    if "refused" in (request.node.callspec.id or ""):
        assert [e.status for e in outcome.report.edits] == [EditStatus.UNSUPPORTED] * len(entries)
        return
    assert [e.status for e in outcome.report.edits] == [EditStatus.APPLIED] * len(entries), [
        e.error for e in outcome.report.edits
    ]
    assert outcome.output is not None
    assert tolerant(accepted_text(outcome.output)) in {
        tolerant(t) for t in expected_texts(data, outcome, entries)
    }
    from tests.oracles import pandoc_spaced

    assert pandoc_spaced(outcome.output, "reject") == pandoc_spaced(data, "reject")
    root = Package.from_bytes(outcome.output).xml("word/document.xml")
    body, before = root.find(w("body")), Package.from_bytes(data).xml("word/document.xml").find(w("body"))
    assert body is not None and before is not None
    assert (body[-1].tag == w("sectPr")) == (before[-1].tag == w("sectPr"))  # the body's section stays last
    assert sum(1 for p in root.iter(w("p")) for _ in p.iter(w("sectPr"))) <= sum(
        1 for p in Package.from_bytes(data).xml("word/document.xml").iter(w("p")) for _ in p.iter(w("sectPr"))
    )  # no new section break
