"""Where a batch's files live: a local folder, or any URL fsspec understands (optional extra).

The batch runner speaks only this small interface (list, read, write), so a shared file system
or an object store (``s3://…``, ``memory://…``) works exactly like a folder when ``fsspec`` is
installed (``pip install 'redline[dask]'``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Protocol

from redline.files import write_atomic

_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")


class Storage(Protocol):
    def list(self) -> list[str]: ...
    def read(self, name: str) -> bytes: ...
    def write(self, name: str, data: bytes) -> None: ...
    def is_dir(self) -> bool: ...
    def makedirs(self) -> None: ...
    def join(self, name: str) -> str: ...
    def describe(self) -> str: ...


class LocalStorage:
    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def list(self) -> list[str]:
        return sorted(p.name for p in self.path.iterdir() if p.is_file())

    def read(self, name: str) -> bytes:
        return (self.path / name).read_bytes()

    def write(self, name: str, data: bytes) -> None:
        write_atomic(self.path / name, data)

    def is_dir(self) -> bool:
        return self.path.is_dir()

    def makedirs(self) -> None:
        self.path.mkdir(parents=True, exist_ok=True)

    def join(self, name: str) -> str:
        return str(self.path / name)

    def describe(self) -> str:
        return str(self.path)


class FsspecStorage:
    """A folder on any file system fsspec knows; writes go to a temporary name, then move."""

    def __init__(self, url: str) -> None:
        import fsspec

        fs, root = fsspec.core.url_to_fs(url)
        self.fs: Any = fs
        self.root = root.rstrip("/")
        self.url = url.rstrip("/")

    def _p(self, name: str) -> str:
        return f"{self.root}/{name}"

    def list(self) -> list[str]:
        entries = self.fs.ls(self.root, detail=True)
        return sorted(e["name"].rsplit("/", 1)[-1] for e in entries if e.get("type") == "file")

    def read(self, name: str) -> bytes:
        data: bytes = self.fs.cat_file(self._p(name))
        return data

    def write(self, name: str, data: bytes) -> None:
        tmp = self._p(f".{name}.partial")
        self.fs.pipe_file(tmp, data)
        self.fs.mv(tmp, self._p(name))

    def is_dir(self) -> bool:
        return bool(self.fs.isdir(self.root))

    def makedirs(self) -> None:
        self.fs.makedirs(self.root, exist_ok=True)

    def join(self, name: str) -> str:
        return f"{self.url}/{name}"

    def describe(self) -> str:
        return self.url


def open_storage(location: str) -> Storage:
    """A local folder for a path (or file:// URL), fsspec for any other URL."""
    if location.startswith("file://"):
        return LocalStorage(location[len("file://") :])
    if _URL.match(location):
        return FsspecStorage(location)
    return LocalStorage(location)
