"""`redline stats REPORT...`: the arguments, and the counts printed (:func:`redline.stats.collect`)."""

from __future__ import annotations

import argparse
import json
import sys

from redline.package import PackageError
from redline.stats import collect
from shared_schema import Code

from .common import UsageError


def add_stats_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("reports", nargs="+", help="report files, review output folders, or tool logs")
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")


def run_stats_command(args: argparse.Namespace) -> int:
    try:
        stats = collect(args.reports)
    except OSError as exc:  # a missing or unreadable input: refused (exit 3), as in every command
        where = f" {exc.filename!r}" if exc.filename is not None else ""
        raise PackageError(Code.IO_ERROR, f"Cannot read the reports{where}: {exc.strerror or exc}.") from exc
    except ValueError as exc:
        raise UsageError(f"cannot read the reports: {exc}") from exc
    if args.json:
        json.dump(stats.to_json(), sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    print(f"{stats.reports} reports, {stats.edits} edits, {stats.unapplied} unapplied")
    for code, n in stats.by_code.most_common():
        share = n / stats.unapplied if stats.unapplied else 0.0
        print(f"\n{code:<16} {n:>6}  {share:6.1%}")
        for ex in stats.examples[code]:
            print(f"    {ex['source']} edit {ex['index']}: “{ex['anchor'][:70]}”")
            if ex.get("message"):
                print(f"        {str(ex['message'])[:150]}")
    return 0
