"""The golden check: every observable output of the pipeline, hashed, before and after a change.

A restructuring that must not change behaviour is held to this: for the bundled samples and for
every document of ``$REDLINE_CORPUS`` (with replies generated here from each document's own
view, deterministically), it runs the public command lines in-process -- ``redline view``
(plain and ``--json``), ``redline apply`` (tracked, ``--no-track``, ``--no-comments``,
``--dry-run``, ``--dry-run --stream``), ``summarize check`` (whole and ``--stream``), the
``read_region`` / ``apply_edits`` tools and ``redline review`` on the samples -- and records
each run's exit code, standard output, report and every member of every output document (name,
order, SHA-256).

    python -m tests.golden record   # write tests/golden.json from the current code
    python -m tests.golden check    # compare; prints every run that differs (exit 1)
    python -m tests.golden check --dump DIR   # also write every output, to diff by hand

Only the public interface is driven (docs/cli.md, docs/review-and-mcp.md), so internals may move
freely under it.  A change that is meant to alter behaviour re-records the file and says why.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import random
import re
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden.json"
SAMPLES = ROOT / "sample_contracts"
DATE = "2026-01-02T03:04:05Z"
AUTHOR = "Golden Check"

_WORDS = re.compile(r"\S+")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:24]


_DATES = re.compile(rb'(w:date|w15:dateUtc)="[^"]*"')


def _zip_digest(data: bytes, undated: bool = False) -> list[list[str]]:
    """Every member's name and digest, in order; ``undated``: revision dates blanked first (the
    tools take no date: they stamp the time of the call)."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        members = [(info.filename, z.read(info)) for info in z.infolist()]
    return [[name, _sha(_DATES.sub(rb'\1=""', body) if undated else body)] for name, body in members]


def _digest(value: Any) -> dict[str, Any]:
    """A large JSON result as its digest, with what a reader wants to see at a glance."""
    if not isinstance(value, dict):
        return {"value": value}
    out: dict[str, Any] = {"sha": _sha(json.dumps(value, sort_keys=True, ensure_ascii=False).encode())}
    for key in ("totals", "error", "status"):
        if key in value:
            out[key] = value[key]
    for key in ("edits", "points"):
        if isinstance(value.get(key), list):
            out[key] = [e.get("status", e.get("verified")) for e in value[key] if isinstance(e, dict)]
    return out


# -------------------------------------------------------------------------------------------
# Replies generated from a document's own view


def _variant(text: str) -> str:
    """The text as a model retypes it: straight quotes, plain hyphens, plain spaces."""
    table = str.maketrans(
        {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-",
         "\u00a0": " ", "\t": " ", "\u00ad": None, "\u200b": None}
    )  # fmt: skip
    return " ".join(text.translate(table).split())


def edit_reply(view: dict[str, Any], seed: str) -> str:
    """The entries of :func:`edit_entries` as a model sends them: JSON in a fence, after prose."""
    body = json.dumps({"edits": edit_entries(view, seed)}, ensure_ascii=False)
    return "Here are my edits:\n```json\n" + body + "\n```\n"


