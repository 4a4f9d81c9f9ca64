"""Redline a contract with an OpenAI model, in one retry.

document -> the model (strict structured output) -> its reply -> verify every edit -> the
refused ones fed back once -> the redlined copy, with tracked changes.

    pip install redline openai
    export OPENAI_API_KEY=...
    python examples/openai_redline.py lease.docx "Shorten every notice period to ten days"
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import redline

MODEL = "gpt-4.1"


def ask(client: Any, messages: list[dict[str, str]]) -> str:
    """One chat completion whose reply must match redline's strict edits schema."""
    response = client.chat.completions.create(model=MODEL, messages=messages, **redline.definitions("openai"))
    return str(response.choices[0].message.content or "")


def main(argv: list[str], client: Any = None) -> int:
    doc, task = Path(argv[0]), argv[1]
    data = doc.read_bytes()
    loaded = redline.load_view(data)
    if isinstance(loaded, redline.Refusal):
        print(f"{doc}: refused: {loaded.message}", file=sys.stderr)
        return 3
    _, view = loaded
    if client is None:
        from openai import OpenAI

        client = OpenAI()
    messages = [
        {"role": "system", "content": redline.instructions("openai")},
        {"role": "user", "content": f"{task}\n\nThe contract:\n{view.text}"},
    ]
    reply = ask(client, messages)
    first = redline.apply_reply(data, reply, redline.ApplyOptions(dry_run=True))  # verify only
    feedback = redline.refusal_feedback(first.report)
    batch = first.batch
    if feedback is not None:  # one retry, for the refused edits alone
        messages += [{"role": "assistant", "content": reply}, {"role": "user", "content": feedback}]
        batch = redline.with_retry(first, ask(client, messages))
    final = redline.apply_reply(data, batch or reply, redline.ApplyOptions(author="OpenAI review"))
    out = doc.with_name(doc.stem + ".redlined.docx")
    if final.output is not None:
        out.write_bytes(final.output)
    t = final.report.totals
    print(f"{t.applied} of {t.proposed} edits applied -> {out}", file=sys.stderr)
    return final.exit_code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
