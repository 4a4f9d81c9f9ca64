"""The package layer: a .docx's bytes to a checked :class:`~redline.opc.package.Package` and back.

Nothing here knows what a paragraph is; everything above reads parts through it.

* :mod:`~redline.opc.zipread` -- zip reading under budgets (central directory, inflation bounded)
* :mod:`~redline.opc.zipwrite` -- the byte-faithful zip copy and the threaded deflate
* :mod:`~redline.opc.parts` -- Open Packaging Conventions: part names, content types, relationships
* :mod:`~redline.opc.xmlparse` -- the one safe XML parser, and the serialiser
* :mod:`~redline.opc.namespaces` -- WordprocessingML namespaces and qualified tag names
* :mod:`~redline.opc.package` -- the trust boundary: :class:`Package`, its limits and refusals
* :mod:`~redline.opc.working` -- the working copy of parsed parts a write changes
* :mod:`~redline.opc.inputs` -- reading an input file (regular files only, size checked first)
* :mod:`~redline.opc.files` -- the atomic write every output goes through
"""

from __future__ import annotations

import importlib
from typing import Any


def __getattr__(name: str) -> Any:
    # ``redline.opc`` was the module now named ``redline.opc.parts`` (kept for one release)
    if name.startswith("__"):
        raise AttributeError(name)
    parts = importlib.import_module("redline.opc.parts")
    try:
        return getattr(parts, name)
    except AttributeError:
        raise AttributeError(f"module 'redline.opc' has no attribute {name!r}") from None
