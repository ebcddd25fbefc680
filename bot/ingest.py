"""Classify-and-store paths shared by ``import``, ``demo``, ``reclassify`` and the syncs.

Records are validated before anything is written: a file with one bad line imports nothing and
the error names the line, so an import can be fixed and re-run without half-loaded data.
"""

from __future__ import annotations

import gzip
import io
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from classify.engine import classify
from classify.models import Classification, PullRequest
from classify.rules import Profile
from storage.prs import PRStore, UpsertCounts


class RecordError(Exception):
    """A record file cannot be imported; the message names the file and line."""


def _open_text(path: Path) -> io.TextIOBase:
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    return path.open("r", encoding="utf-8")


def _records(path: Path) -> Iterator[tuple[int, PullRequest]]:
    try:
        fh = _open_text(path)
    except FileNotFoundError:
        raise RecordError(f"{path}: no such file") from None
    except OSError as exc:
        raise RecordError(f"{path}: cannot be read ({exc.strerror})") from None
    with fh:
        try:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    yield lineno, PullRequest.model_validate_json(line)
                except ValidationError as exc:
                    err = exc.errors()[0]
                    where = ".".join(str(p) for p in err["loc"]) or "record"
                    raise RecordError(f"{path}:{lineno}: {where}: {err['msg']}") from None
        except (UnicodeDecodeError, gzip.BadGzipFile, EOFError) as exc:
            raise RecordError(f"{path}: not a UTF-8 JSON Lines file ({exc})") from None


def validate_file(path: Path) -> int:
    """Check every record; returns how many there are."""
    return sum(1 for _ in _records(path))


def import_file(store: PRStore, profile: Profile, path: Path) -> tuple[int, UpsertCounts]:
    """Validate the whole file, then classify and upsert it. Importing it twice changes nothing."""
    total = validate_file(path)
    counts = store.upsert((pr, classify(pr, profile)) for _, pr in _records(path))
    return total, counts


@dataclass(frozen=True)
class ReclassifyResult:
    total: int
    changed: int
    seconds: float


def reclassify(store: PRStore, profile: Profile, repo: str | None = None) -> ReclassifyResult:
    """Re-run classification over the cache with the current profile (no network)."""
    started = time.perf_counter()
    total = 0

    def items() -> Iterator[tuple[PullRequest, Classification]]:
        nonlocal total
        for pr in store.iter_all(repo):
            total += 1
            yield pr, classify(pr, profile)

    changed = store.replace_classifications(items())
    return ReclassifyResult(total, changed, time.perf_counter() - started)
