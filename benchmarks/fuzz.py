"""The long fuzz run for hostile inputs (issue 9): ``python -m benchmarks.fuzz --seconds 180``.

Runs the property-based strategies of ``tests/test_hostile.py`` (``FUZZ_TARGETS``) for a time
budget instead of a fixed number of examples, in rounds of fresh random examples, round-robin
over the targets:

* ``mutated packages``: valid packages with members dropped, duplicated, renamed; content types
  swapped; DOCTYPEs injected; elements wrapped in ``mc:AlternateContent`` or unknown
  namespaces; members corrupted, truncated or stored; the finished zip corrupted;
* ``random WordprocessingML``: random bodies (runs, tabs, breaks, symbols, fields -- loose field
  characters and whole complex fields --, revisions, both sides of tracked moves, hyperlinks,
  content controls, tables, ``mc:`` and unknown wrappers) edited with anchors quoted from their
  own view: replacements (a deletion spanning a field among them) and ``insert_after`` /
  ``insert_before`` entries with random levels and hostile texts; the output, every revision
  accepted, must read as the input with the reported replacements and inserted paragraphs;
* ``hostile replies``: random JSON (edits under every alias, wrong types, huge numbers, NULs),
  fenced, wrapped in prose, truncated, spliced with garbage, or as broken UTF-8;
* ``corrupted files``: byte flips, insertions and deletions anywhere in a valid .docx;
* ``package loader``: the same mutated and corrupted packages straight into
  :class:`redline.opc.package.Package` and the view (every part read, every XML part parsed),
  where only :class:`~redline.opc.package.PackageError` may come out;
* ``reply parser``: the hostile replies straight into :func:`shared_schema.parse_edit_reply`,
  which must return an ``EditBatch`` or ``None`` and never raise;
* ``cli arguments`` (issue 20): random ``--author`` / ``--date`` through ``redline apply``: exit
  0/1 with the date as written, or 2 -- never 70, never a traceback;
* ``tool actions``: random ``read_region`` / ``apply_edits`` arguments (paths out of the root, a
  FIFO, non-documents as output, wrong types) through :class:`redline.tools.DocumentTools`:
  never ``internal_error``, never a non-document overwritten, the document always loadable;
* ``batch names``: random file names (not UTF-8, differing by case, FIFOs, folders, two
  replies) through :func:`redline_review.runner.run_review`: summary.json and report.html written,
  every input in it (``tests/test_hostile2.py``).

Every example goes through :func:`redline.apply.apply_reply` (or the loader / parser directly)
and must never raise: the result is a typed refusal or a report of every edit. A failing example
is shrunk by Hypothesis, printed, and the run goes on; the summary lists each distinct failure
once (by exception type and the line that raised it).

Options: ``--seconds N`` (default 180), ``--target NAME`` (repeatable; default all),
``--round N`` examples per round (default 200), ``--known`` to put back the structures that
known, already reported bugs mishandle (see ``KNOWN_BUGS`` in the test file), ``--seed N``,
``--no-shrink`` (a failure's shrinking can run minutes past the budget). Exit status 1 when
anything was found.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from redline.opc.package import CODES, Package, PackageError
from redline.read.build import build_view
from shared_schema import EditBatch, parse_edit_reply
from tests import test_hostile as th  # the strategies live with the bounded tests
from tests import test_hostile2 as th2


def check_loader(data: bytes) -> None:
    """Load, read every part, parse every XML part, build the view: only PackageError."""
    try:
        pkg = Package.from_bytes(data)
        for name in pkg.names:
            pkg.read(name)
            if pkg.is_xml(name):
                pkg.xml(name)
        build_view(pkg)
    except PackageError as exc:
        assert exc.code in CODES, exc.code
        assert exc.message


def check_corrupted_loader(edits: list[tuple[int, int, str]]) -> None:
    data = th.h.raw_zip([th.h.Entry(n, d) for n, d in th.FUZZ_DOC_PARTS])
    check_loader(th.h.mutate_bytes(data, edits))


def check_parser(reply: str | bytes) -> None:
    batch = parse_edit_reply(reply)
    assert batch is None or isinstance(batch, EditBatch)
    if batch is not None:
        indexes = [e.index for e in batch.invalid]
        assert len(indexes) == len(set(indexes))


def _scratch(check: Callable[..., None]) -> Callable[..., None]:
    """``check`` with a fresh scratch folder for each example (its ``folder`` argument)."""

    def run(**kwargs: Any) -> None:
        with tempfile.TemporaryDirectory(prefix="redline-fuzz-") as folder:
            check(**kwargs, folder=Path(folder))

    return run


TARGETS: dict[str, tuple[dict[str, st.SearchStrategy[Any]], Callable[..., None]]] = {
    **th.FUZZ_TARGETS,
    "package loader": ({"data": th.mutated_package()}, check_loader),
    "package loader, corrupted bytes": ({"edits": th.BYTE_EDITS}, check_corrupted_loader),
    "reply parser": ({"reply": th.hostile_reply()}, check_parser),
    **{name: (strategies, _scratch(check)) for name, (strategies, check) in th2.FUZZ_TARGETS_2.items()},
}


@dataclass
class Tally:
    examples: int = 0
    rounds: int = 0
    seconds: float = 0.0
    failures: dict[str, str] = field(default_factory=dict)


def _signature(exc: BaseException) -> str:
    """One line per distinct bug: the exception type and the innermost frame in the project."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/hypothesis/" not in f.filename]
    where = next(
        (f for f in reversed(frames) if "/redline/" in f.filename or "/shared_schema/" in f.filename),
        frames[-1] if frames else None,
    )
    place = f"{Path(where.filename).name}:{where.lineno} in {where.name}" if where else "?"
    first = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else ""
    return f"{type(exc).__name__} at {place}: {first}"


