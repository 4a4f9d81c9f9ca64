"""The proofread check's findings on many documents, as one JSON file, to compare before and after
a change meant to keep them (issue 33's speed rounds): ``python -m benchmarks.check_findings OUT``.

The documents: every ``*.docx`` of ``$REDLINE_CORPUS`` that reads, the samples of
``sample_contracts/`` (alone and with their replies), generated contracts (``testing.contractgen``:
lease, NDA and MSA of 6, 12 and 18 pages) and the benchmarks' 300-page MSA.  Each is checked
alone and, where one can be made, with two replies: one ``insert_before`` at a cited clause
numbered automatically (:func:`benchmarks.bench_check.reply_for`: a renumbering) and one inserting
a paragraph that uses the defined terms in lower case, in capitals and in the plural beside
capitalised phrases no definition names (the terms pass's candidates).  The JSON of each is
``redline check --json``'s (an error, or a refusal's code, when there is one); compare two files
with ``cmp``.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from redline.proofread.check import Checked, check
from redline.proofread.definitions import definitions
from redline.proofread.unique import anchor_for
from redline.read.load import load_view
from redline.read.view import DocumentView
from shared_schema import Edit, EditBatch, parse_edit_reply
from testing.contractgen import generate_contract

from .bench_check import reply_for
from .run import contract

__all__ = ["collect", "planted_reply"]

ROOT = Path(__file__).resolve().parent.parent


def _one(
    out: dict[str, object], name: str, data: bytes, reply: EditBatch | None = None, label: str = ""
) -> DocumentView | None:
    """Check ``data`` (with ``reply``): its JSON under ``name`` + ``label``."""
    loaded = load_view(data)
    if not isinstance(loaded, tuple):
        out[name + label] = {"refusal": str(loaded.code)}
        return None
    package, view = loaded
    try:
        found = check(view, reply, package=package, document=data)
    except Exception as exc:  # (recorded: a change that raises where it did not differs)
        out[name + label] = {"error": repr(exc)}
        return view
    out[name + label] = Checked(name, view.revision, found).to_json()
    return view


def planted_reply(view: DocumentView) -> EditBatch | None:
    """One ``insert_after`` a body paragraph a third of the way in: the document's defined terms
    in lower case, in capitals, in the plural and possessive, beside capitalised phrases."""
    defs = definitions(view)
    if len(defs) < 3:
        return None
    multi = sorted({d.term for d in defs if " " in d.term})[:6]
    single = sorted({d.term for d in defs if " " not in d.term})[:4]
    text = (
        "The Licensed Widget Platform and the Deliverable Support Materials of each Party shall apply "
        "to the Service Level Credits, ten (10) Working Business Days after the Harbor Point Center. "
    )
    text += " ".join(f"the {t.lower()} and the {t}s and {t.upper()}; " for t in multi)
    text += " ".join(f"each {t}'s {t.lower()} of the Other Important Things;" for t in single)
    for para in view.paragraphs[len(view.paragraphs) // 3 :]:
        if para.story != "body" or para.end - para.start < 40:
            continue
        found = anchor_for(view, para.start, min(para.end, para.start + 30))
        if found is not None:
            return EditBatch(edits=[Edit(action="insert_after", anchor=found[0], text=text)])
    return None


def collect(corpus: Path | None) -> dict[str, object]:
    """Every document's findings (see the module), by name."""
    out: dict[str, object] = {}
    docs: list[tuple[str, bytes]] = []
    if corpus is not None:
        docs += [(p.name, p.read_bytes()) for p in sorted(corpus.glob("*.docx"))]
    samples = ROOT / "sample_contracts"
    for p in sorted(samples.glob("*.docx")):
        docs.append(("sample:" + p.name, p.read_bytes()))
        for r in sorted(samples.glob(p.stem + ".reply.*")):
            parsed = parse_edit_reply(r.read_text(encoding="utf-8"))
            if parsed is not None and parsed.edits:
                _one(out, "sample:" + p.name, p.read_bytes(), parsed, "+" + r.name)
    for kind in ("lease", "nda", "msa"):
        for seed in (1, 2, 3):
            docs.append((f"gen:{kind}-{seed}", generate_contract(kind, seed=seed, pages=6 * seed)))
    docs.append(("gen:msa-300", contract("msa", 1, 300)))
    for name, data in docs:
        view = _one(out, name, data)
        if view is None:
            continue
        for label, make in (("reply_for", reply_for), ("planted", planted_reply)):
            batch = make(view)
            if batch is not None:
                _one(out, name, data, batch, "+" + label)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("out", type=Path, help="the JSON file to write")
    args = parser.parse_args(argv)
    corpus = os.environ.get("REDLINE_CORPUS")
    found = collect(Path(corpus) if corpus else None)
    args.out.write_text(json.dumps(found, indent=1, sort_keys=True, ensure_ascii=False), encoding="utf-8")
    total = sum(len(v.get("findings", [])) for v in found.values() if isinstance(v, dict))
    print(f"{len(found)} checks, {total} findings -> {args.out}")


if __name__ == "__main__":
    main()
