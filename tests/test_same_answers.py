"""The demo's answers equal the record (``tests/golden/record.py``): code moved or simplified
without meaning to change output changes none of them. A deliberate change of output
regenerates the record (``python -m tests.golden.record``) and shows in its diff."""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

import pytest

from classify.rules import Profile
from tests.golden.record import answers, read_record


@pytest.fixture(scope="module")
def current(demo_db_template: Path, profile: Profile) -> dict[str, Any]:
    return answers(demo_db_template, profile)


def _text(value: Any) -> list[str]:
    if isinstance(value, str):
        return value.splitlines()
    return json.dumps(value, ensure_ascii=False, indent=1, sort_keys=True).splitlines()


def test_the_record_covers_every_demo_week_format_and_language() -> None:
    keys = read_record().keys()
    digests = [k for k in keys if k.startswith("digest 2026-W") and k.count(" ") == 5]
    assert len(digests) >= 6 * 2 * 3  # six demo weeks × en/zh × text/Markdown/JSON
    assert {"monday 2026-W19 | en", "monday 2026-W19 | zh", "/digest 2026-W19 | zh | discord"} <= keys


def test_every_recorded_answer_is_unchanged(current: dict[str, Any]) -> None:
    record = read_record()
    assert sorted(current) == sorted(record)
    changed = [k for k in record if current[k] != record[k]]
    if changed:
        first = changed[0]
        diff = "\n".join(difflib.unified_diff(_text(record[first]), _text(current[first]), lineterm="", n=1))
        pytest.fail(f"{len(changed)} answers changed, first {first!r}:\n{diff[:4000]}")
