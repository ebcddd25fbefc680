"""Storyline themes from in-memory PRs: what makes a theme, what joins it, its name and sentence."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from classify.models import Classification, ListedPR, PRHead
from classify.rules import Profile, load_profile, profile_from_data
from classify.storylines import Theme, _verb_of_change, find_themes, theme_parts, zh_glue
from commands.locale.reasons import score_reason
from commands.report.storyline_text import describe, join
from tests.conftest import RunFn

MONDAY = datetime(2026, 5, 4, 9, tzinfo=UTC)
_numbers = iter(range(1000, 100_000))


def spr(
    title: str,
    *,
    score: float = 2.0,
    kind: str = "feature",
    author: str = "dev",
    number: int | None = None,
) -> ListedPR:
    n = number if number is not None else next(_numbers)
    pr = PRHead("o/r", n, title, author, f"https://github.com/o/r/pull/{n}", MONDAY + timedelta(minutes=n))
    return ListedPR(pr=pr, cls=Classification(kind=kind, score=score, modules=["other"]))


def filler(k: int) -> list[ListedPR]:
    """Unrelated PRs, each about something else (so no accidental topic is shared)."""
    words = [f"Zq{chr(97 + i % 26)}{chr(97 + i // 26)}thing" for i in range(k)]
    return [spr(f"Tweak {w} handling", score=0.5, kind="other") for w in words]


@pytest.fixture(scope="module")
def generic() -> Profile:
    return load_profile("generic")


@pytest.fixture(scope="module")
def areas(tmp_path_factory: pytest.TempPathFactory) -> Profile:
    """A profile with an area module, a language bucket and an infrastructure bucket."""
    data = {
        "name": "areas",
        "version": "1",
        "catch_all": "other",
        "modules": {
            "gpu": {
                "en": "GPU backend",
                "zh": "GPU 后端",
                "group": "platform",
                "tags": ["GPU"],
                "keywords": ["cuda"],
            },
            "python": {"en": "Python", "zh": "Python", "group": "language", "keywords": ["python"]},
            "ci": {"en": "CI", "zh": "持续集成", "group": "infra", "tags": ["CI"], "keywords": ["pipeline"]},
            "other": {"en": "Other", "zh": "其他"},
        },
    }
    return profile_from_data(data, source=tmp_path_factory.mktemp("p") / "areas.toml")


def numbers(theme: Theme) -> set[int]:
    return set(theme.numbers)


def by_key(themes: Iterable[Theme], key: str) -> Theme:
    return next(th for th in themes if th.key == key)


def test_a_tagged_series_is_one_theme_named_by_what_the_tag_abbreviates(generic: Profile) -> None:
    series = [
        spr("[EM] Add the page cache"),
        spr("[EM] Prefetch pages in the iterator"),
        spr("[EM] Support external memory in the GPU predictor"),
        spr("[EM] Log the page size"),
    ]
    themes = find_themes([*series, *filler(20)], generic)
    em = by_key(themes, "tag:em")
    assert numbers(em) == {s.pr.number for s in series}
    assert em.name == {"en": "External Memory", "zh": "External Memory"}
    assert em.kind == "series" and "tag [EM]" in em.evidence[0]


def test_a_phrase_names_its_theme_with_the_noun_it_qualifies(generic: Profile) -> None:
    story = [
        spr("Implement smooth MM quantile objective"),
        spr("Use smooth MM updates for the absolute error objective"),
        spr("Add smooth MM to the pinball objective"),
    ]
    themes = find_themes([*story, *filler(40)], generic)
    (theme,) = [th for th in themes if th.key == "word:smooth mm"]
    assert theme.title == "Smooth MM objective"
    # without a noun shared as widely (two of three titles), the phrase alone
    alone = find_themes([*story[:2], spr("Tune smooth MM steps"), *filler(40)], generic)
    assert [th.title for th in alone if th.key == "word:smooth mm"] == ["Smooth MM"]


def test_kind_tags_series_markers_and_glue_never_make_a_theme(generic: Profile) -> None:
    prs = [
        spr(f"[Bugfix][{i}/N] Fix the {w} of the run", kind="bugfix")
        for i, w in enumerate(["start", "stop", "end", "middle", "pause"], 1)
    ]
    themes = find_themes([*prs, *filler(10)], generic)
    assert not themes or all(th.key not in ("tag:bugfix", "word:fix") for th in themes)
    assert all("bugfix" not in th.title.lower() for th in themes)


def test_a_name_new_this_week_comes_first_and_says_so(generic: Profile) -> None:
    burst = [
        spr(f"Migrate {m} to AutoWeightsLoader", score=0.5, kind="refactor")
        for m in ("Llama", "Qwen", "Gemma", "Mistral", "Phi")
    ]
    steady = [spr(f"Speed up the Scheduler lock {i}", score=4.0, kind="perf") for i in range(6)]
    earlier = [
        [f"Speed up the Scheduler lock {i}" for i in range(5)] + [f"Tweak Zz{i} handling" for i in range(20)]
        for _ in range(4)
    ]
    themes = find_themes([*burst, *steady, *filler(30)], generic, previous=earlier)
    first = themes[0]
    assert first.key == "word:autoweightsloader" and first.kind == "burst"
    assert first.name == {"en": "AutoWeightsLoader migration", "zh": "AutoWeightsLoader 迁移"}
    assert (first.before, first.compared) == (0.0, 4)
    scheduler = next(th for th in themes if "scheduler" in th.key)
    assert scheduler.kind != "burst" and scheduler.before == 5.0  # five titles a window before


def test_without_history_nothing_is_a_burst(generic: Profile) -> None:
    burst = [spr(f"Migrate {m} to AutoWeightsLoader") for m in ("Llama", "Qwen", "Gemma", "Mistral")]
    themes = find_themes([*burst, *filler(20)], generic)
    assert themes[0].key == "word:autoweightsloader"
    assert themes[0].kind != "burst" and themes[0].before is None


def test_a_label_on_a_third_of_all_prs_is_a_bucket_not_a_story(generic: Profile) -> None:
    bucket = [
        spr(f"Tune the Widget {w}") for w in ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta")
    ]
    themes = find_themes([*bucket, *filler(13)], generic)  # 7 of 20 PRs say "Widget"
    assert all("widget" not in th.key for th in themes)


def test_language_and_infrastructure_modules_are_not_stories_but_areas_are(areas: Profile) -> None:
    py = [spr(f"Port the Qx{i} loader to python") for i in range(4)]
    ci = [spr(f"[CI] Shard the pipeline Qy{i}", kind="ci") for i in range(4)]
    gpu = [spr(f"[GPU] Faster Qz{i} kernels") for i in range(4)]
    themes = find_themes([*py, *ci, *gpu, *filler(20)], areas)
    keys = {th.key for th in themes}
    assert "module:gpu" in keys and not keys & {"module:python", "module:ci"}
    gpu_theme = by_key(themes, "module:gpu")
    assert gpu_theme.name == {"en": "GPU backend", "zh": "GPU 后端"} and gpu_theme.module == "gpu"
    assert gpu_theme.kind == "module"


def test_a_pr_is_in_at_most_one_theme(generic: Profile) -> None:
    prs = [spr(f"[EM] Cache the {w} pages for SYCL") for w in ("dense", "sparse", "mixed")]
    prs += [spr(f"[sycl] Port the {w} kernels") for w in ("hist", "split", "sort", "scan")]
    themes = find_themes([*prs, *filler(20)], generic)
    seen = [n for th in themes for n in th.numbers]
    assert len(seen) == len(set(seen))


def test_bots_tell_no_story(generic: Profile) -> None:
    bumps = [spr(f"Bump Zlib{i} from 1.{i} to 1.{i + 1}", author="dependabot[bot]") for i in range(6)]
    themes = find_themes([*bumps, *filler(15)], generic)
    assert all(not set(th.numbers) & {s.pr.number for s in bumps} for th in themes)


def test_the_repositorys_own_releases_tell_no_story(generic: Profile) -> None:
    """ "Release version 0.141.N" twelve times is a habit of releasing, not a storyline."""
    releases = [spr(f"🔖 Release version 0.141.{i}", kind="chore", score=0.5) for i in range(12)]
    earlier = [
        [f"🔖 Release version 0.140.{i}" for i in range(2)] + [f"Tweak Zz{i} handling" for i in range(20)]
    ]
    themes = find_themes([*releases, *filler(70)], generic, previous=earlier * 4)
    assert all(not set(th.numbers) & {s.pr.number for s in releases} for th in themes)
    # the same titles naming a feature instead are a story
    feature = [spr(f"Release notes search {i}", kind="feature") for i in range(12)]
    themes = find_themes([*feature, *filler(70)], generic, previous=earlier * 4)
    assert any(set(th.numbers) & {s.pr.number for s in feature} for th in themes)


def test_the_projects_own_name_tells_no_story(generic: Profile) -> None:
    """In acme/gizmo, "Gizmo" is in titles about anything ("FastAPI People", "wandb.init"): a
    word naming the project is no storyline; the same word in another repository is one."""
    titles = [
        "Tidy Gizmo people handling",
        "Fix Gizmo sponsor list",
        "Speed up Gizmo team view",
        "Guard Gizmo quota math",
        "Rework Gizmo ledger sums",
    ]

    def found(repo: str) -> list[set[int]]:
        prs = [replace(s, pr=replace(s.pr, repo=repo)) for s in map(spr, titles)]
        themes = find_themes([*prs, *filler(40)], generic)
        return [set(th.numbers) & {s.pr.number for s in prs} for th in themes]

    assert not any(found("acme/gizmo"))
    assert any(len(hit) == 5 for hit in found("acme/other"))


def test_untagged_prs_working_in_the_series_files_join_it(generic: Profile) -> None:
    series = [spr(f"[enc] Recode the {w}") for w in ("booster", "predictor", "dask path", "sklearn path")]
    kin = [spr(f"Store categories from {w}") for w in ("pandas", "arrow", "polars")]
    stranger = [spr(f"Store categories in the {w} docs") for w in ("R",)]
    prs = [*series, *kin, *stranger, *filler(90)]  # a shared file is specific below a tenth of the PRs
    shared = ["src/data/cat_container.h", "src/data/cat_container.cc", "src/encoder/ordinal.h"]
    paths: dict[int, list[str]] = {s.pr.number: [*shared, f"src/enc_{i}.cc"] for i, s in enumerate(series)}
    paths.update({s.pr.number: [shared[0], shared[1], f"python/{i}.py"] for i, s in enumerate(kin)})
    paths.update({s.pr.number: ["doc/r.md", "doc/index.md"] for s in stranger})
    paths.update(
        {s.pr.number: ["doc/index.md", f"misc/{i}.c"] for i, s in enumerate(prs) if s.pr.number not in paths}
    )
    themes = find_themes(prs, generic, paths=paths)
    enc = by_key(themes, "tag:enc")
    assert numbers(enc) == {s.pr.number for s in [*series, *kin]}
    assert enc.name["en"] == "Encoder"  # "enc" spelt out from the series' own directories
    # the same words alone, without the files, do not tie the PRs to the series
    alone = by_key(find_themes(prs, generic), "tag:enc")
    assert numbers(alone) == {s.pr.number for s in series}


def test_words_sharing_only_a_file_everybody_changes_stay_out_of_the_series(generic: Profile) -> None:
    series = [spr(f"[enc] Recode the {w}") for w in ("booster", "predictor", "dask path", "sklearn path")]
    ignore = [spr(f"Ignore {w} files") for w in ("UBJSON", "config", "build")]
    others = filler(90)
    prs = [*series, *ignore, *others]
    shared = ["src/data/cat_container.h", "src/encoder/ordinal.h"]
    paths: dict[int, list[str]] = {s.pr.number: [*shared, f"src/enc_{i}.cc"] for i, s in enumerate(series)}
    for s in series[:2]:  # two of the series touch .gitignore too
        paths[s.pr.number].append(".gitignore")
    paths.update({s.pr.number: [".gitignore"] for s in ignore})
    paths.update({s.pr.number: [f"misc/{i}.c"] for i, s in enumerate(others)})

    def enc() -> set[int]:
        return numbers(by_key(find_themes(prs, generic, paths=paths), "tag:enc"))

    # the series' PRs are two of the five changing .gitignore: their file, the "ignore" PRs join
    assert enc() == {s.pr.number for s in [*series, *ignore]}
    # two of eight: everybody's file, which ties nothing to the series
    paths.update({s.pr.number: [".gitignore", f"misc/{i}.c"] for i, s in enumerate(others[:3])})
    assert enc() == {s.pr.number for s in series}


def test_a_tag_naming_a_directory_takes_the_prs_working_there(generic: Profile) -> None:
    tagged = [
        spr(f"[coll] {w}") for w in ("Add tracker logs", "Reduce open sockets", "Support nccl timeouts")
    ]
    untagged = [spr(f"Consistently report {w} errors") for w in ("socket", "worker")]
    short = [spr("[col] Small cleanup to the federated comm")]  # the same tag, a letter short
    outside = [spr("Tidy the error message of the predictor")]
    prs = [*tagged, *untagged, *short, *outside, *filler(60)]
    paths: dict[int, list[str]] = {s.pr.number: [f"src/collective/{i}.cc"] for i, s in enumerate(tagged)}
    # most of their files in tests/cpp/collective/: the place the tag abbreviates
    paths.update(
        {s.pr.number: [f"tests/cpp/collective/t{i}.cc", "tests/cpp/a.cc"] for i, s in enumerate(untagged)}
    )
    paths[outside[0].pr.number] = [
        "src/predictor/x.cc",
        "src/predictor/y.cc",
        "src/collective/z.h",
        "doc/a.md",
    ]
    paths.update({s.pr.number: [f"misc/{i}.c"] for i, s in enumerate(prs) if s.pr.number not in paths})
    coll = by_key(find_themes(prs, generic, paths=paths), "tag:coll")
    assert numbers(coll) == {s.pr.number for s in [*tagged, *untagged, *short]}  # 1 of 4 files: not there
    assert coll.name["en"] == "Collective" and coll.named == 4  # the titles carrying the tag
    assert coll.told == {s.pr.number for s in [*tagged, *short]}
    # without the files the untagged PRs are not in it
    assert numbers(by_key(find_themes(prs, generic), "tag:coll")) == {s.pr.number for s in [*tagged, *short]}


def test_a_tag_names_a_directory_further_up_but_a_plain_word_does_not(generic: Profile) -> None:
    tagged = [spr(f"[sycl] {w}") for w in ("Fix the build", "Support fp32 devices", "Tune the sampler")]
    untagged = [spr(f"Refactor the {w} on device") for w in ("gradient calculation", "prediction cache")]
    kernels = [spr(f"Kernel {w} cleanup") for w in ("split", "prune", "refresh")]
    below = [spr(f"Adjust Zq{w}xyz") for w in ("a", "b", "c")]  # working below src/kernel/
    prs = [*tagged, *untagged, *kernels, *below, *filler(60)]
    # the plugin's files lie in subsystem directories below plugin/sycl/
    paths: dict[int, list[str]] = {
        s.pr.number: [f"plugin/sycl/tree/u{i}.cc", f"plugin/sycl/data/d{i}.h"]
        for i, s in enumerate([*tagged, *untagged])
    }
    paths.update({s.pr.number: [f"src/kernel/cuda/k{i}.cu"] for i, s in enumerate(below)})
    paths.update({s.pr.number: [f"misc/{i}.c"] for i, s in enumerate(prs) if s.pr.number not in paths})
    themes = find_themes(prs, generic, paths=paths)
    assert numbers(by_key(themes, "tag:sycl")) == {s.pr.number for s in [*tagged, *untagged]}
    # a plain word names only the directory holding the files: src/kernel/cuda/ is not "kernel"
    assert numbers(by_key(themes, "word:kernel")) == {s.pr.number for s in kernels}


def test_a_place_many_prs_work_in_or_named_like_the_repository_names_no_story(generic: Profile) -> None:
    objective = [spr(f"Implement the {w} objective") for w in ("quantile", "huber")]
    working = [spr(f"Use smooth updates for {w}") for w in ("absolute error", "pseudo huber")]
    prs = [*objective, *working, *filler(40)]
    paths: dict[int, list[str]] = {
        s.pr.number: ["src/objective/a.cu", "src/x.h"] for s in [*objective, *working]
    }
    paths.update({s.pr.number: [f"misc/{i}.c"] for i, s in enumerate(prs) if s.pr.number not in paths})
    found = by_key(find_themes(prs, generic, paths=paths), "word:objective")
    assert numbers(found) == {s.pr.number for s in [*objective, *working]}
    # when one PR in five works there, src/objective/ is a package, not a subsystem
    crowd = [spr(f"Refactor the {w} code") for w in ("tree", "hist", "sketch", "cache", "split", "metric")]
    paths.update({s.pr.number: ["src/objective/b.cc"] for s in crowd})
    wide = find_themes([*prs, *crowd], generic, paths=paths)  # two titles alone make no story
    assert all(not set(th.numbers) & {s.pr.number for s in working} for th in wide)

    # a directory named like the repository (o/toolkit: python/toolkit/) is the project itself
    def in_toolkit(s: ListedPR) -> ListedPR:
        return ListedPR(pr=replace(s.pr, repo="o/toolkit"), cls=s.cls)

    named = [spr(f"[toolkit] Tidy the {w}") for w in ("cache", "parser", "reader")]
    inside = [spr(f"Rename {w} helpers") for w in ("alpha", "beta")]
    more = [in_toolkit(s) for s in [*named, *inside, *filler(40)]]
    where = {s.pr.number: ["python/toolkit/a.py", "python/toolkit/b.py"] for s in inside}
    where.update({s.pr.number: [f"misc/{i}.c"] for i, s in enumerate(more) if s.pr.number not in where})
    toolkit = by_key(find_themes(more, generic, paths=where), "tag:toolkit")
    assert numbers(toolkit) == {s.pr.number for s in named}


def test_the_area_after_a_models_name_is_the_titles_subject() -> None:
    from classify.storylines import _vocabulary

    vocab = _vocabulary(load_profile("vllm"))
    found = {
        key: about
        for source, key, _, about in vocab.features("Fix the Gemma 4 tool parser")
        if source == "module"
    }
    assert found["tool-calling"] == 1.0 and found["gemma"] < 1.0
    # a tag keeps the primary slot: "[ROCm] …" is about ROCm whatever follows
    tagged = {
        k: a for src, k, _, a in vocab.features("[ROCm] Fix the Gemma 4 tool parser") if src == "module"
    }
    assert tagged["rocm"] == 1.0 and tagged["tool-calling"] < 1.0


def test_a_coherent_subsystem_story_stands_above_a_slice_of_a_bucket(tmp_path: Path) -> None:
    data = {
        "name": "stand",
        "version": "1",
        "catch_all": "other",
        "modules": {
            "models": {"en": "Model support", "zh": "模型支持", "group": "area", "tags": ["Model"]},
            "parsers": {
                "en": "Tool parsers",
                "zh": "工具解析器",
                "group": "area",
                "keywords": ["tool parser*"],
            },
            "other": {"en": "Other", "zh": "其他"},
        },
    }
    profile = profile_from_data(data, source=tmp_path / "stand.toml")

    def with_modules(item: ListedPR, *modules: str) -> ListedPR:
        return ListedPR(pr=item.pr, cls=replace(item.cls, modules=list(modules)))

    names = ("Qwen", "Gemma", "Llama", "Mistral", "Kimi", "Step")
    models = [with_modules(spr(f"[Model] Add {w}", score=4), "models") for w in names]
    # as many PRs touch model code in passing, for stories of their own: the theme is half its module
    passing = [with_modules(spr(f"Tweak Zq{w}thing handling", score=0.5), "models") for w in names]
    fixes = [
        with_modules(spr(f"Fix the {w} tool parser", score=-0.5, kind="bugfix"), "parsers")
        for w in ("Hermes", "GLM", "Seed", "Granite", "Jamba")
    ]
    prs = [*models, *passing, *fixes, *filler(40)]
    paths = {s.pr.number: [f"src/models/{i}.py"] for i, s in enumerate([*models, *passing])}
    paths.update(
        {s.pr.number: [f"src/tool_parsers/{i}.py", "tests/tool_parsers/t.py"] for i, s in enumerate(fixes)}
    )
    paths.update({s.pr.number: [f"misc/{i}.c"] for i, s in enumerate(prs) if s.pr.number not in paths})
    themes = find_themes(prs, profile, paths=paths)
    keys = [th.key for th in themes]
    story, bucket = by_key(themes, "module:parsers"), by_key(themes, "module:models")
    assert story.strength < bucket.strength  # the new models weigh more, PR by PR
    assert keys.index("module:parsers") < keys.index("module:models")  # the parsers' story stands higher


def test_describe_states_the_themes_own_numbers_in_both_languages(generic: Profile) -> None:
    prs = [
        spr("[EM] Add the page cache", score=6, number=11),
        spr("[EM] Prefetch pages", score=5, number=12, kind="perf"),
        spr("[EM] Fix the page size", score=1, number=13, kind="bugfix"),
        spr("[EM] Fix the iterator", score=1, number=14, kind="bugfix"),
    ]
    earlier = [["Tweak Zq handling", "[EM] Add a reader", "Other thing"] for _ in range(4)]
    (theme,) = [
        th for th in find_themes([*prs, *filler(20)], generic, previous=earlier) if th.key == "tag:em"
    ]
    (described,) = describe([theme], key=[12], profile=generic)
    assert described.lead == (12, 11, 14)  # key PRs first, then by score
    assert described.summary["en"] == (
        "2 fixes, 1 new feature and 1 performance change; 1 of them key, led by #12, #11 and #14; "
        "4 titles named it this week, 1 a week in the 4 weeks before."
    )
    assert described.summary["zh"] == (
        "2 个修复、1 个新功能和 1 个性能优化；其中 1 个重点，代表 PR：#12、#11 和 #14；"
        "本周 4 个标题提到它，前 4 周平均每周 1 个。"
    )
    (other,) = describe([theme], key=[], profile=generic, weekly=False)
    assert other.summary["en"].startswith("2 fixes, ") and "in this period" in other.summary["en"]
    # a module theme compares with the module's own average (the trends table's), passed in
    module = Theme(
        key="module:gpu",
        kind="module",
        name={"en": "GPU", "zh": "GPU"},
        prs=prs,
        module="gpu",
        before=3.0,
        compared=4,
        named=4,
    )
    (gpu,) = describe([module], key=[], profile=generic, module_before={"gpu": 2.5})
    assert gpu.before == 2.5
    assert gpu.summary["en"].endswith("; the module averaged 2.5 PRs a week in the 4 weeks before.")
    assert gpu.summary["zh"].endswith("；前 4 周该模块平均每周 2.5 个 PR。")


def test_theme_parts_give_the_leading_story_full_points_and_weaker_ones_a_share(generic: Profile) -> None:
    def theme(name: str, strength: float, count: int) -> Theme:
        return Theme(
            key=f"tag:{name}",
            kind="series",
            name={"en": name, "zh": name},
            prs=[spr(f"{name} {i}") for i in range(count)],
            strength=strength,
        )

    lead, half, tiny, small = (
        theme("lead", 100, 5),
        theme("half", 50, 4),
        theme("tiny", 5, 4),
        theme("small", 90, 2),
    )
    parts = theme_parts([lead, half, tiny, small], generic)
    points = generic.score.theme
    assert {parts[n].points for n in lead.numbers} == {points}
    assert {parts[n].points for n in half.numbers} == {points / 2}
    assert not set(tiny.numbers) & set(parts)  # rounds to nothing
    assert not set(small.numbers) & set(parts)  # fewer PRs than theme_min_prs
    part = parts[lead.numbers[0]]
    assert (part.rule, part.detail) == ("theme", "lead") and part.reason == 'part of the theme "lead" (5 PRs)'
    # a PR only its files tie to the story earns half
    told = replace(lead, told=frozenset(lead.numbers[:3]))
    parts = theme_parts([told, half], generic)
    assert [parts[n].points for n in lead.numbers] == [points] * 3 + [points / 2] * 2
    assert parts[lead.numbers[4]].reason == 'part of the theme "lead" (5 PRs) by the files it changes'
    # the share follows the story's standing when it has one: a coherent story weighing half as
    # much as the lead but standing as high earns as much
    coherent = replace(half, standing=100.0)
    parts = theme_parts([replace(lead, standing=100.0), coherent], generic)
    assert {parts[n].points for n in coherent.numbers} == {points}


def test_a_storys_own_docs_have_the_docs_penalty_lifted(generic: Profile) -> None:
    docs, test = spr("[EM] Tutorial", kind="docs"), spr("[EM] More tests", kind="test")
    story = Theme(
        key="tag:em",
        kind="series",
        name={"en": "External Memory", "zh": "外存"},
        prs=[*(spr(f"[EM] Step {i}") for i in range(3)), docs, test],
        strength=10,
        told=frozenset([docs.pr.number]),
    )
    assert generic.score.theme_kinds == ["docs"]
    parts = theme_parts([story], generic)
    points, penalty = generic.score.theme, -generic.score.kinds["docs"]
    assert parts[docs.pr.number].points == points + penalty
    assert parts[docs.pr.number].reason == (
        'part of the theme "External Memory" (5 PRs), which lifts the documentation penalty'
    )
    names = {"External Memory": {"en": "External Memory", "zh": "外存"}}
    assert (
        score_reason("zh", parts[docs.pr.number], generic, names)
        == "属于主题“外存”，作为主题的一部分不再按类型扣分"
    )
    # a kind the profile does not list keeps its penalty; a PR tied in by its files earns half
    assert parts[test.pr.number].points == points / 2 and "lifts" not in parts[test.pr.number].reason


def test_chinese_glue_and_lists() -> None:
    assert zh_glue(["AutoWeightsLoader", "迁移"]) == "AutoWeightsLoader 迁移"
    assert zh_glue(["工具解析", "修复"]) == "工具解析修复"
    assert zh_glue(["版本", "（", "1.2", "）"]) == "版本（1.2）"
    assert join("zh", ["3 个重构", "1 个修复"]) == "3 个重构和 1 个修复"
    assert join("zh", ["#1", "#2", "#3"]) == "#1、#2 和 #3"
    assert join("en", ["a", "b", "c"]) == "a, b and c"
    assert join("en", ["a"]) == "a"


TITLES = [
    "[Model] Migrate DeepSeekV2 to AutoWeightsLoader (#41706)",
    "[ROCm][Perf] Fuse the GDN Triton kernels and split the HPU path",
    "feat(rocm): Spec Decode with EAGLE-3 on MI355X [2/N]",
    "fix(sdk): handle empty runs in wandb.init()",
    "[EM] Support external memory in the GPU predictor.",
    "SYCL. Add sycl-specific implementation for absoluteerror",
    "Bump org.apache.maven.plugins:maven-surefire-plugin from 3.0 to 3.1",
    "[CI/Build][skip ci] Pin pre-commit hooks",
    'Revert "[Frontend] Support `regex` in structural tags (#282019)"',
    "[KV Connector] [P/D] Transfer KV blocks in larger batches in NixlConnector",
    "",
]


@pytest.mark.parametrize("name", ["vllm", "generic"])
def test_the_vocabularys_fast_reading_is_title_terms(name: str) -> None:
    """The per-word caches read titles exactly as ``classify.topics.title_terms`` does."""
    from classify import storylines as T
    from classify.topics import title_terms

    vocab = T._Vocabulary(load_profile(name))

    def reference(title: str) -> tuple[tuple[str, str, str, float], ...]:
        out = []
        primary = True
        for source, key, form in vocab.tags(title):
            out.append((source, key, form, T.PRIMARY if primary else T.OTHER_TAG))
            primary = False
        for term in title_terms(title):
            kind_word, modules = vocab.word(term.key)
            for m in modules:
                out.append(
                    ("module", m, vocab.profile.module_label(m, "en"), T.PRIMARY if primary else T.SECONDARY)
                )
                primary = False
            if not kind_word:
                source = "phrase" if " " in term.key else ("name" if term.name else "word")
                out.append((source, term.key, term.text, T.WORD))
        return tuple(out)

    for title in TITLES:
        features = vocab.features(title)
        assert features == reference(title), title
        keys = vocab.keys(title)
        expected = {T._topic_key(source, key) for source, key, _, _ in features}
        if not title.startswith("Revert"):  # the lean reading also counts the reverted title's tags
            assert keys == expected, title
        assert expected <= keys


def test_a_change_verb_never_seeds_or_names_a_theme(generic: Profile) -> None:
    """ "Avoid …", "Ignore …", "Drop Python 3.8 …" say what was done, not to what."""
    verbs = [
        spr("Avoid extra Zqalpha lookups"),
        spr("Avoid silent Zqbeta failures"),
        spr("avoid global Zqgamma memo"),
        spr("Ignore broken Zqdelta files"),
        spr("Ignore Zqeps registration errors"),
        spr("mypy: ignore Zqzeta glob"),
        spr("Drop python 3.8 - part 1/N"),
        spr("Drop python 3.8 - part 2/N"),
        spr("Drop python 3.8 - part 3/N"),
    ]
    themes = find_themes([*verbs, *filler(30)], generic)
    words = {w for th in themes for w in th.title.lower().split()}
    assert not words & {"avoid", "ignore", "drop"}, [th.title for th in themes]
    from classify.topics import title_terms

    assert [t.key for t in title_terms("Avoid duplicate requests")] == [
        "duplicate",
        "duplicate request",
        "request",
    ]


def test_an_ordinary_word_scattered_across_directories_names_no_story(generic: Profile) -> None:
    """A lower-case word the repository's titles always use ("version"), whose PRs each work in a
    directory of their own, is no subject; where its PRs share a directory it is one."""
    prs = [
        spr("Pin the version of zqa"),
        spr("Raise the go version to 1.24"),
        spr("Record the version in zqc headers"),
        spr("Show version in the zqd banner"),
    ]
    earlier = [[f"Tweak Zz{i}{w} handling" for i in range(8)] + ["Bump the version of zz"] for w in "abcd"]
    scattered = {
        s.pr.number: [f"{d}/mod/x.py"] for s, d in zip(prs, ("core", "web", "docs", "cli"), strict=True)
    }
    themes = find_themes([*prs, *filler(20)], generic, previous=earlier, paths=scattered)
    assert all("version" not in th.title.lower() for th in themes), [th.title for th in themes]
    together = {s.pr.number: [f"core/mod/x{i}.py"] for i, s in enumerate(prs)}
    shared = find_themes([*prs, *filler(20)], generic, previous=earlier, paths=together)
    assert [th.title for th in shared if th.key == "word:version"] == ["Version"]
    # a word new this period is this period's word, scattered or not
    fresh = find_themes([*prs, *filler(20)], generic, previous=[t[:-1] for t in earlier], paths=scattered)
    assert [th.title for th in fresh if th.key == "word:version"] == ["Version"]


def test_a_file_name_names_its_theme_by_the_module_holding_the_file(generic: Profile) -> None:
    prs = [
        spr("Pin zqtorch in requirements_dev.txt"),
        spr("Add zqboard to requirements_dev.txt"),
        spr("Sort requirements_dev.txt"),
    ]
    paths = {s.pr.number: ["requirements/requirements_dev.txt"] for s in prs}
    themes = find_themes([*prs, *filler(20)], generic, paths=paths)
    (theme,) = [th for th in themes if th.key == "word:requirements_dev.txt"]
    assert theme.name == {"en": "Dependencies", "zh": "依赖"}
    # a dotted name no PR of the theme changes is a name, not a file
    dotted = [spr(f"Check zq{w} in wandb.init") for w in "abc"]
    named = find_themes(
        [*dotted, *filler(20)], generic, paths={s.pr.number: ["wandb/sdk/init.py"] for s in dotted}
    )
    assert [th.title for th in named if th.key == "word:wandb.init"] == ["wandb.init"]


def test_a_modifier_before_an_action_noun_is_singular(generic: Profile) -> None:
    prs = [spr(f"Fix type hints in zq{w}", kind="bugfix") for w in "abcd"]
    themes = find_themes([*prs, *filler(20)], generic)
    assert [th.title for th in themes if th.key == "word:type hint"] == ["Type hint fixes"]


def test_a_phrases_head_is_a_nearby_noun_of_different_titles(generic: Profile) -> None:
    """Not an adverb, nor the words of one title and its revert ("wandb login anonymously")."""
    story = [
        spr("Fix zeta login anonymously writing bad value"),
        spr('Revert "Fix zeta login anonymously writing bad value"'),
        spr("Check zeta login anonymously for zqa"),
    ]
    themes = find_themes([*story, *filler(30)], generic)
    assert [th.title for th in themes if numbers(th) == {s.pr.number for s in story}] == ["Zeta login"]


def test_a_declared_refactor_series_is_named_a_refactoring_but_a_declared_fix_only_counted(
    generic: Profile,
) -> None:
    """A series of "refactor: require run in …" ×4 is a run refactoring (the verbs differ, the declared type
    does not); "fix: …" ×4 is a kind of change the theme's sentence counts, not the story's name."""
    refactors = [
        spr(f"refactor: {verb} zqrun in publish_{w}")
        for verb, w in zip(("require", "create", "pass", "drop"), "abcd", strict=True)
    ]
    fixes = [
        spr(f"fix: {verb} zqlogin for {w}", kind="bugfix")
        for verb, w in zip(("handle", "check", "allow", "keep"), "efgh", strict=True)
    ]
    themes = find_themes([*refactors, *fixes, *filler(30)], generic)
    named = {th.title: numbers(th) for th in themes}
    assert named.get("Zqrun refactoring") == {s.pr.number for s in refactors}, named
    assert named.get("Zqlogin") == {s.pr.number for s in fixes}, named
    zh = [th.label("zh") for th in themes if th.title == "Zqrun refactoring"]
    assert zh == ["zqrun 重构"], zh


def test_a_theme_name_never_begins_with_a_verb_of_change(generic: Profile) -> None:
    """ "Tune Triton config tuning" and "skipped AMD" (names a reviewer met): the phrase naming a
    story may start with a title's verb; the name is the subject after it, with the series' action
    ("Zqtriton zqblock tuning"). A participle that changes nothing ("Fused MoE") is no verb of change."""
    from classify.storylines import _name, _Topic, _vocabulary

    vocab = _vocabulary(generic)
    tuned = [
        spr(f"Tune Zqtriton zqblocks for {m} on the zqchip") for m in ("alpha", "beta", "gamma", "delta")
    ]
    members = {s.pr.number for s in tuned}
    phrase = _Topic(
        "word:tune zqtriton", "phrase", {"Tune Zqtriton": 4}, set(members), dict.fromkeys(members, 0.8)
    )
    assert _name(phrase, tuned, vocab, {phrase.key: phrase}, members, {})["en"] == "Zqtriton tuning"
    skipped = [spr(f"Re-enable {n} skipped Zqamd CI checks") for n in (21, 9, 11)]
    members = {s.pr.number for s in skipped}
    phrase = _Topic(
        "word:skipped zqamd", "phrase", {"skipped Zqamd": 3}, set(members), dict.fromkeys(members, 0.8)
    )
    assert _name(phrase, skipped, vocab, {phrase.key: phrase}, members, {}) == {"en": "Zqamd", "zh": "Zqamd"}
    # lower-case words start with a capital in English, as the module labels do
    parsers = [spr(f"Fix the zqtool parser for {m}") for m in ("alpha", "beta", "gamma")]
    members = {s.pr.number for s in parsers}
    phrase = _Topic(
        "word:zqtool parser", "phrase", {"zqtool parser": 3}, set(members), dict.fromkeys(members, 0.8)
    )
    assert _name(phrase, parsers, vocab, {phrase.key: phrase}, members, {}) == {
        "en": "Zqtool parser fixes",
        "zh": "zqtool parser 修复",
    }
    assert [_verb_of_change(w) for w in ("Tune", "removes", "skipped", "re-enabled", "Fixed")] == [True] * 5
    assert [_verb_of_change(w) for w in ("fused", "tuning", "AMD", "Triton", "parser")] == [False] * 5


def test_theme_names_on_the_demo_are_subjects_in_sentence_case(run: RunFn) -> None:
    """Every theme the demo's weeks, days and filtered digests tell starts with a capital and no
    verb of change, in the summary's "Main themes" too."""
    cases = [
        ("2026-W19", "rocm", "spec-decode"),
        ("2026-W19", "rocm", "kernel", "all"),
        *((f"2026-05-0{d}..2026-05-0{d}",) for d in range(4, 9)),
        *((w,) for w in ("2026-W15", "2026-W16", "2026-W17", "2026-W18", "2026-W19")),
    ]
    for args in cases:
        reply = run("digest", *args)
        for theme in reply.data["themes"]:
            first = theme["title"].split(" ")[0]
            assert not _verb_of_change(first), (args, theme["title"])
            assert not (first.isalpha() and first.islower()), (args, theme["title"])


