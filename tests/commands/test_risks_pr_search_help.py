"""risks, pr, search and help on the demo history, and their answers to bad input."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from classify.models import FLAG_KINDS
from classify.periods import parse_period
from commands.model import Invocation
from commands.registry import REGISTRY, Context, dispatch
from commands.render import render
from commands.search import MAX_RESULTS, fts_query
from tests.conftest import DEMO_NOW, RunFn

REPO = "vllm-project/vllm"


def _flagged(ctx: Context, kind: str, week: str) -> set[int]:
    p = parse_period(week, DEMO_NOW)
    rows = ctx.store.db.execute(
        "SELECT number, flags FROM prs WHERE repo = ? AND merged_at >= ? AND merged_at < ?",
        (REPO, p.start.strftime("%Y-%m-%dT%H:%M:%SZ"), p.end.strftime("%Y-%m-%dT%H:%M:%SZ")),
    ).fetchall()
    return {n for n, flags in rows if any(kind in ("all", f["kind"]) for f in json.loads(flags))}


@pytest.mark.parametrize("kind", [*FLAG_KINDS, "all"])
def test_risks_lists_exactly_the_flagged_prs_with_evidence(run: RunFn, demo_ctx: Context, kind: str) -> None:
    reply = run("risks", kind, "2026-W19")
    assert reply.ok
    numbers = {p["number"] for p in reply.data["prs"]}
    assert numbers == _flagged(demo_ctx, kind, "2026-W19")
    assert numbers, f"the demo week has {kind} PRs"
    assert all(p["evidence"] and all(e.strip() for e in p["evidence"]) for p in reply.data["prs"])
    assert reply.data["kind"] == kind and reply.data["period"]["label"] == "2026-W19"


def test_risks_accepts_period_and_kind_in_any_order(run: RunFn) -> None:
    a = run("risks", "breaking", "2026-W19").data
    b = run("risks", "2026-W19", "breaking").data
    assert a == b


def test_risks_defaults_to_all_and_the_last_seven_days(run: RunFn) -> None:
    reply = run("risks")
    assert reply.data["kind"] == "all"
    assert reply.data["period"]["label"] == "last 7 days"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("nonsense",), "unknown risk kind 'nonsense'"),
        (("core-path", "2026-W99"), "not an ISO week"),
        (("core-path", "breaking"), "give one KIND, not 'breaking' as well"),
    ],
)
def test_risks_bad_input(run: RunFn, args: tuple[str, ...], message: str) -> None:
    reply = run("risks", *args)
    assert reply.status == "usage" and message in reply.title and "usage: prdigest risks" in reply.title


def test_pr_shows_everything_the_cache_knows(run: RunFn, demo_ctx: Context) -> None:
    number = run("risks", "breaking", "2026-W19").data["prs"][0]["number"]
    reply = run("pr", str(number))
    assert reply.ok
    d = reply.data
    stored = demo_ctx.store.get(REPO, number)
    assert stored is not None
    assert d["number"] == number and d["title"] == stored.pr.title
    assert d["modules"] == stored.cls.modules and d["modules"]
    assert "breaking" in d["flags"] and d["flags"]["breaking"]
    assert d["score"] == stored.cls.score
    assert round(sum(p["points"] for p in d["score_breakdown"]), 6) == round(d["score"], 6)
    assert d["url"].endswith(f"/pull/{number}")
    assert isinstance(d["key"], bool) and d["week"] == "2026-W19"


def test_pr_by_url_and_hash(run: RunFn) -> None:
    number = run("digest", "2026-W19").data["key_prs"][0]
    by_url = run("pr", f"https://github.com/vllm-project/vllm/pull/{number}")
    assert by_url.ok and by_url.data["number"] == number and by_url.data["key"] is True
    assert run("pr", f"#{number}").data == by_url.data


def test_pr_not_cached_says_how_to_sync(run: RunFn) -> None:
    reply = run("pr", "1")
    assert reply.status == "not_found"
    assert "not in the cache" in reply.title and "prdigest sync" in reply.title


@pytest.mark.parametrize(
    ("word", "message"),
    [
        ("abc", "is not a PR number"),
        ("0", "out of range"),
        ("-5", "is not a PR number"),
        ("99999999999999999999", "out of range"),
        ("4.2", "is not a PR number"),
    ],
)
def test_pr_bad_numbers(run: RunFn, word: str, message: str) -> None:
    reply = run("pr", word)
    assert reply.status == "usage" and message in reply.title


def test_pr_needs_exactly_one_number(run: RunFn) -> None:
    assert run("pr").status == "usage" and "which PR? give its number" in run("pr").title
    two = run("pr", "1", "2")
    assert two.status == "usage" and "give one NUMBER|URL, not '2' as well" in two.title
    assert "give one COMMAND, not 'pr' as well" in run("help", "digest", "pr").title


def test_search_finds_titles_and_bodies(run: RunFn) -> None:
    reply = run("search", "AutoWeightsLoader")
    assert reply.ok and reply.data["total"] >= 4
    assert all("autoweightsloader" in p["title"].lower() for p in reply.data["prs"][:4])
    body_only = run("search", "centroids")
    assert body_only.data["total"] >= 1


def test_search_matches_whole_words_then_widens_to_prefixes(run: RunFn, demo_ctx: Context) -> None:
    whole = run("search", "deepseek").data
    assert whole["total"] >= MAX_RESULTS  # a full page of whole-word matches: no widening needed
    assert demo_ctx.store.search(whole["repo"], '"deepse"', None, None)[1] == 0  # not a word…
    widened = run("search", "deepse").data  # …so the search widens to words starting with it
    assert widened["total"] >= whole["total"]
    assert all("deepse" in (p["title"] + " ".join(p["modules"])).lower() for p in widened["prs"][:3])
    # "fixes" and "fixed" are whole-word matches of "fix" (the index stems English words)
    assert run("search", "fixes").data["total"] == run("search", "fix").data["total"] > MAX_RESULTS
    assert fts_query(["quant", "ab"], prefix=False) == '"quant" "ab"'
    assert fts_query(["quant", "ab"]) == '"quant"* "ab"'


def test_search_with_a_period(run: RunFn) -> None:
    everywhere = run("search", "rocm").data["total"]
    one_week = run("search", "rocm", "2026-W19").data
    assert 0 < one_week["total"] < everywhere
    assert all(p["merged_at"].startswith("2026-05") for p in one_week["prs"])


@pytest.mark.parametrize("junk", ['"', "*", "NEAR(", "a:b", "AND OR NOT", "') DROP TABLE prs; --", "✓✓"])
def test_search_survives_fts_syntax_in_user_text(run: RunFn, junk: str) -> None:
    reply = run("search", junk)
    assert reply.status in ("ok", "usage")
    assert run("search", "rocm").data["total"] > 0


def test_empty_search_is_a_usage_error(run: RunFn) -> None:
    assert run("search").status == "usage"
    assert "at least one word" in run("search", "!!!").title


def test_help_lists_every_command_and_explains_one(run: RunFn) -> None:
    listing = run("help")
    assert {c["name"] for c in listing.data["commands"]} == set(REGISTRY)
    one = run("help", "digest")
    assert one.data["usage"] == "digest [PERIOD] [MODULE…] [FLAG…] [any|all|only]"
    assert run("help", "/risks").data["command"] == "risks"
    assert run("help", "nope").status == "usage"


def test_unknown_command(demo_ctx: Context) -> None:
    reply = dispatch(Invocation(command="dance"), demo_ctx)
    assert reply.status == "usage" and "unknown command 'dance'" in reply.title


def test_several_repositories_need_a_choice(demo_ctx: Context) -> None:
    from classify.engine import classify
    from classify.models import PullRequest
    from storage.db import connect
    from storage.prs import PRStore

    store = PRStore(connect(":memory:"))
    for repo in ("a/one", "b/two"):
        pr = PullRequest(repo=repo, number=1, title="Add x", merged_at=DEMO_NOW)
        store.upsert([(pr, classify(pr, demo_ctx.profile))])
    ctx = Context(store=store, profile=demo_ctx.profile)
    reply = dispatch(Invocation(command="pr", args=("1",), now=DEMO_NOW), ctx)
    assert reply.status == "usage" and "several repositories (a/one, b/two)" in reply.title
    chosen = dispatch(Invocation(command="pr", args=("1",), repo="b/two", now=DEMO_NOW), ctx)
    assert chosen.ok and chosen.data["repo"] == "b/two"


def test_search_ignores_the_pr_template(run: RunFn) -> None:
    """Every demo body carries vLLM's template; its headings must not make every PR a match."""
    assert run("search", "purpose").data["total"] == 0
    assert run("search", "centroids").data["total"] >= 1


