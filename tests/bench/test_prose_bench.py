"""The prose benchmark's answers: rewordings stay correct, each mutation makes a wrong answer."""

from __future__ import annotations

import json
import random
from typing import Any

from bench.prose import figure_invented, flag_word_added, number_pm1, pr_swap, rewordings, unit_changed
from commands.prose.verify import verify
from tests.commands.test_prose_verify import FACTS

ANSWER: list[dict[str, Any]] = [
    {"text": "Fused shared experts give 16–24% higher decode throughput on MI355X.", "prs": [39280]},
    {"text": "Removing the Tree Attention backend drops ~1400 lines.", "prs": [42121]},
]


def ok(answer: list[dict[str, Any]]) -> bool:
    return verify(FACTS, json.dumps({"sentences": answer})).ok


def test_rewordings_are_accepted_and_mutations_rejected() -> None:
    assert ok(ANSWER)
    kinds = {kind for kind, variant in rewordings(ANSWER) if ok(variant)}
    assert {"refs_in_text", "code_span"} <= kinds
    rng = random.Random(1)
    for mutate in (number_pm1, unit_changed, figure_invented, flag_word_added):
        wrong = mutate(ANSWER, FACTS, rng)
        assert wrong is not None and wrong != ANSWER and not ok(wrong), mutate.__name__
    swapped = pr_swap(ANSWER, FACTS, rng, [1, 2, 3])
    assert swapped is not None and not ok(swapped)
