"""Key PRs of a period: the week's storylines add to the score, and `digest` and `pr` agree."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from classify.engine import classify
from classify.models import FileChange, PullRequest
from classify.rules import Profile, load_profile
from commands.model import Invocation, Reply
from commands.registry import Context, dispatch
from storage.db import connect
from storage.prs import PRStore

WEEK = "2026-W19"
MONDAY = datetime(2026, 5, 4, 9, tzinfo=UTC)
NOW = datetime(2026, 5, 11, 9, tzinfo=UTC)


def _pr(number: int, title: str, paths: list[tuple[str, int]], author: str = "dev") -> PullRequest:
    files = [FileChange(path=p, additions=n) for p, n in paths]
    return PullRequest(
        repo="o/r",
        number=number,
        title=title,
        author=author,
        merged_at=MONDAY + timedelta(hours=number % 100),
        files=files,
        additions=sum(n for _, n in paths),
    )


def _week() -> list[PullRequest]:
    """A small series the notes would highlight, among larger stand-alone features."""
    series = [
        _pr(
            1, "[EM] Cache pages for external memory", [("src/data/pages.cc", 30), ("src/data/cache.cc", 20)]
        ),
        _pr(2, "[EM] Prefetch the next page", [("src/data/pages.cc", 25), ("src/data/cache.cc", 20)]),
        _pr(3, "[EM] Log the page size", [("src/data/pages.cc", 15), ("src/data/cache.cc", 12)]),
        _pr(4, "[EM] Refactor the page reader", [("src/data/pages.cc", 40), ("src/data/reader.cc", 20)]),
    ]
    features = [
        _pr(10 + i, f"feat: {what}", [(f"src/f{i}/main.py", 450), (f"tests/test_f{i}.py", 60)])
        for i, what in enumerate(
            [
                "add CSV output",
                "stream JSON rows",
                "load YAML config",
                "keep TOML round trips",
                "check XML schemas",
            ]
        )
    ]
    chores = [_pr(30 + i, f"chore: tidy module {i:02d}", [(f"src/misc/m{i}.py", 12)]) for i in range(22)]
    bots = [
        _pr(60 + i, f"Bump lib{i} from 1.0 to 1.1", [("requirements.txt", 2)], "dependabot[bot]")
        for i in range(4)
    ]
    return [*series, *features, *chores, *bots]


@pytest.fixture(scope="module")
def generic() -> Profile:
    return load_profile("generic")


@pytest.fixture
def ctx(generic: Profile) -> Context:
    store = PRStore(connect(":memory:"))
    store.upsert((pr, classify(pr, generic)) for pr in _week())
    return Context(store=store, profile=generic)


def run(ctx: Context, command: str, *args: str, lang: str = "en") -> Reply:
    inv = Invocation(command=command, args=args, lang=lang, now=NOW)  # type: ignore[arg-type]
    return dispatch(inv, ctx)


def test_the_weeks_leading_story_lifts_its_prs_with_the_theme_named_as_evidence(ctx: Context) -> None:
    data = run(ctx, "digest", WEEK).data
    theme = data["themes"][0]
    assert theme["key"] == "tag:em" and set(theme["prs"]) == {1, 2, 3, 4}
    assert theme["name"] == {"en": "External Memory", "zh": "External Memory"}
    assert theme["count"] == 4 and theme["lead"][0] in theme["prs"]
    assert theme["summary"]["en"].endswith(
        f"led by #{theme['lead'][0]}, #{theme['lead'][1]} and #{theme['lead'][2]}."
    )
    assert all("#" in theme["summary"][lang] for lang in ("en", "zh"))
    scores = {p["number"]: p["score"] for p in data["prs"]}
    stored = {s.pr.number: s.cls.score for s in ctx.store.merged_between("o/r", MONDAY, NOW)}
    points = ctx.profile.score.theme
    assert all(scores[n] == pytest.approx(stored[n] + points) for n in (1, 2, 3, 4))
    in_themes = {n for th in data["themes"] for n in th["prs"]}
    assert all(scores[n] == stored[n] for n in scores if n not in in_themes)
    # 35 PRs → 5 key PRs: the series now outranks the larger stand-alone features
    assert sorted(n for n in data["key_prs"] if n < 10) == [1, 2, 3, 4]
    assert not {60, 61, 62, 63} & {n for th in data["themes"] for n in th["prs"]}  # bots tell no story


def test_pr_and_digest_agree_on_key_prs_score_and_breakdown(ctx: Context) -> None:
    digest = run(ctx, "digest", WEEK).data
    key = set(digest["key_prs"])
    scores = {p["number"]: p["score"] for p in digest["prs"]}
    for number in (1, 4, 10, 30):
        data = run(ctx, "pr", str(number)).data
        assert data["key"] is (number in key)
        assert data["score"] == pytest.approx(scores[number])
        assert data["score"] == pytest.approx(sum(p["points"] for p in data["score_breakdown"]))
    theme_part = [p for p in run(ctx, "pr", "1").data["score_breakdown"] if p["rule"] == "theme"]
    assert theme_part == [
        {
            "reason": 'part of the theme "External Memory" (4 PRs)',
            "points": ctx.profile.score.theme,
            "rule": "theme",
            "detail": "External Memory",
        }
    ]


def test_pr_shows_score_reasons_in_chinese(ctx: Context) -> None:
    from commands.render_text import render_text

    text = render_text(run(ctx, "pr", "1", lang="zh"))
    assert "属于主题“External Memory”" in text and "核心路径（2 个文件）" in text
    assert "part of the theme" not in text
    assert "类型：新功能" in render_text(run(ctx, "pr", "10", lang="zh"))


def test_without_theme_points_pr_reads_only_the_stored_scores(generic: Profile) -> None:
    plain = load_profile("vllm")
    assert not plain.score.theme
    store = PRStore(connect(":memory:"))
    store.upsert((pr, classify(pr, plain)) for pr in _week())
    ctx = Context(store=store, profile=plain)
    digest = run(ctx, "digest", WEEK).data
    for number in (1, 10):
        data = run(ctx, "pr", str(number)).data
        assert data["key"] is (number in digest["key_prs"])
        assert all(p["rule"] != "theme" for p in data["score_breakdown"])


def test_theme_points_decide_which_prs_are_key_never_how_many() -> None:
    from classify.key_prs import key_numbers

    rows = [(1, 5.0, 10), (2, 4.0, 10), (3, 1.0, 500), (4, 3.0, 10), (5, 0.5, 10)]
    assert key_numbers(rows, share=0.4, min_score=2.0) == [1, 2]
    # theme points lift #4 past #2 and #1; #3 and #5 score below the minimum on their own
    assert key_numbers(rows, share=0.4, min_score=2.0, bonus={4: 4.0, 3: 9.0, 5: 9.0}) == [4, 1]
    assert key_numbers(rows, share=1.0, min_score=2.0, bonus={3: 9.0}) == [1, 2, 4]