def test_search_counts_are_capped_and_say_so(run: RunFn) -> None:
    data = run("search", "the").data
    assert data["total_capped"] is (data["total"] >= 1000)


def test_risks_all_is_an_overview_that_points_to_each_full_list(run: RunFn) -> None:
    from commands.model import Heading, Paragraph, PRItem
    from commands.risks import OVERVIEW_LISTED

    reply = run("risks", "all", "2026-W19")
    groups: dict[str, list[object]] = {}
    current = ""
    for block in reply.blocks:
        if isinstance(block, Heading):
            current = block.text
            groups[current] = []
        elif current:
            groups[current].append(block)
    core = next(name for name in groups if name.startswith("core-path change"))
    shown = [b for b in groups[core] if isinstance(b, PRItem)]
    total = int(core.rsplit("(", 1)[1].rstrip(")"))
    assert total > OVERVIEW_LISTED and len(shown) == OVERVIEW_LISTED  # the demo week has many
    pointer = groups[core][-1]
    assert isinstance(pointer, Paragraph)
    assert (
        f"{total - OVERVIEW_LISTED} more" in pointer.text
        and "`prdigest risks core-path 2026-W19`" in pointer.text
    )
    # the full list and the JSON data keep every PR
    full = run("risks", "core-path", "2026-W19")
    assert sum(isinstance(b, PRItem) for b in full.blocks) == min(total, 100)
    assert sum("core-path" in p["flags"] for p in reply.data["prs"]) == total


