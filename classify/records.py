"""PR records from outside (JSON Lines, dicts) checked and turned into ``PullRequest``.

pydantic over the plain domain classes: it checks each field's type (text, whole numbers, ISO
times, the closed vocabularies, nested files) and calls their ``__post_init__``, which checks the
rest (``classify.models.FieldError``). Only ingestion imports this module, so the one-shot read
commands never load pydantic (see ``classify.models``).
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter, ValidationError

from classify.models import FieldError, PullRequest

_PULL_REQUEST = TypeAdapter(PullRequest)


class RecordInvalid(ValueError):
    """A record is not a valid PR; the message is one line: ``where: what``, e.g.
    ``files.0.additions: Input should be greater than or equal to 0``."""


def _first_error(exc: ValidationError) -> RecordInvalid:
    err = exc.errors()[0]
    loc = [str(p) for p in err["loc"]]
    message = err["msg"]
    cause = (err.get("ctx") or {}).get("error")
    if isinstance(cause, FieldError):  # raised by a __post_init__: it names the field itself
        loc.append(cause.field)
        message = cause.message
    return RecordInvalid(f"{'.'.join(loc) or 'record'}: {message}")


# GitHub's own spellings of a file's change: GraphQL's ``PatchStatus`` (``MODIFIED``, ``DELETED`` …)
# and the REST API's ``status`` (``removed``); the cache keeps the REST words in lower case
_GITHUB_CHANGE_TYPES = {"deleted": "removed"}


def _github_spelling(exc: ValidationError) -> bool:
    return any(err["loc"][-1:] == ("change_type",) for err in exc.errors())


def _with_our_change_types(record: Any) -> Any:
    """The record with its files' ``change_type`` as the cache spells it (``MODIFIED`` →
    ``modified``, ``DELETED`` → ``removed``); anything else is left for validation to name."""
    files = record.get("files") if isinstance(record, dict) else None
    if not isinstance(files, list):
        return record
    fixed = []
    for f in files:
        kind = f.get("change_type") if isinstance(f, dict) else None
        if isinstance(kind, str):
            low = kind.lower()
            f = {**f, "change_type": _GITHUB_CHANGE_TYPES.get(low, low)}
        fixed.append(f)
    return {**record, "files": fixed}


def parse_pr_json(line: str | bytes) -> PullRequest:
    """One JSON Lines record as a ``PullRequest``; raises ``RecordInvalid``."""
    try:
        return _PULL_REQUEST.validate_json(line)
    except ValidationError as exc:
        if not _github_spelling(exc):
            raise _first_error(exc) from None
    import json  # only for a record spelling change types as GitHub does

    return parse_pr(json.loads(line))


def parse_pr(record: dict[str, Any]) -> PullRequest:
    """A record already decoded from JSON (the bundled demo's, a test's) as a ``PullRequest``."""
    try:
        return _PULL_REQUEST.validate_python(record)
    except ValidationError as exc:
        if not _github_spelling(exc):
            raise _first_error(exc) from None
    try:
        return _PULL_REQUEST.validate_python(_with_our_change_types(record))
    except ValidationError as exc:
        raise _first_error(exc) from None


def pr_json(pr: PullRequest, *, exclude: set[str] | None = None) -> str:
    """A PR as a JSON Lines record (the form ``prdigest import`` reads), without ``exclude``'s fields."""
    return _PULL_REQUEST.dump_json(pr, exclude=exclude).decode()
