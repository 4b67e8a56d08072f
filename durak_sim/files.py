"""Files written whole or not at all, and the errors of stored results.

Every output durak-sim writes goes first to a temporary file in the same folder, is flushed
to disk, and is then put in place by ``os.replace``: a crash or a kill leaves the old file or
the new one, never half of one. A SIGKILL leaves the temporary file itself; the next write of
the same file removes it (:func:`atomic_text_file`), and ``remove_temporaries`` those of a
tournament folder. A symbolic link stays a link: the file it points to gets the new content.
"""
from __future__ import annotations

import contextlib
import errno
import glob
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from .errors import UserError

TMP_SUFFIX = ".tmp"
#: what ``os.link`` says on a file system that has no hard links
NO_HARD_LINKS = {errno.EPERM, errno.EACCES, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS}


class StorageError(UserError):
    """A damaged or foreign output folder."""


class WriteError(StorageError):
    """A file could not be written (a full disk, a read-only folder); the message names it."""


class NameTaken(WriteError):
    """A file appeared where one was being written, and was kept: the new file is
    ``kept`` (:func:`atomic_text_file`)."""

    def __init__(self, message: str, kept: Path):
        super().__init__(message)
        self.kept = kept


# --------------------------------------------------------------------------------------
# Atomic files
# --------------------------------------------------------------------------------------
def write_target(path: Path) -> Path:
    """The file a write of ``path`` replaces: ``path``, or when it is a symbolic link the
    regular file it points to (through every link), so that the link stays a link. A link
    to nothing, to a loop or to something other than a file is a :class:`WriteError`, and
    so is a folder, a device (such as /dev/null) or a pipe at ``path``: a write puts a new
    file in its place, which would destroy it.

    >>> write_target(Path("/dev/null"))
    Traceback (most recent call last):
    ...
    durak_sim.files.WriteError: cannot write /dev/null: it is not a plain file (a device or a pipe); the file is written whole and put in its place, so give the path of a plain file
    """
    path = Path(path)
    if not os.path.islink(path):
        if path.is_dir():
            raise WriteError(f"cannot write {path}: it is a folder")
        if path.exists() and not path.is_file():
            raise WriteError(f"cannot write {path}: it is not a plain file (a device or a "
                             f"pipe); the file is written whole and put in its place, so "
                             f"give the path of a plain file")
        return path
    try:
        target = Path(os.path.realpath(path, strict=True))
        regular = target.is_file()
    except FileNotFoundError:
        raise WriteError(f"cannot write {path}: it is a symbolic link to "
                         f"{os.path.realpath(path)}, which does not exist (make that file or "
                         f"remove the link)") from None
    except OSError as exc:   # a loop of links, a folder it may not look into
        raise WriteError(f"cannot write {path}: {exc.strerror or exc}") from None
    if not regular:
        raise WriteError(f"cannot write {path}: it is a symbolic link to {target}, which is "
                         f"not a regular file")
    return target


def _named(path: Path, target: Path) -> str:
    return str(path) if target == path else f"{path} (a symbolic link to {target})"


