"""Learning a profile from a history (``classify.learn``): synthetic histories whose directory
structure, title conventions, labels and CODEOWNERS are known, so what must be learned — and what
must not (a language bucket, a catch-all, a glob spanning the tree, the whole source root) — is
checked exactly. And the round trip: learned → TOML → compiled profile classifies identically."""

from __future__ import annotations

import itertools
import tomllib
from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from classify.engine import classify
from classify.learn import History, Learned, learn
from classify.learn.codeowners import core_globs, owned_paths
from classify.learn.modules import casing_table, reader_name
from classify.learn.paths import path_roles, translation_globs
from classify.learn.render import render
from classify.models import FileChange, PullRequest
from classify.rules import PROFILES_DIR, load_profile, profile_from_data
from classify.topics import is_version, release_mechanics

REPO = "acme/widget"
BASE: dict[str, Any] = tomllib.loads((PROFILES_DIR / "generic.toml").read_text(encoding="utf-8"))
START = datetime(2025, 1, 6, 12, tzinfo=UTC)
_numbers = itertools.count(1)


def pr(
    title: str, paths: Iterable[str], labels: Sequence[str] = (), lines: int = 40, body: str = ""
) -> PullRequest:
    n = next(_numbers)
    files = [FileChange(path=p, additions=lines) for p in paths]
    return PullRequest(
        repo=REPO,
        number=n,
        title=title,
        body=body,
        merged_at=START + timedelta(hours=n),
        labels=list(labels),
        files=files,
        additions=lines * len(files),
    )


def many(count: int, title: str, paths: Sequence[str], labels: Sequence[str] = ()) -> list[PullRequest]:
    return [pr(f"{title} {i}", paths, labels) for i in range(count)]


def widget_history() -> list[PullRequest]:
    """A Python package with three subsystems, each known to the team by its own mark."""
    prs: list[PullRequest] = []
    prs += many(40, "[Parser] Handle nested quotes in", ["widget/parser/lexer.py", "tests/test_lexer.py"])
    prs += many(30, "feat(render): draw", ["widget/render/canvas.py"])
    prs += many(20, "Speed up IO reads of", ["widget/io/reader.py"], labels=["area: io"])
    prs += many(2, "Tweak", ["widget/misc/one.py"])
    prs += many(15, "docs: explain", ["docs/guide.md"])
    prs += many(10, "test: cover", ["tests/test_render.py"])
    prs += many(10, "ci: pin runner", [".github/workflows/ci.yml"])
    prs += many(8, "chore(deps): bump click", ["requirements.txt"])
    prs += many(12, "fix(render): clip edges", ["widget/render/clip.py", "widget/render/canvas.py"])
    return prs


def learned_from(prs: Sequence[PullRequest], **extra: Any) -> Learned:
    return learn(History(repo=REPO, prs=prs, base=BASE, learned_on=date(2026, 1, 1), **extra))


def modules_by_glob(learned: Learned) -> dict[str, tuple[str, dict[str, Any]]]:
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    for mid, spec in learned.data["modules"].items():
        globs = spec.get("globs") or spec.get("only_globs") or ["(catch-all)"]
        out[globs[0]] = (mid, spec)
    return out


def test_modules_are_the_directories_prs_concentrate_in_named_by_the_teams_marks() -> None:
    learned = learned_from(widget_history())
    by_glob = modules_by_glob(learned)
    parser_id, parser = by_glob["widget/parser/**"]
    render_id, render_spec = by_glob["widget/render/**"]
    io_id, io = by_glob["widget/io/**"]
    assert (parser_id, parser["en"], parser["tags"]) == ("parser", "Parser", ["Parser"])
    assert (
        render_spec["tags"] == ["render"] and render_spec["en"] == "Render"
    )  # the scope, as a reader writes it
    assert io["labels"] == ["area: io"] and io["en"] == "IO"  # the label's name, spelt as the titles do
    assert {render_id, io_id} == {"render", "io"}
    # a directory two PRs change is not a module; the tree's conventions are
    assert "widget/misc/**" not in by_glob
    assert {"docs", "tests", "ci", "deps"} <= set(learned.data["modules"])
    assert learned.data["modules"]["docs"]["only_globs"] == ["docs/**", "**/*.md"]


def test_no_language_bucket_no_catch_all_glob_no_glob_spanning_the_tree() -> None:
    learned = learned_from(widget_history())
    for mid, spec in learned.data["modules"].items():
        for glob in [*spec.get("globs", []), *spec.get("only_globs", [])]:
            assert glob not in ("**", "**/*", "*"), (mid, glob)
            assert not glob.startswith("**/*.py"), (mid, glob)  # the repository's language is not a module
    assert learned.data["modules"]["other"] == {"en": "Other", "zh": "其他", "group": "infra"}
    assert learned.data["catch_all"] == "other"


