"""A clause move against plain edits of the same length (issue 29): ``python -m benchmarks.bench_moves``.

On a generated contract (``--pages``), a numbered clause with sub-clauses is moved after the
clause two further on (``move_after``, one tracked move), and, as references, the same paragraphs
are deleted by a plain edit (anchor = their whole text, replacement "") and re-inserted by an
``insert_after`` of the same text at the destination: the two halves a move replaces, each of
the same length.  Each is ``apply_reply`` end to end (verify, write, splice, read back), CPU
seconds (``time.process_time``: the machine is shared), medians over ``--repeats`` interleaved
rounds; the row is the move's time over the slower reference (target: at most 1.0x -- a move
costs no more than the plain edit of the same length).  ``--quick``: a 3-page contract, one round.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time
from collections.abc import Callable

from benchmarks.run import DATE, contract
from redline.apply import ApplyOptions, apply_reply
from redline.read.load import load_view
from redline.read.view import DocumentView
from shared_schema import Refusal


def _cpu(fn: Callable[[], object]) -> float:
    gc.collect()
    start = time.process_time()
    fn()
    return time.process_time() - start


def entries(view: DocumentView) -> dict[str, list[dict[str, object]]]:
    """The move and its two references, on the first clause with sub-clauses that can move."""
    for p in view.paragraphs:
        head = p.node
        if not p.heads or head is None or head.number is None or head.last == p.index or head.parent:
            continue
        family = [h for h in view.outline.heads if h.parent is None and h.index > head.index]
        if len(family) < 2:
            continue
        anchor = view.paragraph_text(p)[:60]
        block = view.text[p.start : view.paragraphs[head.last].end]
        target = view.paragraphs[family[1].index]
        target_anchor = view.paragraph_text(target)[:60]
        if view.text.count(anchor) != 1 or view.text.count(target_anchor) != 1:
            continue
        lines = block.split("\n")
        move = [{"action": "move_after", "anchor": anchor, "target_anchor": target_anchor}]
        out = apply_reply(_DATA[0], json.dumps(move), ApplyOptions(date=DATE))
        if out.report.edits[0].status != "applied":
            continue
        return {
            "move": move,
            "delete": [{"anchor": block, "replacement": ""}],
            "insert": [{"action": "insert_after", "anchor": target_anchor, "text": "\n".join(lines)}],
        }
    raise SystemExit("no clause of the contract can move")


_DATA: list[bytes] = []


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--pages", type=float, default=30)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    pages, repeats = (3.0, 1) if args.quick else (args.pages, args.repeats)
    data = contract("msa", 3, pages)
    _DATA[:] = [data]
    loaded = load_view(data)
    assert not isinstance(loaded, Refusal)
    work = entries(loaded[1])
    replies = {name: json.dumps(reply) for name, reply in work.items()}
    for name, reply in replies.items():  # each applies (and warms up)
        out = apply_reply(data, reply, ApplyOptions(date=DATE))
        assert all(e.status == "applied" for e in out.report.edits), (name, out.report.edits)
    times: dict[str, list[float]] = {name: [] for name in replies}
    for _ in range(repeats):
        for name, reply in replies.items():
            times[name].append(_cpu(lambda reply=reply: apply_reply(data, reply, ApplyOptions(date=DATE))))
    med = {name: statistics.median(ts) for name, ts in times.items()}
    chars = len(json.loads(replies["delete"])[0]["anchor"])
    ratio = med["move"] / max(med["delete"], med["insert"])
    verdict = "PASS" if ratio <= 1.0 else "MISS"
    print(f"{pages:g} pages, a clause of {chars:,} characters, apply_reply CPU ms (median of {repeats})")
    print("| row | move | delete same text | insert same text | move / slower | target | |")
    print("|---|---|---|---|---|---|---|")
    print(
        f"| 14. a clause move vs a plain edit of the same length | {med['move'] * 1e3:.1f} | "
        f"{med['delete'] * 1e3:.1f} | {med['insert'] * 1e3:.1f} | {ratio:.2f}x | <= 1.0x | {verdict} |"
    )


if __name__ == "__main__":
    main()
