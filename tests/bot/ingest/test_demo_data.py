"""The bundled demo data: it loads, it is what the generator says it is, and it exercises every section."""

from __future__ import annotations

import gzip
import re
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bench.generate import DEMO_END, demo_records, to_jsonl
from bot.ingest.demo import DEMO_LATEST_WEEK, DEMO_REPO, demo_data_path
from bot.ingest.demo import demo_records as bundled_records
from classify.models import FLAG_KINDS, PullRequest
from classify.records import parse_pr


@pytest.fixture(scope="module")
def prs() -> list[PullRequest]:
    return [parse_pr(r) for r in bundled_records()]


def _iso_week(pr: PullRequest) -> str:
    year, week, _ = pr.merged_at.isocalendar()
    return f"{year}-W{week:02d}"


def _latest(prs: list[PullRequest]) -> list[PullRequest]:
    return [p for p in prs if _iso_week(p) == DEMO_LATEST_WEEK]


def test_file_is_package_data_and_small() -> None:
    path = demo_data_path()
    assert path.parent.name == "demo" and path.parent.parent.name == "ingest"
    assert path.name.endswith(".jsonl.gz")
    assert 50_000 < path.stat().st_size < 1_000_000


def test_every_line_is_a_valid_pull_request(prs: list[PullRequest]) -> None:
    assert len(prs) > 1000
    assert {p.repo for p in prs} == {DEMO_REPO}
    assert {p.source for p in prs} == {"import"}
    for p in prs:
        assert p.files, p.number
        assert p.additions == sum(f.additions for f in p.files)
        assert p.deletions == sum(f.deletions for f in p.files)
        assert p.changed_files == len(p.files)
        assert p.created_at is not None and p.created_at < p.merged_at
        assert p.url == f"https://github.com/{DEMO_REPO}/pull/{p.number}"


def test_weeks_and_volume(prs: list[PullRequest]) -> None:
    weeks = Counter(_iso_week(p) for p in prs)
    assert len(weeks) >= 5
    assert max(weeks) == DEMO_LATEST_WEEK
    assert weeks[DEMO_LATEST_WEEK] >= 150
    assert all(170 <= n <= 240 for n in weeks.values()), weeks
    assert max(p.merged_at for p in prs) < DEMO_END
    assert datetime(2026, 5, 11, tzinfo=UTC) == DEMO_END


def test_numbers_unique_and_rising_with_merge_time(prs: list[PullRequest]) -> None:
    """Numbers rise with merge time, except the latest week's PRs that the team's report cites:
    they keep their real (older) numbers and were opened before the counter moved on."""
    from bench.headlines import HEADLINES

    fixed = {h.number for h in HEADLINES if h.number is not None}
    numbers = [p.number for p in prs]
    assert len(set(numbers)) == len(numbers)
    assert [p.merged_at for p in prs] == sorted(p.merged_at for p in prs)
    in_order = [n for n in numbers if n not in fixed]
    assert in_order == sorted(in_order)
    latest = [p for p in _latest(prs) if p.number not in fixed]
    assert latest[0].number >= 41_400 and latest[-1].number <= 42_400
    cited = {p.number: p for p in _latest(prs) if p.number in fixed}
    assert set(cited) == fixed  # every cited number is merged in the latest week
    assert cited[42121].title == "[Attention] Remove the Tree Attention backend"
    assert cited[39280].title == "[ROCm] Fused shared experts (FSE) for Qwen3-Next"
    assert cited[41745].title.startswith("[Spec Decode] Gemma 4 MTP")


def test_the_latest_week_uses_the_reports_pr_numbers(prs: list[PullRequest]) -> None:
    """Every '#NNNNN' the hand-written reference report cites is, in the demo, the PR it describes."""
    reference = Path("/work/shared/reference/example-weekly-report.zh.txt")
    if not reference.is_file():
        pytest.skip("the reference report (../shared/reference) is not on this machine")
    cited = {int(n) for n in re.findall(r"#(\d{5})", reference.read_text(encoding="utf-8"))}
    latest = {p.number for p in _latest(prs)}
    assert cited <= latest, sorted(cited - latest)