@pytest.mark.parametrize(("platform", "lead"), [("slack", "/"), ("discord", "/"), ("cli", "prdigest ")])
def test_help_shows_commands_as_they_are_typed_where_it_was_asked(
    demo_ctx: Context, platform: str, lead: str
) -> None:
    from commands.model import BulletList, Paragraph

    listing = dispatch(Invocation(command="help", platform=platform), demo_ctx)
    bullets = next(b for b in listing.blocks if isinstance(b, BulletList)).items
    assert all(b.text.startswith(lead) for b in bullets)
    digest = "digest [period:PERIOD]" if platform == "discord" else "digest [PERIOD]"
    assert any(b.text.startswith(f"{lead}{digest}") for b in bullets)
    one = dispatch(Invocation(command="help", args=("risks",), platform=platform), demo_ctx)
    typed = {
        "cli": f"{lead}{one.data['usage']}",
        "slack": f"{lead}{one.data['usage']} [public]",
        # Discord shows options by name, as its command bar does
        "discord": f"{lead}risks [kind:KIND] [period:PERIOD] [repo:OWNER/NAME] [public:True]",
    }[platform]
    assert any(isinstance(b, Paragraph) and b.text == typed for b in one.blocks)
    assert one.data["usage"] == "risks [KIND] [PERIOD]"  # the data stays platform-neutral


@pytest.mark.parametrize(
    ("command", "args"),
    [("digest", ("week",)), ("risks", ()), ("risks", ("breaking",)), ("search", ("kernel", "week"))],
)
def test_the_rolling_week_is_named_in_the_readers_language(
    run: RunFn, command: str, args: tuple[str, ...]
) -> None:
    """A week after the demo's data: the titles and the "nothing found" lines name the period."""
    later = DEMO_NOW.replace(month=7)
    zh = render(run(command, *args, lang="zh", now=later), "text")
    assert "最近 7 天" in zh and "last" not in zh and "days" not in zh
    en = render(run(command, *args, now=later), "text")
    assert "last 7 days" in en