def test_every_kind_a_profile_can_learn_has_its_own_words() -> None:
    """A storyline's sentence counts its PRs by kind in words ("4 translation updates"), never
    "4 × translation": the bundled kinds and the translation kind learned profiles add."""
    from classify.learn.conventions import TRANSLATION
    from commands.locale import t
    from commands.report.storyline_text import _kinds

    kinds = {k for name in ("generic", "vllm") for k in load_profile(name).kinds} | {TRANSLATION}
    for lang in ("en", "zh"):
        for kind in kinds:
            assert t(lang, f"theme.kind.{kind}", n=4) != f"theme.kind.{kind}", (lang, kind)
    generic = load_profile("generic")
    prs = [spr(f"🌐 Update translations for {code}", kind=TRANSLATION) for code in ("de", "pt", "uk", "ru")]
    assert _kinds(prs, generic, "en") == "4 translation updates"


def test_a_modules_tag_names_its_story_as_the_module_is_spelt(tmp_path: Path) -> None:
    """Conventional-commit scopes are lower case ("fix(sdk): …"); a story they name is spelt as
    the module the scope routes to ("SDK"), never "Sdk"."""
    data = {
        "name": "scoped",
        "version": "1",
        "catch_all": "other",
        "modules": {
            "sdk": {"en": "SDK", "zh": "SDK", "globs": ["sdk/**"]},
            "other": {"en": "Other", "zh": "其他"},
        },
    }
    profile = profile_from_data(data, source=tmp_path / "scoped.toml")
    story = [spr(f"[sdk] Tidy the {w} handling") for w in ("login", "settings", "teardown", "retries")]
    names = [th.name["en"] for th in find_themes([*story, *filler(30)], profile)]
    assert any(n.startswith("SDK") for n in names) and not any(n.startswith("Sdk") for n in names), names