def edit_entries(view: dict[str, Any], seed: str) -> list[dict[str, Any]]:
    """A reply of about 24 entries that exercises every path: exact, tolerant, deletions,
    insertions with line breaks, not found, ambiguous, expected counts, sections in and out of
    scope, overlaps, no-ops, legacy names, an invalid entry, rationales."""
    rng = random.Random(seed)
    paras = [p for p in view["paragraphs"] if len(p["text"].split()) >= 6]
    edits: list[dict[str, Any]] = []
    if not paras:
        return [{"anchor": "no such text at all", "replacement": "x"}]
    picks = [paras[int(i * len(paras) / 14)] for i in range(min(14, len(paras)))]
    for k, p in enumerate(picks):
        words = _WORDS.findall(p["text"])
        n = min(len(words), rng.randint(3, 8))
        at = rng.randint(0, len(words) - n)
        anchor = " ".join(words[at : at + n])
        if anchor not in p["text"]:
            anchor = p["text"][: min(len(p["text"]), 60)]
        kind = k % 7
        if kind == 0:
            edits.append({"anchor": anchor, "replacement": anchor + " (as amended)", "rationale": "Clarify."})
        elif kind == 1:
            edits.append({"anchor": _variant(anchor), "replacement": _variant(anchor).upper()})
        elif kind == 2:
            edits.append({"anchor": anchor, "replacement": "", "id": f"del-{k}"})
        elif kind == 3:
            edits.append({"find": anchor, "replace": "First new line.\nSecond new line " + anchor})
        elif kind == 4:
            edits.append({"anchor": anchor + " zzqx", "replacement": "never"})
        elif kind == 5:
            section = p.get("label") or p.get("section")
            edits.append({"anchor": anchor, "replacement": anchor.replace(" ", "  ", 1) + ".",
                          "section": section or "99.9"})  # fmt: skip
        else:
            edits.append({"old_text": anchor, "new_text": anchor, "rationale": "no-op"})
    whole = picks[len(picks) // 2]["text"]
    edits.append({"anchor": whole, "replacement": "", "rationale": "Strike the clause."})
    edits.append({"anchor": whole[: max(1, len(whole) // 2)], "replacement": "overlapping"})
    edits.append({"anchor": "the", "replacement": "THE"})
    edits.append({"anchor": "the", "replacement": "the", "expected_matches": 2})
    edits.append({"anchor": picks[0]["text"][:20], "replacement": "wrong", "section": "Definitions"})
    edits.append({"replacement": "no anchor"})
    edits.append({"action": "delete", "quote": picks[-1]["text"][-25:]})
    others = [p for p in view["paragraphs"] if p.get("story") not in (None, "body") and p["text"].strip()]
    if others:
        t = others[0]["text"]
        edits.append({"anchor": t[: min(30, len(t))], "replacement": "Header edit", "rationale": "hf"})
    return edits


def summary_reply(view: dict[str, Any], seed: str) -> str:
    rng = random.Random(seed + "/summary")
    paras = [p for p in view["paragraphs"] if len(p["text"].split()) >= 5]
    points = []
    for k, p in enumerate(paras[:: max(1, len(paras) // 6)][:6]):
        words = _WORDS.findall(p["text"])
        n = min(len(words), rng.randint(3, 10))
        quote = " ".join(words[:n])
        quotes = [quote, _variant(quote), quote + " invented"] if k % 2 else [quote]
        points.append({"title": f"Point {k}", "text": "…", "quotes": quotes})
    return json.dumps({"summary": "A summary.", "key_points": points}, ensure_ascii=False)


# -------------------------------------------------------------------------------------------
# Running the public commands in-process


@contextlib.contextmanager
def _captured() -> Iterator[tuple[io.StringIO, io.StringIO]]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        yield out, err


def _run(main: Callable[[list[str]], int], argv: list[str]) -> tuple[int, str]:
    with _captured() as (out, _err):
        code = main(argv)
    return code, out.getvalue()


def _report(path: Path) -> Any:
    if not path.exists():
        return None
    return _digest(json.loads(path.read_text(encoding="utf-8")))


def document_runs(doc: Path, work: Path, dump: Path | None) -> dict[str, Any]:
    """Every run for one document, as {run name: observed outputs}."""
    from redline_cli.redline import main as redline_main
    from redline_cli.summarize import main as summarize_main

    runs: dict[str, Any] = {}
    code, plain = _run(redline_main, ["view", str(doc)])
    runs["view"] = {"exit": code, "stdout": _sha(plain.encode())}
    code, js = _run(redline_main, ["view", str(doc), "--json"])
    runs["view --json"] = {"exit": code, "stdout": _sha(js.encode())}
    if code != 0:
        return runs
    view = json.loads(js)
    seed = doc.name
    reply = work / f"{doc.stem}.reply.md"
    reply.write_text(edit_reply(view, seed), encoding="utf-8")
    summary = work / f"{doc.stem}.summary.json"
    summary.write_text(summary_reply(view, seed), encoding="utf-8")
    base = ["--date", DATE, "--author", AUTHOR]
    variants: dict[str, list[str]] = {
        "apply": [],
        "apply --no-track": ["--no-track"],
        "apply --no-comments": ["--no-comments"],
        "apply --dry-run": ["--dry-run"],
        "apply --dry-run --stream": ["--dry-run", "--stream"],
    }
    for name, flags in variants.items():
        out = work / f"{doc.stem}.out.docx"
        rep = work / f"{doc.stem}.report.json"
        out.unlink(missing_ok=True)
        rep.unlink(missing_ok=True)
        code, stdout = _run(
            redline_main, ["apply", str(doc), str(reply), "-o", str(out), "--report", str(rep), *base, *flags]
        )
        entry: dict[str, Any] = {"exit": code, "stdout": _sha(stdout.encode()), "report": _report(rep)}
        if out.exists():
            data = out.read_bytes()
            entry["output"] = _zip_digest(data)
            if dump is not None:
                (dump / f"{doc.stem}.{name.replace(' ', '_')}.docx").write_bytes(data)
        runs[name] = entry
    for name, flags in {"summarize": [], "summarize --stream": ["--stream"]}.items():
        rep = work / f"{doc.stem}.summary-report.json"
        rep.unlink(missing_ok=True)
        code, stdout = _run(summarize_main, ["check", str(doc), str(summary), "--report", str(rep), *flags])
        runs[name] = {"exit": code, "stdout": _sha(stdout.encode()), "report": _report(rep)}
    runs["tools"] = _tool_runs(doc, view, work)
    return runs


def _tool_runs(doc: Path, view: dict[str, Any], work: Path) -> dict[str, Any]:
    from redline.tools.session import DocumentTools

    root = work / "tools"
    root.mkdir(exist_ok=True)
    copy = root / doc.name
    copy.write_bytes(doc.read_bytes())
    tools = DocumentTools(root, lock_dir=work / "locks", author=AUTHOR)
    out: dict[str, Any] = {}
    outline = tools.read_region(doc.name)
    out["outline"] = _digest(outline)
    labelled = [p for p in view["paragraphs"] if p.get("label")]
    if labelled:
        out["section"] = _digest(tools.read_region(doc.name, section=labelled[len(labelled) // 2]["label"]))
    last = min(5, len(view["paragraphs"]) - 1)
    out["paragraphs"] = _digest(tools.read_region(doc.name, paragraphs=f"0-{last}"))
    edits = edit_entries(view, doc.name)
    revision = outline.get("revision", "")
    applied = tools.apply_edits(doc.name, edits[:8], revision, output="tools-out.docx")
    applied.pop("revision", None)  # the output's digest: it holds the time of the call
    out["apply_edits"] = _digest(applied)
    result = root / "tools-out.docx"
    if result.exists():
        out["apply_edits output"] = _zip_digest(result.read_bytes(), undated=True)
    return out


def review_runs(work: Path) -> dict[str, Any]:
    from redline_cli.redline import main as redline_main

    outdir = work / "review"
    code, stdout = _run(
        redline_main, ["review", str(SAMPLES), "-o", str(outdir), "--jobs", "1", "--quiet", *["--date", DATE]]
    )
    files: dict[str, Any] = {}
    for path in sorted(outdir.iterdir()):
        data = path.read_bytes()
        if path.suffix == ".docx":
            files[path.name] = _zip_digest(data)
        elif path.suffix == ".json":
            files[path.name] = _digest(json.loads(data))
        else:
            files[path.name] = _sha(data)
    return {"exit": code, "stdout": _sha(stdout.replace(str(work), "<work>").encode()), "files": files}


def documents() -> list[Path]:
    docs = sorted(SAMPLES.glob("*.docx"))
    corpus = os.environ.get("REDLINE_CORPUS")
    if corpus:
        docs += sorted(Path(corpus).glob("*.docx"))
    return docs


def _scrub(value: Any, work: Path) -> Any:
    """Temporary paths out of a result, so that runs compare."""
    if isinstance(value, dict):
        return {k: _scrub(v, work) for k, v in value.items() if k not in ("elapsed", "elapsed_ms")}
    if isinstance(value, list):
        return [_scrub(v, work) for v in value]
    if isinstance(value, str) and str(work) in value:
        return value.replace(str(work), "<work>")
    return value


def observe(dump: Path | None = None, only: str | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for doc in documents():
            if only and only not in doc.name:
                continue
            key = ("samples/" if doc.parent == SAMPLES else "corpus/") + doc.name
            sub = work / doc.stem
            sub.mkdir()
            result[key] = _scrub(document_runs(doc, sub, dump), sub)
        if not only:
            result["review samples"] = _scrub(review_runs(work), work)
    return result


def _differences(old: Any, new: Any, path: str = "") -> Iterator[str]:
    if isinstance(old, dict) and isinstance(new, dict):
        for k in sorted(set(old) | set(new)):
            if k not in old:
                yield f"{path}/{k}: added"
            elif k not in new:
                yield f"{path}/{k}: missing"
            else:
                yield from _differences(old[k], new[k], f"{path}/{k}")
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            yield from _differences(a, b, f"{path}[{i}]")
    elif old != new:
        was, now = (json.dumps(v, ensure_ascii=False)[:200] for v in (old, new))
        yield f"{path}: {was} -> {now}"


def compare(recorded: dict[str, Any], observed: dict[str, Any]) -> list[str]:
    """Every difference, with the documents the recording holds that this run could not see
    (the corpus unset) left out."""
    keys = set(observed) | {k for k in recorded if k.startswith("samples/") or k == "review samples"}
    return list(_differences({k: recorded.get(k) for k in keys}, {k: observed.get(k) for k in keys}))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.golden")
    parser.add_argument("mode", choices=["record", "check"])
    parser.add_argument("--dump", help="write every output document into this folder")
    parser.add_argument("--only", help="only documents whose name contains this")
    args = parser.parse_args(argv)
    dump = Path(args.dump) if args.dump else None
    if dump is not None:
        dump.mkdir(parents=True, exist_ok=True)
    observed = observe(dump, args.only)
    if args.mode == "record":
        GOLDEN.write_text(json.dumps(observed, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
        print(f"recorded {len(observed)} entries -> {GOLDEN}")
        return 0
    recorded = json.loads(GOLDEN.read_text(encoding="utf-8"))
    if args.only:
        recorded = {k: v for k, v in recorded.items() if k in observed}
    diffs = compare(recorded, observed)
    for line in diffs[:200]:
        print(line)
    print(f"{len(observed)} entries compared, {len(diffs)} differences")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
