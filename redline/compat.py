"""Old module paths, kept working for one release.

This release put ``redline``'s modules into layer folders (``opc/``, ``text/``, ``read/``,
``match/``, ``write/``, ``compare/``, ``tools/``) and renamed the batch package ``review`` to
``redline_review``.  A script that imports an old path (``from redline.view import
DocumentView``, ``import review.job``) gets the very module object of its new path -- one module,
so a monkeypatch through either name patches both -- with a :class:`DeprecationWarning` naming
the new path.  ``import redline`` installs the finder; it costs nothing until an old path is
imported.  The public API (``redline.__all__``) never moved and needs none of this.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from importlib.abc import Loader

MOVED: dict[str, str] = {
    "redline.boundary": "redline.errors",
    "redline.zipread": "redline.opc.zipread",
    "redline.zipwrite": "redline.opc.zipwrite",
    "redline.xmlparse": "redline.opc.xmlparse",
    "redline.ooxml": "redline.opc.namespaces",
    "redline.package": "redline.opc.package",
    "redline.working": "redline.opc.working",
    "redline.files": "redline.opc.files",
    "redline.inputs": "redline.opc.inputs",
    "redline.normalize": "redline.text.normalize",
    "redline.worddiff": "redline.text.worddiff",
    "redline.typography": "redline.text.typography",
    "redline.wordml": "redline.read.roles",
    "redline.paragraphs": "redline.read.paragraphs",
    "redline.walk": "redline.read.walk",
    "redline.scan": "redline.read.scan",
    "redline.view": "redline.read.view",
    "redline.numbering": "redline.read.numbering",
    "redline.sections": "redline.read.sections",
    "redline.revisions": "redline.read.annotations",
    "redline.markup": "redline.read.markup",
    "redline.load": "redline.read.load",
    "redline.locate": "redline.match.locate",
    "redline.hints": "redline.match.hints",
    "redline.verify": "redline.match.verify",
    "redline.fields": "redline.match.fields",
    "redline.crossref": "redline.match.crossref",
    "redline.moves": "redline.match.moves",
    "redline.decisions": "redline.match.decisions",
    "redline.arguments": "redline.write.arguments",
    "redline.writer": "redline.write.writer",
    "redline.splice": "redline.write.splice",
    "redline.comments": "redline.write.comments",
    "redline.readback": "redline.write.readback",
    "redline.compare_moves": "redline.compare.moves",
    "redline.locks": "redline.tools.locks",
    "redline.mcp_server": "redline.tools.mcp_server",
    # ``redline.opc``, ``redline.compare`` and ``redline.tools`` are packages now, each giving
    # the old module's public names (``redline.opc`` -> ``redline.opc.parts``)
}
_REVIEW = ("cluster", "html_report", "job", "runner", "storage")
MOVED.update({f"review.{name}": f"redline_review.{name}" for name in _REVIEW})


def forwarded(module: str, name: str, moved: dict[str, str]) -> Any:
    """A module's ``__getattr__`` for the names that moved out of it to a module that imports it
    (``moved``: name -> its module now): the name from there, imported when first asked for --
    so no import cycle, and no import cost until then."""
    home = moved.get(name)
    if home is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


def warn_moved(old: str, new: str) -> None:
    """Warn, attributed to the line that imported the old path (``warnings`` itself skips the
    import system's frames when it counts the stack level; this module's and the ``review``
    shim's frames are skipped here)."""
    frame, level = sys._getframe(1), 2
    while frame.f_back is not None and (
        frame.f_code.co_filename.startswith("<frozen importlib")
        or frame.f_code.co_filename == __file__
        or frame.f_globals.get("__name__") == "review"
    ):
        if not frame.f_code.co_filename.startswith("<frozen importlib"):
            level += 1
        frame = frame.f_back
    message = f"{old} is now {new}; the old path works for one release"
    warnings.warn(message, DeprecationWarning, stacklevel=level)


class _Alias:
    """Finds an old path and loads it as the module of its new path (a meta path finder and its
    loader by their methods: deriving from ``importlib.abc`` imported ``importlib.resources``,
    ``tempfile`` and ``shutil`` into every command's start-up)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, cast("Loader", self), is_package=False)

    def __init__(self) -> None:
        self._specs: dict[str, importlib.machinery.ModuleSpec | None] = {}

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = MOVED[spec.name]
        warn_moved(spec.name, new)
        module = importlib.import_module(new)  # its own __name__ is kept
        self._specs[module.__name__] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # (already executed under its new name) importlib has just set the module's __spec__ to
        # the old path's: put its own back, or a relative import inside it made later (a lazy
        # one, in a function) sees __package__ != __spec__.parent (an ImportWarning, an error
        # under the tests' filters)
        if module.__name__ in self._specs:
            module.__spec__ = self._specs.pop(module.__name__)


def install() -> None:
    if not any(isinstance(finder, _Alias) for finder in sys.meta_path):
        sys.meta_path.append(_Alias())
