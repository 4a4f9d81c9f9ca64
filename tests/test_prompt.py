"""The prompt kit (`redline prompt`, :mod:`redline.prompt`) and `redline schema`."""

from __future__ import annotations

import json
from typing import Any

import pytest

from redline.apply import apply_reply
from redline.prompt import APIS, EDITS_TOOL, Api, definitions, instructions, refusal_feedback, render
from redline.tools import tool_definitions
from redline_cli.redline import main as redline_main
from shared_schema import DIALECTS, EditStatus, json_schema
from testing.contractgen import generate_contract


def _printed_json(text: str) -> dict[str, object]:
    """The JSON object that follows the prompt's last heading."""
    body = text[text.index("# Definitions") :]
    parsed: dict[str, object] = json.loads(body[body.index("{") :])
    return parsed


@pytest.mark.parametrize("api", APIS)
def test_redline_prompt_prints_the_instructions_and_the_schema_it_names(
    api: Api, capsys: pytest.CaptureFixture[str]
) -> None:
    assert redline_main(["prompt", "--for", api]) == 0
    out = capsys.readouterr().out
    assert out == render(api)
    assert instructions(api) in out
    printed = _printed_json(out)
    assert printed == definitions(api)
    if api == "mcp":
        assert printed["tools"] == tool_definitions()
        assert "read_region" in out and "in place" in out
        return
    paths: dict[str, list[str | int]] = {
        "openai": ["response_format", "json_schema", "schema"],
        "anthropic": ["tools", 0, "input_schema"],
        "gemini": ["generationConfig", "responseSchema"],
        "json-schema": ["schema"],
    }
    path = paths[api]
    found: Any = printed
    for step in path:
        found = found[step]
    assert found == json_schema("edits", api)


def test_the_instructions_cover_what_a_model_must_know() -> None:
    text = instructions()
    for must in (
        "character for character",  # quoting anchors
        "one reply",  # all edits at once
        "must not overlap",
        "expected_matches",
        "section",
        "rationale",
        "insert_after",  # the actions there are
        "strike a whole clause",
        "hint",  # reading a refusal
        "reply once more",  # the retry
    ):
        assert must in text.lower() or must in text, must
    for status in EditStatus:
        if not status.ok:
            assert f"- {status.value}:" in text, status  # every refusal code, with its meaning
    assert "read_region" in instructions("mcp") and "read_region" not in text
    assert EDITS_TOOL in instructions("anthropic")


@pytest.mark.parametrize("api", APIS)
def test_the_instructions_say_to_check_the_reply_before_sending_it(api: Api) -> None:
    text = instructions(api)
    assert "redline check CONTRACT.docx REPLY.json" in text
    for must in ("fix", "reference_to_deleted_clause", "renumbered_reference", "check again"):
        assert must in text, must
    if api == "mcp":  # the tool, before apply_edits, and what from_edits means
        assert "Before apply_edits, call check" in text and "`from_edits`" in text
        assert "check" in {d["name"] for d in tool_definitions()}
    else:
        assert "from_edits" not in text and "read_region" not in text


def test_the_openai_and_anthropic_definitions_are_strict() -> None:
    openai = definitions("openai")["response_format"]
    assert openai["type"] == "json_schema" and openai["json_schema"]["strict"] is True
    anthropic = definitions("anthropic")
    assert anthropic["tools"][0]["strict"] is True
    assert anthropic["tool_choice"] == {"type": "tool", "name": EDITS_TOOL}


def test_refusal_feedback_lists_only_the_refused_edits_with_their_hints() -> None:
    lease = generate_contract("lease")
    reply = json.dumps(
        {
            "edits": [
                {"anchor": "the lease never says this", "replacement": "x", "id": "gone"},
                {"anchor": "Tenant", "replacement": "Lessee", "id": "many"},
            ]
        }
    )
    report = apply_reply(lease, reply).report
    feedback = refusal_feedback(report)
    assert feedback is not None
    body = json.loads(feedback[feedback.index("[") :])
    assert [e["id"] for e in body] == ["gone", "many"]
    assert [e["status"] for e in body] == ["not_found", "ambiguous"]
    assert all(e["hint"] and e["message"] for e in body)
    assert body[1]["unique_quotes"]  # an ambiguous anchor comes back with unique longer quotes
    assert "corrected versions of these edits only" in feedback
    assert refusal_feedback(apply_reply(lease, '{"edits": []}').report) is None


@pytest.mark.parametrize("dialect", DIALECTS)
def test_redline_schema_prints_each_dialect(dialect: str, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("edits", "edit", "summary"):
        assert redline_main(["schema", name, "--for", dialect]) == 0
        assert json.loads(capsys.readouterr().out) == json_schema(name, dialect)  # type: ignore[arg-type]


def test_redline_schema_refuses_an_unknown_name_or_dialect(capsys: pytest.CaptureFixture[str]) -> None:
    assert redline_main(["schema", "nonsense"]) == 2
    assert redline_main(["schema", "edits", "--for", "cobol"]) == 2
    assert "usage: redline schema" in capsys.readouterr().err
