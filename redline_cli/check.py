"""`redline check DOC [REPLY] [--json]`: the arguments, and the findings printed
(:func:`redline.proofread.check.check_document`).

Exit codes: 0 nothing to report, 1 findings, 2 usage, 3 the document (or the reply) refused.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .common import EXIT_OK, EXIT_UNAPPLIED, read_document, read_reply, refuse

__all__ = ["add_check_arguments", "run_check_command"]


def add_check_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("doc", help="the .docx file (never modified)")
    parser.add_argument(
        "reply", nargs="?",
        help="a model's reply (a file, or - for standard input): also what it would break",
    )  # fmt: skip
    parser.add_argument("--json", action="store_true", help="the findings as JSON")


def run_check_command(args: argparse.Namespace) -> int:
    from redline.proofread.check import Checked, check_document, plain

    doc = Path(args.doc)
    data = read_document(doc)
    batch = None
    if args.reply is not None:  # (the schema's models: imported only for a reply)
        from shared_schema import Code, Refusal, parse_edit_reply

        batch = parse_edit_reply(read_reply(args.reply))
        if batch is None:
            return refuse(
                "redline check",
                Refusal(
                    code=Code.UNPARSEABLE_REPLY,
                    message="The reply holds no usable JSON list of edits.",
                    hint='Reply with JSON: {"edits": [{"anchor": ..., "replacement": ...}]}.',
                ),
            )
    checked = check_document(data, batch, name=doc.name)
    if not isinstance(checked, Checked):
        return refuse("redline check", checked)
    if args.json:
        json.dump(checked.to_json(), sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(plain(checked))
    return EXIT_UNAPPLIED if checked.findings else EXIT_OK
