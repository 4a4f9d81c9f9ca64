"""The ``check`` tool (:class:`redline.tools.DocumentTools`): the findings of ``redline check
--json`` for a document under the root, and, with ``edits``, of what the edits would break --
each finding marked ``from_edits`` -- with the tools' typed refusals and their log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from redline.tools import CHECK, DocumentTools, tool_definitions
from redline_cli.redline import main as redline_main
from shared_schema import json_schema
from testing.docbuild import P, docx
from testing.numbered import NUMBERING, numbered

DOC = "supply.docx"
DELETE_2_2 = {"anchor": "Interest accrues on late payment at four percent.", "replacement": ""}
INSERT_BEFORE_1_2 = {
    "action": "insert_before",
    "anchor": "The Supplier shall insure",
    "text": "The Supplier shall pack the Goods.",
}


def contract() -> bytes:
    """Two articles of automatically numbered clauses citing each other as typed text; one
    reference (to Clause 9) is dangling already: the document's own finding."""
    return docx(
        P("Supply", ppr=numbered(0)),
        P("The Supplier shall deliver the Goods.", ppr=numbered(1)),
        P("The Supplier shall insure the Goods until delivery.", ppr=numbered(1)),
        P("Risk passes on delivery, subject to Clause 1.2 and Clause 2.2.", ppr=numbered(1)),
        P("Payment", ppr=numbered(0)),
        P("The Customer shall pay within thirty days.", ppr=numbered(1)),
        P("Interest accrues on late payment at four percent.", ppr=numbered(1)),
        P("Clause 2.2 does not limit Clause 1.1 or Clause 9.", ppr=numbered(1)),
        numbering=NUMBERING,
    )


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / DOC).write_bytes(contract())
    return folder


@pytest.fixture
def tools(root: Path, tmp_path: Path) -> DocumentTools:
    return DocumentTools(root, tmp_path / "calls.jsonl", lock_dir=tmp_path / "locks")


def kinds(result: dict[str, Any]) -> list[tuple[str, str, bool | None]]:
    return [(f["kind"], f["text"], f.get("from_edits")) for f in result["findings"]]


def test_check_is_listed_with_the_shared_edit_schema() -> None:
    defs = {d["name"]: d for d in tool_definitions()}
    assert CHECK == "check" and list(defs) == ["read_region", "apply_edits", "check"]
    schema = defs["check"]["inputSchema"]
    assert set(schema["properties"]) == {"path", "edits", "revision"}
    assert schema["required"] == ["path"] and schema["additionalProperties"] is False
    shared = json_schema("edit")
    shared.pop("$defs", None)
    assert schema["properties"]["edits"]["items"] == shared
    text = defs["check"]["description"]
    for must in (
        "from_edits",
        "fix",
        "reference_to_deleted_clause",
        "renumbered_reference",
        "Nothing is written",
    ):
        assert must in text, must
    jsonschema.Draft202012Validator.check_schema(defs["check"]["outputSchema"])


