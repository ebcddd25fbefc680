"""The parameter declarations: word assignment, named options (Discord), suggestions, option
metadata within Discord's rules, and usage errors in the caller's language."""

from __future__ import annotations

import re

import pytest

from classify.models import FLAG_KINDS
from commands import params as P
from commands.model import Invocation
from commands.registry import REGISTRY, Context, dispatch, load_all, scope
from tests.conftest import DEMO_NOW, RunFn

load_all()
NAME = re.compile(r"^[-_a-z0-9]{1,32}$")  # Discord's rule for command and option names


def test_words_go_to_the_parameter_that_claims_them(run: RunFn) -> None:
    assert run("digest", "rocm", "2026-W19").data == run("digest", "2026-W19", "rocm").data
    assert run("risks", "2026-W19", "breaking").data == run("risks", "breaking", "2026-W19").data
    # search: a period only as the last of several words
    assert run("search", "2026-W19").data["period"] is None
    assert run("search", "rocm", "2026-W19").data["period"]["label"] == "2026-W19"


def test_named_options_give_the_same_answer_as_typed_words(demo_ctx: Context) -> None:
    """What Discord sends (typed options) and what a terminal types reach the same handler."""
    cases = [
        (
            ("2026-W19", "rocm", "spec-decode"),
            {"period": "2026-W19", "modules": "rocm, spec-decode"},
            "digest",
        ),
        (("breaking", "2026-W19"), {"kind": "breaking", "period": "2026-W19"}, "risks"),
        (("tree", "attention", "2026-W19"), {"words": "tree attention", "period": "2026-W19"}, "search"),
    ]
    for words, options, command in cases:
        typed = dispatch(Invocation(command=command, args=words, now=DEMO_NOW), demo_ctx)
        named = dispatch(Invocation(command=command, options=options, now=DEMO_NOW), demo_ctx)
        assert typed.ok and typed.data == named.data, command
    number = dispatch(Invocation(command="digest", args=("2026-W19",), now=DEMO_NOW), demo_ctx).data[
        "key_prs"
    ][0]
    by_int = dispatch(Invocation(command="pr", options={"number": number}, now=DEMO_NOW), demo_ctx)
    assert by_int.ok and by_int.data["number"] == number


def test_an_option_sets_the_repository_and_a_flag_is_not_a_handler_argument(demo_ctx: Context) -> None:
    reply = dispatch(Invocation(command="risks", options={"repo": "o/elsewhere", "public": True}), demo_ctx)
    assert reply.status == "usage" and "no PRs of o/elsewhere; it holds vllm-project/vllm" in reply.title
    bad = dispatch(Invocation(command="risks", options={"repo": "not a repo"}), demo_ctx)
    assert bad.status == "usage" and "'not a repo' is not a repository" in bad.title
    unknown = dispatch(Invocation(command="risks", options={"colour": "red"}), demo_ctx)
    assert unknown.status == "usage" and "unexpected 'colour'" in unknown.title


def test_split_text_keeps_quoted_flags_as_words() -> None:
    params = REGISTRY["search"].params
    assert P.split_text("last-week PUBLIC rocm", params) == (("last-week", "rocm"), frozenset({"public"}))
    assert P.split_text('"public" api', params) == (("public", "api"), frozenset())
    with pytest.raises(P.UsageError) as err:
        P.split_text("x" * 501, params)
    assert err.value.key == "error.too_long"