def test_the_whole_source_root_is_split_even_when_its_parts_overlap() -> None:
    """Every PR changes ``src/app/`` (the source root) and one part more: never one module for all."""
    prs: list[PullRequest] = []
    for name in ("alpha", "beta", "gamma", "delta"):
        prs += many(25, f"Work on {name}", [f"src/app/{name}/core.py", "src/app/shared.py"])
    learned = learned_from(prs)
    by_glob = modules_by_glob(learned)
    parts = {"src/app/alpha/**", "src/app/beta/**", "src/app/gamma/**", "src/app/delta/**"}
    assert set(by_glob) == {*parts, "src/app/**", "(catch-all)"}
    # what is left of src/app/ (the file every PR touches) is a module of its own, without the parts
    assert sorted(by_glob["src/app/**"][1]["exclude"]) == sorted(parts)


def test_kinds_come_from_the_conventions_the_team_uses() -> None:
    learned = learned_from(widget_history())
    kinds = learned.data["kinds"]
    assert kinds["feature"]["prefixes"] == ["feat"]
    assert kinds["bugfix"]["prefixes"] == ["fix"]
    assert kinds["docs"]["prefixes"] == ["docs"]
    assert kinds["chore"]["prefixes"] == ["chore"]
    assert "tags" not in kinds["feature"]  # no bracket tag or gitmoji marks a feature here
    assert "translation" not in kinds
    assert kinds["test"]["only_globs"] == [
        "tests/**",
        "**/tests/**",
        "**/test_*.py",
    ]  # the tree's, not all 20


def test_gitmoji_titles_teach_their_kinds_and_translations_their_languages() -> None:
    prs: list[PullRequest] = []
    prs += many(12, "✨ Add a", ["pkg/api/routes.py"])
    prs += many(10, "🐛 Fix a", ["pkg/api/routes.py"])
    prs += many(8, "⬆️ Bump b from 1.0 to 1.1", ["requirements.txt"])
    prs += many(9, "📝 Update docs for", ["docs/en/docs/index.md"])
    for lang in ("pt", "ko", "de", "ru"):
        prs += many(6, f"🌐 Add translation for docs/{lang}", [f"docs/{lang}/docs/index.md"])
    learned = learned_from(prs)
    kinds = learned.data["kinds"]
    assert kinds["feature"]["tags"] == ["✨"] and kinds["bugfix"]["tags"] == ["🐛"]
    assert kinds["deps"]["tags"] == ["⬆"] and kinds["docs"]["tags"] == ["📝"]
    assert kinds["translation"]["tags"] == ["🌐"]
    assert list(kinds).index("translation") < list(kinds).index("docs")  # decided before docs
    translated = kinds["translation"]["only_globs"]
    assert translated == ["docs/de/**", "docs/ko/**", "docs/pt/**", "docs/ru/**"]  # not docs/en: the source
    # translations are most of this history: one module per language, as the team names them
    pt = learned.data["modules"]["translations-pt"]
    assert (pt["en"], pt["zh"], pt["only_globs"]) == (
        "Portuguese translation",
        "葡萄牙语翻译",
        ["docs/pt/**"],
    )
    profile = profile_from_data(learned.data, source=Path("learned.toml"))
    done = classify(pr("🌐 Add Portuguese translation", ["docs/pt/docs/a.md"]), profile)
    assert (done.kind, done.modules) == ("translation", ["translations-pt"])
    feat = classify(pr("✨ Add streaming", ["pkg/api/routes.py"]), profile)
    assert feat.kind == "feature"


def test_core_paths_come_only_from_codeowners() -> None:
    codeowners = "\n".join(
        [
            "# default reviewers",
            "*       @acme/all",
            "/widget/parser/   @alice",
            "widget/render/canvas.py @bob",
            "/docs/  @writers",
            "/.github/ @infra",
        ]
    )
    with_owners = learned_from(widget_history(), codeowners=codeowners)
    core = with_owners.data["flags"]["core-path"]
    assert core["globs"] == ["widget/parser/**", "widget/render/canvas.py"]  # not *, docs or CI
    without = learned_from(widget_history())
    assert without.data["flags"]["core-path"] == {"enabled": False}
    assert any("CODEOWNERS" in n for n in without.notes)
    assert "no CODEOWNERS file" in without.toml()


def test_codeowners_patterns_become_globs() -> None:
    owned = {o.glob for o in owned_paths("*.js @a\n/build/logs/ @b\napps @c\ndocs/* @d\n# x\n\n**/logs @e")}
    assert owned == {"**/*.js", "build/logs/**", "**/apps", "**/apps/**", "docs/*", "**/logs", "**/logs/**"}
    assert core_globs("* @everyone\n", lambda path: None) == []


def test_release_mechanics_never_name_a_module() -> None:
    prs: list[PullRequest] = []
    prs += many(20, "[v2.1] Backport fix (#12)", ["widget/parser/lexer.py"])
    prs += many(20, "[main] Sync", ["widget/render/canvas.py"])
    prs += many(20, "[Parser] Faster", ["widget/parser/lexer.py"])
    learned = learned_from(prs)
    tags = [t for spec in learned.data["modules"].values() for t in spec.get("tags", [])]
    assert "v2.1" not in tags and "main" not in tags
    assert (
        is_version("v2.13.0b3") and is_version("3.1") and not is_version("Qwen2.5") and not is_version("e2e")
    )
    assert release_mechanics("cherry-pick", ["[cherry-pick] Fix a (#12)", "[cherry-pick] Fix b (#20)"])
    assert release_mechanics("main", ["[main] x", "[main] y"], {"main"})
    assert not release_mechanics("Parser", ["[Parser] a", "[Parser] b"])


