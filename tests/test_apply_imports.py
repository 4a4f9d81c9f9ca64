"""Issue 32: the apply path imports and builds only what the reply needs.

The process checks run ``redline apply`` in a fresh interpreter and read, after the command, which
modules it imported and which pydantic models it built (no timing asserted: the benchmark,
``python -m benchmarks.imports``, measures that).  The construction without validation
(:mod:`shared_schema.construct`) is held to pydantic's own validation: the same instances,
field for field, and the same verdict on every entry a reply may send (a hypothesis property).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from redline.apply import ApplyOptions, apply_reply
from redline.opc.package import Package
from redline.read.build import build_view
from redline.report import Report
from shared_schema import Edit, Location, parse_edit_reply
from shared_schema.construct import construct, edit
from shared_schema.parse.fields import validation_reason
from shared_schema.rules import ACTIONS
from testing.contractgen import generate_contract

ROOT = Path(__file__).resolve().parent.parent

_PROBE = """
import contextlib, io, json, sys
from redline_cli.redline import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    code = main(sys.argv[1:])
loaded = sorted(sys.modules)  # (before the probe's own imports below)
from shared_schema import models
from redline import report
shapes = [models.Edit, models.EditBatch, models.InvalidEntry, models.Location, models.Refusal,
          models.EditResult, report.Report, report.ReplyInfo, report.Totals]
