"""The output's read-back, incremental against full (issue 22): ``python -m benchmarks.bench_readback``.

On the 300-page benchmark contract (``--pages``), for 1, 20 and 200 of the benchmark's written
edits, the output is written once and then read back, in interleaved rounds, by
:func:`redline.write.readback.read_again` (what the write left alone taken from the input's view)
and by the full read, :func:`redline.read.load.load_view` (the oracle: the two are checked equal
here too).  Times are CPU seconds (``time.process_time``: the machine is shared), medians over
``--repeats`` rounds.
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Callable
from functools import partial

from benchmarks.run import DATE, anchors_for, contract, make_workload, writes_reply
from redline.apply import ApplyOptions
from redline.match.locate import Locator
from redline.match.verify import verify
from redline.read.load import load_view
from redline.write import readback
from redline.write.publish import Written, write_and_check
from shared_schema import Refusal, parse_edit_reply


def _cpu(fn: Callable[[], object]) -> float:
    gc.collect()
    start = time.process_time()
    fn()
    return time.process_time() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--pages", type=float, default=300)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    big = contract("msa", 3, args.pages)
    loaded = load_view(big)
    assert not isinstance(loaded, Refusal)
    writes = make_workload(loaded[1], anchors_for(args.pages)).writes
    print(f"{args.pages:g} pages, read-back CPU ms (median of {args.repeats})")
    for n in sorted({1, min(20, len(writes)), len(writes)}):
        found = load_view(big, trees=True)
        assert not isinstance(found, Refusal)
        package, view = found
        batch = parse_edit_reply(writes_reply(writes[:n]))
        assert batch is not None
        planned = verify(Locator(view), batch).planned
        done = write_and_check(package, view, planned, ApplyOptions(date=DATE).write_options(), labels=False)
        assert isinstance(done, Written)
        output, changes = done.output, done.changes
        again = readback.read_again(package, view, output, changes, labels=False)
        full = load_view(output, labels=False)
        assert again is not None and not isinstance(full, Refusal)
        assert again[1].text == full[1].text and again[1].span_starts == full[1].span_starts
        inc: list[float] = []
        whole: list[float] = []
        again_once = partial(readback.read_again, package, view, output, changes, labels=False)
        full_once = partial(load_view, output, labels=False)
        for _ in range(args.repeats):
            inc.append(_cpu(again_once))
            whole.append(_cpu(full_once))
        a, b = sorted(inc)[len(inc) // 2], sorted(whole)[len(whole) // 2]
        print(f"  {n:4d} edits: read again {a * 1e3:7.1f}  full {b * 1e3:7.1f}  ({b / a:.1f}x)")


if __name__ == "__main__":
    main()
