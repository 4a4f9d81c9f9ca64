"""The return leg against compare (issue 34): ``python -m benchmarks.bench_reconcile``.

A constructed round (:func:`testing.rounds.build_round`) on a generated contract (``--pages``,
300 by default: ``benchmarks.run.contract``, cached): SENT written by our apply with
``--changes`` changes of ours, RETURNED with some decided by id as another author, their
tracked edits and comments, an edit inside one of our insertions and untracked word changes
planted in the XML.  Timed on that pair, interleaved, CPU seconds (``time.process_time``: the
machine is shared), ``gc.collect()`` before each, medians over ``--repeats`` rounds:

* ``reconcile(SENT, RETURNED)`` (:func:`redline.reconcile.engine.reconcile`: both documents
  read, revisions and comments paired, outcomes decided, the untracked comparison);
* ``compare(SENT, RETURNED)`` (:func:`redline.compare.diff.compare`, what ``redline compare``
  runs: both read, diffed, the differences written as tracked changes, read back).

The row is reconcile's time over compare's (target, the issue's: "about the time compare
takes", at most 1.0x).  ``--quick``: a 3-page contract, one round.  ``--profile``: the top of
a cProfile of one reconcile.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import pstats
import random
import statistics
import time
from collections.abc import Callable

from benchmarks.run import contract
from redline.compare.diff import compare
from redline.reconcile.engine import reconcile
from testing.rounds import OUTCOMES, build_round


def _cpu(fn: Callable[[], object]) -> float:
    gc.collect()
    start = time.process_time()
    fn()
    return time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=float, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--changes", type=int, default=30)
    parser.add_argument("--quick", action="store_true", help="a 3-page contract, one round")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of one reconcile")
    args = parser.parse_args(argv)
    pages, repeats, changes = (3.0, 1, 6) if args.quick else (args.pages, args.repeats, args.changes)
    doc = contract("msa", 7, pages)
    rng = random.Random(7)
    outcomes = [OUTCOMES[k % len(OUTCOMES)] for k in range(changes)]
    rnd = build_round(doc, rng, changes=changes, outcomes=outcomes, untracked=5, renumber=True)
    print(f"{pages:g}-page contract: {len(doc):,} bytes; {len(rnd.changes)} changes of ours, "
          f"{len(rnd.untracked)} planted untracked")  # fmt: skip
    report = reconcile(rnd.sent, rnd.returned)
    found = len(report.untracked)
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        reconcile(rnd.sent, rnd.returned)
        prof.disable()
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(25)
        print(out.getvalue())
    times: dict[str, list[float]] = {"reconcile": [], "compare": []}
    for _ in range(repeats):
        times["reconcile"].append(_cpu(lambda: reconcile(rnd.sent, rnd.returned)))
        times["compare"].append(_cpu(lambda: compare(rnd.sent, rnd.returned)))
    med = {k: statistics.median(v) for k, v in times.items()}
    ratio = med["reconcile"] / med["compare"]
    verdict = "PASS" if ratio <= 1.0 else "MISS"
    print(f"reconcile {med['reconcile'] * 1000:.0f} ms, compare {med['compare'] * 1000:.0f} ms "
          f"(CPU, medians of {repeats}); untracked found {found}")  # fmt: skip
    print(f"34. reconcile vs compare, {pages:g}-page pair: {ratio:.2f}x (target <= 1.0x) {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