def atomic_write_bytes(path: Path, data: bytes, sync: bool = True) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one, whole.
    ``sync=False``: not forced to disk first (a few ms a file), for files that can be
    made again (the report's, from the stored games).

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "x.txt"
    >>> atomic_write_bytes(p, b"hi"); p.read_bytes()
    b'hi'
    """
    path = Path(path)
    target = write_target(path)
    tmp = target.with_name(target.name + TMP_SUFFIX)
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            if sync:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, target)
    except OSError as exc:   # a full disk, a read-only folder: say which file
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise WriteError(f"cannot write {_named(path, target)}: {exc.strerror or exc}"
                         ) from None


@contextlib.contextmanager
def atomic_text_file(path: Path, encoding: str = "utf-8", replace: bool | None = None):
    """A text file written in full or not at all: the lines go to a temporary file beside
    ``path``, which replaces ``path`` only when the ``with`` block ends without an error
    (an error, Ctrl-C or a kill leaves ``path`` as it was). A symbolic link: its file
    (:func:`write_target`).

    ``replace``: whether a file at ``path`` may be replaced; None: as the command's
    :func:`claim` of ``path`` says, else only if one is there as the write begins. A file
    that may not be replaced (one that appeared meanwhile) is kept as it is: the new file
    goes to the first free name ``STEM-1.SUFFIX``, ``STEM-2.SUFFIX``, ..., which the claim
    records (``kept``: the command says so once it has said the rest), or without a claim
    a :class:`NameTaken` error says.

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "x.txt"
    >>> with atomic_text_file(p) as f:
    ...     _ = f.write("hi\\n")
    >>> p.read_text()
    'hi\\n'
    """
    path = Path(path)
    target = write_target(path)
    claimed = _CLAIMS.get(os.path.abspath(target))
    if replace is None:
        replace = claimed.replace if claimed is not None else os.path.lexists(target)
    tmp = target.with_name(f".{target.name}.{os.getpid()}{TMP_SUFFIX}")
    _remove_orphans(target)
    try:
        with open(tmp, "w", encoding=encoding, newline="\n") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        if replace:
            os.replace(tmp, target)
        else:
            try:
                _put_new(tmp, target, path)
            except NameTaken as exc:
                if claimed is None:
                    raise
                claimed.kept, claimed.message = exc.kept, str(exc)
    except OSError as exc:   # a full disk, a read-only folder: say which file
        raise WriteError(f"cannot write {_named(path, target)}: {exc.strerror or exc}"
                         ) from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


@dataclass
class Claim:
    """An output file a command checked before it began (:func:`claim`)."""

    path: Path
    replace: bool               # a file there may be replaced: --force, and one was there
    kept: Path | None = None    # a file appeared there meanwhile: where the output went
    message: str | None = None  # and the line that says so (NameTaken's)

    @property
    def written(self) -> Path:
        """Where the output is."""
        return self.path if self.kept is None else self.kept


#: the outputs claimed in this process, by the absolute path of the file written
_CLAIMS: dict[str, Claim] = {}


def claim(path: Path, force: bool) -> Claim:
    """Decide, as a command checks its output ``path`` before it begins, whether the file
    written at its end may replace one there: only with ``force`` and if one is there now.
    A file that appears later is kept (:func:`atomic_text_file`)."""
    target = write_target(Path(path))
    c = Claim(Path(path), bool(force) and os.path.lexists(target))
    _CLAIMS[os.path.abspath(target)] = c
    return c


def _put_new(tmp: Path, target: Path, path: Path) -> None:
    """Put ``tmp`` in place at ``target``, which must not exist by then: a hard link
    replaces nothing, where ``os.replace`` would (a file system without hard links: a
    look, then ``os.replace``). A file found there stays; ``tmp`` goes to the first free
    ``STEM-N.SUFFIX`` beside it and :class:`NameTaken` tells where."""
    def put(at: Path) -> bool:
        try:
            os.link(tmp, at)
        except FileExistsError:
            return False
        except OSError as exc:
            if exc.errno not in NO_HARD_LINKS:
                raise
            if os.path.lexists(at):
                return False
            os.replace(tmp, at)
        return True

    if put(target):
        return
    for k in range(1, 10_000):
        kept = target.with_name(f"{target.stem}-{k}{target.suffix}")
        if put(kept):
            raise NameTaken(f"cannot write {_named(path, target)}: a file of that name "
                             f"appeared while this one was written, and is left as it was; "
                             f"the new one is {kept}", kept)
    raise WriteError(f"cannot write {_named(path, target)}: a file of that name appeared "
                     f"while this one was written, and no free name was found beside it")


def _remove_orphans(path: Path) -> None:
    """Delete the temporary files of :func:`atomic_text_file` for ``path`` whose process is
    gone (a SIGKILL, which no ``finally`` outlives); a live process's are left alone."""
    for old in path.parent.glob(f".{glob.escape(path.name)}.*{TMP_SUFFIX}"):
        pid = old.name[len(path.name) + 2:-len(TMP_SUFFIX)]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            with contextlib.suppress(OSError):
                old.unlink(missing_ok=True)
        except (PermissionError, OverflowError):   # (another user's process; not a pid)
            continue


def make_folder(path: Path) -> Path:
    """``path`` as a folder (made with its parents when missing); a :class:`WriteError`
    naming it when something else is there or it cannot be made."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise WriteError(f"cannot write in {path}: it is a file, not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WriteError(f"cannot make the folder {path}: {exc.strerror or exc}") from None
    return path


def atomic_write_text(path: Path, text: str, sync: bool = True) -> None:
    """:func:`atomic_write_bytes` of UTF-8 text with ``\\n`` line ends."""
    atomic_write_bytes(path, text.encode("utf-8"), sync)


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def remove_temporaries(out: Path) -> int:
    """Delete the ``*.tmp`` files an interrupted write left in ``out``; how many."""
    n = 0
    for tmp in Path(out).rglob(f"*{TMP_SUFFIX}"):
        tmp.unlink(missing_ok=True)
        n += 1
    return n


__all__ = ["StorageError", "TMP_SUFFIX", "WriteError", "atomic_text_file", "atomic_write_bytes",
           "atomic_write_text", "make_folder", "remove_temporaries", "sha256_file",
           "write_target"]