@pytest.mark.parametrize(
    ("command", "args", "en", "zh"),
    [
        ("pr", ("abc",), "'abc' is not a PR number", "'abc' 不是 PR 编号"),
        ("pr", (), "which PR? give its number", "哪个 PR？请给出编号"),
        ("risks", ("nonsense",), "unknown risk kind 'nonsense'", "未知风险类型 'nonsense'"),
        ("digest", ("2026-W99",), "2026-W99 is not an ISO week", "2026-W99 不是有效的 ISO 周"),
        ("digest", ("warp-drive",), "unknown module 'warp-drive'", "未知模块 'warp-drive'"),
        ("search", (), "search needs at least one word", "搜索至少需要一个词"),
        ("help", ("dance",), "unknown command 'dance'", "未知命令 'dance'"),
    ],
)
def test_usage_errors_in_both_languages(
    run: RunFn, command: str, args: tuple[str, ...], en: str, zh: str
) -> None:
    english, chinese = run(command, *args), run(command, *args, lang="zh")
    assert english.status == chinese.status == "usage"
    assert en in english.title and f"— usage: prdigest {command}" in english.title
    assert zh in chinese.title and f"— 用法：prdigest {command}" in chinese.title
    assert "\n" not in english.title + chinese.title


def test_option_metadata_follows_discords_rules() -> None:
    """What the Discord front end will register: names, descriptions ≤ 100, ≤ 25 choices,
    required options first, the PR as an integer, the risk kind as fixed choices."""
    from commands.locale import t

    for spec in REGISTRY.values():
        assert NAME.match(spec.name)
        specs = [P.option_spec(p, t("en", p.help)) for p in P.for_surface(spec.params, "discord")]
        assert [o.required for o in specs] == sorted((o.required for o in specs), reverse=True), spec.name
        for o in specs:
            assert NAME.match(o.name) and 1 <= len(o.description) <= 100, (spec.name, o.name)
            assert len(o.choices) <= 25 and not (o.choices and o.autocomplete)
            for lang in ("en", "zh"):
                help_text = t(lang, next(p.help for p in spec.params if p.name == o.name))
                assert help_text and len(help_text) <= 100
    options = {o.name: o for p in REGISTRY["risks"].params for o in [P.option_spec(p, "")]}
    assert options["kind"].choices == (*FLAG_KINDS, "all") and options["kind"].type == "string"
    assert options["period"].autocomplete and not options["period"].choices  # free text: 2026-W19, ranges
    assert options["public"].type == "boolean"
    pr = next(P.option_spec(p, "") for p in REGISTRY["pr"].params if p.name == "number")
    assert pr.type == "integer" and pr.required


def test_suggestions_come_from_memory(demo_ctx: Context) -> None:
    inv = Invocation(command="digest", now=DEMO_NOW)
    here = scope(inv, demo_ctx, repos=True)
    params = {p.name: p for p in REGISTRY["digest"].params}
    periods = P.suggestions(params["period"], here, "")
    assert periods[:4] == ["week", "last-week", "2026-W20", "2026-W19"] and len(periods) <= 25
    assert P.suggestions(params["period"], here, "2026-W1")[0] == "2026-W19"
    assert P.suggestions(params["modules"], here, "ro") == ["rocm"]
    assert P.suggestions(params["modules"], here, "rocm,sp") == ["rocm,spec-decode"]
    assert P.suggestions(params["repo"], here, "") == ["vllm-project/vllm"]
    kinds = next(p for p in REGISTRY["risks"].params if p.name == "kind")
    assert P.suggestions(kinds, here, "b") == ["breaking"]


def test_usage_lines_come_from_the_declarations() -> None:
    assert REGISTRY["digest"].usage == "digest [PERIOD] [MODULE…] [FLAG…] [any|all|only]"
    assert (
        REGISTRY["digest"].usage_for("slack") == "digest [PERIOD] [MODULE…] [FLAG…] [any|all|only] [public]"
    )
    assert REGISTRY["digest"].usage_for("discord") == (
        "digest [period:PERIOD] [modules:MODULE,…] [flags:FLAG,…] [match:any|all|only] [repo:OWNER/NAME] [public:True]"
    )
    assert REGISTRY["pr"].usage_for("discord") == "pr number:NUMBER [repo:OWNER/NAME] [public:True]"
    assert REGISTRY["risks"].usage == "risks [KIND] [PERIOD]"
    assert REGISTRY["pr"].usage == "pr NUMBER|URL"
    assert REGISTRY["search"].usage == "search WORDS… [PERIOD]"
    assert REGISTRY["help"].usage == "help [COMMAND]"
