"""Locator speed against the XML floor (issues 4 and 10): ``python -m benchmarks.bench_locate``.

On one large contract (a 300-page contract from :mod:`testing.contractgen`, or a synthetic
python-docx document of about the same size when the generator is missing) it measures, in one
process run:

* (a) the bare ``lxml`` parse of ``word/document.xml`` -- the reference every ratio uses;
* verifying 1,000 anchors (80% verbatim, 10% with their typography stripped, 10% absent; every
  source passage unique, none overlapping another) through :func:`redline.match.verify.verify`,
  building the normalised text and the index included: without hints (the verdicts), the
  locator's share of it, and with every refusal's hints; checked against the planted offsets;
* a naive ``str.find`` loop over the view text for the same anchors (it finds only the verbatim
  ones);
* the near-miss hint per absent anchor, and how many of those one-word paraphrases it traces
  back to the passage they came from.

The steps run in interleaved rounds (parse, verify, naive, ... then again), so a change in the
machine's load hits all of them alike; times are medians over ``--repeats`` rounds and each
ratio is the median of the per-round ratios.  Every reference is computed here, never
hard-coded.  ``--profile`` prints a cProfile of one verification instead of the table.
"""

from __future__ import annotations

import argparse
import bisect
import cProfile
import io
import pstats
import random
import re
import statistics
import sys
import time
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

from lxml import etree

from redline.match.hints import nearest
from redline.match.locate import Found, Locator
from redline.match.verify import verify
from redline.opc.package import Package
from redline.read.build import build_view
from redline.read.view import DocumentView
from shared_schema import Edit, EditResult, EditStatus

_TYPO = str.maketrans(
    {
        "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-",
        "\u2014": "-", "\u2011": "-", "\u00a0": " ", "\u2009": " ", "\u202f": " ",
        "\u00ad": "", "\u200b": "", "\u2026": "...",
    }
)  # fmt: skip
_TYPOGRAPHIC = re.compile("[\u2018\u2019\u201c\u201d\u2013\u2014\u2011\u00a0\u2009\u202f\u00ad\u2026]")
_FILLERS = ("promptly", "all", "reasonable", "written", "such", "any", "further", "relevant")


def document(pages: int, seed: int) -> tuple[bytes, str]:
    """The benchmark document and where it came from."""
    try:
        from testing.contractgen import generate_contract
    except ImportError:
        return synthetic_docx(pages, seed), "synthetic python-docx document"
    data = generate_contract("lease", seed=seed, pages=pages, runs_per_paragraph=20)
    return data, f"testing.contractgen lease, seed {seed}, {pages} pages, 20 runs per paragraph"


def synthetic_docx(pages: int, seed: int) -> bytes:
    """About 3.3 kB of text a page, every paragraph split into about 20 runs."""
    import docx

    rng = random.Random(seed)
    words = (
        "Tenant", "Landlord", "shall", "pay", "the", "Premises", "Rent", "Lease", "Term", "notice",
        "written", "consent", "Building", "within", "days", "after", "receipt", "of", "any", "all",
        "costs", "reasonable", "Operating", "Expenses", "Section", "default", "cure", "insurance",
    )  # fmt: skip
    doc = docx.Document()
    size = 0
    n = 0
    while size < pages * 3300:
        n += 1
        text = " ".join(rng.choice(words) for _ in range(rng.randrange(20, 80)))
        text = f"{n}. " + text.replace(" Tenant ", " Tenant\u2019s ", 1) + "."
        para = doc.add_paragraph()
        cuts = sorted(rng.sample(range(1, len(text)), min(19, len(text) - 1)))
        for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True):
            para.add_run(text[a:b])
        size += len(text) + 1
    buf = io.BytesIO()
    doc.save(buf)
    return buf.getvalue()


def medians(
    steps: dict[str, Callable[[], object]], repeats: int
) -> tuple[dict[str, list[float]], dict[str, object]]:
    """Run every step once per round, ``repeats`` rounds, so that a change in the machine's
    load hits every step alike; each step's times, and its last result.  A step's previous
    result is released before it runs again, outside the timing."""
    times: dict[str, list[float]] = {name: [] for name in steps}
    last: dict[str, object] = {}
    for _ in range(repeats):
        for name, step in steps.items():
            last.pop(name, None)
            start = time.perf_counter()
            result = step()
            times[name].append(time.perf_counter() - start)
            last[name] = result
            del result
    return times, last


def ratio(times: dict[str, list[float]], name: str, reference: str = "parse") -> float:
    """The median over rounds of ``name``'s time over the reference's in the same round."""
    return statistics.median(a / b for a, b in zip(times[name], times[reference], strict=True))


@dataclass
class Anchor:
    text: str
    kind: str  # exact | typography | absent
    start: int  # the planted (source) range in the view
    end: int


