"""`redline stats REPORT...`: the arguments, and the counts printed (:func:`redline.stats.collect`)."""

from __future__ import annotations

import argparse
import json
import sys

from .common import EXIT_OK, EXIT_REFUSED


def add_stats_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("reports", nargs="+", help="report files, review output folders, or tool logs")
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")


def run_stats_command(args: argparse.Namespace) -> int:
    """Count the reports; a file that cannot be read is named on stderr with its code, the
    others are counted, and the exit code is 3 when there was such a file (else 0)."""
    from redline.stats import collect

    stats = collect(args.reports)
    for error in stats.errors:
        print(f"redline stats: {error['source']}: {error['message']} [{error['code']}]", file=sys.stderr)
    done = EXIT_REFUSED if stats.errors else EXIT_OK
    if args.json:
        json.dump(stats.to_json(), sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return done
    print(f"{stats.reports} reports, {stats.edits} edits, {stats.unapplied} unapplied")
    for code, n in stats.by_code.most_common():
        share = n / stats.unapplied if stats.unapplied else 0.0
        print(f"\n{code:<16} {n:>6}  {share:6.1%}")
        for ex in stats.examples[code]:
            print(f"    {ex['source']} edit {ex['index']}: “{ex['anchor'][:70]}”")
            if ex.get("message"):
                print(f"        {str(ex['message'])[:150]}")
    return done
