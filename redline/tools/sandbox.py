"""The tools' sandbox: the folder they may use, the paths they resolve under it, the locks they
hold on its documents, and the checks on a file before it is overwritten.

Only files whose resolved real path (symlinks resolved) lies under the root are opened or
written; anything else is refused with ``outside_root``.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from shared_schema import Code, Refusal

from ..read.load import load_view
from .errors import ToolError, show
from .locks import Locks

__all__ = ["Sandbox", "check_overwrite"]


class Sandbox:
    """The folder ``root`` (resolved) and the locks on the documents under it (their files in
    ``lock_dir``, taken within ``lock_timeout`` seconds)."""

    def __init__(self, root: Path | str, lock_dir: Path | None, lock_timeout: float) -> None:
        real = Path(os.path.realpath(root))
        if not real.is_dir():
            raise ValueError(f"the root {str(root)!r} is not a folder")
        self.root = real
        self.locks = Locks(lock_dir, lock_timeout)

    def hold(self, paths: Sequence[str], exclusive: bool) -> AbstractContextManager[None]:
        """The locks of the documents ``paths`` (:meth:`redline.tools.locks.Locks.hold`)."""
        return self.locks.hold(paths, exclusive=exclusive)

    def lock_file(self, path: str) -> Path:
        """The lock file of the document at ``path`` (``outside_root`` if it is not under the root)."""
        return self.locks.lock_file(str(self.resolve(path, "path")))

    def resolve(self, raw: Any, what: str) -> Path:
        """The real path the argument ``what`` names, refused unless it lies under the root."""
        if not isinstance(raw, str) or not raw.strip():
            raise ToolError(
                Code.INVALID_ARGUMENTS,
                f"`{what}` must be a non-empty string naming a file, not {show(raw)}.",
                "Pass the document's path relative to the root folder, e.g. 'lease.docx'.",
            )
        if "\x00" in raw:
            raise ToolError(
                Code.INVALID_ARGUMENTS, f"`{what}` contains a NUL character.", "Pass a plain path."
            )
        candidate = Path(raw)  # no ~ expansion: paths are relative to the root
        if not candidate.is_absolute():
            candidate = self.root / candidate
        real = Path(os.path.realpath(candidate))
        if not real.is_relative_to(self.root):
            raise ToolError(
                Code.OUTSIDE_ROOT,
                f"{show(raw)} is outside the folder this server may open.",
                "Only files under the server's root folder can be read or written; pass a path "
                "relative to it, without '..' and not through a link that leads out of it.",
            )
        return real

    def document(self, raw: Any) -> Path:
        """The real path of the existing file ``raw`` names under the root."""
        real = self.resolve(raw, "path")
        try:
            exists, is_file = real.exists(), real.is_file()
        except OSError:  # a name too long, a loop of links...
            exists = is_file = False
        if not exists:
            raise ToolError(
                Code.NOT_FOUND_FILE,
                f"There is no file {show(raw)} under the root folder.",
                "Check the file name; paths are relative to the server's root folder.",
            )
        if not is_file:
            raise ToolError(
                Code.NOT_A_FILE,
                f"{show(raw)} is not a file.",
                "Pass the path of a .docx file.",
            )
        return real

    def output(self, raw: Any, document: Path) -> Path:
        """The real path of the output ``raw`` names (None: the ``document`` itself): a .docx
        file name in an existing folder under the root, not a folder."""
        if raw is None:
            return document
        out_real = self.resolve(raw, "output")
        if out_real != document:
            if out_real.is_dir():
                raise ToolError(Code.NOT_A_FILE, f"{show(raw)} is a folder.", "Name a .docx file.")
            if not out_real.name.lower().endswith(".docx"):
                raise ToolError(
                    Code.OUTPUT_NOT_DOCUMENT,
                    f"The output {show(raw)} is not a .docx file name.",
                    "Name the output NAME.docx, a new file or a document under the root.",
                )
            if not out_real.parent.is_dir():
                raise ToolError(
                    Code.NOT_FOUND_FOLDER,
                    f"The folder of {show(raw)} does not exist.",
                    "Write into an existing folder under the root.",
                )
        return out_real

    def relative(self, real: Path) -> str:
        """``real`` relative to the root, as the results show it."""
        return real.relative_to(self.root).as_posix()


def check_overwrite(out_real: Path, output_arg: Any) -> None:
    """An existing output is overwritten only when it is a document the tools would open
    (``output_not_document`` otherwise): never a file that is not one."""
    try:
        info = os.lstat(out_real)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise ToolError(
            Code.OUTPUT_NOT_DOCUMENT,
            f"The output {show(output_arg)} cannot be checked: {exc.strerror or exc}.",
            "Name a new .docx file under the root.",
        ) from None
    refusal = None
    if stat.S_ISREG(info.st_mode):
        loaded = load_view(out_real)
        refusal = loaded if isinstance(loaded, Refusal) else None
    if not stat.S_ISREG(info.st_mode) or refusal is not None:
        why = f" ({refusal.message.rstrip('.')} [{refusal.code}])" if refusal is not None else ""
        raise ToolError(
            Code.OUTPUT_NOT_DOCUMENT,
            f"The output {show(output_arg)} exists and is not a document the tools would open{why}; "
            "it is left as it is.",
            "Name a new .docx file, or an existing document, under the root.",
        )