def test_regenerating_reproduces_the_file_byte_for_byte() -> None:
    """The bundled file is exactly what `python -m bench.generate --demo` writes (compare the JSONL)."""
    with gzip.open(demo_data_path(), "rb") as fh:
        bundled = fh.read()
    assert to_jsonl(demo_records()) == bundled


def test_titles_look_like_vllm(prs: list[PullRequest]) -> None:
    latest = _latest(prs)
    titles = [p.title for p in latest]
    untagged = [t for t in titles if not t.startswith("[") and not re.match(r"^\w+(\(\w+\))?: ", t)]
    assert 0.05 <= len(untagged) / len(titles) <= 0.3
    assert any(re.match(r"^\[(ROCm|AMD)\]\[Bug[Ff]ix\]", t) for t in titles)
    assert any(re.search(r"\[\d+/[Nn]\]", t) for t in titles)
    assert any(re.match(r"^(fix|feat|perf|refactor|ci|docs|build|chore)(\(\w+\))?: ", t) for t in titles)
    assert any(t.startswith('Revert "') for t in titles)
    bugfix = [t for t in titles if re.search(r"\[(bug ?fix|bug|fix)\]|^fix\b", t, re.I)]
    assert 0.12 <= len(bugfix) / len(titles) <= 0.4


def test_bodies_follow_the_pr_template(prs: list[PullRequest]) -> None:
    bodies = [p.body for p in prs]
    assert sum("## Purpose" in b for b in bodies) > len(bodies) / 2
    assert sum("- [x]" in b for b in bodies) > len(bodies) / 2
    assert sum("<!--" in b for b in bodies) > len(bodies) / 2
    assert sum("Signed-off-by:" in b for b in bodies) > len(bodies) / 2
    joined = "\n".join(bodies)
    for effect in (
        "16–24% higher decode throughput",
        "719× faster",
        "1289μs to 1.8μs",
        "319%",
        "~1400 lines",
        "13.5% higher throughput",
    ):
        assert effect in joined, effect


def test_the_latest_week_has_a_burst_topic(prs: list[PullRequest]) -> None:
    """Several 'Migrate X to AutoWeightsLoader' PRs in the latest week and none before: a theme to find."""
    latest = _latest(prs)
    earlier = [p for p in prs if _iso_week(p) < DEMO_LATEST_WEEK]
    assert sum("AutoWeightsLoader" in p.title and "Migrate" in p.title for p in latest) >= 4
    assert not any("AutoWeightsLoader" in p.title for p in earlier)


def test_sizes_have_a_long_tail(prs: list[PullRequest]) -> None:
    sizes = sorted(p.additions + p.deletions for p in prs)
    median = sizes[len(sizes) // 2]
    assert 20 <= median <= 200
    assert sum(s > 1000 for s in sizes) >= 10
    assert max(p.changed_files or 0 for p in prs) >= 30


def test_module_mix_shifts_between_weeks(prs: list[PullRequest]) -> None:
    """CPU work accelerates into the latest week (the trend section needs movement to report)."""

    def cpu_share(week: str) -> float:
        rows = [p for p in prs if _iso_week(p) == week]
        return sum(p.title.startswith(("[CPU", "[Hardware][CPU]")) for p in rows) / len(rows)

    weeks = sorted({_iso_week(p) for p in prs})
    assert cpu_share(weeks[-1]) > 1.5 * (sum(cpu_share(w) for w in weeks[-5:-1]) / 4)


def test_classified_latest_week_raises_every_flag_and_has_highlights(prs: list[PullRequest]) -> None:
    """With the default profile the latest week exercises every risk flag, highlights and many modules."""
    from classify.engine import classify
    from classify.rules import load_profile

    profile = load_profile()
    latest = _latest(prs)
    results = [classify(p, profile) for p in latest]
    kinds = Counter(f.kind for c in results for f in c.flags)
    for kind in FLAG_KINDS:
        assert kinds[kind] >= 1, f"no {kind} flag in {DEMO_LATEST_WEEK}: {kinds}"
    assert all(f.evidence for c in results for f in c.flags)
    assert sum(bool(c.highlights) for c in results) >= 5
    modules = Counter(m for c in results for m in c.modules)
    assert len(modules) >= 10
    assert sum(not c.modules for c in results) <= len(results) * 0.1
