"""redline: apply a language model's proposed contract edits as native Word tracked changes,
each verified against the document's real text.

The document side of the pipeline -- load a .docx safely, flatten it into an offset-mapped view,
locate a model's anchors, write the edits as tracked changes -- and the public Python API::

    import redline
    from pathlib import Path

    data = Path("lease.docx").read_bytes()
    loaded = redline.load_view(data)            # (package, view), or the Refusal saying why not
    if isinstance(loaded, redline.Refusal):
        raise SystemExit(loaded.message)
    _, view = loaded                            # view.text: what the model is shown
    system = redline.instructions("openai")     # plus redline.definitions("openai")
    reply = ask_the_model(system, view.text)    # your call to the model API
    outcome = redline.apply_reply(data, reply, redline.ApplyOptions(author="Counsel"))
    print(redline.refusal_feedback(outcome.report))  # the refusals, for one retry
    Path("lease.redlined.docx").write_bytes(outcome.output or b"")

Importing ``redline`` is cheap: every name of :data:`__all__` is imported on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"  # the one place (pyproject reads it)

from .compat import install as _install_old_paths

_install_old_paths()  # redline.view, redline.package, ...: the paths before the layer folders

# name -> the module that defines it; imported on first access (PEP 562)
_EXPORTS: dict[str, str] = {
    # load and view
    "load_view": "redline.read.load",
    "DocumentView": "redline.read.view",
    "Package": "redline.opc.package",
    "PackageError": "redline.opc.package",
    "Limits": "redline.opc.package",
    # apply a reply
    "apply_reply": "redline.apply",
    "ApplyOptions": "redline.apply",
    "Outcome": "redline.apply",
    "parse_edit_reply": "shared_schema",
    "Edit": "shared_schema",
    "EditBatch": "shared_schema",
    # what a model is asked for
    "EditRequest": "shared_schema",
    "EditsRequest": "shared_schema",
    "json_schema": "shared_schema",
    "instructions": "redline.prompt",
    "definitions": "redline.prompt",
    "refusal_feedback": "redline.prompt",
    "with_retry": "redline.prompt",
    # the report
    "Report": "redline.report",
    "Totals": "redline.report",
    "EditResult": "shared_schema",
    "EditStatus": "shared_schema",
    "Location": "shared_schema",
    "Refusal": "shared_schema",
    "Code": "shared_schema",
    # the tools a model calls
    "DocumentTools": "redline.tools",
    "tool_definitions": "redline.tools",
}

__all__ = [
    "ApplyOptions",
    "Code",
    "DocumentTools",
    "DocumentView",
    "Edit",
    "EditBatch",
    "EditRequest",
    "EditResult",
    "EditStatus",
    "EditsRequest",
    "Limits",
    "Location",
    "Outcome",
    "Package",
    "PackageError",
    "Refusal",
    "Report",
    "Totals",
    "__version__",
    "apply_reply",
    "definitions",
    "instructions",
    "json_schema",
    "load_view",
    "parse_edit_reply",
    "refusal_feedback",
    "tool_definitions",
    "with_retry",
]

if TYPE_CHECKING:  # what a type checker sees; at run time __getattr__ imports on first use
    from shared_schema import (
        Code,
        Edit,
        EditBatch,
        EditRequest,
        EditResult,
        EditsRequest,
        EditStatus,
        Location,
        Refusal,
        json_schema,
        parse_edit_reply,
    )

    from .apply import ApplyOptions, Outcome, apply_reply
    from .opc.package import Limits, Package, PackageError
    from .prompt import definitions, instructions, refusal_feedback, with_retry
    from .read.load import load_view
    from .read.view import DocumentView
    from .report import Report, Totals
    from .tools import DocumentTools, tool_definitions


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'redline' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # the next access is a plain lookup
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
