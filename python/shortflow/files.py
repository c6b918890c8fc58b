"""Result files: written atomically, read with errors that name the file.

Every result file (a sweep's ``sweep.json``, ``results.parquet``, ``index.json``, cache
entries; ``run --out``'s tables) is written to a temporary file in the same directory
(``.<name>.<pid>.tmp``), flushed to disk and renamed over the target: a reader sees the
old file or the new one, never a part. A failed write (disk full, permission denied)
removes the temporary file and raises :class:`FileProblem` naming the target path.
A sweep's cache entries, which are checked when read, are synced in batches
(``sync=False``, :func:`sync_paths`) instead of one by one.
Damaged inputs (a truncated Parquet file, invalid JSON) raise :class:`FileProblem` too.
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import sys
from pathlib import Path
from typing import Any, Iterable, Iterator

import polars as pl

__all__ = [
    "FileProblem",
    "TMP_GLOB",
    "atomic_path",
    "write_bytes",
    "write_text",
    "write_json",
    "write_parquet",
    "parquet_bytes",
    "read_parquet",
    "read_json",
    "remove_stale_tmp",
]

#: Names of temporary files (left behind only by a killed process).
TMP_GLOB = ".*.tmp"


class FileProblem(OSError):
    """A result file that cannot be written, or an input file that cannot be read.
    ``str(e)`` names the file and the reason; ``path`` is the file."""

    def __init__(self, path: str | Path, message: str, err: int | None = None) -> None:
        self.path = Path(path)
        self.message = message
        super().__init__(err, message)

    def __str__(self) -> str:
        return self.message


def _reason(e: OSError) -> str:
    if e.errno == errno.ENOSPC:
        return "no space left on device"
    if e.errno == errno.EDQUOT:
        return "disk quota exceeded"
    if e.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if e.errno == errno.EROFS:
        return "read-only file system"
    return e.strerror or str(e)


def write_error(path: str | Path, e: OSError) -> FileProblem:
    """``e`` (raised while writing ``path``) as a :class:`FileProblem` naming ``path``."""
    return FileProblem(path, f"cannot write {path}: {_reason(e)} (nothing was written there)", e.errno)


def _fsync_path(d: Path) -> None:
    """Sync file or directory ``d`` to disk (nothing if it cannot be opened)."""
    with contextlib.suppress(OSError):
        fd = os.open(d, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def atomic_path(path: str | Path, sync: bool = True) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to; when the block ends without an
    error the file is synced to disk and renamed to ``path``, otherwise it is removed.
    An ``OSError`` becomes a :class:`FileProblem` naming ``path``. ``sync=False``: renamed
    without syncing (still whole or absent for every reader, but a power loss may leave
    it empty or cut short: for files that are checked when read, synced later in a
    batch, :func:`sync_paths`)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        try:
            yield tmp
            if sync:
                with open(tmp, "rb+") as f:
                    os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise
    except FileProblem:
        raise
    except OSError as e:
        raise write_error(path, e) from None
    if sync:
        _fsync_path(path.parent)


def write_bytes(path: str | Path, data: bytes, sync: bool = True) -> None:
    """Write ``data`` to ``path`` atomically (``sync``: see :func:`atomic_path`)."""
    with atomic_path(path, sync) as tmp, open(tmp, "wb") as f:
        f.write(data)


def sync_paths(paths: Iterable[Path]) -> None:
    """Sync files written with ``sync=False`` to disk, with their directories. Where
    Linux's ``syncfs`` is at hand, once per file system (one call for a sweep's batch of
    cache files: 800 small files took 10 ms here, against 200 ms file by file); else
    each file and then each directory once. A file gone since (replaced or removed) is
    skipped."""
    paths = [Path(p) for p in paths]
    if not paths:
        return
    dirs = {p.parent for p in paths}
    if all(_syncfs(d) for d in dirs):
        return
    for p in [*paths, *dirs]:
        _fsync_path(p)


def _syncfs(d: Path) -> bool:
    """Linux ``syncfs(2)`` on the file system holding directory ``d``: write back and
    wait for everything dirty there (its files' data and the directories' entries).
    False where it is not available or fails (the caller syncs file by file)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        fn = ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return False
    try:
        fd = os.open(d, os.O_RDONLY)
    except OSError:
        return False
    try:
        return fn(fd) == 0
    finally:
        os.close(fd)


def write_text(path: str | Path, text: str, sync: bool = True) -> None:
    write_bytes(path, text.encode("utf-8"), sync)


def write_json(path: str | Path, obj: Any, indent: int | None = 2) -> None:
    write_text(path, json.dumps(obj, indent=indent) + "\n")


def parquet_bytes(df: pl.DataFrame, metadata: dict[str, str] | None = None, **kw: Any) -> bytes:
    """``df`` as Parquet (zstd), with optional key-value ``metadata`` in the footer."""
    buf = io.BytesIO()
    kw.setdefault("compression", "zstd")
    df.write_parquet(buf, metadata=metadata, **kw)
    return buf.getvalue()


def write_parquet(path: str | Path, df: pl.DataFrame, metadata: dict[str, str] | None = None, **kw: Any) -> None:
    """Write ``df`` to ``path`` atomically (encoded in memory first, so an encoder error
    touches no file either)."""
    write_bytes(path, parquet_bytes(df, metadata, **kw))


def ensure_dir(path: str | Path) -> Path:
    """``mkdir -p``, with a :class:`FileProblem` naming the directory on failure."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise FileProblem(path, f"cannot write results to {path}: it is a file, not a directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise FileProblem(path, f"cannot create the directory {path}: {_reason(e)}", e.errno) from None
    return path


def _damaged(path: Path, what: str, e: BaseException) -> FileProblem:
    detail = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    size = path.stat().st_size if path.exists() else 0
    return FileProblem(path, f"{path} is damaged: not a readable {what} ({size} bytes; {detail[:200]})")


@contextlib.contextmanager
def _reading(path: Path, what: str) -> Iterator[None]:
    """Errors while reading ``path`` (a ``what``) as a :class:`FileProblem` naming it;
    a missing file stays ``FileNotFoundError``."""
    try:
        yield
    except (FileNotFoundError, FileProblem):
        raise
    except OSError as e:
        raise FileProblem(path, f"cannot read {path}: {_reason(e)}", e.errno) from None
    except Exception as e:  # polars: ComputeError, ArrowError, ...; json: JSONDecodeError, ...
        raise _damaged(path, what, e) from None


def read_parquet(path: str | Path) -> pl.DataFrame:
    """Read a Parquet file; a damaged one raises :class:`FileProblem` naming it."""
    with _reading(Path(path), "Parquet file"):
        return pl.read_parquet(path)


def read_parquet_metadata(path: str | Path) -> dict[str, str]:
    """The key-value metadata in a Parquet file's footer (``FileProblem`` if damaged)."""
    with _reading(Path(path), "Parquet file"):
        return pl.read_parquet_metadata(path)


def read_json(path: str | Path) -> Any:
    """Parse a JSON file; invalid JSON or text raises :class:`FileProblem` naming it."""
    with _reading(Path(path), "JSON file"):
        return json.loads(Path(path).read_bytes().decode("utf-8"))


def remove_stale_tmp(directory: Path) -> None:
    """Remove temporary files a killed writer left in ``directory``."""
    for p in directory.glob(TMP_GLOB):
        with contextlib.suppress(OSError):
            p.unlink()
