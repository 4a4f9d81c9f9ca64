"""`summarize` command line.

Exit codes (docs/cli.md, :mod:`redline.exits`): 0 every quote verified; 1 at least one quote
unverified (or a point without a quote); 2 usage error; 3 an input was refused; 70 a bug of
ours.  The boundary between the command and the process is :func:`.common.run_command`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from redline.opc.files import write_atomic
from summarize.check import check_reply
from summarize.render import to_markdown

from .common import parse_command, read_document, read_reply, refuse, run_command


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="summarize", description="Verify every quote a model's summary cites against the contract."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    check = sub.add_parser("check", help="verify a summary reply's quotes against a document")
    check.add_argument("doc", help="the .docx file")
    check.add_argument("reply", help="the model's summary reply: a file, or - for standard input")
    check.add_argument("--report", help="write the JSON report here (- for standard output)")
    check.add_argument(
        "--format", choices=["text", "md", "json"], default="text",
        help="what to print: a one-line-per-quote text (default), Markdown, or the JSON report",
    )  # fmt: skip
    check.add_argument(
        "--stream", action="store_true",
        help="read the document a piece at a time, never whole (low memory; slower)",
    )  # fmt: skip
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parse_command(parser, argv)
    if isinstance(args, int):
        return args
    return run_command("summarize check", lambda: _check(args))


def _check(args: argparse.Namespace) -> int:
    doc = Path(args.doc)
    data = read_document(doc)
    reply = read_reply(args.reply)
    report = check_reply(data, reply, document_name=doc.name, stream=args.stream)
    if args.report == "-":
        sys.stdout.write(report.to_json())
    elif args.report:
        write_atomic(Path(args.report), report.to_json().encode("utf-8"))
    if report.error is not None:
        return refuse("summarize check", report.error)
    if args.format == "md":
        sys.stdout.write(to_markdown(report))
    elif args.format == "json" and args.report != "-":
        sys.stdout.write(report.to_json())
    elif args.format == "text":
        for p in report.points:
            for q in p.quotes:
                print(f"{q.status.value:>9}  point {p.index}: {q.quote[:70]}")
            if not p.quotes:
                print(f"{'no quote':>9}  point {p.index}: {p.title}")
        t = report.totals
        print(f"{report.document}: {t.verified} of {t.quotes} quotes verified", file=sys.stderr)
    return report.exit_code
