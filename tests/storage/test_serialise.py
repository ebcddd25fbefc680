"""The hand-written JSON of storage.prs (classification columns, row hashes) is json.dumps' text.

The stored columns and ``cls_hash``/``content_hash`` must not change with the serialiser: a
different text would make every cached row look changed to the next reclassify or import.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from typing import Any

from classify.models import Classification, Flag, ScorePart
from storage.prs import _cls_row, _hash, _str_list

AWKWARD = [
    "",
    "plain",
    'quote " and backslash \\ and slash /',
    "tab\tnewline\ncarriage\rbell\x07nul\x00del\x7f",
    "unicode: 数据并行 — ü é ß ∑",
    "emoji 🚀 and astral 𝔘",
    "<!channel> @everyone",
    "\u2028\u2029 line separators",
]


def _reference_cls(cls: Classification) -> dict[str, Any]:
    return {
        "modules": json.dumps(cls.modules, ensure_ascii=False),
        "kind": cls.kind,
        "flags": json.dumps(
            [{"kind": f.kind, "evidence": f.evidence} for f in cls.flags], ensure_ascii=False
        ),
        "score": cls.score,
        "breakdown": json.dumps(
            [
                {"reason": b.reason, "points": b.points, "rule": b.rule, "detail": b.detail}
                for b in cls.breakdown
            ],
            ensure_ascii=False,
        ),
        "highlights": json.dumps(cls.highlights, ensure_ascii=False),
        "gist": cls.gist,
        "profile": cls.profile,
        "profile_version": cls.profile_version,
    }


def _reference_hash(row: dict[str, Any]) -> str:
    blob = json.dumps(row, sort_keys=True, ensure_ascii=False, default=str).encode()
    return hashlib.blake2b(blob, digest_size=16).hexdigest()


def test_string_lists_are_json_dumps_text() -> None:
    for n in range(4):
        items = AWKWARD[n : n + 3] if n else []
        assert _str_list(items) == json.dumps(items, ensure_ascii=False)


def test_classification_columns_and_hashes_equal_json_dumps() -> None:
    rng = random.Random(7)
    points = [0.0, -0.0, 1.0, 2.5, -3.25, 0.1 + 0.2, 1e-7, 1e22, 123456789.125, 3, -2, 0]
    for _ in range(300):
        words = rng.sample(AWKWARD, 3)
        cls = Classification(
            modules=rng.sample(AWKWARD, rng.randint(0, 3)),
            kind=rng.choice(["bugfix", "feature", "other"]),
            flags=[
                Flag(kind=rng.choice(["core-path", "breaking", "large"]), evidence=rng.sample(AWKWARD, 2))
                for _ in range(rng.randint(0, 3))
            ],
            score=rng.choice(points),
            breakdown=[
                ScorePart(reason=words[0], points=rng.choice(points), rule=words[1], detail=words[2])
                for _ in range(rng.randint(0, 4))
            ],
            highlights=rng.sample(AWKWARD, rng.randint(0, 2)),
            gist=rng.choice(AWKWARD),
            profile="vllm",
            profile_version=rng.choice(AWKWARD),
        )
        row = _cls_row(cls)
        assert row == _reference_cls(cls)
        assert list(row) == list(_reference_cls(cls)), "same column order"
        assert _hash(row) == _reference_hash(row)


def test_rows_with_other_values_are_hashed_by_the_encoder_itself() -> None:
    for odd in (math.nan, math.inf, -math.inf, True, False, None, [1, "a"], {"k": 1}, 10**30):
        row = {"b": "x", "a": odd, "c": 1.5}
        assert _hash(row) == _reference_hash(row), odd
