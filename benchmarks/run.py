"""The performance benchmark of issue 10: every row as a ratio against a reference measured in the
same run, medians over repeats, PASS/MISS against the target.

    python -m benchmarks.run            # the full table (~5-10 minutes on 2 cores)
    python -m benchmarks.run --quick    # tiny documents, one or two repeats: checks it runs

The references are computed here, never hard-coded: (a) is a bare ``lxml.etree.fromstring`` of the
same ``word/document.xml`` (already out of the zip), python-docx is ``docx.Document``.  Generated
contracts are cached under ``$TMPDIR/redline-bench-cache``.  Workloads scale with the document:
1,000 anchors on the 300-page contract (80% exact, 10% typography-stripped, 10% absent: a one-word
paraphrase), 200 of the exact ones with a real replacement (written), the others with the anchor
as replacement (verified, refused as ``no_change``, never written).  Smaller documents get the
same mix, proportionally fewer.
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import docx
from lxml import etree

from redline.apply import ApplyOptions, apply_reply, make_writer
from redline.match.hints import nearest
from redline.match.locate import Locator
from redline.match.verify import Planned, verify
from redline.opc import zipwrite
from redline.opc.package import Package
from redline.opc.zipwrite import ENGINE as WRITE_ENGINE
from redline.opc.zipwrite import LEVEL as WRITE_LEVEL
from redline.read.build import build_view, flatten, stories_of, verify_only_view
from redline.read.labels import numbering_of
from redline.read.view import DocumentView
from redline.write.writer import WriteOptions, Writer
from redline_review.runner import run_review
from redline_review.storage import LocalStorage
from shared_schema import Edit, EditBatch
from testing.contractgen import Kind, generate_contract

from . import processes
from .bench_check import measure as measure_check

S = TypeVar("S")
DATE = "2024-01-01T00:00:00Z"
CACHE = Path(tempfile.gettempdir()) / "redline-bench-cache"
TYPO = "\u2018\u2019\u201c\u201d\u00a0\u2013\u2014\u2011"
_STRIP = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u00a0": " ",
        "\u2013": "-",
        "\u2014": "-",
        "\u2011": "-",
    }
)
_PARAPHRASE = ["promptly", "reasonable", "material", "written", "applicable", "relevant", "prior"]


# ---------------------------------------------------------------------------------------------
# Measuring


def median_time(fn: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``fn()`` over ``repeats``, garbage collected before each."""
    return median_time_setup(lambda: None, lambda _: fn(), repeats)


def median_cpu(fn: Callable[[], object], repeats: int) -> float:
    """Median CPU time of this process (every thread) for ``fn()`` over ``repeats``."""
    return median_time_setup(lambda: None, lambda _: fn(), repeats, clock=time.process_time)


def median_time_setup(
    setup: Callable[[], S],
    fn: Callable[[S], object],
    repeats: int,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """Median ``clock`` time (wall time by default) of ``fn(setup())`` over ``repeats``;
    ``setup`` is not timed."""
    times: list[float] = []
    for _ in range(repeats):
        arg = setup()
        gc.collect()
        t0 = clock()
        fn(arg)
        times.append(clock() - t0)
        del arg
    return statistics.median(times)


@dataclass
class Row:
    step: str
    measured: str
    reference: str
    ratio: float | None
    target: str
    ok: bool | None  # None: informative, no target
    note: str = ""

    @property
    def verdict(self) -> str:
        return "—" if self.ok is None else ("PASS" if self.ok else "MISS")

    def cells(self) -> list[str]:
        ratio = "—" if self.ratio is None else _fmt_ratio(self.ratio)
        return [self.step, self.measured, self.reference, ratio, self.target, self.verdict, self.note]


HEADER = ["step", "measured", "reference", "ratio", "target", "result", "note"]


def _fmt_ratio(r: float) -> str:
    return f"{r:.3f}" if r < 10 else f"{r:.1f}"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


class Table:
    def __init__(self, out: Callable[[str], None]) -> None:
        self.rows: list[Row] = []
        self.out = out

    def add(self, row: Row) -> None:
        self.rows.append(row)
        self.out(
            f"  {row.verdict:4}  {row.step}: {row.measured} vs {row.reference}"
            f" -> {row.cells()[3]} (target {row.target}) {row.note}"
        )

    def markdown(self) -> str:
        lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
        for row in self.rows:
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in row.cells()) + " |")
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Documents and workloads


