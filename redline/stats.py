"""`redline stats`: unapplied edits grouped by error code. (Being written: issue 7.)"""

from __future__ import annotations

import argparse
import sys


def add_stats_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("reports", nargs="+")
    parser.add_argument("--json", action="store_true")


def run_stats_command(args: argparse.Namespace) -> int:
    print("redline stats: not available yet", file=sys.stderr)
    return 2