def naive_count(hay: str, needle: str) -> int:
    n, pos = 0, hay.find(needle)
    while pos >= 0:
        n += 1
        pos = hay.find(needle, pos + 1)
    return n


def draw_anchors(view: DocumentView, n: int, seed: int) -> list[Anchor]:
    """``n`` anchors: 80% verbatim, 10% typography stripped, 10% one-word paraphrases.

    Every source passage is 6-14 words of one body paragraph and occurs exactly once in the
    document (verbatim and with its typography stripped), so its offsets are the oracle.
    """
    rng = random.Random(seed)
    text = view.text
    plain = text.translate(_TYPO)
    paras = [p for p in view.paragraphs if p.story == "body" and len(text[p.start : p.end].split()) >= 8]
    want = {"exact": n * 8 // 10, "typography": n // 10}
    want["absent"] = n - want["exact"] - want["typography"]
    got: dict[str, list[Anchor]] = {k: [] for k in want}
    taken: list[tuple[int, int]] = []  # source ranges so far, sorted: edits must not overlap
    attempts = 0
    while any(len(got[k]) < want[k] for k in want):
        attempts += 1
        if attempts > 200 * n:
            raise SystemExit(f"cannot draw {n} separate unique anchors from this document; ask for fewer")
        para = rng.choice(paras)
        spans = [
            (m.start() + para.start, m.end() + para.start)
            for m in re.finditer(r"\S+", text[para.start : para.end])
        ]
        size = rng.randrange(6, 15)
        if len(spans) < size:
            continue
        first = rng.randrange(len(spans) - size + 1)
        s, e = spans[first][0], spans[first + size - 1][1]
        source = text[s:e]
        at = bisect.bisect_left(taken, (s, e))
        if (at > 0 and taken[at - 1][1] > s) or (at < len(taken) and taken[at][0] < e):
            continue
        if naive_count(text, source) != 1 or naive_count(plain, source.translate(_TYPO)) != 1:
            continue
        if len(got["typography"]) < want["typography"] and _TYPOGRAPHIC.search(source):
            kind, anchor = "typography", source.translate(_TYPO)
        elif len(got["absent"]) < want["absent"]:
            kind, anchor = "absent", _paraphrase(source, rng)
            if naive_count(plain, anchor.translate(_TYPO)) or naive_count(
                plain.lower(), anchor.translate(_TYPO).lower()
            ):
                continue
        elif len(got["exact"]) < want["exact"]:
            kind, anchor = "exact", source
        else:
            continue
        bisect.insort(taken, (s, e))
        got[kind].append(Anchor(anchor, kind, s, e))
    anchors = [a for k in want for a in got[k]]
    rng.shuffle(anchors)
    return anchors


def _paraphrase(source: str, rng: random.Random) -> str:
    """``source`` with one inner word added, dropped or changed."""
    words = source.split(" ")
    k = rng.randrange(1, max(2, len(words) - 1))
    how = rng.choice(("add", "drop", "change"))
    if how == "add":
        words.insert(k, rng.choice(_FILLERS))
    elif how == "drop" and len(words) > 3:
        del words[k]
    else:
        words[k] = rng.choice([f for f in _FILLERS if f != words[k]])
    return " ".join(words)


def naive_find(text: str, anchors: Sequence[Anchor]) -> int:
    return sum(naive_count(text, a.text) for a in anchors)


def run(
    pages: int, repeats: int, seed: int, n_anchors: int = 1000, out: Callable[[str], None] = print
) -> dict[str, float]:
    """Measure every row, print the table, return the figures."""
    data, source = document(pages, seed)
    xml = zipfile.ZipFile(io.BytesIO(data)).read("word/document.xml")
    view = build_view(Package.from_bytes(data))
    anchors = draw_anchors(view, n_anchors, seed)
    absent = [a for a in anchors if a.kind == "absent"]
    edits = [Edit(anchor=a.text, replacement=a.text + " (amended)") for a in anchors]

    def verdicts() -> list[EditResult]:
        return verify(Locator(view), edits, dry_run=True, hints=False).results

    def with_hints() -> list[EditResult]:
        return verify(Locator(view), edits, dry_run=True).results

    def located() -> list[Found]:
        locator = Locator(view)
        return [locator.find(a.text) for a in anchors]

    def indexed() -> Locator:
        locator = Locator(view)
        locator.prepare()
        return locator

    times, last = medians(
        {
            "parse": lambda: etree.fromstring(xml),
            "verify": verdicts,
            "locate": located,
            "naive": lambda: naive_find(view.text, anchors),
            "index": indexed,
        },
        repeats,
    )
    last.pop("parse")
    t = {name: statistics.median(ts) for name, ts in times.items()}
    parse, quick, naive, build = t["parse"], t["verify"], t["naive"], t["index"]
    hinted, _ = medians({"hints": with_hints, "parse": lambda: etree.fromstring(xml)}, max(1, repeats // 2))
    full = statistics.median(hinted["hints"])
    results = cast(list[EditResult], last["verify"])
    locator = cast(Locator, last["index"])
    right = sum(_right(a, r) for a, r in zip(anchors, results, strict=True))

    per_miss: list[float] = []
    traced = 0
    for _ in range(repeats):
        traced = 0
        for anchor in absent:
            start = time.perf_counter()
            near = nearest(locator, anchor.text)
            per_miss.append(time.perf_counter() - start)
            traced += near is not None and near.start < anchor.end and anchor.start < near.end
    miss_ms = statistics.median(per_miss) * 1000
    share = traced / max(1, len(absent))
    n = len(anchors)

    out(f"document: {source}")
    out(
        f"  {len(view.text) / 1000:.0f} kB of view text, {len(view.paragraphs)} paragraphs, "
        f"word/document.xml {len(xml) / 1e6:.1f} MB"
    )
    out(
        f"anchors: {n} ({n - len(absent) - sum(a.kind == 'typography' for a in anchors)} verbatim, "
        f"{sum(a.kind == 'typography' for a in anchors)} typography stripped, {len(absent)} absent); "
        f"medians of {repeats} runs"
    )
    rows = [
        ("(a) bare lxml parse of word/document.xml", _ms(parse), "1.00x", "reference", ""),
        (f"verify {n:,} anchors (normalise + index + locate)", _ms(quick), _x(ratio(times, "verify")),
         "<= 0.60x", _verdict(ratio(times, "verify") <= 0.6)),
        ("  of which the locator alone (no report objects)", _ms(t["locate"]), _x(ratio(times, "locate")),
         "(info)", ""),
        ("  of which normalising and indexing, once", _ms(build), _x(ratio(times, "index")), "(info)", ""),
        ("  the same with every refusal's hints", _ms(full), _x(ratio(hinted, "hints")), "(info)", ""),
        ("naive str.find loop (finds verbatim anchors only)", _ms(naive), _x(ratio(times, "naive")),
         "(reference)", f"verify {ratio(times, 'naive', 'verify'):.1f}x faster"),
        ("located at the planted offsets / refused if absent", f"{right}/{n}", f"{right / n:.0%}", "100%",
         _verdict(right == n)),
        ("near-miss hint, median per absent anchor", _ms(miss_ms / 1000), "", "<= 10 ms",
         _verdict(miss_ms <= 10)),
        ("one-word paraphrases traced to their passage", f"{traced}/{len(absent)}", f"{share:.0%}", ">= 90%",
         _verdict(share >= 0.9)),
    ]  # fmt: skip
    for name, value, factor, target, verdict in rows:
        out(f"{name:52s} {value:>10s} {factor:>6s} {target:>12s}  {verdict}")
    return {"parse": parse, "verify": quick, "ratio": ratio(times, "verify"), "verify_hints": full,
            "index": build, "naive": naive, "right": right / n, "miss_ms": miss_ms,
            "traced": share}  # fmt: skip


def _right(anchor: Anchor, result: EditResult) -> bool:
    if anchor.kind == "absent":
        return result.status == EditStatus.NOT_FOUND
    located = [(loc.start, loc.end) for loc in result.locations]
    return result.status == EditStatus.VERIFIED and located == [(anchor.start, anchor.end)]


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds >= 0.01 else f"{seconds * 1000:.2f} ms"


def _x(ratio: float) -> str:
    return f"{ratio:.2f}x"


def _verdict(ok: bool) -> str:
    return "meets" if ok else "MISSES"


def profile(pages: int, seed: int, n_anchors: int) -> None:
    data, _ = document(pages, seed)
    view = build_view(Package.from_bytes(data))
    edits = [Edit(anchor=a.text, replacement="x") for a in draw_anchors(view, n_anchors, seed)]
    prof = cProfile.Profile()
    prof.enable()
    verify(Locator(view), edits, dry_run=True)
    prof.disable()
    pstats.Stats(prof).sort_stats("cumulative").print_stats(25)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.bench_locate", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--pages", type=int, default=300, help="length of the contract (default 300)")
    parser.add_argument("--anchors", type=int, default=1000, help="anchors to verify (default 1000)")
    parser.add_argument("--repeats", type=int, default=5, help="runs per measurement (default 5)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", action="store_true", help="print a cProfile of one verification instead")
    args = parser.parse_args(argv)
    if args.profile:
        profile(args.pages, args.seed, args.anchors)
    else:
        run(args.pages, args.repeats, args.seed, args.anchors)
    return 0


if __name__ == "__main__":
    sys.exit(main())
