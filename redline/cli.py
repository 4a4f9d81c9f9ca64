"""`redline` command line: wires the pipeline's steps together, nothing more."""

from __future__ import annotations

import argparse
import sys

EXIT_OK = 0
EXIT_UNAPPLIED = 1
EXIT_USAGE = 2
EXIT_REFUSED = 3


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="redline",
        description="Verify a model's proposed contract edits and write them as Word tracked changes.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    view = sub.add_parser("view", help="print the document's text view (what a model is shown)")
    view.add_argument("doc")
    view.add_argument("--json", action="store_true", help="the view with paragraphs and offsets")
    apply = sub.add_parser("apply", help="apply one reply's edits to one document")
    apply.add_argument("doc")
    apply.add_argument("reply", help="the model's reply: a file, or - for standard input")
    apply.add_argument("-o", "--output")
    apply.add_argument("--report")
    apply.add_argument("--author", default="redline")
    apply.add_argument("--date")
    apply.add_argument("--dry-run", action="store_true")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0) and EXIT_USAGE
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    print(f"redline {args.command}: not available yet", file=sys.stderr)
    return EXIT_USAGE
