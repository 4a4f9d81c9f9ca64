"""The document tools as plain Python: regions, revisions, the per-document queue, the root.

Documents come from ``testing.contractgen`` (a realistic lease: numbered clauses, a table, a
header, a footer, a footnote) and, for headings, from python-docx.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import multiprocessing
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import docx
import pytest

from redline.opc.package import Package
from redline.read.view import DocumentView
from redline.stats import collect
from redline.tools import DocumentTools, arguments_digest, tool_definitions
from shared_schema import Edit, json_schema
from tests.support import view_of

DOC = "lease.docx"


@pytest.fixture
def root(tmp_path: Path, lease: bytes) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / DOC).write_bytes(lease)
    return folder


@pytest.fixture
def tools(root: Path, tmp_path: Path) -> DocumentTools:
    return DocumentTools(root, tmp_path / "calls.jsonl", lock_dir=tmp_path / "locks")


def unique_anchors(view: DocumentView, count: int) -> list[tuple[int, str]]:
    """``count`` body paragraphs, each with a 40-character prefix that occurs only once."""
    out: list[tuple[int, str]] = []
    for p in view.paragraphs:
        text = view.paragraph_text(p)
        anchor = text[:40]
        if p.story == "body" and len(text) > 60 and view.text.count(anchor) == 1:
            out.append((p.index, anchor))
        if len(out) == count:
            return out
    raise AssertionError("the test document has too few distinct paragraphs")


# ---------------------------------------------------------------------------------------------
# read_region


def test_outline_lists_labels_titles_and_ranges(tools: DocumentTools, root: Path) -> None:
    result = tools.read_region(DOC)
    view = view_of(root / DOC)
    assert result["revision"] == view.revision
    assert "text" not in result and result["region"]["kind"] == "outline"
    by_label = {h["label"]: h for h in result["outline"]}
    assert by_label["4.2"]["title"] == "4.2 Operating Expenses"
    first, last = (int(x) for x in by_label["4."]["paragraphs"].split("-"))
    assert view.paragraphs[first].label == "4." and last >= first
    assert by_label["4.2"]["within"] == by_label["4."]["title"]
    assert {s["story"] for s in result["stories"]} >= {"body", "header", "footer"}


def test_section_by_label_is_the_exact_text_without_gutter(tools: DocumentTools, root: Path) -> None:
    view = view_of(root / DOC)
    [(head, _)] = view.sections_named("4.2")
    result = tools.read_region(DOC, section="4.2")
    assert result["revision"] == view.revision
    assert result["region"]["title"] == "4.2 Operating Expenses"
    paras = result["paragraphs"]
    assert paras[0]["index"] == head.index and paras[0]["label"] == "4.2"
    for p in paras:
        assert set(p) >= {"index", "label", "section", "start", "end", "text"}
        assert view.text[p["start"] : p["end"]] == p["text"]
    # the text as a reader of the page sees it: each paragraph's label before its own text
    shown = [f"{p['label']} {p['text']}" if p["label"] else p["text"] for p in paras]
    assert result["text"] == "\n".join(shown)
    assert result["text"].startswith("4.2 Operating Expenses.")
    assert not result["text"].lstrip().startswith(("1 ", "1\t", "1:", str(head.index)))


def test_section_by_heading_text_includes_subsections(tools: DocumentTools) -> None:
    whole = tools.read_region(DOC, section="Rent")
    assert whole["region"]["label"] == "4."
    labels = [p["label"] for p in whole["paragraphs"] if p["label"]]
    assert labels[0] == "4." and "4.1" in labels and "4.2" in labels
    assert tools.read_region(DOC, section="Operating Expenses")["region"]["label"] == "4.2"


def test_section_refusals_carry_candidates(tools: DocumentTools) -> None:
    many = tools.read_region(DOC, section="(a)")
    assert many["error"]["code"] == "ambiguous_section"
    candidates = many["error"]["candidates"]
    assert len(candidates) >= 2 and all(c["label"] == "(a)" for c in candidates)
    assert len({c["within"] for c in candidates}) == len(candidates)
    hint = many["error"]["hint"]  # each by a citation of its own (issue 35), never "(a)" itself
    assert "a citation that names it alone" in hint and "\u201c(a)\u201d" not in hint
    cited = hint.split("\u201c")[1].split("\u201d")[0]
    assert tools.read_region(DOC, section=cited)["paragraphs"][0]["label"] == "(a)"
    picked = tools.read_region(DOC, paragraphs=candidates[1]["paragraphs"])
    assert picked["paragraphs"][0]["label"] == "(a)"
    missing = tools.read_region(DOC, section="Nonexistent Clause")
    assert missing["error"]["code"] == "section_not_found" and missing["error"]["hint"]


def test_paragraph_range_is_inclusive_and_validated(tools: DocumentTools, root: Path) -> None:
    view = view_of(root / DOC)
    result = tools.read_region(DOC, paragraphs="12-20")
    assert [p["index"] for p in result["paragraphs"]] == list(range(12, 21))
    assert result["text"] == view.labelled(12, 20)
    assert result["text"].endswith(view.paragraph_text(view.paragraphs[20]))
    assert tools.read_region(DOC, paragraphs="7")["paragraphs"][0]["index"] == 7
    n = len(view.paragraphs)
    for bad in ("20-12", f"0-{n}", "-3", "a-b", "1,2"):
        error = tools.read_region(DOC, paragraphs=bad)["error"]
        assert error["code"] == "invalid_range", bad
        assert f"0-{n - 1}" in error["message"] + error["hint"]
    both = tools.handle("read_region", {"path": DOC, "section": "4.2", "paragraphs": "1-2"})
    assert both["error"]["code"] == "invalid_arguments"


def test_heading_styles_from_python_docx(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_heading("Payment", level=1)
    document.add_paragraph("The Buyer shall pay within thirty days of the invoice.")
    document.add_heading("Late Payment", level=2)
    document.add_paragraph("Interest accrues at two percent per month.")
    document.add_heading("Termination", level=1)
    document.add_paragraph("Either party may terminate on notice.")
    buf = io.BytesIO()
    document.save(buf)
    (tmp_path / "simple.docx").write_bytes(buf.getvalue())
    tools = DocumentTools(tmp_path, lock_dir=tmp_path / "locks")
    region = tools.read_region("simple.docx", section="payment")
    assert region["text"] == (
        "Payment\nThe Buyer shall pay within thirty days of the invoice.\n"
        "Late Payment\nInterest accrues at two percent per month."
    )
    outline = tools.read_region("simple.docx")["outline"]
    assert [(h["title"], h["paragraphs"]) for h in outline] == [
        ("Payment", "0-3"),
        ("Late Payment", "2-3"),
        ("Termination", "4-5"),
    ]


# ---------------------------------------------------------------------------------------------
# apply_edits


def test_apply_an_edit_quoted_from_read_region(tools: DocumentTools, root: Path) -> None:
    region = tools.read_region(DOC, section="4.2")
    sentence = region["text"].split(". ")[1]  # copied from the tool's own output
    anchor = sentence[:60]
    result = tools.apply_edits(
        DOC,
        [{"anchor": anchor, "replacement": anchor + " (capped at 5% a year)", "section": "4.2"}],
        region["revision"],
    )
    assert result["status"] == "applied" and result["written"] is True
    [edit] = result["edits"]
    assert edit["status"] == "applied" and edit["error"] is None
    [para] = edit["paragraphs"]
    assert "(capped at 5% a year)" in para["text"] and para["label"] == "4.2"
    view = view_of(root / DOC)
    assert result["revision"] == view.revision != region["revision"]
    assert result["previous_revision"] == region["revision"]
    assert view.paragraph_text(view.paragraphs[para["index"]]) == para["text"]
    # the document now holds a tracked insertion by the tool's author
    xml = Package.open(root / DOC).read("word/document.xml").decode()
    assert "<w:ins " in xml and 'w:author="redline"' in xml


def test_second_edit_quoting_the_old_revision_is_stale(tools: DocumentTools, root: Path) -> None:
    region = tools.read_region(DOC, section="2.1")
    anchor = region["text"][:50]
    first = tools.apply_edits(DOC, [{"anchor": anchor, "replacement": anchor + " X"}], region["revision"])
    assert first["status"] == "applied"
    before = (root / DOC).read_bytes()
    other = tools.read_region(DOC, section="2.2")["text"][:40]
    stale = tools.apply_edits(
        DOC,
        [{"anchor": other, "replacement": other + " Y"}, {"anchor": "Term", "replacement": "T"}],
        region["revision"],  # the revision before the first edit
    )
    assert stale["status"] == "stale" and stale["written"] is False
    assert stale["error"]["code"] == "stale"
    assert "call read_region again" in stale["error"]["hint"]
    assert [e["status"] for e in stale["edits"]] == ["stale", "stale"]
    assert all(e["error"]["hint"] == stale["error"]["hint"] for e in stale["edits"])
    assert "revision" not in stale  # the model must re-read, not just retry
    assert (root / DOC).read_bytes() == before
    # with the revision apply_edits returned, the next edit goes through
    again = tools.apply_edits(DOC, [{"anchor": other, "replacement": other + " Y"}], first["revision"])
    assert again["status"] == "applied"


def test_legacy_names_invalid_entries_and_refusals_are_reported(tools: DocumentTools) -> None:
    region = tools.read_region(DOC, section="2.3")
    anchor = region["text"][:45]
    result = tools.apply_edits(
        DOC,
        [
            {"old_text": anchor, "new_text": anchor + " Z"},
            {"anchor": ""},
            {"anchor": "words the lease never says", "replacement": "x"},
        ],
        region["revision"],
    )
    statuses = [e["status"] for e in result["edits"]]
    assert statuses == ["applied", "invalid", "not_found"]
    assert result["status"] == "partial"
    assert any("old_text" in note for note in result["reply"]["notes"])
    assert result["totals"]["applied"] == 1 and result["totals"]["unapplied"] == 2
    assert "paragraphs" in result["edits"][0] and "paragraphs" not in result["edits"][2]


def test_paragraphs_after_account_for_removed_paragraphs(tools: DocumentTools, root: Path) -> None:
    region = tools.read_region(DOC, paragraphs="6-9")
    p = region["paragraphs"]
    later = p[3]["text"][:30]
    result = tools.apply_edits(
        DOC,
        [
            {"anchor": p[1]["text"] + "\n", "replacement": ""},  # delete paragraph 7 whole
            {"anchor": later, "replacement": later + " [B]"},
        ],
        region["revision"],
    )
    assert [e["status"] for e in result["edits"]] == ["applied", "applied"]
    view = view_of(root / DOC)
    [moved] = result["edits"][1]["paragraphs"]
    assert moved["index"] == 8  # paragraph 9 before the deletion
    assert view.paragraph_text(view.paragraphs[8]) == moved["text"] and "[B]" in moved["text"]
    assert result["edits"][0]["paragraphs"] == []  # the deleted paragraph is gone


def test_python_callers_may_pass_edit_models(tools: DocumentTools, root: Path) -> None:
    region = tools.read_region(DOC, section="3.2")
    anchor = region["text"][:40]
    edit = Edit(anchor=anchor, replacement=anchor + " M", rationale="clarity", section="3.2")
    result = tools.apply_edits(DOC, [edit], region["revision"], author="Reviewer Bot")
    assert result["status"] == "applied"
    xml = Package.open(root / DOC).read("word/document.xml").decode()
    assert 'w:author="Reviewer Bot"' in xml
    assert result["edits"][0]["paragraphs"][0]["label"] == "3.2"


def test_output_writes_a_copy_under_the_root(tools: DocumentTools, root: Path) -> None:
    before = (root / DOC).read_bytes()
    region = tools.read_region(DOC, section="2.4")
    anchor = region["text"][:40]
    (root / "out").mkdir()
    result = tools.apply_edits(
        DOC, [{"anchor": anchor, "replacement": anchor + " W"}], region["revision"], output="out/copy.docx"
    )
    assert result["output"] == "out/copy.docx" and result["written"]
    assert (root / DOC).read_bytes() == before
    assert view_of(root / "out" / "copy.docx").revision == result["revision"]


# ---------------------------------------------------------------------------------------------
# The per-document queue


def _apply_until_applied(
    tools: DocumentTools, index: int, anchor: str, marker: str, start: threading.Barrier | None
) -> list[dict[str, Any]]:
    """What an agent does: read, edit, and on ``stale`` read again. Every result is kept."""
    results: list[dict[str, Any]] = []
    for attempt in range(100):
        region = tools.read_region(DOC, paragraphs=str(index))
        assert region["paragraphs"][0]["text"].startswith(anchor)
        if start is not None and attempt == 0:
            start.wait()  # everyone holds the same revision: all but one must be stale
        result = tools.apply_edits(
            DOC, [{"anchor": anchor, "replacement": anchor + marker}], region["revision"]
        )
        results.append(result)
        if result["status"] != "stale":
            return results
    raise AssertionError("never applied")


def check_history(initial: str, final: Path, markers: list[str], results: list[dict[str, Any]]) -> None:
    """No lost update: the applied calls form one chain of revisions from the initial to the
    final document, stale calls wrote nothing, and the final text holds every applied marker."""
    applied = [r for r in results if r["status"] != "stale"]
    assert all(r["status"] == "applied" and r["written"] for r in applied)
    assert len(applied) == len(markers)
    assert all(r["written"] is False for r in results if r["status"] == "stale")
    step = {r["previous_revision"]: r["revision"] for r in applied}
    assert len(step) == len(applied), "two edits were applied to the same revision"
    revision, seen = initial, 0
    while revision in step:
        revision, seen = step[revision], seen + 1
    assert seen == len(applied)
    view = view_of(final)
    assert revision == view.revision
    for marker in markers:
        assert view.text.count(marker) == 1, marker


def test_threads_on_one_document_never_lose_an_update(tools: DocumentTools, root: Path) -> None:
    view = view_of(root / DOC)
    targets = unique_anchors(view, 6)
    markers = [f" [T{n}]" for n in range(len(targets))]
    barrier = threading.Barrier(len(targets))
    results: list[list[dict[str, Any]]] = [[] for _ in targets]

    def agent(n: int) -> None:
        index, anchor = targets[n]
        results[n] = _apply_until_applied(tools, index, anchor, markers[n], barrier)

    threads = [threading.Thread(target=agent, args=(n,)) for n in range(len(targets))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    flat = [r for rs in results for r in rs]
    first_round = [rs[0]["status"] for rs in results]
    assert first_round.count("applied") == 1 and first_round.count("stale") == len(targets) - 1
    check_history(view.revision, root / DOC, markers, flat)
    if shutil.which("pandoc"):  # an independent reader agrees (tracked changes accepted)
        text = subprocess.run(
            ["pandoc", "-f", "docx", "-t", "plain", "--wrap=none", str(root / DOC)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for marker in markers:
            assert marker.strip() in text, marker


@contextlib.contextmanager
def holding(lock_file: Path) -> Iterator[None]:
    """Hold a document's lock as another process would."""
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def test_a_held_document_waits_while_others_go_on(tools: DocumentTools, root: Path) -> None:
    shutil.copy(root / DOC, root / "other.docx")
    waiting: list[dict[str, Any]] = []
    blocked = threading.Thread(target=lambda: waiting.append(tools.read_region(DOC)))
    with holding(tools.lock_path(DOC)):
        blocked.start()
        other = tools.read_region("other.docx")  # a different document is not held up
        assert "error" not in other
        blocked.join(0.5)
        assert not waiting, "a call on a locked document did not wait its turn"
    blocked.join(20)
    assert waiting and "error" not in waiting[0]


