"""A table-row entry against a plain edit of the same length (issue 29):
``python -m benchmarks.bench_rows [--pages 3 30 100] [--repeats 5]``.

On the generated service agreement (``testing.contractgen``, its service-level table) of each
size, one ``insert_row_after`` (three cells, 30 characters), one ``delete_row``, and plain edits
that replace a 30-character passage of a body paragraph (as many as the table's copies: a
longer contract repeats its clauses) are applied, interleaved round by
round; the row is ``apply_reply``'s CPU time (``time.process_time``: the machine is shared),
medians over ``--repeats`` rounds, the row entries as a ratio of the plain edit. A row change
splices its table (issue 32: ``redline.write.splice.Splice.container``) and is read back in a
window; it used to serialise its part whole and be read back in full (1.30-1.59x, growing
with the document; 1.05-1.24x since).
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time
from collections.abc import Callable

from redline.apply import ApplyOptions, apply_reply
from redline.read.load import load_view
from shared_schema import Refusal
from testing.contractgen import generate_contract

DATE = "2024-01-01T00:00:00Z"
CELLS = ["Severity 3 response", "1 day", "0"]  # 30 characters, as the plain edit's replacement


def _cpu(fn: Callable[[], object]) -> float:
    gc.collect()
    start = time.process_time()
    fn()
    return time.process_time() - start


def replies(data: bytes) -> dict[str, str]:
    """The three replies measured on ``data``: a row inserted, a row deleted, a plain edit."""
    loaded = load_view(data)
    assert not isinstance(loaded, Refusal)
    view = loaded[1]
    new = "".join(CELLS)
    # longer contracts repeat the table: the row entries change every copy (expected_matches),
    # the plain edits as many passages of the new text's length, each occurring once
    count = view.text.count("Severity 2 response")
    plain: list[dict[str, str]] = []
    for p in view.paragraphs:
        text = view.paragraph_text(p)
        if p.story != "body" or len(plain) == count:
            continue
        for at in range(0, len(text) - len(new), 7):  # a window that occurs once
            if view.text.count(text[at : at + len(new)]) == 1:
                plain.append({"anchor": text[at : at + len(new)], "replacement": new})
                break
    assert len(plain) == count
    row = {"anchor": "Severity 2 response", "expected_matches": count}
    return {
        "insert_row_after": json.dumps([{"action": "insert_row_after", **row, "cells": CELLS}]),
        "delete_row": json.dumps([{"action": "delete_row", **row}]),
        "plain edit": json.dumps(plain),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--pages", type=float, nargs="+", default=[3, 30, 100])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    options = ApplyOptions(author="Bench", date=DATE)
    print(f"| pages | entry | CPU ms (median of {args.repeats}) | vs the plain edit |")
    print("|---|---|---|---|")
    for pages in args.pages:
        data = generate_contract("msa", seed=0, pages=pages)
        measured = replies(data)
        times: dict[str, list[float]] = {name: [] for name in measured}
        for name, reply in measured.items():  # each must apply
            out = apply_reply(data, reply, options)
            assert out.report.all_applied, (name, out.report.edits)
        for _ in range(args.repeats):
            for name, reply in measured.items():
                times[name].append(_cpu(lambda d=data, r=reply: apply_reply(d, r, options)))
        base = statistics.median(times["plain edit"])
        for name, found in times.items():
            ms = statistics.median(found)
            print(f"| {pages:g} | {name} | {1000 * ms:.1f} | {ms / base:.2f}x |")


if __name__ == "__main__":
    main()
