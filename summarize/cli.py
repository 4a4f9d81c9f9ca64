"""`summarize` command line."""

from __future__ import annotations

import argparse
import sys


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="summarize", description="Verify every quote a model's summary cites against the contract."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    check = sub.add_parser("check", help="verify a summary reply's quotes against a document")
    check.add_argument("doc")
    check.add_argument("reply")
    check.add_argument("--report")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0) and 2
    if args.command is None:
        parser.print_help()
        return 2
    print(f"summarize {args.command}: not available yet", file=sys.stderr)
    return 2