def test_module_ids_stay_when_the_directory_does() -> None:
    first = learned_from(widget_history())
    renamed = dict(first.data)
    renamed["modules"] = {("lexing" if k == "parser" else k): v for k, v in first.data["modules"].items()}
    grown = widget_history() + many(30, "[Parser] More", ["widget/parser/lexer.py"])
    again = learned_from(grown, previous=renamed)
    assert modules_by_glob(again)["widget/parser/**"][0] == "lexing"
    assert "parser" not in again.data["modules"]


def test_directories_of_one_name_are_told_apart_by_where_they_are() -> None:
    """``app/sdk/internal`` and ``core/internal`` both hold enough PRs: each is named by the
    directory above it, as the team spells it ("SDK"), never "Internal" twice."""
    prs = many(30, "Fix the SDK internal queue", ["app/sdk/internal/queue.py"])
    prs += many(30, "Tune core internal pools", ["core/internal/pool.go"])
    prs += many(30, "Speed up the SDK run", ["app/sdk/run.py"])
    prs += many(30, "Render the core dashboard", ["core/ui/view.go"])
    names = {spec["en"] for spec in learned_from(prs).data["modules"].values()}
    assert {"SDK internal", "Core internal"} <= names and "Internal" not in names


def test_spellings_come_from_the_titles() -> None:
    casing = casing_table(["[e2e] Add E2E test for DDP", "[ddp] DDP rendezvous", "Fix ddp timeout in E2E"])
    assert reader_name("e2e", casing) == "E2E" and reader_name("ddp", casing) == "DDP"
    assert reader_name("jvm-packages", casing_table(["Fix the JVM build"]), directory=True) == "JVM packages"
    assert reader_name("EM", casing) == "EM"  # a tag with capitals is the team's own spelling


def test_tree_conventions_list_only_the_globs_the_tree_uses() -> None:
    roles = path_roles(["src/a.py", "tests/a_case.py", "docs/x.md", "uv.lock", "Dockerfile", ".github/w.yml"])
    assert roles.globs["tests"] == ("tests/**", "**/tests/**")
    assert roles.globs["deps"] == ("**/*.lock",)
    assert roles.globs["build"] == ("**/Dockerfile*",)
    assert roles.role("src/a.py") is None and roles.role("docs/x.md") == "docs"
    assert translation_globs(["docs/en/a.md", "docs/fr/a.md"]) == []  # two languages are not a convention


def test_round_trip_learned_toml_classifies_as_the_learned_data(tmp_path: Path) -> None:
    history = widget_history()
    learned = learned_from(history, codeowners="/widget/io/ @carol\n")
    text = learned.toml()
    assert tomllib.loads(text) == learned.data
    path = tmp_path / "widget.toml"
    path.write_text(text, encoding="utf-8")
    from_file = load_profile(path)
    from_data = profile_from_data(learned.data, source=path)
    assert from_file.content_hash == from_data.content_hash
    for item in history:
        assert classify(item, from_file) == classify(item, from_data)
    assert from_file.learned is not None and from_file.learned.prs == len(history)


def test_every_module_comment_says_how_many_prs_and_why() -> None:
    learned = learned_from(widget_history())
    for mid in learned.data["modules"]:
        note = " ".join(learned.comments[("modules", mid)])
        assert "PRs" in note or mid == "other", mid
    assert "[Parser] 40" in " ".join(learned.comments[("modules", "parser")])


def test_the_writer_reads_back_what_it_wrote() -> None:
    data = {
        "a": 'quote " and \\ backslash',
        "pattern": "\\bfix\\b",
        "emoji": "✨",
        "n": 3,
        "f": 0.5,
        "on": True,
        "list": [f"item-{i}" for i in range(40)],
        "t": {"x": {"y": ["z"]}},
    }
    assert tomllib.loads(render(data, {("t", "x"): ["a comment"]})) == data


def test_a_directory_named_for_the_layout_is_named_with_the_one_above() -> None:
    """``app/sdk/lib`` is "SDK lib", not "Lib"; under ``src/`` (a layout name itself) ``src/common``
    stays "Common"."""
    prs = many(30, "Speed up the SDK lib pool", ["app/sdk/lib/pool.py"])
    prs += many(30, "Speed up the SDK run", ["app/sdk/run.py"])
    prs += many(30, "Tidy the common hashing", ["src/common/hash.cc"])
    prs += many(30, "Tidy the tree builder", ["src/tree/build.cc"])
    names = {spec["en"] for spec in learned_from(prs).data["modules"].values()}
    assert {"SDK lib", "Common"} <= names and "Lib" not in names and "Src common" not in names
