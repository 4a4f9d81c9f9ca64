"""Redline a contract with a Claude model, in one retry.

document -> the model (a strict tool whose input is the reply) -> its reply -> verify every
edit -> the refused ones fed back once, as the tool's result -> the redlined copy.

    pip install redline anthropic
    export ANTHROPIC_API_KEY=...
    python examples/anthropic_redline.py lease.docx "Shorten every notice period to ten days"
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import redline

MODEL = "claude-sonnet-4-5"


def ask(client: Any, messages: list[dict[str, Any]]) -> tuple[Any, Any]:
    """One message that must call the submit_edits tool; the response and its tool call."""
    response = client.messages.create(
        model=MODEL,
        max_tokens=8000,
        system=redline.instructions("anthropic"),
        messages=messages,
        **redline.definitions("anthropic"),
    )
    call = next(block for block in response.content if block.type == "tool_use")
    return response, call


def main(argv: list[str], client: Any = None) -> int:
    doc, task = Path(argv[0]), argv[1]
    data = doc.read_bytes()
    loaded = redline.load_view(data)
    if isinstance(loaded, redline.Refusal):
        print(f"{doc}: refused: {loaded.message}", file=sys.stderr)
        return 3
    _, view = loaded
    if client is None:
        from anthropic import Anthropic

        client = Anthropic()
    messages: list[dict[str, Any]] = [{"role": "user", "content": f"{task}\n\nThe contract:\n{view.text}"}]
    response, call = ask(client, messages)
    reply = json.dumps(call.input)
    first = redline.apply_reply(data, reply, redline.ApplyOptions(dry_run=True))  # verify only
    feedback = redline.refusal_feedback(first.report)
    batch = first.batch
    if feedback is not None:  # one retry: the refusals are the tool's (failed) result
        result = {"type": "tool_result", "tool_use_id": call.id, "content": feedback, "is_error": True}
        messages += [
            {"role": "assistant", "content": response.content},
            {"role": "user", "content": [result]},
        ]
        _, again = ask(client, messages)
        batch = redline.with_retry(first, json.dumps(again.input))
    final = redline.apply_reply(data, batch or reply, redline.ApplyOptions(author="Claude review"))
    out = doc.with_name(doc.stem + ".redlined.docx")
    if final.output is not None:
        out.write_bytes(final.output)
    t = final.report.totals
    print(f"{t.applied} of {t.proposed} edits applied -> {out}", file=sys.stderr)
    return final.exit_code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
