"""The examples/ programs, run offline: the real OpenAI and Anthropic SDK clients, their HTTP
answered from recorded replies (an httpx mock transport), so the programs cannot rot against
either the SDKs or redline.

The recorded conversation, on the bundled NDA: the first reply carries one edit that applies
and one whose quote dropped a comma (refused: not_found, with the nearest passage); the retry
quotes it exactly; the redlined copy holds both.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from examples import anthropic_redline, openai_redline
from redline.opc.package import Package
from redline.read.load import load_view
from shared_schema import Refusal, json_schema

ROOT = Path(__file__).resolve().parent.parent
RECORDED = Path(__file__).resolve().parent / "recorded"
TASK = "Shorten the notice periods."


class Recorded:
    """An HTTP transport that answers each request with the next recorded reply."""

    def __init__(self, names: list[str]) -> None:
        self.replies = [json.loads((RECORDED / name).read_text()) for name in names]
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(json.loads(request.content))
        return httpx.Response(200, json=self.replies[len(self.requests) - 1])

    def client(self) -> httpx.Client:
        return httpx.Client(transport=httpx.MockTransport(self))


@pytest.fixture
def nda(tmp_path: Path) -> Path:
    doc = tmp_path / "nda.docx"
    shutil.copy(ROOT / "sample_contracts" / "mutual-nda.docx", doc)
    return doc


def _check_redlined(doc: Path) -> None:
    out = doc.with_name("nda.redlined.docx")
    xml = Package.open(out).read("word/document.xml").decode("utf-8")
    assert "<w:ins " in xml and "<w:del " in xml  # tracked changes
    loaded = load_view(out.read_bytes())
    assert not isinstance(loaded, Refusal)
    text = loaded[1].text  # the view reads the document as if every change were accepted
    assert "within ten (10) days after the disclosure" in text
    assert "promptly, and in any event within one (1) Business Day," in text


def _run(main: Callable[..., int], doc: Path, client: Any, capsys: pytest.CaptureFixture[str]) -> str:
    assert main([str(doc), TASK], client=client) == 0  # every edit applied after the retry
    return capsys.readouterr().err


def test_the_openai_example_retries_once_and_writes_the_redlined_copy(
    nda: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from openai import OpenAI

    recorded = Recorded(["openai-chat-1.json", "openai-chat-2.json"])
    client = OpenAI(api_key="offline", base_url="http://recorded.invalid/v1", http_client=recorded.client())
    err = _run(openai_redline.main, nda, client, capsys)
    assert "2 of 2 edits applied" in err
    first, retry = recorded.requests
    assert first["response_format"]["json_schema"]["strict"] is True
    assert first["response_format"]["json_schema"]["schema"] == json_schema("edits", "openai")
    assert "character for character" in first["messages"][0]["content"]
    feedback = retry["messages"][-1]["content"]
    assert "not_found" in feedback and "promptly, and in any event" in feedback  # the nearest passage
    assert "oral-10-days" not in feedback  # only the refused edit goes back
    _check_redlined(nda)


def test_the_anthropic_example_retries_once_through_the_tool_result(
    nda: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from anthropic import Anthropic

    recorded = Recorded(["anthropic-messages-1.json", "anthropic-messages-2.json"])
    client = Anthropic(api_key="offline", base_url="http://recorded.invalid", http_client=recorded.client())
    err = _run(anthropic_redline.main, nda, client, capsys)
    assert "2 of 2 edits applied" in err
    first, retry = recorded.requests
    [tool] = first["tools"]
    assert tool["strict"] is True and tool["input_schema"] == json_schema("edits", "anthropic")
    assert first["tool_choice"] == {"type": "tool", "name": "submit_edits"}
    [result] = retry["messages"][-1]["content"]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "toolu_recorded_1"
    assert result["is_error"] is True and "not_found" in result["content"]
    _check_redlined(nda)


def test_an_example_with_an_unreadable_document_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.docx"
    bad.write_bytes(b"not a zip")
    assert openai_redline.main([str(bad), TASK], client=object()) == 3
    assert "refused" in capsys.readouterr().err
