"""Issue 32: what ``redline apply`` imports, and what each import costs (``python -X importtime``).

    python -m benchmarks.imports              # 20 edits on the 10-page contract, median of 5 runs
    python -m benchmarks.imports --top 30 --runs 9

Each run is a fresh ``python -X importtime -c <the console script>`` of ``redline apply`` (our
packages' bytecode compiled first, as ``pip install`` leaves it: with ``PYTHONDONTWRITEBYTECODE``
set, as in this project's environment, a checkout would otherwise compile every module of ours on
every start and the table would measure the compiler).  Printed: the total import time, the share
of each group of modules (pydantic and its dependencies, lxml, ours, the standard library, the
rest), and the largest modules by their own import time (median over the runs, microseconds
as ``-X importtime`` reports them, which adds its own overhead to every module).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from . import processes

OURS = ("redline", "redline_cli", "shared_schema", "redline_review", "summarize", "review")
PYDANTIC = ("pydantic", "pydantic_core", "annotated_types", "typing_extensions", "typing_inspection")
_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def group(module: str) -> str:
    top = module.split(".")[0]
    if top in OURS:
        return "ours"
    if top in PYDANTIC:
        return "pydantic"
    if top == "lxml":
        return "lxml"
    if top in sys.stdlib_module_names or top.startswith("_"):
        return "standard library"
    return "other"


def importtime(args: list[str]) -> dict[str, tuple[int, int, str]]:
    """One ``-X importtime`` run of ``redline ARGS``: module -> (self µs, cumulative µs, the
    module that imported it)."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", processes._REDLINE, *args],
        env=processes.env_for(None),
        cwd=processes.ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    rows: list[tuple[int, int, int, str]] = []
    for line in proc.stderr.splitlines():
        m = _LINE.match(line)
        if m:
            rows.append((int(m.group(1)), int(m.group(2)), len(m.group(3)) // 2, m.group(4)))
    out: dict[str, tuple[int, int, str]] = {}
    for i, (own, cumulative, depth, name) in enumerate(rows):
        # -X importtime prints a module after the ones it imported: its importer comes later, shallower
        parent = next((rows[j][3] for j in range(i + 1, len(rows)) if rows[j][2] < depth), "-")
        out[name] = (own, cumulative, parent)
    return out


def measure(args: list[str], runs: int) -> tuple[dict[str, float], dict[str, tuple[float, float, str]]]:
    """Medians over ``runs``: the total per group (ms), and per module (self ms, cumulative ms,
    importer)."""
    processes.compile_bytecode()
    per_run = [importtime(args) for _ in range(runs)]
    names = set.intersection(*(set(r) for r in per_run))
    modules = {
        n: (
            statistics.median(r[n][0] for r in per_run) / 1000,
            statistics.median(r[n][1] for r in per_run) / 1000,
            per_run[0][n][2],
        )
        for n in names
    }
    groups: dict[str, float] = defaultdict(float)
    for n, (own, _, _) in modules.items():
        groups[group(n)] += own
    return dict(groups), modules


def apply_args(folder: Path) -> list[str]:
    """``apply`` of 20 edits on the 10-page contract (the benchmark's row 9), output in ``folder``."""
    from .run import CACHE, DATE, contract, dense_writes, load_flatten, writes_reply

    small = contract("msa", 1, 10)
    doc = CACHE / "msa-1-10-20.docx"
    reply = folder / "reply.md"
    reply.write_text(writes_reply(dense_writes(load_flatten(small), 20)), encoding="utf-8")
    return ["apply", str(doc), str(reply), "-o", str(folder / "out.docx"), "--date", DATE]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=20, help="modules listed (default 20)")
    parser.add_argument("--runs", type=int, default=5, help="runs, medians (default 5)")
    parser.add_argument("--json", action="store_true", help="print the medians as JSON")
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="redline-bench-imports-"))
    groups, modules = measure(apply_args(folder), args.runs)
    if args.json:
        print(json.dumps({"groups": groups, "modules": modules}, indent=1))
        return 0
    total = sum(groups.values())
    print(f"redline apply, 20 edits, 10 pages: {len(modules)} modules, {total:.1f} ms of imports "
          f"(-X importtime, median of {args.runs})")  # fmt: skip
    for name, ms in sorted(groups.items(), key=lambda kv: -kv[1]):
        print(f"  {name:18} {ms:7.1f} ms  {ms / total:5.1%}")
    print(f"largest own import times ({args.top}):")
    print(f"  {'self ms':>8} {'cum ms':>8}  module  <- imported by")
    for name, (own, cumulative, parent) in sorted(modules.items(), key=lambda kv: -kv[1][0])[: args.top]:
        print(f"  {own:8.1f} {cumulative:8.1f}  {name}  <- {parent}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