built = [c.__name__ for c in shapes if c.__pydantic_complete__]
print(json.dumps({"code": code, "loaded": loaded, "built": built}))
"""

# never imported by an apply whose edits all match and that asks for no report: the report's
# validators (and pydantic's plugin loader, which reads every installed package's metadata to
# build the first one), the near-miss hints' scorer, what the old-path finder pulled in
# (importlib.resources), the other commands, and ``xml.sax.saxutils`` with what it brings
# (``urllib.request``, ``http.client``, ``email``: its ``quoteattr`` is written out as
# ``redline.opc.namespaces.quoted_attribute``), and the converter of .doc/.rtf/.odt inputs with
# its subprocess machinery (a .docx input is told apart by ``redline.opc.inputs.CONVERTIBLE``).
# The planners and writers of format entries, table rows and clause moves come with the
# entry that needs them.  Nor pydantic itself: the apply path carries plain records
# (shared_schema.records, redline.results), the public models made of them for a report.
_NEVER_FOR_PLAIN_EDITS = (
    "pydantic",
    "pydantic_core",
    "annotated_types",
    "shared_schema.models",
    "shared_schema.construct",
    "redline.report",
    "xml.sax",
    "urllib.request",
    "http.client",
    "email",
    "redline.opc.convert",
    "subprocess",
    "tempfile",
    "redline.match.formats",
    "redline.match.rows",
    "redline.match.moves_plan",
    "redline.write.formatting",
    "redline.write.rows",
    "redline.write.moves",
    "importlib.metadata",
    "rapidfuzz",
    "importlib.resources",
    "redline.compare",
    "redline.tools",
    "redline_review",
    "summarize",
)


def _run(args: list[str]) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, *args], cwd=ROOT, capture_output=True, text=True, check=True,
        timeout=120,
    )  # fmt: skip
    got: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return got


@pytest.fixture(scope="module")
def contract(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("imports") / "c.docx"
    path.write_bytes(generate_contract("msa", seed=4, pages=2))
    return path


def _anchors(contract: Path, n: int) -> list[str]:
    view = build_view(Package.from_bytes(contract.read_bytes()))
    paras = [p for p in view.paragraphs if p.end - p.start > 60 and p.story == "body"]
    return [" ".join(view.paragraph_text(p).split(" ")[1:7]) for p in paras[:n]]


def _reply(tmp: Path, edits: list[dict[str, object]]) -> str:
    path = tmp / "reply.json"
    path.write_text(json.dumps({"edits": edits}), encoding="utf-8")
    return str(path)


def _loaded(loaded: list[str], names: tuple[str, ...]) -> list[str]:
    return [m for m in names if any(k == m or k.startswith(m + ".") for k in loaded)]


def test_plain_edits_without_a_report_build_no_model(contract: Path, tmp_path: Path) -> None:
    edits: list[dict[str, object]] = [
        {"anchor": a, "replacement": a + " (amended)"} for a in _anchors(contract, 5)
    ]
    got = _run(["apply", str(contract), _reply(tmp_path, edits), "-o", str(tmp_path / "out.docx")])
    assert got["code"] == 0
    assert "redline.write.writer" in got["loaded"]  # (the probe saw the run)
    assert got["built"] == []
    assert _loaded(got["loaded"], _NEVER_FOR_PLAIN_EDITS) == []


def test_refused_edits_without_a_report_import_no_pydantic(contract: Path, tmp_path: Path) -> None:
    """An entry refused by the parser's rules (their words are pydantic's, without it), one not
    found, one ambiguous, one a number, a stale reply and an unparseable one: none imports
    pydantic, and each says why on stderr as before."""
    anchor = _anchors(contract, 1)[0]
    edits: list[dict[str, object]] = [
        {"anchor": anchor, "replacement": anchor + " (amended)"},
        {"anchor": "x\u202ey", "replacement": "z"},
        {"anchor": "ok", "replacement": "a\x00b", "rationale": "\u202e"},
        {"anchor": "   ", "replacement": "z"},
        {"anchor": "words this contract never says", "replacement": "x"},
        {"anchor": "the", "replacement": "x"},
        {"anchor": 12, "replacement": "x"},
    ]
    got = _run(["apply", str(contract), _reply(tmp_path, edits), "-o", str(tmp_path / "out.docx")])
    assert got["code"] == 1 and "redline.write.writer" in got["loaded"]
    assert _loaded(got["loaded"], ("pydantic", "shared_schema.models")) == []
    stale = tmp_path / "stale.json"
    stale.write_text(json.dumps({"edits": edits[:1], "revision": "sha256:00"}), encoding="utf-8")
    got = _run(["apply", str(contract), str(stale), "-o", str(tmp_path / "out2.docx")])
    assert got["code"] == 1 and _loaded(got["loaded"], ("pydantic",)) == []
    junk = tmp_path / "junk.txt"
    junk.write_text("no JSON here", encoding="utf-8")
    got = _run(["apply", str(contract), str(junk), "-o", str(tmp_path / "out3.docx")])
    assert got["code"] == 3 and _loaded(got["loaded"], ("pydantic",)) == []


def test_a_refused_reply_reports_as_before(contract: Path, tmp_path: Path) -> None:
    """The same refusals with ``--report``: the report (made of the records) says what the
    validated models say -- the rules' words are pydantic's."""
    edits: list[dict[str, object]] = [  # (the entries the parser leaves to the model's rules)
        {"anchor": "x\u202ey", "replacement": "z"},
        {"anchor": "   ", "replacement": "z"},
        {"anchor": "a\u202eb", "replacement": "z", "rationale": "\u2066x"},
    ]
    report = tmp_path / "r.json"
    got = _run(["apply", str(contract), _reply(tmp_path, edits), "-o", str(tmp_path / "out.docx"),
                "--report", str(report)])  # fmt: skip
    assert got["code"] == 1
    data = json.loads(report.read_text(encoding="utf-8"))
    reasons = [i["reason"] for i in data["reply"]["invalid"]]
    expected = []
    for values in edits:
        try:
            Edit(**values)
        except ValidationError as exc:
            expected.append(validation_reason(exc))
    assert reasons == expected
    assert len(expected) == 3


def test_a_report_asked_for_is_built_and_whole(contract: Path, tmp_path: Path) -> None:
    anchors = _anchors(contract, 3)
    edits: list[dict[str, object]] = [{"anchor": a, "replacement": a + " (amended)"} for a in anchors]
    edits.append({"anchor": "words this contract never says", "replacement": "x"})
    report = tmp_path / "r.json"
    got = _run(["apply", str(contract), _reply(tmp_path, edits), "-o", str(tmp_path / "out.docx"),
                "--report", str(report)])  # fmt: skip
    assert got["code"] == 1
    # (the report's validator is built whole, its entries' shapes inside it: the entries'
    # own models need not be marked built)
    assert "Report" in got["built"] and "pydantic" in got["loaded"]
    data = json.loads(report.read_text(encoding="utf-8"))
    assert [e["status"] for e in data["edits"]] == ["applied"] * 3 + ["not_found"]
    assert data["totals"] == {"proposed": 4, "applied": 3, "unapplied": 1,
                              "by_status": {"applied": 3, "not_found": 1}}  # fmt: skip
    # the report as validation reads it back is the report written (every field of its type)
    assert Report.model_validate(data).model_dump(mode="json") == data


def _validated(made: BaseModel) -> BaseModel:
    """What validation makes of the values ``made`` was given (its fields set)."""
    again = type(made).model_validate({k: made.__dict__[k] for k in made.model_fields_set})
    if isinstance(made, Edit) and made.index is not None:
        assert isinstance(again, Edit)
        again.placed(made.index)
    return again


def _same(made: BaseModel, validated: BaseModel) -> None:
    assert type(made) is type(validated)
    assert made.__dict__ == validated.__dict__
    assert list(made.__dict__) == list(validated.__dict__)  # field order (repr, dumps)
    assert made.model_fields_set == validated.model_fields_set
    assert made.__pydantic_private__ == validated.__pydantic_private__
    assert made.__pydantic_extra__ == validated.__pydantic_extra__
    assert made.model_dump(mode="json") == validated.model_dump(mode="json")
    assert repr(made) == repr(validated)


def test_an_applied_reply_is_what_validation_makes() -> None:
    """Every model the run constructed (the batch, its edits, the results, their locations, the
    report) equals the one pydantic validates from the same values."""
    data = generate_contract("msa", seed=8, pages=3)
    view = build_view(Package.from_bytes(data))
    paras = [p for p in view.paragraphs if p.end - p.start > 60 and p.story == "body"][:6]
    anchors = [" ".join(view.paragraph_text(p).split(" ")[2:8]) for p in paras]
    reply = json.dumps({"edits": [
        {"anchor": anchors[0], "replacement": anchors[0] + " promptly", "rationale": "clearer", "id": "e1"},
        {"anchor": anchors[1], "replacement": "", "section": paras[1].label or None},
        {"anchor": anchors[2], "action": "insert_after", "text": "A new clause.\nAnd another."},
        {"anchor": anchors[3], "replacement": "x", "expected_matches": 1},
        {"anchor": "nothing of the kind is written", "replacement": "x"},
        {"anchor": 12, "replacement": "x"},
        {"anchor": anchors[4], "action": "comment", "text": "Please check."},
    ]})  # fmt: skip
    outcome = apply_reply(data, reply, ApplyOptions(date="2024-01-01T00:00:00Z"))
    report, batch = outcome.report, outcome.batch
    assert batch is not None
    made: list[BaseModel] = [*batch.edits, batch, report, report.totals, report.reply]
    for r in report.edits:
        made += [r, *r.locations]
    for m in made:
        _same(m, _validated(m))
    statuses = [r.status.value for r in report.edits]
    assert statuses[4:6] == ["not_found", "invalid"] and statuses.count("applied") >= 4


def test_construct_refuses_what_the_model_does_not_hold() -> None:
    with pytest.raises(TypeError, match="no field"):
        construct(Location, {"part": "p", "paragraph": 0, "start": 0, "end": 1, "colour": "red"})
    with pytest.raises(TypeError, match="required"):
        construct(Location, {"part": "p", "paragraph": 0, "start": 0})


# -- a reply's entries: the checked construction against pydantic's validation ----------------

_CHARS = st.sampled_from(["a", "B", " ", "\t", "\n", "é", "\u200f", "\u202e", "\x00", "\x0b", "\ufffe",
                          "\u2028", "1", ".", "\u00a0"])  # fmt: skip
_TEXT = st.text(_CHARS, max_size=6)
_VALUE = st.one_of(st.none(), _TEXT, st.integers(-2, 3), st.booleans(), st.floats(0, 2), st.just(["a"]))
_FIELDS = st.sampled_from(["anchor", "replacement", "rationale", "section", "id", "text", "revision_id",
                           "author", "comment_id", "expected_matches", "level", "action"])  # fmt: skip


@st.composite
def _entries(draw: st.DrawFn) -> dict[str, Any]:
    values = draw(st.dictionaries(_FIELDS, _VALUE, max_size=6))
    if "action" in values and draw(st.booleans()):
        values["action"] = draw(st.sampled_from([*ACTIONS, "replace", "nonsense"]))
    return values


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_entries())
def test_a_checked_entry_is_the_validated_entry(values: dict[str, Any]) -> None:
    try:
        validated: Edit | None = Edit(**values)
    except ValidationError as exc:
        validated, error = None, exc.errors(include_context=False)
    try:
        made: Edit | None = edit(Edit, values)
    except ValidationError as exc:
        made, made_error = None, exc.errors(include_context=False)
    if validated is None:
        assert made is None and made_error == error
    else:
        assert made is not None
        _same(made, validated)


def test_the_parser_reads_a_reply_as_before() -> None:
    """A reply's entries of every plain kind, parsed: each edit equals its validated self."""
    reply = json.dumps([
        {"find": "the Term", "replace": "the Initial Term", "rationale": "defined"},
        {"anchor": "Landlord", "replacement": "Lessor", "expected_matches": 3, "section": "4.2"},
        {"anchor": "rent", "action": "delete"},
        {"anchor": "x\u202ey", "replacement": "z"},
        {"anchor": "   ", "replacement": "z"},
        {"action": "accept", "revision_id": "12"},
        {"action": "reply", "comment_id": "4", "text": "Agreed."},
    ])  # fmt: skip
    batch = parse_edit_reply(reply)
    assert batch is not None
    assert [e.index for e in batch.edits] == [0, 1, 2, 5, 6]
    assert [i.index for i in batch.invalid] == [3, 4]
    for e in batch.edits:
        _same(e, _validated(e))


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from(["a", "&", "<", ">", '"', "'", "\n", "\r", "\t", " ", "é", "#"]), max_size=12))
def test_quoted_attribute_is_quoteattr(value: str) -> None:
    """The attribute quoter written out for the namespace declarations spells every value as
    ``xml.sax.saxutils.quoteattr`` does (the splice's and the read-back's bytes depend on it)."""
    from xml.sax.saxutils import quoteattr

    from redline.opc.namespaces import declarations, quoted_attribute

    assert quoted_attribute(value) == quoteattr(value)
    nsmap = {None: value, "w": value + "x"}
    assert declarations(nsmap) == f" xmlns={quoteattr(value)} xmlns:w={quoteattr(value + 'x')}"
