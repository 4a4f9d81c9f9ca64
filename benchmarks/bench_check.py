"""``redline check`` against the view it reads (issue 33): ``python -m benchmarks.bench_check``.

On a generated contract (``--pages``, 300 by default: ``testing.contractgen``'s MSA, the
benchmarks' cached big contract), the two are timed interleaved in one run, CPU seconds
(``time.process_time``: the machine is shared), medians over ``--repeats`` rounds:

* **view**: ``load_view`` of the document's bytes -- what ``redline view`` and every command pay;
* **check**: ``load_view`` and :func:`redline.proofread.check.check` of it -- ``redline check DOC``
  without its printing.

The row is check over view (target: at most 1.5x -- a contract checks in about the time its view
takes, the view included).  Beside it, informative: the check's own parts (terms, references,
fields, numbering) and, with ``--reply``, a check with a reply of one insert before a cited
clause (the reply applied, accepted and read again: three views' worth of work).
``--quick``: a 3-page contract, one round.

And as a user sees it (``--processes N``, N rounds, 0 to skip): ``redline check DOC --json`` against
``redline view DOC --json``, each a fresh process (:mod:`benchmarks.processes`: our bytecode
compiled first, one warm-up round, interleaved, medians of the CPU time; output to /dev/null) --
the start-up, the reading of the file and the printing included in both.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from redline.proofread.check import check
from redline.proofread.numbering import numbering_gaps
from redline.proofread.references import broken_fields, dangling, references
from redline.proofread.terms import term_findings
from redline.read.load import load_view
from redline.read.view import DocumentView
from shared_schema import Edit, EditBatch, Refusal

__all__ = ["CheckTimes", "ProcessTimes", "measure", "measure_processes"]


def _cpu(fn: Callable[[], object]) -> float:
    gc.collect()
    start = time.process_time()
    fn()
    return time.process_time() - start


@dataclass(frozen=True)
class CheckTimes:
    """Medians, CPU seconds: the view, the check (view included), the check's parts."""

    view: float
    check: float
    parts: dict[str, float]
    findings: int
    paragraphs: int

    @property
    def ratio(self) -> float:
        return self.check / self.view


def _loaded(data: bytes) -> DocumentView:
    loaded = load_view(data)
    assert not isinstance(loaded, Refusal), loaded
    return loaded[1]


def measure(data: bytes, repeats: int) -> CheckTimes:
    """The view and the check of ``data``, interleaved, ``repeats`` rounds (one warm-up)."""
    loaded = load_view(data)
    assert not isinstance(loaded, Refusal), loaded
    package, view = loaded

    def checked() -> None:
        got = load_view(data)
        assert not isinstance(got, Refusal)
        check(got[1], package=got[0])

    found = check(view, package=package)  # the warm-up
    views: list[float] = []
    checks: list[float] = []
    for _ in range(repeats):
        views.append(_cpu(lambda: load_view(data)))
        checks.append(_cpu(checked))
    stories = {part: package.read(part) for part in dict.fromkeys(p.part for p in view.paragraphs)}
    parts_fn: dict[str, Callable[[], object]] = {
        "terms": lambda: term_findings(view),
        "references": lambda: dangling(view, references(view)),
        "fields": lambda: broken_fields(view, stories),
        "numbering": lambda: numbering_gaps(view),
    }
    parts = {name: statistics.median(_cpu(fn) for _ in range(repeats)) for name, fn in parts_fn.items()}
    return CheckTimes(
        statistics.median(views), statistics.median(checks), parts, len(found), len(view.paragraphs)
    )


@dataclass(frozen=True)
class ProcessTimes:
    """Medians, CPU seconds (wall in the note): ``redline check --json`` and ``redline view --json``."""

    check: float
    view: float
    check_wall: float
    view_wall: float

    @property
    def ratio(self) -> float:
        return self.check / self.view


def measure_processes(path: Path, repeats: int) -> ProcessTimes:
    """``redline check PATH --json`` against ``redline view PATH --json`` as fresh processes,
    interleaved, ``repeats`` rounds after a warm-up one."""
    from benchmarks.processes import compile_bytecode, interleaved, redline

    compile_bytecode()
    check_cmd = redline("check", str(path), "--json", name="check", codes=(0, 1))
    view_cmd = redline("view", str(path), "--json", name="view")
    got = interleaved([view_cmd, check_cmd], repeats)
    return ProcessTimes(got["check"].cpu, got["view"].cpu, got["check"].wall, got["view"].wall)


def reply_for(view: DocumentView) -> EditBatch | None:
    """One ``insert_before`` at the first automatically numbered clause some typed reference
    cites (the renumbering the reply check must follow), or None."""
    from redline.proofread.references import resolve
    from redline.proofread.unique import anchor_for

    for ref in references(view):
        for target in ref.targets:
            heads = resolve(view, target, ref.paragraph)
            if len(heads) != 1 or heads[0].typed or target.relative:
                continue
            para = view.paragraphs[heads[0].index]
            found = anchor_for(view, para.start, min(para.end, para.start + 12))
            if found is not None:
                entry = Edit(action="insert_before", anchor=found[0], text="A clause the benchmark inserts.")
                return EditBatch(edits=[entry])
    return None


def main(argv: list[str] | None = None) -> None:
    from benchmarks.run import CACHE, contract

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--pages", type=float, default=300)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--reply", action="store_true", help="also time a check with a reply")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--processes", type=int, default=5, metavar="N", help="rounds of the whole processes (0: none)"
    )
    args = parser.parse_args(argv)
    pages, repeats = (3.0, 1) if args.quick else (args.pages, args.repeats)
    rounds = 1 if args.quick and args.processes else args.processes
    data = contract("msa", 1, pages)
    times = measure(data, repeats)
    verdict = "PASS" if times.ratio <= 1.5 else "MISS"
    print(
        f"{pages:g}-page contract, {times.paragraphs} paragraphs, {times.findings} findings; "
        f"CPU ms, medians of {repeats}"
    )
    print("| row | check (view included) | view | check / view | target | |")
    print("|---|---|---|---|---|---|")
    print(
        f"| 15. redline check vs its view | {times.check * 1e3:.1f} | {times.view * 1e3:.1f} | "
        f"{times.ratio:.2f}x | <= 1.5x | {verdict} |"
    )
    if rounds:
        path = CACHE / f"msa-1-{pages}-20.docx"  # (where contract() keeps it)
        if not path.exists():
            path = Path(tempfile.mkdtemp()) / "contract.docx"
            path.write_bytes(data)
        procs = measure_processes(path, rounds)
        verdict = "PASS" if procs.ratio <= 1.5 else "MISS"
        print(
            f"| 15b. `redline check --json` vs `redline view --json`, processes (CPU, medians of {rounds}) | "
            f"{procs.check * 1e3:.1f} | {procs.view * 1e3:.1f} | {procs.ratio:.2f}x | <= 1.5x | {verdict} |"
        )
        print(f"processes, wall: check {procs.check_wall * 1e3:.1f} ms, view {procs.view_wall * 1e3:.1f} ms")
    print("parts: " + ", ".join(f"{name} {t * 1e3:.1f} ms" for name, t in times.parts.items()))
    if args.reply:
        view = _loaded(data)
        batch = reply_for(view)
        if batch is None:
            print("reply: no cited clause with automatic numbering to insert before")
            return
        t = statistics.median(
            _cpu(lambda: check(_loaded(data), batch, document=data)) for _ in range(repeats)
        )
        print(f"check with a one-entry reply: {t * 1e3:.1f} ms ({t / times.view:.2f}x the view)")


if __name__ == "__main__":
    main()