def run_round(name: str, examples: int, round_seed: int, tally: Tally, shrink: bool = True) -> None:
    strategies, check = TARGETS[name]

    def body(**kwargs: Any) -> None:
        tally.examples += 1
        check(**kwargs)

    test = seed(round_seed)(
        settings(
            max_examples=examples,
            deadline=None,
            database=None,
            phases=(Phase.generate, Phase.shrink) if shrink else (Phase.generate,),
            suppress_health_check=list(HealthCheck),
            report_multiple_bugs=False,
            print_blob=False,
        )(given(**strategies)(body))
    )
    started = time.perf_counter()
    try:
        test()
    except Exception as exc:  # a falsifying example: already printed by Hypothesis
        signature = _signature(exc)
        if signature not in tally.failures:
            detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            notes = "\n".join(getattr(exc, "__notes__", []))
            tally.failures[signature] = f"{detail}\n{notes}".strip()
            print(f"\n!! {name}: {signature}\n{notes}\n", flush=True)
    finally:
        tally.seconds += time.perf_counter() - started
        tally.rounds += 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=180.0, help="time budget (default 180)")
    parser.add_argument("--target", action="append", choices=sorted(TARGETS), help="default: every target")
    parser.add_argument("--round", type=int, default=200, help="examples per round (default 200)")
    parser.add_argument("--known", action="store_true", help="also generate what known bugs mishandle")
    parser.add_argument("--seed", type=int, default=None, help="seed of the rounds' seeds (default: random)")
    parser.add_argument(
        "--no-shrink", action="store_true", help="report failures unshrunk (shrinking can outlast the budget)"
    )
    args = parser.parse_args(argv)
    if args.known:
        for key in th.KNOWN_BUGS:
            th.KNOWN_BUGS[key] = False
    names = args.target or list(TARGETS)
    rng = random.Random(args.seed)
    tallies = {name: Tally() for name in names}
    deadline = time.monotonic() + args.seconds
    print(f"fuzzing {', '.join(names)} for {args.seconds:.0f} s", flush=True)
    i = 0
    while time.monotonic() < deadline:
        name = names[i % len(names)]
        run_round(name, args.round, rng.getrandbits(64), tallies[name], shrink=not args.no_shrink)
        i += 1
    print("\ntarget                               examples  rounds  seconds  failures")
    found = 0
    for name, t in tallies.items():
        print(f"{name:36} {t.examples:8d} {t.rounds:7d} {t.seconds:8.1f} {len(t.failures):9d}")
        found += len(t.failures)
    total = sum(t.examples for t in tallies.values())
    print(
        f"\n{total} examples in {sum(t.seconds for t in tallies.values()):.0f} s; {found} distinct failures"
    )
    for name, t in tallies.items():
        for signature, detail in t.failures.items():
            print(f"\n[{name}] {signature}\n{detail}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
