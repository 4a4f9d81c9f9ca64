"""`redline review`: a folder of documents and replies. (Being written: issue 7.)"""

from __future__ import annotations

import argparse
import sys


def add_review_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir")
    parser.add_argument("-o", "--output-dir", dest="outdir")
    parser.add_argument("--jobs", type=int)


def run_review_command(args: argparse.Namespace) -> int:
    print("redline review: not available yet", file=sys.stderr)
    return 2
