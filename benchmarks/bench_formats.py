"""A format entry against a plain edit of the same length (issue 29):
``python -m benchmarks.bench_formats``.

On the generated contract (``--pages``, ``runs_per_paragraph=20`` as ``benchmarks.run`` makes
it), the same ``--edits`` unique anchors are applied end to end (:func:`redline.apply.apply_reply`
on the reply text) twice, in interleaved rounds: as ``format`` entries (``bold: true``; every
tenth a ``style`` change), and as plain edits whose replacement has the anchor's length (its
letters' case swapped: one word-level change per word, the costliest plain edit of that
length).  CPU seconds (``time.process_time``: the machine is shared), medians over
``--repeats`` rounds; the row is the ratio, target <= 1.0 (a format entry costs no more than
a plain edit of the same length).
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time
from collections.abc import Callable

from benchmarks.run import DATE, contract, make_workload
from redline.apply import ApplyOptions, apply_reply
from redline.read.load import load_view


def _cpu(fn: Callable[[], object]) -> float:
    gc.collect()
    start = time.process_time()
    fn()
    return time.process_time() - start


def replies(data: bytes, n: int) -> tuple[str, str]:
    """The format reply and the plain reply over the same ``n`` anchors."""
    loaded = load_view(data)
    assert isinstance(loaded, tuple)
    view = loaded[1]
    anchors = [a for a, _ in make_workload(view, n * 5).writes if "\n" not in a][:n]
    formats = [
        {"action": "format", "anchor": a, "format": {"style": "Heading 2"} if i % 10 == 9 else {"bold": True}}
        for i, a in enumerate(anchors)
    ]
    plain = [{"anchor": a, "replacement": a.swapcase()} for a in anchors]
    return json.dumps(formats), json.dumps(plain)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--pages", type=float, default=30)
    parser.add_argument("--edits", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    data = contract("msa", 0, args.pages)
    fmt_reply, plain_reply = replies(data, args.edits)
    options = ApplyOptions(author="Bench", date=DATE)
    first = apply_reply(data, fmt_reply, options).report.totals
    second = apply_reply(data, plain_reply, options).report.totals
    fmt_times, plain_times = [], []
    for _ in range(args.repeats):
        fmt_times.append(_cpu(lambda: apply_reply(data, fmt_reply, options)))
        plain_times.append(_cpu(lambda: apply_reply(data, plain_reply, options)))
    f, p = statistics.median(fmt_times), statistics.median(plain_times)
    ratio = f / p
    print(
        f"format entries applied {first.applied}/{first.proposed}; plain {second.applied}/{second.proposed}"
    )
    print(
        f"29. format entry vs plain edit of the same length, {args.edits} entries, {args.pages:g} pages: "
        f"{f * 1000:.0f} ms vs {p * 1000:.0f} ms CPU = {ratio:.2f}x (target <= 1.00: "
        f"{'PASS' if ratio <= 1.0 else 'MISS'})"
    )


if __name__ == "__main__":
    main()
