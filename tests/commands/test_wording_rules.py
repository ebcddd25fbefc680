"""Wording rules that hold over a class of input, not for one example each.

- Full-width input (a Chinese or Japanese input method's ``２０２６-Ｗ１９``, ``４２１２１``) means
  what its ASCII twin means: every example of every command gives the same answer both ways.
- A number that is negative, zero or out of range is refused as that number, in one line that
  quotes it, by every command that takes one — never "unknown module" or "unexpected word".
- A word shaped like a period (digits, then a dash or W, then digits) is refused as a period.
"""

from __future__ import annotations

import pytest

from commands.model import Invocation
from commands.params import split_words
from commands.registry import REGISTRY, Context, dispatch, load_all
from commands.render import render
from tests.conftest import DEMO_NOW

FULL = {chr(c): chr(c + 0xFEE0) for c in range(0x21, 0x7F)}  # ASCII ! … ~ → full width


def fullwidth(word: str) -> str:
    return "".join(FULL.get(ch, ch) for ch in word)


def _ask(ctx: Context, command: str, words: tuple[str, ...], platform: str = "slack") -> str:
    inv = Invocation(command=command, args=words, now=DEMO_NOW, platform=platform, channel="C1", user="U1")
    reply = dispatch(inv, ctx)
    return f"{reply.status}\n{render(reply, 'json')}"


def _examples() -> list[tuple[str, tuple[str, ...]]]:
    load_all()
    out = []
    for spec in REGISTRY.values():
        for example in (*spec.examples, *(spec.cli_examples or ())):
            name, *words = split_words(example)
            out.append((name, tuple(words)))
    return sorted(set(out))


@pytest.mark.parametrize(
    ("command", "words"), _examples(), ids=lambda v: " ".join(v) if isinstance(v, tuple) else v
)
def test_full_width_words_mean_what_their_ascii_twins_mean(
    demo_ctx: Context, command: str, words: tuple[str, ...]
) -> None:
    assert _ask(demo_ctx, command, tuple(fullwidth(w) for w in words)) == _ask(demo_ctx, command, words)


NUMBERS = ["-5", "0", "-0", "+0", "99999999999999999999", "#-1"]
# every command word that is a number, as it is typed: the words before the number, and after
NUMBER_SLOTS = [
    ("pr", ""),
    ("unsubscribe", ""),
    ("preview", ""),
    ("search", "page="),
    ("subscribe", "every="),
]


@pytest.mark.parametrize("number", NUMBERS)
@pytest.mark.parametrize(("command", "prefix"), NUMBER_SLOTS)
def test_a_number_out_of_range_is_refused_as_that_number(
    demo_ctx: Context, command: str, prefix: str, number: str
) -> None:
    words = ("fix", f"{prefix}{number}") if command == "search" else (f"{prefix}{number}",)
    if number.startswith("#") and prefix:
        words = (*words[:-1], f"{prefix}{number[1:]}")
    inv = Invocation(
        command=command, args=words, now=DEMO_NOW, platform="slack", channel="C1", user="U1", is_admin=True
    )
    reply = dispatch(inv, demo_ctx)
    assert reply.status == "usage", (words, reply.title)
    assert "\n" not in reply.title
    shown = words[-1].removeprefix(prefix)
    assert shown in reply.title, reply.title
    assert "unknown module" not in reply.title and "unexpected" not in reply.title, reply.title


@pytest.mark.parametrize("word", ["99999-W01", "2026-W99", "2026-13-45", "0-W1", "12345-01-01..12345-01-02"])
def test_a_period_shaped_word_is_refused_as_a_period(demo_ctx: Context, word: str) -> None:
    for command in ("digest", "risks"):
        text = _ask(demo_ctx, command, (word,))
        assert text.startswith("usage") and "unknown module" not in text and "risk kind" not in text, text


# Phrases a team lead would not post, each the instance of a rule that holds for every week:
# a change is stated beside the average it is measured on, a storyline counts its own PRs first,
# "changes" is no verb for a size, and CI actions are never "tested against".
UNPOSTABLE = (
    r"[+-]\d+% on \d",  # "+55% on 28.3"
    r"PRs that touch it",  # "41 of the 42 PRs that touch it"
    r"largest changes \d",  # "the largest changes 2,638 lines"
    r"(?:Test against|针对新版)[^.。]*\b[\w.-]+/[\w.-]+",  # "testing against an upgraded actions/checkout"
)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_demo_week_says_what_a_lead_would_not_post(demo_ctx: Context, lang: str) -> None:
    import re

    for week in (
        "2026-W14",
        "2026-W15",
        "2026-W16",
        "2026-W17",
        "2026-W18",
        "2026-W19",
        "2026-04-01..2026-05-10",
    ):
        inv = Invocation(command="digest", args=(week,), lang=lang, now=DEMO_NOW)  # type: ignore[arg-type]
        text = render(dispatch(inv, demo_ctx), "text")
        for pattern in UNPOSTABLE:
            found = re.search(pattern, text)
            assert found is None, (week, found.group(0) if found else "")
