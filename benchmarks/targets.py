"""Issue 32's four targets alone, each against its reference measured in the same run (the full
table, ``python -m benchmarks.run``, takes minutes; this is the loop to measure a change by):

    python -m benchmarks.targets [--rounds N] [--big-rounds M] [--only apply10,apply300,inproc,write]
                                 [--before DIR] [--no-peers]  # DIR: a `git archive` of an older commit

* ``apply10``: ``redline apply`` of 20 edits on the 10-page contract against python-docx open +
  save, whole processes interleaved, medians of CPU time (row 9; target ≤ 1.8×), and against
  docx-redline applying the same 20 edits, interleaved in the same rounds (target: faster; its
  environment as :mod:`benchmarks.peers` makes it, ``--no-peers`` leaves it out);
* ``apply300``: ``redline apply`` of the 300-page contract's 200 written edits against the floor
  (inflate + parse + deflate ``document.xml``), processes interleaved, CPU medians (row 11;
  target ≤ 1.5×);
  with ``--before DIR`` both process rows also run the older checkout's ``redline apply``,
  interleaved in the same rounds (its bytecode compiled too);
* ``inproc``: the same in process, ``apply_reply`` against ``floor``, medians of wall time and
  of CPU time (every thread), interleaved (row 11; target ≤ 2.0×);
* ``write``: revisions + save per written edit on the 300-page contract (row 5; target
  ≤ 150 µs/edit), wall and CPU medians; and each edit more (the slope from 50 to 200 edits,
  interleaved: the save's fixed cost, the part's deflate, left out).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from . import processes
from .run import (
    CACHE,
    DATE,
    Loaded,
    contract,
    dense_writes,
    floor,
    load_flatten,
    loaded_for_write,
    make_workload,
    save,
    write_revisions,
    writes_reply,
)

BIG, SMALL = 300, 10


def _interleaved_in_process(
    fns: dict[str, Callable[[], object]], rounds: int
) -> dict[str, tuple[float, float]]:
    """Each function ``rounds`` times round-robin after one warm-up: (median wall, median CPU)."""
    for fn in fns.values():
        fn()
    walls: dict[str, list[float]] = {k: [] for k in fns}
    cpus: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            gc.collect()
            w0, c0 = time.perf_counter(), time.process_time()
            fn()
            cpus[name].append(time.process_time() - c0)
            walls[name].append(time.perf_counter() - w0)
    return {k: (statistics.median(walls[k]), statistics.median(cpus[k])) for k in fns}


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms"


def _before_note(got: dict[str, processes.Timing], reference: str) -> str:
    if "before" not in got:
        return ""
    b, r = got["before"], got[reference]
    return f"; before {_ms(b.cpu)}, {b.cpu / r.cpu:.2f}×"


def apply10(rounds: int, before: Path | None = None, with_peers: bool = True) -> None:
    processes.compile_bytecode()
    small = contract("msa", 1, SMALL)
    doc = CACHE / f"msa-1-{SMALL}-20.docx"
    folder = Path(tempfile.mkdtemp(prefix="redline-bench-"))
    writes = dense_writes(load_flatten(small), 20)
    reply = folder / "reply.md"
    reply.write_text(writes_reply(writes), encoding="utf-8")
    ours = processes.redline("apply", str(doc), str(reply), "-o", str(folder / "o.docx"), "--date", DATE,
                             name="ours")  # fmt: skip
    ref = processes.docx_save(doc, folder / "docx.docx")
    commands = [ours, ref]
    peer_note = ""
    if with_peers:
        peer, peer_note = _docx_redline(doc, writes, folder)
        if peer is not None:
            commands.append(peer)
    if before is not None:
        b_args = ("apply", str(doc), str(reply), "-o", str(folder / "b.docx"), "--date", DATE)
        commands.append(processes.redline(*b_args, root=before, name="before"))
    got = processes.interleaved(commands, rounds)
    o, r = got["ours"], got[ref.name]
    print(f"apply10  ours {_ms(o.cpu)}  python-docx open+save {_ms(r.cpu)}  ratio {o.cpu / r.cpu:.2f}× "
          f"(target ≤ 1.8×; CPU, {rounds} rounds; wall {o.wall / r.wall:.2f}×)"
          + _before_note(got, ref.name))  # fmt: skip
    if "docx-redline" in got:
        d = got["docx-redline"]
        print(f"apply10  docx-redline {_ms(d.cpu)} ({d.cpu / r.cpu:.2f}× python-docx): ours ÷ docx-redline "
              f"{o.cpu / d.cpu:.2f}× (target < 1.0×; CPU; wall {o.wall / d.wall:.2f}×)"
              + peer_note)  # fmt: skip
    elif with_peers:
        print(f"apply10  docx-redline: not measured ({peer_note.lstrip('; ')})")


def _docx_redline(
    doc: Path, writes: list[tuple[str, str]], folder: Path
) -> tuple[processes.Command | None, str]:
    """docx-redline applying ``writes`` to ``doc`` as a process (benchmarks.peers' runner and
    environment), after one run that checks it applies them all; or None and why not."""
    import json

    from . import peers

    chosen = tuple(p for p in peers.PEERS if p.name == "docx-redline")
    notes: dict[str, str] = {}
    py, missing = peers.environment(chosen, print, notes)
    if py is None or "docx-redline" in missing:
        return None, "; " + missing.get("docx-redline", "no Python to run it")
    edits = folder / "edits.json"
    edits.write_text(json.dumps(writes, ensure_ascii=False), encoding="utf-8")
    out = folder / "docx-redline.docx"
    first = peers.run_peer(py, "docx-redline", doc, edits, out)
    note = f"; it applied {first['applied']:.0f} of {len(writes)}"
    if "docx-redline" in notes:
        note += "; " + notes["docx-redline"]
    argv = [py, "-c", peers.RUNNER, "docx-redline", str(doc), str(edits), str(out)]
    return processes.Command("docx-redline", argv), note


def _big() -> tuple[bytes, Path, list[tuple[str, str]]]:
    big = contract("msa", 1, BIG)
    view = load_flatten(big)
    work = make_workload(view, 1000)
    return big, CACHE / f"msa-1-{BIG}-20.docx", work.writes


def apply300(rounds: int, before: Path | None = None) -> None:
    processes.compile_bytecode()
    _, path, writes = _big()
    folder = Path(tempfile.mkdtemp(prefix="redline-bench-"))
    reply = folder / "reply.md"
    reply.write_text(writes_reply(writes), encoding="utf-8")
    ours = processes.redline("apply", str(path), str(reply), "-o", str(folder / "o.docx"), "--date", DATE,
                             name="ours")  # fmt: skip
    ref = processes.floor(path, 3)
    commands = [ref, ours]
    if before is not None:
        b_args = ("apply", str(path), str(reply), "-o", str(folder / "b.docx"), "--date", DATE)
        commands.append(processes.redline(*b_args, root=before, name="before"))
    got = processes.interleaved(commands, rounds)
    o, f = got["ours"], got["floor"]
    print(f"apply300 ours {_ms(o.cpu)}  floor {_ms(f.cpu)}  ratio {o.cpu / f.cpu:.2f}× "
          f"(target ≤ 1.5×; CPU, {rounds} rounds; wall {o.wall / f.wall:.2f}×)"
          + _before_note(got, "floor"))  # fmt: skip


def inproc(rounds: int) -> None:
    from redline.apply import ApplyOptions, apply_reply

    big, _, writes = _big()
    reply = writes_reply(writes)
    opts = ApplyOptions(date=DATE)
    fns: dict[str, Callable[[], object]] = {
        "floor": lambda: floor(big),
        "ours": lambda: apply_reply(big, reply, opts),
    }
    got = _interleaved_in_process(fns, rounds)
    (ow, oc), (fw, fc) = got["ours"], got["floor"]
    print(f"inproc   ours {_ms(ow)} (CPU {_ms(oc)})  floor {_ms(fw)} (CPU {_ms(fc)})  "
          f"ratio {ow / fw:.2f}× wall, {oc / fc:.2f}× CPU (target ≤ 2.0×; {rounds} rounds)")  # fmt: skip


def _write_once(big: bytes, writes: list[tuple[str, str]]) -> tuple[int, float, float, float, float]:
    """One write-back of ``writes``: (edits, revisions wall, save wall, revisions CPU, save CPU)."""
    ld: Loaded = loaded_for_write(big, writes)
    gc.collect()
    w0, c0 = time.perf_counter(), time.process_time()
    writer = write_revisions(ld)
    w1, c1 = time.perf_counter(), time.process_time()
    save(ld, writer)
    w2, c2 = time.perf_counter(), time.process_time()
    return len(ld.planned), w1 - w0, w2 - w1, c1 - c0, c2 - c1


def write(rounds: int) -> None:
    """Revisions + save of the 200 edits, and of their first quarter interleaved with them: the
    cost per edit whole (what the target names), and per edit more (the slope between the two,
    which leaves out what one save pays whatever the edits: the part's deflate among it)."""
    big, _, writes = _big()
    few = writes[: len(writes) // 4]
    got: dict[str, list[tuple[int, float, float, float, float]]] = {"all": [], "few": []}
    for i in range(rounds + 1):
        for key, ws in (("all", writes), ("few", few)):
            one = _write_once(big, ws)
            if i:
                got[key].append(one)

    def med(key: str, k: int) -> float:
        return statistics.median(x[k] for x in got[key])

    n, m = got["all"][0][0], got["few"][0][0]
    mw, ms_, cw, cs = (med("all", k) for k in (1, 2, 3, 4))
    slope_w = (mw + ms_ - med("few", 1) - med("few", 2)) / (n - m)
    slope_c = (cw + cs - med("few", 3) - med("few", 4)) / (n - m)
    print(f"write    {(mw + ms_) / n * 1e6:.0f} µs/edit wall (revisions {_ms(mw)}, save {_ms(ms_)}), "
          f"{(cw + cs) / n * 1e6:.0f} µs/edit CPU (revisions {_ms(cw)}, save {_ms(cs)}); {n} edits "
          f"(target ≤ 150 µs/edit; {rounds} rounds)")  # fmt: skip
    print(f"write    each edit more: {slope_w * 1e6:.0f} µs wall, {slope_c * 1e6:.0f} µs CPU "
          f"({m} → {n} edits; what a save pays whatever its edits left out)")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15, help="rounds of the 10-page processes (15)")
    parser.add_argument("--big-rounds", type=int, default=7, help="rounds on the 300-page contract (7)")
    parser.add_argument("--only", default="apply10,apply300,inproc,write", help="comma-separated rows")
    parser.add_argument("--before", type=Path, metavar="DIR", help="an older checkout, for the process rows")
    parser.add_argument("--no-peers", action="store_true", help="apply10 without docx-redline")
    args = parser.parse_args(argv)
    rows = args.only.split(",")
    before = args.before.resolve() if args.before is not None else None
    if before is not None:
        processes.compile_bytecode(before)
    if "apply10" in rows:
        apply10(args.rounds, before, not args.no_peers)
    if "apply300" in rows:
        apply300(args.big_rounds, before)
    if "inproc" in rows:
        inproc(args.big_rounds)
    if "write" in rows:
        write(args.big_rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