def test_the_findings_are_those_of_redline_check_json(
    tools: DocumentTools, root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = tools.check(DOC)
    assert "error" not in result, result
    assert result["path"] == DOC and result["revision"] == tools.read_region(DOC)["revision"]
    assert kinds(result) == [("dangling_reference", "Clause 9", None)]
    assert redline_main(["check", str(root / DOC), "--json"]) == 1
    printed = json.loads(capsys.readouterr().out)
    assert {k: v for k, v in result.items() if k != "path"} == printed


def test_with_edits_each_finding_says_whether_the_edits_cause_it(tools: DocumentTools, root: Path) -> None:
    before = (root / DOC).read_bytes()
    revision = tools.read_region(DOC)["revision"]
    result = tools.check(DOC, [DELETE_2_2], revision=revision)
    assert kinds(result) == [  # by paragraph, as redline check lists them
        ("reference_to_deleted_clause", "2.2", True),
        ("dangling_reference", "Clause 9", False),  # the document's own
    ]
    deleted = result["findings"][0]
    assert deleted["paragraph"] == 6 and deleted["label"] == "2.2"
    assert sorted(p["paragraph"] for p in deleted["related"]) == [3, 7]  # the citing places
    assert result["totals"]["reference_to_deleted_clause"] == 1
    assert result["reply"] == {"notes": [], "invalid": []}
    assert (root / DOC).read_bytes() == before  # nothing written


def test_the_fixes_are_entries_to_add_to_the_edits(tools: DocumentTools) -> None:
    result = tools.check(DOC, [INSERT_BEFORE_1_2])
    mine = [f for f in result["findings"] if f["from_edits"]]
    assert [(f["kind"], f["text"]) for f in mine] == [("renumbered_reference", "Clause 1.2")]
    fix = mine[0]["fix"]
    assert fix is not None and "1.3" in fix["replacement"]
    again = tools.check(DOC, [INSERT_BEFORE_1_2, fix])
    assert not [f for f in again["findings"] if f["from_edits"]], again["findings"]
    # and the edits with the fix apply as they were checked
    applied = tools.apply_edits(DOC, [INSERT_BEFORE_1_2, fix], tools.read_region(DOC)["revision"])
    assert applied["status"] == "applied", applied
    after = tools.check(DOC)
    assert kinds(after) == [("dangling_reference", "Clause 9", None)]


def test_edits_as_a_json_string_and_unreadable_entries(tools: DocumentTools) -> None:
    text = json.dumps({"edits": [DELETE_2_2, {"replacement": 5}]})
    result = tools.check(DOC, text)
    assert ("reference_to_deleted_clause", "2.2", True) in kinds(result)
    assert [i["index"] for i in result["reply"]["invalid"]] == [1]
    # edits that change nothing the check reads: every finding is the document's own
    assert kinds(tools.check(DOC, [])) == [("dangling_reference", "Clause 9", False)]


@pytest.mark.parametrize(
    ("arguments", "code"),
    [
        ({"path": DOC, "revision": "sha256:0"}, "stale"),
        ({"path": DOC, "revision": 7}, "invalid_arguments"),
        ({"path": DOC, "revision": " "}, "invalid_arguments"),
        ({"path": DOC, "edits": 5}, "invalid_edits"),
        ({"path": DOC, "output": "x.docx"}, "invalid_arguments"),
        ({}, "invalid_arguments"),
        ({"path": "missing.docx"}, "not_found_file"),
        ({"path": "../outside.docx"}, "outside_root"),
        ({"path": "notes.docx"}, "not_a_zip"),
    ],
)
def test_refusals_are_typed(tools: DocumentTools, root: Path, arguments: dict[str, Any], code: str) -> None:
    (root / "notes.docx").write_bytes(b"plain text, not a Word file")
    result = tools.handle(CHECK, arguments)
    assert result["error"]["code"] == code, result
    assert result["error"]["message"] and result["error"]["hint"]
    assert "findings" not in result  # no partial output


def test_every_result_holds_to_the_output_schema(tools: DocumentTools) -> None:
    schema = {d["name"]: d["outputSchema"] for d in tool_definitions()}["check"]
    for result in (
        tools.check(DOC),
        tools.check(DOC, [DELETE_2_2]),
        tools.check(DOC, [INSERT_BEFORE_1_2]),
        tools.check(DOC, revision="sha256:0"),
        tools.check("missing.docx"),
    ):
        jsonschema.validate(result, schema)


def test_each_call_is_logged_with_its_findings(tools: DocumentTools, tmp_path: Path) -> None:
    tools.check(DOC, [DELETE_2_2])
    tools.check(DOC, revision="sha256:0")
    lines = [json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()]
    assert [(e["tool"], e["outcome"], e["error_code"]) for e in lines] == [
        ("check", "ok", None),
        ("check", "refused", "stale"),
    ]
    assert lines[0]["findings"] == {"dangling_reference": 1, "reference_to_deleted_clause": 1}
    assert lines[0]["revision"].startswith("sha256:")