def test_risks_all_with_nothing_found_says_no_pr_raised_a_flag(run: RunFn) -> None:
    """Not "No PRs with all risk flags": that reads as PRs carrying every flag at once."""
    later = DEMO_NOW.replace(month=7)
    en = render(run("risks", "all", now=later), "text")
    assert "No PR merged in last 7 days raised a risk flag." in en and "all risk flags in" not in en
    zh = render(run("risks", "all", lang="zh", now=later), "text")
    assert "最近 7 天期间合并的 PR 都没有风险标记。" in zh


RISKS_TYPED = {
    "cli": ".venv/bin/prdigest risks {kind} {period}",
    "slack": "/risks {kind} {period}",
    "discord": "/risks kind:{kind} period:{period}",
}
MATCH_TYPED = {
    "cli": ".venv/bin/prdigest digest last-week rocm kernel only",
    "slack": "/digest last-week rocm kernel only",
    "discord": "/digest period:last-week modules:rocm,kernel match:only",
}


@pytest.mark.parametrize("platform", ["cli", "slack", "discord"])
def test_every_command_a_reply_names_is_typed_as_the_asker_types_it(demo_ctx: Context, platform: str) -> None:
    """Hints carry the platform's own syntax — the program as invoked in a terminal, the slash in
    chat, Discord's ``option:value`` — in every answer that names a command: the digest's details
    and "more" pointers, the empty period's pointer to the cache's dates, errors."""
    program = ".venv/bin/prdigest" if platform == "cli" else "prdigest"
    inv = Invocation(command="digest", args=("2026-W19",), platform=platform, program=program, now=DEMO_NOW)
    text = render(dispatch(inv, demo_ctx), "text")

    def risks(kind: str) -> str:
        return "`" + RISKS_TYPED[platform].format(kind=kind, period="2026-W19") + "`"

    assert f"Details: {risks('all')} lists every flagged PR" in text
    assert f"4 more ({risks('breaking')})" in text
    empty = render(dispatch(replace(inv, command="risks", args=("core-path", "2025-W01")), demo_ctx), "text")
    assert f"from 2026-03-30 to 2026-05-10; try {risks('core-path')}." in empty
    bad = dispatch(replace(inv, args=("last-week", "only")), demo_ctx)  # "only" needs modules
    assert bad.status == "usage" and MATCH_TYPED[platform] in bad.title
    # the commands a chat user has no hand in stay the operator's `prdigest`
    assert "prdigest" in dispatch(replace(inv, command="pr", args=("1",)), demo_ctx).title


def test_search_pages_through_every_match_once_and_names_the_next_page(run: RunFn) -> None:
    first = run("search", "fix", "2026-W19")
    total = first.data["total"]
    assert total > 2 * MAX_RESULTS  # three pages at least
    seen: list[int] = []
    page = 1
    while True:
        reply = run("search", "fix", "2026-W19", f"page={page}")
        numbers = [p["number"] for p in reply.data["prs"]]
        text = render(reply, "text")
        if not numbers:
            assert f"Page {page} is past the last page of matches" in text
            break
        seen += numbers
        last = len(seen) == total
        assert ("Next page: `prdigest search fix 2026-W19 --page " + str(page + 1)) in text or last
        assert (f"{len(seen) - len(numbers) + 1}–{len(seen)} of {total}" in text) or page == 1
        page += 1
    assert len(seen) == len(set(seen)) == total
    assert seen[:MAX_RESULTS] == [p["number"] for p in first.data["prs"]]  # page 1 is the default


@pytest.mark.parametrize("word", ["page=0", "page=-1", "page=1001", "page=x", "page=", "page=٣"])
def test_a_page_that_is_no_page_number_is_one_usage_line(run: RunFn, word: str) -> None:
    reply = run("search", "fix", word)
    assert reply.status == "usage" and "is not a page number" in reply.title and "\n" not in reply.title


def test_search_without_a_period_pages_too(run: RunFn) -> None:
    one, two = (run("search", "fix", f"page={n}").data["prs"] for n in (1, 2))
    assert len(one) == len(two) == MAX_RESULTS
    assert not {p["number"] for p in one} & {p["number"] for p in two}