def _process_agent(
    root: str, lock_dir: str, targets: list[tuple[int, str]], markers: list[str], start: Any
) -> list[dict[str, Any]]:
    tools = DocumentTools(Path(root), lock_dir=Path(lock_dir))
    start.wait()
    out: list[dict[str, Any]] = []
    for (index, anchor), marker in zip(targets, markers, strict=True):
        out.extend(_apply_until_applied(tools, index, anchor, marker, None))
    return out


def _process_main(
    root: str, lock_dir: str, targets: list[tuple[int, str]], markers: list[str], start: Any, queue: Any
) -> None:
    try:
        queue.put(_process_agent(root, lock_dir, targets, markers, start))
    except BaseException as exc:
        queue.put(repr(exc))


def test_two_processes_never_lose_an_update(root: Path, tmp_path: Path) -> None:
    view = view_of(root / DOC)
    targets = unique_anchors(view, 6)
    markers = [f" [P{n}]" for n in range(len(targets))]
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Barrier(2)
    queue = ctx.Queue()
    halves = [(targets[0::2], markers[0::2]), (targets[1::2], markers[1::2])]
    procs = [
        ctx.Process(
            target=_process_main,
            args=(str(root), str(tmp_path / "locks"), t, m, start, queue),
        )
        for t, m in halves
    ]
    for p in procs:
        p.start()
    outputs = [queue.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(10)
    assert all(isinstance(o, list) for o in outputs), outputs
    check_history(view.revision, root / DOC, markers, [r for o in outputs for r in o])


# ---------------------------------------------------------------------------------------------
# The root


def test_paths_outside_the_root_are_refused(tools: DocumentTools, root: Path, lease: bytes) -> None:
    outside = root.parent / "outside.docx"
    outside.write_bytes(lease)
    (root / "escape.docx").symlink_to(outside)
    (root / "sub").mkdir()
    (root / "sub" / "inside.docx").symlink_to(root / DOC)
    (root / "linkdir").symlink_to(root.parent)
    for path in (
        "../outside.docx",
        str(outside),
        "escape.docx",
        "linkdir/outside.docx",
        "sub/../../outside.docx",
        "/etc/passwd",
    ):
        result = tools.read_region(path)
        assert result["error"]["code"] == "outside_root", path
        assert result["error"]["message"] and result["error"]["hint"]
    assert "error" not in tools.read_region("sub/inside.docx")  # a link that stays inside
    assert tools.read_region("missing.docx")["error"]["code"] == "not_found_file"
    assert tools.read_region(".")["error"]["code"] == "not_a_file"
    assert tools.read_region("~/lease.docx")["error"]["code"] == "not_found_file"  # no ~ expansion
    assert tools.read_region("x" * 5000 + ".docx")["error"]["code"] == "not_found_file"

    region = tools.read_region(DOC, section="2.1")
    anchor = region["text"][:40]
    edits = [{"anchor": anchor, "replacement": anchor + " Q"}]
    before = outside.read_bytes()
    escaped = tools.apply_edits("escape.docx", edits, region["revision"])
    assert escaped["error"]["code"] == "outside_root"
    for target in ("../written.docx", "escape.docx", "linkdir/written.docx"):
        refused = tools.apply_edits(DOC, edits, region["revision"], output=target)
        assert refused["error"]["code"] == "outside_root", target
    assert outside.read_bytes() == before and not (root.parent / "written.docx").exists()
    # the in-place write through an inside link updates the real file, the link stays a link
    inside = tools.apply_edits("sub/inside.docx", edits, region["revision"])
    assert inside["status"] == "applied" and (root / "sub" / "inside.docx").is_symlink()
    assert view_of(root / DOC).revision == inside["revision"]


def test_unreadable_documents_are_refused_with_their_code(tools: DocumentTools, root: Path) -> None:
    (root / "notes.docx").write_text("plain text, not a zip")
    result = tools.read_region("notes.docx")
    assert result["error"]["code"] == "not_a_zip" and result["error"]["hint"]
    (root / "folder.docx").mkdir()
    assert tools.read_region("folder.docx")["error"]["code"] == "not_a_file"


# ---------------------------------------------------------------------------------------------
# handle, definitions, the log


def test_handle_never_raises(tools: DocumentTools) -> None:
    region = tools.read_region(DOC)
    cases: list[tuple[str, Any, str]] = [
        ("delete_everything", {"path": DOC}, "unknown_tool"),
        ("read_region", ["lease.docx"], "invalid_arguments"),
        ("read_region", {"path": DOC, "line": 3}, "invalid_arguments"),
        ("read_region", {"path": 7}, "invalid_arguments"),
        ("read_region", {}, "invalid_arguments"),
        ("read_region", {"path": DOC, "section": ["4.2"]}, "invalid_arguments"),
        ("apply_edits", {"path": DOC, "edits": []}, "missing_revision"),
        ("apply_edits", {"path": DOC, "edits": 5, "revision": region["revision"]}, "invalid_edits"),
        ("apply_edits", {"path": DOC, "edits": [], "revision": 5}, "invalid_arguments"),
        ("apply_edits", {"path": DOC, "edits": [], "revision": "r", "author": ""}, "invalid_arguments"),
    ]
    for name, arguments, code in cases:
        result = tools.handle(name, arguments)
        assert result["error"]["code"] == code, (name, arguments, result)
        assert result["error"]["message"] and result["error"]["hint"]
    assert "error" not in tools.handle("read_region", {"path": DOC, "section": 4})
    # edits sent as a JSON string (as some models do) are parsed like a reply
    text = json.dumps([{"anchor": "zzz not there", "replacement": "y"}])
    result = tools.handle("apply_edits", {"path": DOC, "edits": text, "revision": region["revision"]})
    assert result["edits"][0]["status"] == "not_found" and result["written"] is False
    assert result["revision"] == region["revision"]


def test_tool_schemas_use_the_shared_field_names() -> None:
    defs = {d["name"]: d for d in tool_definitions()}
    assert set(defs) == {"read_region", "apply_edits", "check"}  # check: tests/test_check_tool.py
    for d in defs.values():
        assert d["inputSchema"]["type"] == "object" and d["description"]
    read_props = set(defs["read_region"]["inputSchema"]["properties"])
    assert read_props == {"path", "section", "paragraphs", "markup"}
    apply_schema = defs["apply_edits"]["inputSchema"]
    assert set(apply_schema["properties"]) == {"path", "edits", "revision", "output", "author"}
    assert set(apply_schema["required"]) == {"path", "edits", "revision"}
    items = apply_schema["properties"]["edits"]["items"]
    assert set(items["properties"]) == set(Edit.model_fields)
    assert not items.get("required")  # accept / reject / reply / resolve quote no anchor
    shared = json_schema("edit")
    shared.pop("$defs", None)
    assert items == shared
    text = defs["apply_edits"]["description"]
    for rule in (
        "character for character",
        "non-overlapping",
        "expected_matches",
        "section",
        "revision",
        "read_region again",
    ):
        assert rule in text, rule
    assert "character for character" in defs["read_region"]["description"]


def test_every_result_holds_to_its_tools_output_schema(tools: DocumentTools) -> None:
    import jsonschema

    schemas = {d["name"]: d["outputSchema"] for d in tool_definitions()}
    for schema in schemas.values():
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object"  # MCP: an outputSchema's root is an object
    region = tools.read_region(DOC, section="2.3")
    anchor = region["text"][:45]
    nothing = [{"anchor": "words the lease never says", "replacement": "x"}]
    results = {
        "read_region": [
            region,
            tools.read_region(DOC),
            tools.read_region(DOC, paragraphs="3-4"),
            tools.read_region(DOC, section="no such clause"),
            tools.read_region("missing.docx"),
        ],
        "apply_edits": [
            tools.apply_edits(DOC, nothing, "sha256:0"),
            tools.apply_edits(DOC, nothing, region["revision"]),
            tools.apply_edits(DOC, [{"anchor": anchor, "replacement": anchor + " Z"}], region["revision"]),
            tools.apply_edits(DOC, "not edits", region["revision"]),
        ],
    }
    for name, outputs in results.items():
        for result in outputs:
            jsonschema.validate(result, schemas[name])


def test_a_call_whose_every_edit_was_refused_is_flagged_as_refused(tools: DocumentTools, root: Path) -> None:
    from redline.tools import refused_whole

    region = tools.read_region(DOC, section="2.3")
    before = (root / DOC).read_bytes()
    nothing = [{"anchor": "words the lease never says", "replacement": "x"}]
    none = tools.apply_edits(DOC, nothing, region["revision"])
    assert none["status"] == "unapplied" and none["written"] is False and "error" not in none
    assert refused_whole(none)  # the MCP server flags it isError
    assert (root / DOC).read_bytes() == before
    anchor = region["text"][:45]
    some = tools.apply_edits(
        DOC,
        [{"anchor": anchor, "replacement": anchor + " Z"}, {"anchor": "never says this", "replacement": "y"}],
        region["revision"],
    )
    assert some["status"] == "partial" and not refused_whole(some)
    assert refused_whole(tools.read_region("missing.docx"))
    assert not refused_whole(tools.apply_edits(DOC, [], some["revision"]))  # nothing asked, nothing refused


def test_apply_edits_states_that_it_edits_in_place_by_default() -> None:
    text = {d["name"]: d for d in tool_definitions()}["apply_edits"]["description"]
    assert "By default the document at `path` is edited in place" in text
    assert "isError" in text and "'unapplied'" in text


def test_every_call_is_logged_and_stats_groups_by_code(tools: DocumentTools, tmp_path: Path) -> None:
    region = tools.read_region(DOC, section="3.1")
    anchor = region["text"][:40]
    ok = tools.apply_edits(DOC, [{"anchor": anchor, "replacement": anchor + " V"}], region["revision"])
    tools.apply_edits(
        DOC,
        [{"anchor": "never said", "replacement": "x"}, {"anchor": "Tenant", "replacement": "Lessee"}],
        ok["revision"],
    )
    tools.apply_edits(DOC, [{"anchor": anchor, "replacement": "x"}], region["revision"])  # stale
    tools.read_region("../outside.docx")
    tools.handle("nope", {})
    lines = [json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()]
    assert len(lines) == 6
    for line in lines:
        assert set(line) >= {
            "time",
            "tool",
            "path",
            "arguments_digest",
            "outcome",
            "error_code",
            "duration_ms",
        }
        assert line["arguments_digest"].startswith("sha256:")
    assert lines[0]["arguments_digest"] == arguments_digest({"path": DOC, "section": "3.1"})
    assert [line["outcome"] for line in lines] == [
        "ok",
        "applied",
        "unapplied",
        "refused",
        "refused",
        "refused",
    ]
    assert lines[3]["error_code"] == "stale" and lines[3]["edits"][0]["status"] == "stale"
    stats = collect([str(tmp_path / "calls.jsonl")])
    assert dict(stats.by_code) == {
        "not_found": 1,
        "ambiguous": 1,
        "stale": 1,
        "outside_root": 1,
        "unknown_tool": 1,
    }


@pytest.fixture(autouse=True)
def _no_stray_files(root: Path) -> Iterator[None]:
    yield
    assert not [p for p in root.rglob("*.tmp")], "an atomic write left its temporary file"
