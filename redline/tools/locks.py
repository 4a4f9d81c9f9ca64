"""Document locks for the tools: per-user, private, and taken with a deadline.

Calls on one document run one after another: a thread lock per document (the calls of this
process) and an ``fcntl.flock`` on a lock file per document (every process).  The lock files
live in a folder of the user's own (:func:`private_lock_dir`):

* ``$XDG_RUNTIME_DIR/redline-locks`` when the session has one, else
  ``<tempdir>/redline-locks-<uid>`` -- never a fixed name shared by every user of the temporary
  folder, where anyone could plant a symbolic link or a folder of their own first;
* made with mode 0700; used only when ``lstat`` says it is a real folder (no symbolic link),
  owned by this user and open to nobody else (refused ``lock_failed`` otherwise, never
  repaired or followed);
* lock files opened with ``O_NOFOLLOW``, mode 0600.

Every lock is taken with a deadline (:data:`LOCK_TIMEOUT`): a call that cannot have it in time
is refused ``busy`` with a hint to retry, instead of waiting forever behind a stuck process.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import stat
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Final

from shared_schema import Code

from ..errors import Refused

__all__ = ["LOCK_TIMEOUT", "LockError", "Locks", "private_lock_dir"]

LOCK_TIMEOUT: Final = 30.0
"""Seconds a call waits for a document's locks before it is refused ``busy``."""

_POLL: Final = (0.005, 0.1)  # first and longest pause between two tries of a held flock

BUSY_HINT: Final = (
    "Another call is editing this document right now; wait a moment and call again "
    "(read_region first if you call apply_edits: the document may have changed)."
)


class LockError(Refused):
    """A lock not obtained: ``code`` is ``busy`` (not in time) or ``lock_failed`` (the folder
    or the file cannot be used); ``message`` and ``hint`` are for the caller."""

    hint: str

    def __init__(self, code: Code, message: str, hint: str) -> None:
        super().__init__(code, message, hint)


def _failed(message: str) -> LockError:
    return LockError(
        Code.LOCK_FAILED,
        message,
        "Fix or remove the lock folder (it must be yours, mode 0700), or start the server with "
        "a lock folder of your own.",
    )


def default_lock_dir() -> Path:
    """Where the lock files go by default (see the module docstring)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime) and os.path.isdir(runtime):
        return Path(runtime) / "redline-locks"
    return Path(tempfile.gettempdir()) / f"redline-locks-{os.getuid()}"


def private_lock_dir(path: Path | None = None) -> Path:
    """``path`` (default: :func:`default_lock_dir`) made if missing (mode 0700) and checked:
    a real folder, not a link, this user's, writable by nobody else (for the default: open
    to nobody else). Raises :class:`LockError` ``lock_failed``."""
    strict = path is None
    folder = default_lock_dir() if path is None else Path(path)
    try:
        if not strict:
            os.makedirs(folder.parent, exist_ok=True)
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        raise _failed(f"Cannot make the lock folder {folder}: {exc.strerror or exc}.") from None
    try:
        info = os.lstat(folder)
    except OSError as exc:
        raise _failed(f"Cannot use the lock folder {folder}: {exc.strerror or exc}.") from None
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise _failed(f"The lock folder {folder} is not a folder (a link, or a file): refusing to use it.")
    if info.st_uid != os.getuid():
        raise _failed(f"The lock folder {folder} belongs to another user: refusing to use it.")
    if info.st_mode & (0o077 if strict else 0o022):
        raise _failed(
            f"The lock folder {folder} is open to other users (mode {stat.S_IMODE(info.st_mode):o}): "
            "refusing to use it."
        )
    return folder


class Locks:
    """A lock per document (threads of this process) plus a flock per document (processes),
    in ``folder`` (checked by :func:`private_lock_dir`), each taken within ``timeout``
    seconds."""

    def __init__(self, folder: Path | None = None, timeout: float = LOCK_TIMEOUT) -> None:
        self._requested = folder
        self.timeout = timeout
        self._guard = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}

    @property
    def folder(self) -> Path:
        """The lock folder (made and checked by :meth:`hold`, each time: another process may
        have changed it since)."""
        return self._requested if self._requested is not None else default_lock_dir()

    def lock_file(self, key: str) -> Path:
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
        return self.folder / f"{digest}.lock"

    def _thread_lock(self, key: str) -> threading.Lock:
        with self._guard:
            lock = self._locks.get(key)
            if lock is None:
                lock = self._locks[key] = threading.Lock()
            return lock

    @contextlib.contextmanager
    def hold(self, keys: Sequence[str], exclusive: bool) -> Iterator[None]:
        """Hold every document's locks, always taken in sorted order (no deadlock), all of
        them within the timeout (raises :class:`LockError` ``busy`` when not)."""
        ordered = sorted(set(keys))
        deadline = time.monotonic() + self.timeout
        private_lock_dir(self._requested)
        with contextlib.ExitStack() as stack:
            for key in ordered:
                lock = self._thread_lock(key)
                if not lock.acquire(timeout=max(0.0, deadline - time.monotonic())):
                    raise _busy()
                stack.callback(lock.release)
            for key in ordered:
                stack.enter_context(self._flock(key, exclusive, deadline))
            yield

    @contextlib.contextmanager
    def _flock(self, key: str, exclusive: bool, deadline: float) -> Iterator[None]:
        path = self.lock_file(key)
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(path, flags, 0o600)
        except OSError as exc:
            reason = "it is a link" if exc.errno == errno.ELOOP else exc.strerror or str(exc)
            raise _failed(f"Cannot open the document's lock file {path}: {reason}.") from None
        try:
            mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
            pause = _POLL[0]
            while True:
                try:
                    fcntl.flock(fd, mode | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise _busy() from None
                    time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
                    pause = min(pause * 2, _POLL[1])
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the flock


def _busy() -> LockError:
    return LockError(
        Code.BUSY,
        "The document is in use by another call, which did not finish in time; nothing was done.",
        BUSY_HINT,
    )
