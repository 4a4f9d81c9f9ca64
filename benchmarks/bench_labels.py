"""The labelling pass alone (issue 32): ``python -m benchmarks.bench_labels``.

On the 300-page benchmark contract (``--pages``), the view is read once with ``labels=False``
and then labelled ``--repeats`` times (:meth:`~redline.read.view.DocumentView.finish_labels`,
each time with numbering read afresh, so every round counts from the first paragraph): the
paragraphs' labels, the outline and every paragraph's section.  The collector is paused, as
:func:`redline.read.build.build_view` runs the pass.  Times are CPU seconds
(``time.process_time``: the machine is shared); printed: the median and the minimum.  Run it
with ``PYTHONPATH`` at another checkout, interleaved with this one, to compare two versions.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time

from benchmarks.run import contract
from redline.collector import paused
from redline.opc.package import Package
from redline.read.build import build_view
from redline.read.labels import numbering_of


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--pages", type=float, default=300)
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args(argv)
    pages = int(args.pages) if args.pages == int(args.pages) else args.pages  # (targets' document)
    package = Package.from_bytes(contract("msa", 1, pages))
    view = build_view(package, labels=False)
    assert view.unlabelled is not None
    props = view.unlabelled[1]
    times: list[float] = []
    for _ in range(args.repeats + 2):  # (the first two warm the caches up)
        view.unlabelled = (numbering_of(package), props)
        gc.collect()
        with paused():
            start = time.process_time()
            view.finish_labels()
            times.append(time.process_time() - start)
    times = times[2:]
    print(
        f"{args.pages:g} pages, {len(view.paragraphs)} paragraphs, {len(view.outline.heads)} sections: "
        f"labelling {statistics.median(times) * 1000:.1f} ms CPU (median of {args.repeats}), "
        f"min {min(times) * 1000:.1f}"
    )


if __name__ == "__main__":
    main()
