"""Smoke test of the performance benchmark: ``python -m benchmarks.run --quick`` runs on tiny
documents and prints every row of issue 10's table and issue 22's (the numbers themselves are not
checked; the quick run skips the peers and deflate engines, which install packages)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

ROWS = [
    r"1\. load \+ flatten all stories",
    r"1\. load \+ flatten, CPU time",
    r"1\. load \+ flatten, tree walk",
    r"1\. load \+ flatten vs python-docx text",
    r"2\. peak memory of load \+ flatten",
    r"2\. peak memory, verify-only view streamed",
    r"2\. time of the streamed verify-only view",
    r"3\. verify anchors",
    r"4\. near-miss hint per absent anchor",
    r"5\. write back \d+ edits",
    r"5\. save \(changed paragraphs spliced in \+ zip\)",
    r"5\. parse the trees a scanned view defers",
    r"6\. end to end in process",
    r"6\. end to end vs python-docx open\+text\+save",
    r"6\. end to end, [\d.]+-page contract",
    r"15\. redline check vs its view",
    r"5\. per edit: locate",
    r"5\. per edit: verify",
    r"6\. apply \d+ edits, [\d.]+-page contract, vs the floor",
    r"11\. apply \d+ edits, [\d.]+ pages, vs the floor \(in process\)",
    r"11\. apply \d+ edits, [\d.]+ pages, vs the floor \(processes\)",
    r"9\. start-up: redline --version \(process\)",
    r"9\. start-up: redline --help \(process\)",
    r"9\. redline view, [\d.]+-page contract \(process\)",
    r"9\. redline apply, \d+ edits, [\d.]+-page contract \(process\)",
    r"12\. side by side",
    r"13\. deflate engines",
    r"7\. growth: load \+ flatten",
    r"7\. growth: verify",
    r"7\. growth: hints",
    r"7\. growth: write revisions",
    r"7\. growth: save",
    r"7\. growth: end to end",
    r"8\. batch review, \d+ contracts .*--jobs 2",
    r"8\. batch review, \d+ contracts .*Dask LocalCluster 2 workers",
    r"1\. corpus: load \+ flatten",
]


@pytest.mark.slow
def test_quick_benchmark_prints_every_row(tmp_path: Path) -> None:
    md = tmp_path / "table.md"
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.run", "--quick", "--no-dask", "--markdown", str(md)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    table = md.read_text(encoding="utf-8")
    lines = [line for line in table.splitlines() if line.startswith("| ") and not line.startswith("| step")]
    for pattern in ROWS:
        matching = [line for line in lines if re.match(r"\| " + pattern, line)]
        assert matching, f"row {pattern!r} missing from:\n{table}"
        verdict = matching[0].split(" | ")[5]
        assert verdict in ("PASS", "MISS", "—"), matching[0]
    assert len(lines) == len(ROWS)
    assert "rows," in proc.stdout


@pytest.mark.slow
def test_the_reconcile_benchmark_prints_its_row() -> None:
    """``python -m benchmarks.bench_reconcile --quick`` (issue 34): reconcile against compare."""
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_reconcile", "--quick"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    row = r"34\. reconcile vs compare, 3-page pair: [\d.]+x \(target <= 1\.0x\) (PASS|MISS)"
    assert re.search(row, proc.stdout)
    assert "untracked found 5" in proc.stdout
