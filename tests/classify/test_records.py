"""PR records entering from outside are checked as strictly as when the models were pydantic's,
with the same one-line errors; the plain classes keep the defaults and UTC times callers rely on."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from classify.models import Classification, FieldError, FileChange, Flag, PullRequest, ScorePart
from classify.records import RecordInvalid, parse_pr, parse_pr_json, pr_json

GOOD: dict[str, Any] = {
    "repo": "o/r",
    "number": 5,
    "title": "Fix it",
    "merged_at": "2026-05-05T10:00:00+02:00",
    "files": [{"path": "src/a.py", "additions": 3, "deletions": 1}],
}


def test_a_record_gets_the_defaults_and_utc_times() -> None:
    pr = parse_pr_json(json.dumps(GOOD))
    assert pr.merged_at == datetime(2026, 5, 5, 8, tzinfo=UTC) and pr.merged_at.tzinfo is UTC
    assert pr.url == "https://github.com/o/r/pull/5" and pr.changed_files == 1 and pr.source == "import"
    assert pr.files == [FileChange(path="src/a.py", additions=3, deletions=1)]
    assert parse_pr(GOOD) == pr
    assert parse_pr_json(pr_json(pr)) == pr  # the JSON form reads back as the same PR
    assert "url" not in json.loads(pr_json(pr, exclude={"url"}))


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"number": -1}, "number: Input should be greater than 0"),
        ({"number": "x"}, "number: Input should be a valid integer, unable to parse string as an integer"),
        ({"repo": "nope"}, "repo: String should match pattern '^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$'"),
        ({"additions": -3}, "additions: Input should be greater than or equal to 0"),
        ({"changed_files": -1}, "changed_files: Input should be greater than or equal to 0"),
        ({"source": "web"}, "source: Input should be 'api', 'git', 'import' or 'demo'"),
        ({"merged_at": "yesterday"}, "merged_at: Input should be a valid datetime"),
        ({"title": 5}, "title: Input should be a valid string"),
        (
            {"files": [{"path": "a", "deletions": -1}]},
            "files.0.deletions: Input should be greater than or equal to 0",
        ),
        (
            {"files": [{"path": "a", "change_type": "moved"}]},
            "files.0.change_type: Input should be 'added', ",
        ),
    ],
)
def test_a_bad_record_is_one_line_naming_the_field(change: dict[str, Any], error: str) -> None:
    with pytest.raises(RecordInvalid) as caught:
        parse_pr_json(json.dumps({**GOOD, **change}))
    assert str(caught.value).startswith(error) and "\n" not in str(caught.value)


def test_a_missing_field_is_named() -> None:
    record = {k: v for k, v in GOOD.items() if k != "merged_at"}
    with pytest.raises(RecordInvalid, match=r"^merged_at: Field required$"):
        parse_pr(record)


def test_code_that_builds_a_model_is_checked_too() -> None:
    when = datetime(2026, 5, 5, 12, tzinfo=timezone(timedelta(hours=8)))
    pr = PullRequest(repo="o/r", number=1, title="t", merged_at=when.replace(tzinfo=None), created_at=when)
    assert pr.merged_at == datetime(2026, 5, 5, 12, tzinfo=UTC)  # naive: taken as UTC
    assert pr.created_at == datetime(2026, 5, 5, 4, tzinfo=UTC)  # aware: converted
    with pytest.raises(FieldError, match="number: Input should be greater than 0"):
        PullRequest(repo="o/r", number=0, title="t", merged_at=when)
    with pytest.raises(FieldError, match="kind: Input should be 'core-path'"):
        Flag(kind="risky", evidence=[])  # type: ignore[arg-type]
    with pytest.raises(FieldError, match="additions"):
        replace(FileChange(path="a"), additions=-1)


def test_points_and_scores_are_floats_as_pydantic_made_them() -> None:
    """Stored JSON and cls_hash depend on it: a profile's whole points (TOML ints) stay ``3.0``."""
    assert repr(ScorePart(reason="r", points=3).points) == "3.0"
    assert repr(Classification(score=2).score) == "2.0"


def test_every_model_checks_itself_whoever_builds_it() -> None:
    """No constructor skips the checks (storage reads rows back through the same ones)."""
    pr = parse_pr(GOOD)
    values = {name: getattr(pr, name) for name in PullRequest.__dataclass_fields__}
    assert PullRequest(**values) == pr
    with pytest.raises(FieldError, match="number: Input should be greater than 0"):
        PullRequest(**{**values, "number": 0})
    with pytest.raises(FieldError, match="additions: Input should be greater than or equal to 0"):
        FileChange(path="a", additions=-1)
    with pytest.raises(FieldError, match="kind: Input should be"):
        Flag(kind="nope", evidence=[])  # type: ignore[arg-type]
    frozen = FileChange(path="a", additions=1, deletions=2, change_type="renamed", previous_path="b")
    with pytest.raises(AttributeError):
        frozen.path = "c"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("written", "stored"),
    [
        ("MODIFIED", "modified"),
        ("ADDED", "added"),
        ("DELETED", "removed"),
        ("RENAMED", "renamed"),
        ("Removed", "removed"),
    ],
)
def test_github_spellings_of_a_change_type_are_read_as_the_cache_spells_them(
    written: str, stored: str
) -> None:
    """GraphQL's PatchStatus (upper case, DELETED) and the REST API's words are both GitHub's."""
    record = {**GOOD, "files": [{"path": "src/a.py", "additions": 1, "change_type": written}]}
    assert parse_pr_json(json.dumps(record)).files[0].change_type == stored
    assert parse_pr(record).files[0].change_type == stored


def test_a_change_type_github_does_not_know_is_still_refused_by_name() -> None:
    record = {**GOOD, "files": [{"path": "src/a.py", "change_type": "EXPLODED"}]}
    for parse in (lambda: parse_pr_json(json.dumps(record)), lambda: parse_pr(record)):
        with pytest.raises(RecordInvalid, match=r"^files\.0\.change_type: Input should be 'added'"):
            parse()
