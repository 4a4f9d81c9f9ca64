"""``python -m benchmarks.bench_labels`` (issue 32): the labelling pass's own benchmark runs and
prints its row."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_labelling_benchmark_prints_its_row() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_labels", "--pages", "3", "--repeats", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    row = r"3 pages, \d+ paragraphs, \d+ sections: labelling [\d.]+ ms CPU \(median of 1\), min [\d.]+"
    assert re.search(row, proc.stdout), proc.stdout