def contract(kind: Kind, seed: int, pages: float | None, runs: int = 20) -> bytes:
    """A generated contract, cached on disk (generation takes seconds for long documents)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"{kind}-{seed}-{pages}-{runs}.docx"
    if path.exists():
        return path.read_bytes()
    data = generate_contract(kind, seed=seed, pages=pages, runs_per_paragraph=runs)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
    return data


def document_xml(data: bytes) -> bytes:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return z.read("word/document.xml")


@dataclass
class Workload:
    exact: list[tuple[str, int]] = field(default_factory=list)  # (anchor, view offset)
    tolerant: list[tuple[str, int]] = field(default_factory=list)
    absent: list[tuple[str, int]] = field(default_factory=list)  # (paraphrase, offset of source)
    writes: list[tuple[str, str]] = field(default_factory=list)  # (anchor, replacement)

    def edits(self) -> list[Edit]:
        """Every anchor as an edit: the writes change text, the rest are ``no_change``."""
        written = dict(self.writes)
        out = [Edit(anchor=a, replacement=written.get(a, a)) for a, _ in self.exact]
        out += [Edit(anchor=a, replacement=a) for a, _ in self.tolerant]
        out += [Edit(anchor=a, replacement=a + " and") for a, _ in self.absent]
        return out

    def reply(self) -> str:
        edits = [{"anchor": e.anchor, "replacement": e.replacement} for e in self.edits()]
        return "Here are my proposed edits.\n\n```json\n" + json.dumps({"edits": edits}, indent=1) + "\n```\n"


def make_workload(view: DocumentView, n_anchors: int, seed: int = 7) -> Workload:
    """``n_anchors`` unique anchors, drawn by :func:`benchmarks.bench_locate.draw_anchors` (the
    locator benchmark's own mix: 80% exact, 10% typography-stripped, 10% one-word paraphrases);
    a fifth of them, exact and not overlapping each other, get a real replacement."""
    try:
        from benchmarks.bench_locate import draw_anchors
    except ImportError:  # the locator benchmark is not there: a simpler draw of the same mix
        return _own_workload(view, n_anchors, seed)
    work = Workload()
    for a in draw_anchors(view, n_anchors, seed):
        {"exact": work.exact, "typography": work.tolerant, "absent": work.absent}[a.kind].append(
            (a.text, a.start)
        )
    taken: list[tuple[int, int]] = []
    for anchor, start in work.exact:
        if len(work.writes) >= max(1, n_anchors // 5):
            break
        end = start + len(anchor)
        if any(s < end + 1 and start < e + 1 for s, e in taken):
            continue
        taken.append((start, end))
        work.writes.append((anchor, _revised(anchor)))
    return work


def _revised(anchor: str) -> str:
    words = anchor.split(" ")
    k = len(words) // 2
    words[k] = "reasonable" if words[k] != "reasonable" else "material"
    return " ".join(words)


def _own_workload(view: DocumentView, n_anchors: int, seed: int) -> Workload:
    rng = random.Random(seed)
    locator = Locator(view)
    text = view.text
    paras = [p for p in view.paragraphs if p.story == "body" and p.end - p.start > 60]
    rng.shuffle(paras)
    n_tol = max(1, n_anchors // 10)
    n_abs = max(1, n_anchors // 10)
    n_exact = max(1, n_anchors - n_tol - n_abs)
    n_write = max(1, n_anchors // 5)
    work = Workload()
    used: set[int] = set()

    def windows(p_start: int, p_end: int) -> Iterator[tuple[int, int]]:
        words = [(m_start, m_start + len(wd)) for m_start, wd in _words(text, p_start, p_end)]
        if len(words) < 8:
            return
        for _ in range(6):
            n = rng.randint(6, min(14, len(words)))
            i = rng.randint(0, len(words) - n)
            yield words[i][0], words[i + n - 1][1]

    def take(want_typo: bool) -> tuple[str, int] | None:
        for idx, p in enumerate(paras):
            if idx in used:
                continue
            for s, e in windows(p.start, p.end):
                anchor = text[s:e]
                if want_typo != any(c in TYPO for c in anchor):
                    continue
                if locator.count(anchor, 1) == 1:
                    used.add(idx)
                    return anchor, s
        return None

    for _ in range(n_tol):
        got = take(True)
        if got is None:
            break
        work.tolerant.append((got[0].translate(_STRIP), got[1]))
    for _ in range(n_abs):
        got = take(False)
        if got is None:
            break
        words = got[0].split(" ")
        k = rng.randint(1, len(words) - 2)
        words[k] = next(w for w in _PARAPHRASE if w != words[k])
        paraphrase = " ".join(words)
        if locator.count(paraphrase, 1) == 0:
            work.absent.append((paraphrase, got[1]))
    for _ in range(n_exact):
        got = take(False)
        if got is None:
            used.clear()  # reuse paragraphs (other windows) once each has given one anchor
            got = take(False)
            if got is None:
                break
        work.exact.append(got)
    work.writes = [(anchor, _revised(anchor)) for anchor, _ in work.exact[:n_write]]
    return work


def _words(text: str, start: int, end: int) -> Iterator[tuple[int, str]]:
    pos = start
    for word in text[start:end].split(" "):
        if word.strip() and "\t" not in word and "\n" not in word:
            yield pos, word
        pos += len(word) + 1


def anchors_for(pages: float) -> int:
    return max(10, round(1000 * pages / 300))


# ---------------------------------------------------------------------------------------------
# The steps


def load_flatten(data: bytes) -> DocumentView:
    return build_view(Package.from_bytes(data))


def load_walk(data: bytes) -> DocumentView:
    """The tree walk the view falls back to for parts the scanner declines."""
    package = Package.from_bytes(data)
    return flatten(stories_of(package), package.revision, numbering_of(package))


def _paragraph_text(d: Any) -> str:
    """python-docx's text of the body paragraphs and table cells (no offsets, no stories)."""
    parts = [p.text for p in d.paragraphs]
    for table in d.tables:
        for row in table.rows:
            for cell in row.cells:
                parts.extend(p.text for p in cell.paragraphs)
    return "\n".join(parts)


def docx_text(data: bytes) -> str:
    return _paragraph_text(docx.Document(io.BytesIO(data)))


def docx_open_text_save(data: bytes) -> bytes:
    d = docx.Document(io.BytesIO(data))
    _paragraph_text(d)
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


def verify_all(view: DocumentView, batch: EditBatch) -> tuple[Locator, Any]:
    locator = Locator(view)
    return locator, verify(locator, batch, hints=False)


@dataclass
class Loaded:
    package: Package
    view: DocumentView
    planned: list[Planned]


def loaded_for_write(data: bytes, writes: list[tuple[str, str]], trees: bool = True) -> Loaded:
    """Loaded and verified; ``trees``: the XML trees a scanned view defers to writing parsed
    too (measured on their own as the tree-parse row)."""
    package = Package.from_bytes(data)
    view = build_view(package)
    batch = EditBatch(edits=[Edit(anchor=a, replacement=r) for a, r in writes])
    planned = verify(Locator(view), batch, hints=False).planned
    if trees:
        view.check_tree()
    return Loaded(package, view, planned)


def write_revisions(ld: Loaded) -> Writer:
    writer = make_writer(ld.package, ld.view, WriteOptions(date=DATE, comments=False))
    writer.write(ld.planned)
    return writer


def save(ld: Loaded, writer: Writer) -> bytes:
    assert writer.splice is not None
    return ld.package.to_bytes(writer.splice.changed(writer.result.touched_parts))


# ---------------------------------------------------------------------------------------------
# Peak memory (a fresh child process per measurement: lxml allocates outside tracemalloc's view,
# and ru_maxrss survives exec, so the child reads its own VmHWM: testing/measure.py's "load")

_ROOT = Path(__file__).resolve().parent.parent


def peak_kib(mode: str, path: Path, repeats: int) -> float:
    values = []
    for _ in range(repeats):
        out = subprocess.run(
            [sys.executable, "-m", "testing.measure", "load", mode, str(path)],
            capture_output=True,
            text=True,
            check=True,
            cwd=_ROOT,
        )
        values.append(float(out.stdout.strip()))
    return max(1.0, statistics.median(values))


# ---------------------------------------------------------------------------------------------
# One document, every step


@dataclass
class Steps:
    chars: int
    load_flatten: float
    verify: float
    hints: list[float]
    write: float
    save: float
    e2e: float
    edits_written: int
    trees: float  # parsing the trees behind a scanned view (done once, before writing)
    found_exact: float = 0.0
    found_tolerant: float = 0.0
    false_positives: int = 0
    traced: float = 0.0


def measure_steps(data: bytes, work: Workload, repeats: int) -> Steps:
    view = load_flatten(data)
    t_load = median_time(lambda: load_flatten(data), repeats)
    batch = EditBatch(edits=work.edits())
    t_verify = median_time(lambda: verify_all(view, batch), repeats)

    # accuracy of the verdicts (the locator's own rows are in bench_locate; this is a check)
    locator, verification = verify_all(view, batch)
    results = verification.results
    ne, nt = len(work.exact), len(work.tolerant)

    def hit(i: int, offset: int) -> bool:
        return any(loc.start == offset for loc in results[i].locations or [])

    found_exact = sum(hit(i, s) for i, (_, s) in enumerate(work.exact)) / max(1, ne)
    found_tol = sum(hit(ne + i, s) for i, (_, s) in enumerate(work.tolerant)) / max(1, nt)
    false_pos = sum(bool(results[ne + nt + i].locations) for i in range(len(work.absent)))

    hint_times: list[float] = []
    traced = 0
    for anchor, source in work.absent:
        per = []
        near = None
        for _ in range(max(1, repeats // 2)):
            t0 = time.perf_counter()
            near = nearest(locator, anchor)
            per.append(time.perf_counter() - t0)
        hint_times.append(statistics.median(per))
        if near is not None and near.start < source + len(anchor) and source < near.end:
            traced += 1

    def setup() -> Loaded:
        return loaded_for_write(data, work.writes)

    t_write = median_time_setup(setup, write_revisions, repeats)
    t_trees = median_time_setup(
        lambda: loaded_for_write(data, work.writes, trees=False), lambda ld: ld.view.check_tree(), repeats
    )

    def setup_written() -> tuple[Loaded, Writer]:
        ld = setup()
        return ld, write_revisions(ld)

    t_save = median_time_setup(setup_written, lambda a: save(*a), repeats)
    written = len(setup().planned)
    reply = work.reply()
    options = ApplyOptions(date=DATE)
    t_e2e = median_time(lambda: apply_reply(data, reply, options), repeats)
    return Steps(
        len(view.text),
        t_load,
        t_verify,
        hint_times,
        t_write,
        t_save,
        t_e2e,
        written,
        t_trees,
        found_exact,
        found_tol,
        false_pos,
        traced / max(1, len(work.absent)),
    )


# ---------------------------------------------------------------------------------------------
# The table


@dataclass
class Config:
    big_pages: float
    small_pages: float
    sizes: Sequence[float]
    repeats: int
    small_repeats: int
    batch_docs: int
    batch_pages: float
    batch_repeats: int
    mem_repeats: int
    dask: bool
    process_repeats: int = 7  # whole processes (start-up, 10 pages, the floor), interleaved
    big_process_repeats: int = 5  # whole processes on the big contract
    peers: bool = True  # the side-by-side row (installs them into a throw-away environment)
    dense_edits: int = 200  # edits written on the small contract (the per-edit floor row)
    before: Path | None = None  # an older checkout: its process rows measured in the same run


FULL = Config(300, 10, (10, 30, 100, 300), 5, 9, 100, 3, 3, 3, True)
QUICK = Config(3, 2, (1, 3), 1, 1, 4, 1, 1, 1, True, 1, 1, False, 20)


def run(config: Config, out: Callable[[str], None] = print) -> Table:
    table = Table(out)
    t_start = time.perf_counter()
    out(f"generating/caching contracts under {CACHE} ...")
    big = contract("msa", 1, config.big_pages)
    big_path = CACHE / f"msa-1-{config.big_pages}-20.docx"
    xml = document_xml(big)
    view = load_flatten(big)
    out(
        f"big contract: {config.big_pages} pages, {len(big) / 1e6:.2f} MB .docx, document.xml "
        f"{len(xml) / 1e6:.1f} MB, view {len(view.text) / 1e6:.2f} M chars, "
        f"{len(view.paragraphs)} paragraphs"
    )
    r = config.repeats

    # (a) and the python-docx references
    for _ in range(2):  # the first parses of a 70 MB tree grow the heap: not what (a) measures
        etree.fromstring(xml)
    t_bare = median_time(lambda: etree.fromstring(xml), max(r, 7))
    t_docx_text = median_time(lambda: docx_text(big), r)
    t_docx_all = median_time(lambda: docx_open_text_save(big), r)

    def docx_doc() -> Any:
        return docx.Document(io.BytesIO(big))

    t_docx_save = median_time_setup(docx_doc, lambda d: d.save(io.BytesIO()), r)
    out(
        f"references: bare parse (a) {ms(t_bare)}; python-docx text {ms(t_docx_text)}, "
        f"save {ms(t_docx_save)}, open+text+save {ms(t_docx_all)}"
    )

    work = make_workload(view, anchors_for(config.big_pages))
    n_anchors = len(work.exact) + len(work.tolerant) + len(work.absent)
    out(
        f"workload: {len(work.exact)} exact, {len(work.tolerant)} tolerant, {len(work.absent)} absent, "
        f"{len(work.writes)} writes"
    )
    steps = {config.big_pages: measure_steps(big, work, r)}
    s = steps[config.big_pages]

    # (1) load + flatten
    table.add(
        Row(
            "1. load + flatten all stories",
            ms(s.load_flatten),
            f"(a) {ms(t_bare)}",
            s.load_flatten / t_bare,
            "≤ 1.3×(a)",
            s.load_flatten / t_bare <= 1.3,
        )
    )
    cpu_bare = median_cpu(lambda: etree.fromstring(xml), r)
    cpu_load = median_cpu(lambda: load_flatten(big), r)
    table.add(
        Row(
            "1. load + flatten, CPU time",
            ms(cpu_load),
            f"(a) {ms(cpu_bare)}",
            cpu_load / cpu_bare,
            "—",
            None,
            "both threads: the parser check overlaps the scan on a second core",
        )
    )
    t_walk = median_time(lambda: load_walk(big), r)
    table.add(
        Row(
            "1. load + flatten, tree walk (the fallback)",
            ms(t_walk),
            f"(a) {ms(t_bare)}",
            t_walk / t_bare,
            "—",
            None,
            "lxml parse + walk, for parts the scanner declines",
        )
    )
    table.add(
        Row(
            "1. load + flatten vs python-docx text",
            ms(s.load_flatten),
            f"docx {ms(t_docx_text)}",
            s.load_flatten / t_docx_text,
            "≤ 0.25×",
            s.load_flatten / t_docx_text <= 0.25,
        )
    )

    # (2) peak memory
    m_bare = peak_kib("bare", big_path, config.mem_repeats)
    m_ours = peak_kib("ours", big_path, config.mem_repeats)
    table.add(
        Row(
            "2. peak memory of load + flatten",
            f"{m_ours / 1024:.1f} MiB",
            f"(a) {m_bare / 1024:.1f} MiB",
            m_ours / m_bare,
            "≤ 1.3×(a)",
            m_ours / m_bare <= 1.3,
            "peak RSS growth (VmHWM), child process",
        )
    )
    m_stream = peak_kib("stream", big_path, config.mem_repeats)
    ratio = m_stream * 1024 / len(xml)
    table.add(
        Row(
            "2. peak memory, verify-only view streamed, vs document.xml",
            f"{m_stream / 1024:.1f} MiB",
            f"document.xml {len(xml) / 2**20:.1f} MiB",
            ratio,
            "≤ 1× (verify-only streaming)",
            ratio <= 1.0,
            "verify_only_view, main part streamed in 64 KiB pieces",
        )
    )
    t_stream = median_time(lambda: verify_only_view(Package.from_bytes(big, stream_main=True)), r)
    table.add(
        Row(
            "2. time of the streamed verify-only view",
            ms(t_stream),
            f"(a) {ms(t_bare)}",
            t_stream / t_bare,
            "—",
            None,
            "same text, paragraphs, labels and flags as the full view",
        )
    )

    # (3) verify
    note = (
        f"{n_anchors} anchors; exact found {s.found_exact:.0%}, tolerant found {s.found_tolerant:.0%}, "
        f"false positives {s.false_positives}"
    )
    table.add(
        Row(
            "3. verify anchors (normalised text incl.)",
            ms(s.verify),
            f"(a) {ms(t_bare)}",
            s.verify / t_bare,
            "≤ 0.6×(a)",
            s.verify / t_bare <= 0.6,
            note,
        )
    )

    # (4) hints
    h = statistics.median(s.hints) if s.hints else float("nan")
    h_max = max(s.hints) if s.hints else float("nan")
    table.add(
        Row(
            "4. near-miss hint per absent anchor (median)",
            ms(h),
            "—",
            None,
            "≤ 10 ms",
            h <= 0.010,
            f"{len(s.hints)} misses, max {ms(h_max)}, traced to source {s.traced:.0%} (≥ 90%)",
        )
    )

    # (5) write back
    per_edit = (s.write + s.save) / max(1, s.edits_written)
    table.add(
        Row(
            f"5. write back {s.edits_written} edits (revisions+serialise+zip)",
            f"{per_edit * 1e6:.0f} µs/edit",
            "—",
            None,
            "≤ 100 µs/edit",
            per_edit <= 100e-6,
            f"revisions {ms(s.write)}, save {ms(s.save)}",
        )
    )
    table.add(
        Row(
            "5. save (changed paragraphs spliced in + zip)",
            ms(s.save),
            f"python-docx save {ms(t_docx_save)}",
            s.save / t_docx_save,
            "≤ 0.75×",
            s.save / t_docx_save <= 0.75,
        )
    )
    table.add(
        Row(
            "5. parse the trees a scanned view defers to writing",
            ms(s.trees),
            f"(a) {ms(t_bare)}",
            s.trees / t_bare,
            "—",
            None,
            "once per document written (lxml parse + node list); in end to end, not in row 5",
        )
    )

    # (6) end to end
    table.add(
        Row(
            "6. end to end in process",
            ms(s.e2e),
            f"(a) {ms(t_bare)}",
            s.e2e / t_bare,
            "≤ 5×(a)",
            s.e2e / t_bare <= 5,
            f"{n_anchors}-edit reply, {s.edits_written} written",
        )
    )
    table.add(
        Row(
            "6. end to end vs python-docx open+text+save",
            ms(s.e2e),
            f"docx {ms(t_docx_all)}",
            s.e2e / t_docx_all,
            "≤ 0.7×",
            s.e2e / t_docx_all <= 0.7,
        )
    )
    small = contract("msa", 2, config.small_pages)
    small_view = load_flatten(small)
    small_work = make_workload(small_view, anchors_for(config.small_pages))
    small_reply = small_work.reply()
    opts = ApplyOptions(date=DATE)
    t_small = median_time(lambda: apply_reply(small, small_reply, opts), config.small_repeats)
    n_small = len(small_work.exact) + len(small_work.tolerant) + len(small_work.absent)
    table.add(
        Row(
            f"6. end to end, {config.small_pages:g}-page contract",
            ms(t_small),
            "—",
            None,
            "≤ 100 ms",
            t_small <= 0.100,
            f"{n_small}-edit reply, {len(small_work.writes)} written",
        )
    )

    # (15) redline check against the view it reads (issue 33; benchmarks/bench_check.py)
    checked = measure_check(big, r)
    table.add(
        Row(
            "15. redline check vs its view",
            ms(checked.check),
            f"view {ms(checked.view)}",
            checked.ratio,
            "≤ 1.5×",
            checked.ratio <= 1.5,
            f"CPU, the view included; {checked.findings} findings, {checked.paragraphs} paragraphs",
        )
    )

    # per edit, and apply against the floor (inflate + parse + deflate the main part)
    _per_edit(config, table, big, view, work, r)
    _floor_rows(config, table, big, big_path, work, r)

    # whole processes: start-up, the 10-page contract, the side-by-side peers, deflate engines
    _process_rows(config, table, out)
    _peer_rows(config, table, out)
    _compression_row(config, table, out, big_path)

    # (7) growth
    for pages in config.sizes:
        if pages in steps:
            continue
        data = contract("msa", 1, pages)
        v = load_flatten(data)
        steps[pages] = measure_steps(data, make_workload(v, anchors_for(pages)), max(r, config.small_repeats))
    xs = [math.log(steps[p].chars) for p in config.sizes]
    per_step: dict[str, Callable[[Steps], float]] = {
        "load + flatten": lambda st: st.load_flatten,
        "verify": lambda st: st.verify,
        "hints (all misses)": lambda st: sum(st.hints),
        "write revisions": lambda st: st.write,
        "save": lambda st: st.save,
        "end to end": lambda st: st.e2e,
    }
    sizes = ", ".join(f"{p:g}" for p in config.sizes)
    for name, get in per_step.items():
        ys = [math.log(max(get(steps[p]), 1e-9)) for p in config.sizes]
        slope = _slope(xs, ys)
        series = ", ".join(ms(get(steps[p])) for p in config.sizes)
        table.add(
            Row(
                f"7. growth: {name}",
                f"slope {slope:.2f}",
                f"pages {sizes}",
                None,
                "slope ≤ 1.1",
                slope <= 1.1,
                series,
            )
        )

    # (8) batch review
    _batch(config, table, out)

    # the largest real document of the corpus
    corpus = os.environ.get("REDLINE_CORPUS")
    if corpus and Path(corpus).is_dir():
        docs = sorted(Path(corpus).rglob("*.docx"), key=lambda p: p.stat().st_size)
        if docs:
            data = docs[-1].read_bytes()
            cx = document_xml(data)
            tb = median_time(lambda: etree.fromstring(cx), r)
            tl = median_time(lambda: load_flatten(data), r)
            table.add(
                Row(
                    f"1. corpus: load + flatten {docs[-1].name}",
                    ms(tl),
                    f"(a) {ms(tb)}",
                    tl / tb,
                    "≤ 1.3×(a)",
                    tl / tb <= 1.3,
                    f"largest of {len(docs)}",
                )
            )
    else:
        table.add(
            Row(
                "1. corpus: load + flatten largest document",
                "—",
                "—",
                None,
                "≤ 1.3×(a)",
                None,
                "$REDLINE_CORPUS not set",
            )
        )
    out(f"total benchmark time {time.perf_counter() - t_start:.0f} s")
    return table


# ---------------------------------------------------------------------------------------------
# Per edit, the floor, whole processes, peers (issue 22)


def floor(data: bytes, level: int = WRITE_LEVEL) -> bytes:
    """What any editor of the main part must pay: inflate it out of the zip, parse it with lxml,
    deflate it back (one stream, the writer's engine and level); nothing else."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        xml = z.read("word/document.xml")
    etree.fromstring(xml)
    if WRITE_ENGINE == "libdeflate":
        return zipwrite.deflate(xml)[0]
    packer = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)
    return packer.compress(xml) + packer.flush()


def dense_writes(view: DocumentView, n: int) -> list[tuple[str, str]]:
    """Up to ``n`` edits on a short document: along each body paragraph, the shortest window of
    three or more words from here that occurs once, then a word's gap (so no two edits touch);
    each edit changes the window's middle word."""
    locator = Locator(view)
    text = view.text
    out: list[tuple[str, str]] = []
    for p in view.paragraphs:
        if p.story != "body":
            continue
        words = text[p.start : p.end].split(" ")
        i = 0
        while i <= len(words) - 3:
            size = next((k for k in range(3, 13) if _unique_window(locator, words[i : i + k], k)), None)
            if size is None:
                i += 1
                continue
            anchor = " ".join(words[i : i + size])
            out.append((anchor, _revised(anchor)))
            if len(out) >= n:
                return out
            i += size + 1
    return out


def _unique_window(locator: Locator, window: list[str], size: int) -> bool:
    if len(window) < size or any(not w or "\t" in w or "\n" in w for w in window):
        return False
    return locator.count(" ".join(window), 2) == 1


def writes_reply(writes: list[tuple[str, str]]) -> str:
    edits = [{"anchor": a, "replacement": b} for a, b in writes]
    return "```json\n" + json.dumps({"edits": edits}, indent=1, ensure_ascii=False) + "\n```\n"


def _per_edit(config: Config, table: Table, big: bytes, view: DocumentView, work: Workload, r: int) -> None:
    """Beside row 5's write-back: what locating and verifying cost per edit, on the same 200
    written edits of the big contract."""
    writes = work.writes
    n = max(1, len(writes))

    def prepared() -> Locator:
        locator = Locator(view)
        locator.prepare()
        return locator

    def locate_all(locator: Locator) -> None:
        for anchor, _ in writes:
            locator.find(anchor)

    t_index = median_time(lambda: Locator(view).prepare(), r)
    t_locate = median_time_setup(prepared, locate_all, r)  # a fresh locator: nothing found before
    batch = EditBatch(edits=[Edit(anchor=a, replacement=b) for a, b in writes])
    t_verify = median_time(lambda: verify_all(view, batch), r)
    table.add(
        Row(
            f"5. per edit: locate ({len(writes)} anchors)",
            f"{t_locate / n * 1e6:.0f} µs/edit",
            "—",
            None,
            "—",
            None,
            f"index built once: {ms(t_index)}",
        )
    )
    table.add(
        Row(
            f"5. per edit: verify ({len(writes)} edits)",
            f"{t_verify / n * 1e6:.0f} µs/edit",
            "—",
            None,
            "—",
            None,
            "index + locate + batch checks, over the batch",
        )
    )


def _floor_rows(config: Config, table: Table, big: bytes, big_path: Path, work: Workload, r: int) -> None:
    opts = ApplyOptions(date=DATE)
    # the small contract, with many edits
    small = contract("msa", 1, config.small_pages)
    dense = dense_writes(load_flatten(small), config.dense_edits)
    dense_reply = writes_reply(dense)
    t_floor_small = median_time(lambda: floor(small), max(r, config.small_repeats))
    t_dense = median_time(lambda: apply_reply(small, dense_reply, opts), max(r, config.small_repeats))
    table.add(
        Row(
            f"6. apply {len(dense)} edits, {config.small_pages:g}-page contract, vs the floor",
            ms(t_dense),
            f"floor {ms(t_floor_small)}",
            t_dense / t_floor_small,
            "≤ 2×",
            t_dense / t_floor_small <= 2,
            f"in process; floor = inflate + lxml parse + deflate document.xml; {len(dense)} edits: every "
            f"unique window it holds, up to {config.dense_edits}",
        )
    )
    # the big contract, its 200 written edits alone
    reply = writes_reply(work.writes)
    t_floor = median_time(lambda: floor(big), r)
    t_apply = median_time(lambda: apply_reply(big, reply, opts), r)
    table.add(
        Row(
            f"11. apply {len(work.writes)} edits, {config.big_pages:g} pages, vs the floor (in process)",
            ms(t_apply),
            f"floor {ms(t_floor)}",
            t_apply / t_floor,
            "≤ 1.3×",
            t_apply / t_floor <= 1.3,
            f"deflate level {WRITE_LEVEL}",
        )
    )
    folder = Path(tempfile.mkdtemp(prefix="redline-bench-"))
    reply_path = folder / "reply.md"
    reply_path.write_text(reply, encoding="utf-8")
    processes.compile_bytecode()
    ours = processes.redline("apply", str(big_path), str(reply_path), "-o", str(folder / "out.docx"),
                             "--date", DATE, name="ours")  # fmt: skip
    commands = [processes.floor(big_path, WRITE_LEVEL), ours]
    if config.before is not None:
        commands.append(processes.redline("apply", str(big_path), str(reply_path), "-o",
                                          str(folder / "before.docx"), "--date", DATE,
                                          root=config.before, name="before"))  # fmt: skip
    got = processes.interleaved(commands, config.big_process_repeats)
    f, o = got["floor"], got["ours"]
    table.add(
        Row(
            f"11. apply {len(work.writes)} edits, {config.big_pages:g} pages, vs the floor (processes)",
            ms(o.cpu),
            f"floor {ms(f.cpu)}",
            o.cpu / f.cpu,
            "≤ 1.5×",
            o.cpu / f.cpu <= 1.5,
            f"CPU time; wall {ms(o.wall)} vs {ms(f.wall)} ({o.wall / f.wall:.2f}×)" + _before(got, "floor"),
        )
    )


def _before(got: dict[str, processes.Timing], reference: str) -> str:
    if "before" not in got:
        return ""
    b = got["before"]
    return f"; before: {ms(b.cpu)} ({b.cpu / got[reference].cpu:.2f}×)"


def _process_rows(config: Config, table: Table, out: Callable[[str], None]) -> None:
    """Start-up, ``view`` and ``apply`` of 20 edits on the small contract, each as the process a
    user runs, against the python-docx process that does the least of the same."""
    processes.compile_bytecode()
    doc = CACHE / f"msa-1-{config.small_pages}-20.docx"
    small = contract("msa", 1, config.small_pages)
    writes = dense_writes(load_flatten(small), 20)
    folder = Path(tempfile.mkdtemp(prefix="redline-bench-"))
    reply = folder / "reply.md"
    reply.write_text(writes_reply(writes), encoding="utf-8")
    apply_args = ("apply", str(doc), str(reply), "-o", str(folder / "out.docx"), "--date", DATE)
    cases = [
        ("--version", ("--version",), processes.docx_import(), "9. start-up: redline --version"),
        ("--help", ("--help",), processes.docx_import(), "9. start-up: redline --help"),
        ("view", ("view", str(doc)), processes.docx_text(doc),
         f"9. redline view, {config.small_pages:g}-page contract"),
        ("apply", apply_args, processes.docx_save(doc, folder / "docx.docx"),
         f"9. redline apply, {len(writes)} edits, {config.small_pages:g}-page contract"),
    ]  # fmt: skip
    commands: list[processes.Command] = []
    for key, args, reference, _ in cases:
        commands.append(processes.redline(*args, name=f"ours {key}"))
        if config.before is not None:
            before_args = args if key != "apply" else (*args[:4], str(folder / "before.docx"), *args[5:])
            commands.append(processes.redline(*before_args, root=config.before, name=f"before {key}"))
        if all(c.name != reference.name for c in commands):
            commands.append(reference)
    got = processes.interleaved(commands, config.process_repeats)
    for key, _args, reference, step in cases:
        o, ref = got[f"ours {key}"], got[reference.name]
        note = f"CPU time; wall {ms(o.wall)} vs {ms(ref.wall)} ({o.wall / ref.wall:.2f}×)"
        if f"before {key}" in got:
            b = got[f"before {key}"]
            note += f"; before: {ms(b.cpu)} ({b.cpu / ref.cpu:.2f}×)"
        table.add(Row(step + " (process)", ms(o.cpu), f"{reference.name} {ms(ref.cpu)}", o.cpu / ref.cpu,
                      "≤ 1.0×", o.cpu / ref.cpu <= 1.0, note))  # fmt: skip
    out("python -X importtime, redline apply (20 edits): the largest own import times")
    for module, own, cumulative in processes.import_offenders(apply_args):
        out(f"    {own:7.1f} ms own {cumulative:8.1f} ms with its imports  {module}")


def _peer_rows(config: Config, table: Table, out: Callable[[str], None]) -> None:
    """The side-by-side row: each peer as a process on the small contract with the same 20
    edits, against ``redline apply`` (CPU time; their in-process time in the note)."""
    from . import peers

    step = "12. side by side"
    if not config.peers:
        table.add(
            Row(
                f"{step}: peers vs redline apply", "—", "—", None, "—", None, "skipped (--quick / --no-peers)"
            )
        )
        return
    py, missing = peers.environment(peers.PEERS, out)
    doc = CACHE / f"msa-1-{config.small_pages}-20.docx"
    small = contract("msa", 1, config.small_pages)
    writes = dense_writes(load_flatten(small), 20)
    folder = Path(tempfile.mkdtemp(prefix="redline-bench-peers-"))
    edits = folder / "edits.json"
    edits.write_text(json.dumps(writes, ensure_ascii=False), encoding="utf-8")
    reply = folder / "reply.md"
    reply.write_text(writes_reply(writes), encoding="utf-8")
    ours = processes.redline("apply", str(doc), str(reply), "-o", str(folder / "ours.docx"), "--date", DATE,
                             name="redline")  # fmt: skip
    commands = [ours]
    available = [p for p in peers.PEERS if p.name not in missing and py is not None]
    for peer in available:
        assert py is not None
        commands.append(processes.Command(peer.name, [py, "-c", peers.RUNNER, peer.name, str(doc), str(edits),
                                                      str(folder / f"{peer.name}.docx")]))  # fmt: skip
    got = processes.interleaved(commands, max(1, config.process_repeats // 2))
    inside = {p.name: peers.run_peer(str(py), p.name, doc, edits, folder / "x.docx") for p in available}
    t_ours = median_time(lambda: apply_reply(small, writes_reply(writes), ApplyOptions(date=DATE)), 5)
    o = got["redline"]
    for peer in peers.PEERS:
        if peer.name in missing:
            table.add(Row(f"{step}: {peer.name}", "—", f"redline apply {ms(o.cpu)}", None, "—", None,
                          f"skipped: {missing[peer.name]}"))  # fmt: skip
            continue
        g, ins = got[peer.name], inside[peer.name]
        applied = "no edits (open + save)" if peer.name == "python-docx" else f"applied {ins['applied']:.0f}"
        table.add(
            Row(
                f"{step}: {peer.name} vs redline apply, {len(writes)} edits, {config.small_pages:g} pages",
                ms(g.cpu),
                f"redline apply {ms(o.cpu)}",
                g.cpu / o.cpu,
                "— (> 1: redline is faster)",
                None,
                f"process CPU; {applied} of {len(writes)}; in process {ms(ins['seconds'])} vs redline "
                f"{ms(t_ours)} ({ins['seconds'] / t_ours:.1f}×)",
            )
        )


def _compression_row(config: Config, table: Table, out: Callable[[str], None], big_path: Path) -> None:
    """isal and zlib-ng against the stdlib's zlib at the writer's level (issue 22: adopt one only
    if faster at no more than 2% larger output)."""
    from . import compression, peers

    step = "13. deflate engines"
    if not config.peers:
        table.add(
            Row(
                f"{step}: deflate engines vs zlib", "—", "—", None, "—", None,
                "skipped (--quick / --no-peers)",
            )
        )
        return
    py, _missing = peers.environment(peers.PEERS, out)  # made by the side-by-side row
    if py is None:
        table.add(Row(f"{step}: deflate engines vs zlib", "—", "—", None, "—", None, "skipped: no Python"))
        return
    try:
        got = compression.measure(py, big_path, WRITE_LEVEL)
    except subprocess.CalledProcessError as exc:
        table.add(Row(f"{step}: deflate engines vs zlib", "—", "—", None, "—", None, f"failed: {exc}"))
        return
    runs: list[dict[str, Any]] = got["runs"]  # type: ignore[assignment]
    base = next(x for x in runs if x["engine"] == "zlib" and x["level"] == WRITE_LEVEL)
    for run in runs:
        out(
            f"    deflate {run['engine']:8} level {run['level']}: {ms(run['seconds'])}, "
            f"size {run['bytes'] / base['bytes']:.3f}× zlib {WRITE_LEVEL}"
        )
    others = [x for x in runs if x["engine"] != "zlib"]

    def size_of(run: dict[str, Any]) -> float:
        return float(run["bytes"]) / float(base["bytes"])

    for engine in sorted({x["engine"] for x in others}):
        mine = [x for x in others if x["engine"] == engine]
        within = [x for x in mine if x["bytes"] <= 1.02 * base["bytes"]]
        best = min(within, key=lambda x: x["seconds"]) if within else None
        fastest = min(mine, key=lambda x: x["seconds"])
        if best is not None:
            ratio = best["seconds"] / base["seconds"]
            measured = f"level {best['level']}: {ms(best['seconds'])}"
            ok = ratio <= 0.9  # a clear win (the timings of one run move by a few per cent)
        else:
            ratio, measured, ok = None, "none within 2%", False
        table.add(
            Row(
                f"{step}: {engine}, fastest within 2% of zlib's size",
                measured,
                f"zlib {WRITE_LEVEL} {ms(base['seconds'])}",
                ratio,
                "≥ 10% faster at ≤ 2% larger, to adopt",
                None,
                f"{'a clear win (≥ 10% faster)' if ok else 'no clear win'}; its fastest: level "
                f"{fastest['level']} {ms(fastest['seconds'])} at {size_of(fastest):.3f}× the size",
            )
        )


def _slope(xs: list[float], ys: list[float]) -> float:
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den if den else float("nan")


def _batch_dir(config: Config) -> Path:
    folder = CACHE / f"batch-{config.batch_docs}-{config.batch_pages}"
    if (folder / ".complete").exists():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    kinds: list[Kind] = ["lease", "nda", "msa"]
    for i in range(config.batch_docs):
        data = generate_contract(kinds[i % 3], seed=100 + i, pages=config.batch_pages, runs_per_paragraph=6)
        view = load_flatten(data)
        work = make_workload(view, anchors_for(config.batch_pages), seed=i)
        (folder / f"c{i:03d}.docx").write_bytes(data)
        (folder / f"c{i:03d}.reply.md").write_text(work.reply(), encoding="utf-8")
    (folder / ".complete").write_text("")
    return folder


_BATCH_CHILD = r"""
import gc, statistics, sys, tempfile, time
from redline.apply import ApplyOptions
from redline_review.runner import InProcess, LocalPool, run_review
from redline_review.storage import LocalStorage
source, date, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3])
def review():
    with tempfile.TemporaryDirectory() as target:
        gc.collect()
        t0 = time.perf_counter()
        executor = InProcess() if jobs == 1 else LocalPool(jobs)
        run_review(LocalStorage(source), LocalStorage(target), ApplyOptions(date=date), executor)
        return time.perf_counter() - t0
review()  # warm up (imports, caches)
print(review())
"""


def _batch(config: Config, table: Table, out: Callable[[str], None]) -> None:
    source = _batch_dir(config)
    opts = ApplyOptions(date=DATE)
    n = config.batch_docs

    def review(executor: Any) -> float:
        with tempfile.TemporaryDirectory() as target:
            gc.collect()
            t0 = time.perf_counter()
            summary = run_review(LocalStorage(source), LocalStorage(target), opts, executor)
            elapsed = time.perf_counter() - t0
        assert len(summary.documents) == n
        return elapsed

    # --jobs 1 and --jobs 2 are timed in fresh processes, as `redline review` runs: forking this
    # one, which by now holds hundreds of MB of big documents, costs the pool's workers
    # copy-on-write faults that have nothing to do with the review.
    # Each measurement in its own process: a pool forked from a process that has just run the
    # batch itself inherits its grown heap, and its workers pay copy-on-write faults for it.
    def fresh(jobs: int) -> float:
        args = [sys.executable, "-c", _BATCH_CHILD, str(source), DATE, str(jobs)]
        return float(subprocess.run(args, capture_output=True, text=True, check=True).stdout)

    ones, twos = [], []
    for _ in range(config.batch_repeats):  # interleaved
        ones.append(fresh(1))
        twos.append(fresh(2))
    t1, t2 = statistics.median(ones), statistics.median(twos)
    label = f"8. batch review, {n} contracts of ~{config.batch_pages:g} pages"
    table.add(
        Row(
            f"{label}, --jobs 2",
            f"{n / t2:.1f} docs/s",
            f"--jobs 1 {n / t1:.1f} docs/s",
            t1 / t2,
            "≥ 1.7× speed-up",
            t1 / t2 >= 1.7,
            f"{os.cpu_count()} cores",
        )
    )
    if not config.dask:
        table.add(
            Row(f"{label}, Dask LocalCluster 2 workers", "—", "—", None, "—", None, "skipped (--no-dask)")
        )
        return
    try:
        from distributed import Client, LocalCluster

        from redline_review.cluster import DaskExecutor
    except ImportError:
        table.add(Row(f"{label}, Dask 2 workers", "—", "—", None, "—", None, "dask not installed"))
        return
    t0 = time.perf_counter()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")  # type: ignore[no-untyped-call]
    client = Client(cluster)  # type: ignore[no-untyped-call]
    client.run(lambda: __import__("redline_review.job"))
    startup = time.perf_counter() - t0
    try:
        reps = config.batch_repeats
        td = statistics.median(review(DaskExecutor(address=cluster.scheduler_address)) for _ in range(reps))
    finally:
        client.close()  # type: ignore[no-untyped-call]
        cluster.close()
    table.add(
        Row(
            f"{label}, Dask LocalCluster 2 workers",
            f"{n / td:.1f} docs/s",
            f"--jobs 2 {n / t2:.1f} docs/s",
            t2 / td,
            "— (issue 11: same run)",
            None,
            f"{n / td / 2:.1f} docs/s per worker; cluster start {startup:.1f} s not counted",
        )
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny documents, few repeats (a smoke run)")
    parser.add_argument("--no-dask", action="store_true", help="skip the Dask LocalCluster line")
    parser.add_argument("--markdown", metavar="FILE", help="also write the table as Markdown to FILE")
    parser.add_argument(
        "--before", metavar="DIR", type=Path,
        help="an older checkout (git archive): its processes measured beside ours, in the notes",
    )  # fmt: skip
    parser.add_argument(
        "--no-peers", action="store_true", help="skip the side-by-side peers and deflate engines"
    )
    args = parser.parse_args(argv)
    config = QUICK if args.quick else FULL
    if args.no_dask:
        config = Config(**{**config.__dict__, "dask": False})
    if args.no_peers:
        config = Config(**{**config.__dict__, "peers": False})
    if args.before is not None:
        processes.compile_bytecode(args.before.resolve())
        config = Config(**{**config.__dict__, "before": args.before.resolve()})

    def out(line: str) -> None:
        print(line, flush=True)

    table = run(config, out)
    md = table.markdown()
    print()
    print(md)
    misses = sum(1 for row in table.rows if row.ok is False)
    print(f"\n{len(table.rows)} rows, {misses} MISS")
    if args.markdown:
        Path(args.markdown).write_text(md + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
