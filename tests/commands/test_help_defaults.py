"""Help states each command's real default: search without a period searches the
whole cache, digest and risks cover the last 7 days."""

from __future__ import annotations

from commands.model import BulletList
from tests.conftest import RunFn


def period_line(run: RunFn, command: str, lang: str = "en") -> str:
    reply = run("help", command, lang=lang)
    items = next(b for b in reply.blocks if isinstance(b, BulletList)).items
    return next(i.text for i in items if i.text.startswith("PERIOD"))


def test_search_help_says_it_searches_all_history_as_it_does(run: RunFn) -> None:
    everything, week = run("search", "kernel"), run("search", "kernel", "week")
    assert everything.data["total"] > week.data["total"]  # without a period: not the last 7 days
    assert everything.data["period"] is None
    line = period_line(run, "search")
    assert line.endswith("default: all cached PRs") and "default)" not in line
    assert period_line(run, "search", "zh").endswith("默认：缓存中的全部 PR")


def test_digest_and_risks_help_say_the_last_7_days_as_they_do(run: RunFn) -> None:
    for command in ("digest", "risks"):
        assert "week (last 7 days, default)" in period_line(run, command)
    assert run("risks").data["period"]["label"] == run("risks", "week").data["period"]["label"]
