"""classify(): modules, kind, every risk flag with its evidence and false positives, score, text."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import TypeAdapter

from classify.engine import classify
from classify.models import Classification
from classify.rules import Profile, load_profile
from tests.classify.helpers import pr, vllm_body

_as_json = TypeAdapter(Classification)  # a classification survives JSON (the stored form)


def flags(cls: Classification) -> dict[str, list[str]]:
    return {f.kind: f.evidence for f in cls.flags}


# -- modules and kind from title tags (real vLLM titles) ----------------------------------------------


@pytest.mark.parametrize(
    ("title", "modules", "kind"),
    [
        ("[ROCm][Bugfix] Fix MLA prefill scale computation", ["rocm", "attention"], "bugfix"),
        ("[Hardware][AMD] Fused shared experts for Qwen3-Next", ["rocm", "moe", "qwen"], "perf"),
        ("[BUGFIX] Fix a crash", ["misc"], "bugfix"),
        ("[BugFix] Handle empty batch", ["misc"], "bugfix"),
        ("[bugfix] lower case tag", ["misc"], "bugfix"),
        ("[Bug] Wrong output", ["misc"], "bugfix"),
        ("(bugfix): old style prefix", ["misc"], "bugfix"),
        ("fix(rocm): handle gfx950 in the allocator", ["rocm"], "bugfix"),
        ("feat: add an option", ["misc"], "feature"),
        ("[Spec Decode] Add a new proposer", ["spec-decode"], "feature"),
        ("[SpecDecoding] Cleanup", ["spec-decode"], "refactor"),
        ("[Speculative Decoding] Plumbing", ["spec-decode"], "other"),
        ("[KV Offload] Support DCP", ["kv-connector", "distributed"], "feature"),
        ("[KVConnector] stats", ["kv-connector", "observability"], "other"),
        ("[P/D] NIXL handshake timeout", ["kv-connector"], "other"),
        ("[kv_offload+HMA] Hybrid models", ["kv-connector", "core"], "other"),
        ("[torch.compile] Piecewise graphs for DP", ["compile"], "other"),
        ("[Model Runner V2] Async output", ["model-runner"], "other"),
        ("[MRV2] Async output", ["model-runner"], "other"),
        ("[CI/Build] Fix docker build", ["ci"], "ci"),
        ("[CI] Shard the test job", ["ci", "tests"], "ci"),
        ("[Doc] Fix typo in quickstart", ["docs"], "docs"),
        ("[Docs] Update the tool calling guide", ["docs", "tool-calling"], "docs"),
        (
            "[Model] Migrate DeepSeekV2 to AutoWeightsLoader [3/N]",
            ["models", "deepseek", "model-loading"],
            "refactor",
        ),
        ("[New Model] Add FooLM", ["models"], "model"),
        ("[Spec Decode] Add the Cohere EAGLE draft model", ["spec-decode", "cohere"], "model"),
        ("Support the FooLM model", ["misc"], "model"),
        # the engine's model runner is no new model
        ("[Model Runner V2] Support LoRA in Model Runner V2", ["model-runner", "lora"], "feature"),
        (
            "[MRV2][3/N] Support structured outputs in Model Runner V2",
            ["model-runner", "structured-output"],
            "feature",
        ),
        ("Add a fast path to the model loader", ["model-loading"], "feature"),
        ("[Kernel][MoE] Tune fused MoE configs", ["kernel", "moe"], "perf"),
        ("[Misc] Tidy imports", ["misc"], "other"),
        ("[Perf] Faster sampler", ["performance", "sampling"], "perf"),
        ("[XPU] Enable FP8", ["xpu", "quantization"], "feature"),
        ("[Hardware][Power] Fix ppc64le build", ["cpu", "ci"], "bugfix"),
        ("[Rust Frontend] Tokenizer service", ["rust", "frontend"], "other"),
    ],
)
def test_modules_and_kind_from_title(vllm: Profile, title: str, modules: list[str], kind: str) -> None:
    cls = classify(pr(title), vllm)
    assert (cls.modules, cls.kind) == (modules, kind)


def test_series_markers_are_not_tags(vllm: Profile) -> None:
    cls = classify(pr("[3/N] [last/6] [12/n] Move code", ["vllm/v1/core/sched/scheduler.py"]), vllm)
    assert cls.modules == ["core"]


def test_untagged_titles_use_keywords_then_paths(vllm: Profile) -> None:
    assert classify(pr("Fix hang in NIXL handshake"), vllm).modules == ["kv-connector"]
    assert classify(pr("Add EAGLE3 support for Llama4"), vllm).modules == ["spec-decode", "llama"]
    by_path = classify(
        pr(
            "Simplify things",
            [("vllm/v1/core/sched/scheduler.py", 80), ("vllm/v1/attention/backends/flash_attn.py", 5)],
        ),
        vllm,
    )
    assert by_path.modules == ["core", "attention"]  # ranked by lines changed
    assert classify(pr("Tidy up"), vllm).modules == ["misc"]  # the catch-all


def test_cuda_keyword_does_not_hit_cudagraph(vllm: Profile) -> None:
    assert "nvidia" not in classify(pr("[Bugfix] Fix cudagraph capture with DP"), vllm).modules
    assert "compile" in classify(pr("[Bugfix] Fix cudagraph capture with DP"), vllm).modules
    assert "nvidia" in classify(pr("Fix the CUDA 12.9 build"), vllm).modules


def test_cpu_module_is_the_cpu_backend_not_host_side_work(vllm: Profile) -> None:
    assert "cpu" not in classify(pr("[Perf] Remove unnecessary GPU-CPU sync in attention"), vllm).modules
    assert "cpu" in classify(pr("[CPU] Add FP8 W8A16 block quantized linear"), vllm).modules
    assert "cpu" in classify(pr("Fix OMP thread binding on CPU backend"), vllm).modules
    assert "cpu" in classify(pr("Enable GDN", ["csrc/cpu/gdn.cpp"]), vllm).modules


def test_labels_add_modules_and_kind(vllm: Profile) -> None:
    cls = classify(pr("Something vague", labels=["rocm", "bug", "ready", "v1"]), vllm)
    assert cls.modules == ["rocm"] and cls.kind == "bugfix"
    # Mergify's path-derived "documentation" label does not make a feature PR a docs PR
    cls = classify(pr("Add the thing", ["vllm/foo.py", "docs/foo.md"], labels=["documentation"]), vllm)
    assert cls.kind == "feature" and "docs" not in cls.modules


def test_only_globs_and_all_globs(vllm: Profile) -> None:
    docs_only = classify(pr("Update guide", ["docs/usage/a.md", "README.md", "examples/offline.py"]), vllm)
    assert (docs_only.modules, docs_only.kind) == (["docs"], "docs")
    mixed = classify(pr("Update guide", ["docs/usage/a.md", "vllm/v1/core/x.py"]), vllm)
    assert "docs" not in mixed.modules
    new_model = classify(
        pr("FooLM", ["vllm/model_executor/models/foolm.py", "vllm/model_executor/models/registry.py"]), vllm
    )
    assert new_model.kind == "model" and new_model.modules == ["models"]
    fix = classify(
        pr(
            "Fix FooLM rope",
            ["vllm/model_executor/models/foolm.py", "vllm/model_executor/models/registry.py"],
        ),
        vllm,
    )
    assert fix.kind == "bugfix"  # title words beat the weaker any-file rules


def test_generic_profile_on_any_repository(generic: Profile) -> None:
    feat = classify(
        pr("feat(api): add a pagination endpoint", [("src/api/routes.py", 120), "tests/test_routes.py"]),
        generic,
    )
    assert feat.kind == "feature" and feat.modules[:3] == ["api", "core", "python"]
    deps = classify(
        pr("build(deps): bump lodash from 4.17.20 to 4.17.21", ["package.json", "package-lock.json"]), generic
    )
    assert deps.kind == "deps" and deps.modules == ["deps"]
    assert flags(deps)["dependency"] == ["lodash 4.17.20 → 4.17.21"]  # the package, not the manifests
    docs = classify(pr("docs: fix typo", ["README.md"]), generic)
    assert (docs.modules, docs.kind, docs.flags) == (["docs"], "docs", [])
    go = classify(pr("Speed up the parser", [("internal/parse/lexer.go", 300)]), generic)
    assert go.kind == "perf" and "go" in go.modules and flags(go)["core-path"] == ["internal/parse/lexer.go"]
    assert flags(go)["missing-tests"] == ["300 source lines changed in 1 file, no test file changed"]
    assert classify(pr("Misc"), generic).modules == ["other"]


# -- core-path ------------------------------------------------------------------------------------------


def test_core_path_lists_the_matching_files_capped(vllm: Profile) -> None:
    paths = [f"vllm/v1/core/sched/f{i}.py" for i in range(7)] + ["docs/a.md", "tests/v1/test_x.py"]
    cls = classify(pr("[Core] Split the scheduler", paths), vllm)
    assert flags(cls)["core-path"] == [*paths[:5], "+2 more"]
    assert "core-path" not in flags(classify(pr("[Doc] x", ["docs/a.md", "vllm/v1/core/README.md"]), vllm))
    assert "core-path" not in flags(classify(pr("[CPU] kernels", ["csrc/cpu/x.cpp"]), vllm))


# -- missing-tests --------------------------------------------------------------------------------------


def test_missing_tests_counts_source_lines_without_test_files(vllm: Profile) -> None:
    paths = [
        ("vllm/a.py", 100, 12),
        ("vllm/b.py", 50),
        ("csrc/c.cu", 40),
        ("vllm/d.py", 10),
        ("docs/x.md", 500),
    ]
    cls = classify(pr("[Kernel] New op", paths), vllm)
    assert flags(cls)["missing-tests"] == ["212 source lines changed in 4 files, no test file changed"]


def test_missing_tests_not_raised_with_a_test_file_or_below_the_threshold(vllm: Profile) -> None:
    assert "missing-tests" not in flags(classify(pr("x", [("vllm/a.py", 300), "tests/test_a.py"]), vllm))
    assert "missing-tests" not in flags(classify(pr("x", [("vllm/a.py", 99)]), vllm))
    assert "missing-tests" in flags(classify(pr("x", [("vllm/a.py", 100)]), vllm))


@pytest.mark.parametrize(
    ("title", "paths"),
    [
        ("Update docs", [("docs/a.md", 900), ("README.md", 100)]),  # docs-only
        ("Shard CI", [(".buildkite/test-pipeline.yaml", 400)]),  # CI-only
        ("More tests", [("tests/v1/test_a.py", 600)]),  # test-only
        ("[Doc] Rewrite the examples", [("examples/offline.py", 300), ("vllm/a.py", 150)]),  # a docs-kind PR
        ("[CI/Build] Refresh the build scripts", [("setup.py", 300)]),  # a CI-kind PR
        ('Revert "[Core] Add foo (#41234)"', [("vllm/v1/core/foo.py", 0, 400)]),  # reverts restore old code
        (
            "Tune MoE configs for MI355X",
            [("vllm/model_executor/layers/fused_moe/configs/E=8.json", 900)],
        ),  # data
        ("No file list", []),
    ],
)
def test_missing_tests_exemptions(vllm: Profile, title: str, paths: list[tuple[str, int]]) -> None:
    assert "missing-tests" not in flags(classify(pr(title, paths), vllm))


# -- breaking -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "body", "labels", "evidence"),
    [
        ("[Spec Decode] Remove Tree Attention backend", "", [], ['title: "Remove Tree Attention backend"']),
        (
            "[KV Connector] Remove backwards compatibility for pre-v0.12.0 KVConnector constructor",
            "",
            [],
            ['title: "Remove backwards compatibility"'],
        ),
        ("Drop support for Python 3.9", "", [], ['title: "Drop support for Python 3.9"']),
        (
            "Tidy the CLI",
            "The `--disable-log-requests` flag has been removed.",
            [],
            ['body: "`--disable-log-requests` flag has been removed"'],
        ),
        (
            "Tidy the CLI",
            "Removes the deprecated --enable-foo option.",
            [],
            ['body: "Removes the deprecated --enable-foo option"'],
        ),
        (
            "Env cleanup",
            "VLLM_USE_V1 env var is removed; V1 is the only engine.",
            [],
            ['body: "VLLM_USE_V1 env var is removed"'],
        ),
        ("Rename --max-num-seqs flag", "", [], ['title: "Rename --max-num-seqs flag"']),
        (
            "Deprecate the old sampler",
            "It is deprecated and will be removed in v0.13.",
            [],
            ['body: "deprecated and will be removed"'],
        ),
        # what follows "BREAKING CHANGE:" says what breaks
        (
            "Plain title",
            "BREAKING CHANGE: the config file format changed.",
            [],
            ['body: "the config file format changed"'],
        ),
        (
            "Plain title",
            "After this PR vLLM no longer supports CUDA 11.",
            [],
            ['body: "no longer supports CUDA 11"'],
        ),
        ("Some change", "", ["breaking"], ["label: breaking"]),
        ("feat!: new config schema", "", [], ['title: "feat!:"']),
        (
            "[V0 Deprecation] Delete the V0 engine",
            "",
            [],
            ["tag: [V0 Deprecation]", 'title: "Delete the V0 engine"'],
        ),
    ],
)
def test_breaking_signals_and_their_evidence(
    vllm: Profile, title: str, body: str, labels: list[str], evidence: list[str]
) -> None:
    assert flags(classify(pr(title, body=body, labels=labels), vllm))["breaking"] == evidence


@pytest.mark.parametrize(
    ("title", "body"),
    [
        ("Remove unused import", ""),
        ("[Misc] Remove unused imports in the scheduler", ""),
        ("Remove dead code from the model runner", ""),
        ("[Perf] Remove unnecessary GPU-CPU sync in attention backends", ""),
        ("Remove redundant config validation", ""),
        ("Remove flaky test for the tokenizer", ""),
        ("Rename variable for clarity", ""),
        ("Remove debug prints", ""),
        ("[Bugfix] Fix crash", "This is not a breaking change."),
        ("[Bugfix] Fix crash", "No breaking changes."),
        ("[Bugfix] Fix crash", "Non-breaking: behaviour is unchanged for existing users."),
        (
            "[Misc] Mark legacy sync options",
            "It now prompts first, so I don't think this is a breaking change.",
        ),
        ("Add support for FooLM", "We add support for the FooLM model family."),
        ("Refactor", "Removes the duplicated option parsing in tests."),
        ("fix(tool_parsers): GLM-4.7 parser drops trailing arguments", ""),
        ("[Bugfix] Scheduler silently removes preempted requests", ""),
    ],
)
def test_breaking_false_positives(vllm: Profile, title: str, body: str) -> None:
    assert "breaking" not in flags(classify(pr(title, body=body), vllm))


@pytest.mark.parametrize("name", ["vllm", "generic"])
def test_removing_what_users_never_see_is_not_a_breaking_change(
    name: str, request: pytest.FixtureRequest
) -> None:
    """What users build on breaks; an internal or private piece of the code, the project's own CI
    or a bug that dropped something does not, in either bundled profile (learned profiles take
    their breaking rules from the generic one)."""
    profile: Profile = request.getfixturevalue(name)
    for title in (
        "refactor: drop internal api push_to_run_queue_introspection()",
        "chore(artifacts): remove the private `Artifact._storage_policy` attribute",
        "Delete internal helper functions from the loader",
        "Fix silently dropped graphviz kwarg in to_graphviz",  # a bug report
        "[CI] Remove the obsolete v1 engine job",  # the project's own CI
        "Document clang-tidy flow and drop legacy CI job",
        "refactor: remove `_router` from `InterfaceShared`",  # a private name
        "refactor: delete the _global_run_stack",
    ):
        assert "breaking" not in flags(classify(pr(title), profile)), title
    for title in ("Remove the public `--foo` option", "Drop support for Python 3.8", "Remove the v1 API"):
        assert flags(classify(pr(title), profile))["breaking"], title  # removals users see still are


@pytest.mark.parametrize("name", ["vllm", "generic"])
def test_a_documentation_only_change_breaks_nothing_by_its_words(
    name: str, request: pytest.FixtureRequest
) -> None:
    """A translation synced with a removal ("Sync with #14575 (Drop support for Pydantic v1)")
    describes a breaking change made elsewhere; the same words on code do break, and a label
    says so on any PR."""
    profile: Profile = request.getfixturevalue(name)
    body = "Sync with #14575 (Drop support for Pydantic v1)"
    docs = classify(pr("Update translations for de", ["docs/de/docs/index.md"], body=body), profile)
    assert "breaking" not in flags(docs)
    code = classify(pr("Update the models", ["src/app/models.py"], body=body), profile)
    assert flags(code)["breaking"]
    labelled = classify(pr("Update the guide", ["docs/guide.md"], labels=["breaking"]), profile)
    assert flags(labelled)["breaking"] == ["label: breaking"]


def test_breaking_words_in_the_template_are_ignored(vllm: Profile) -> None:
    body = (
        vllm_body("Faster sampler.")
        + "\n- [ ] Breaking change (would cause existing functionality to change)\n"
    )
    assert "breaking" not in flags(classify(pr("[Perf] x", body=body), vllm))


# -- dependency, large, revert ---------------------------------------------------------------------------


def test_the_projects_own_version_is_no_dependency(generic: Profile) -> None:
    """ "bump version to 0.28.1.dev1" and, in vllm-project/vllm, "Bump vllm to 0.9.1" move the
    project's own version: no dependency upgrade to test against, and never a key PR."""
    for title in ("chore(sdk): bump version to 0.28.1.dev1", "Bump vllm to 0.9.1"):
        cls = classify(pr(title, ["pyproject.toml"]), generic)
        assert "dependency" not in flags(cls), title
        assert cls.score < generic.key_min_score, title
    assert flags(classify(pr("Bump torch to 2.5.1", ["pyproject.toml"]), generic))["dependency"] == [
        "torch → 2.5.1"
    ]


def test_dependency_from_files_and_titles(vllm: Profile) -> None:
    cls = classify(
        pr("[ROCm] Upgrade AITER to v0.1.13-rc5", ["requirements/rocm.txt", "docker/Dockerfile.rocm"]), vllm
    )
    assert flags(cls)["dependency"] == ["AITER → v0.1.13-rc5"]  # the package, not the files
    body = vllm_body("Updates AITER from v0.1.12 to v0.1.13-rc5 for the MLA fix.")
    cls = classify(pr("[ROCm] Bump AITER to v0.1.13-rc5", ["requirements/rocm.txt"], body=body), vllm)
    assert flags(cls)["dependency"] == ["AITER v0.1.12 → v0.1.13-rc5"]  # the old version from the body
    cls = classify(
        pr("[CI] Pin requirements", ["requirements/common.txt"], body=vllm_body("Bump numba to 0.61.")), vllm
    )
    assert flags(cls)["dependency"] == ["numba → 0.61"]
    # a Dockerfile change is a build change, not a dependency upgrade
    assert "dependency" not in flags(classify(pr("[CI/Build] Smaller image", ["docker/Dockerfile"]), vllm))
    assert flags(classify(pr("Bump transformers from 4.56 to 4.57.1"), vllm))["dependency"] == [
        "transformers 4.56 → 4.57.1"
    ]
    assert flags(classify(pr("Upgrade xgrammar to 0.2.0."), vllm))["dependency"] == ["xgrammar → 0.2.0"]
    assert flags(classify(pr("[Misc] Bump version of torch to 2.9.1"), vllm))["dependency"] == [
        "torch → 2.9.1"
    ]
    # a manifest that changed without naming what is no dependency change a reader can act on
    assert "dependency" not in flags(classify(pr("x", ["pyproject.toml", "uv.lock", "setup.py"]), vllm))
    # lockfiles alone are a refresh, by name; a package added or removed says which
    assert flags(classify(pr("Refresh locks", ["uv.lock", "a/b/uv.lock"]), vllm))["dependency"] == [
        "uv.lock refreshed"
    ]
    assert flags(classify(pr("Add httpx as a dependency", ["pyproject.toml"]), vllm))["dependency"] == [
        "httpx added"
    ]
    assert flags(classify(pr("Drop the six dependency", ["setup.py"]), vllm))["dependency"] == ["six removed"]
    assert "dependency" not in flags(classify(pr("Update docs to describe v1", ["vllm/a.py"]), vllm))


def test_large_by_lines_and_files(vllm: Profile) -> None:
    cls = classify(pr("Big", [("vllm/a.py", 1000, 200)]), vllm)
    assert flags(cls)["large"] == ["1,200 lines changed (+1,000 −200)"]
    many = classify(pr("Many", [f"vllm/m{i}.py" for i in range(31)]), vllm)
    assert flags(many)["large"] == ["31 files changed"]
    data = classify(pr("Lock", [("uv.lock", 5000), ("vllm/a.py", 990)]), vllm)
    assert "large" not in flags(data)
    both = classify(pr("Lock", [("uv.lock", 5000), ("vllm/a.py", 1000)]), vllm)
    assert flags(both)["large"] == [
        "1,000 lines changed (+6,000 −0), not counting 5,000 lines in generated or data files"
    ]


def test_revert_flags_and_kind(vllm: Profile) -> None:
    cls = classify(
        pr('Revert "[Core] Add foo (#41234)"', body="This reverts commit 0123456789abcdef0123."), vllm
    )
    assert cls.kind == "revert"
    # the reverted PR, never its title again
    assert flags(cls)["revert"] == ["#41234", "commit 0123456789ab"]
    cls = classify(pr("[CI] Revert the nightly change", body="Reverts vllm-project/vllm#41234"), vllm)
    assert flags(cls)["revert"] == ["#41234"]  # the PR's own repository goes without saying
    cls = classify(pr("[CI] Revert the nightly change", body="Reverts someone/fork#12"), vllm)
    assert flags(cls)["revert"] == ["someone/fork#12"]
    cls = classify(pr('Revert "Add foo"'), vllm)
    assert flags(cls)["revert"] == ['"Add foo"']  # no number anywhere: the subject is all there is
    assert "revert" not in flags(classify(pr("Fix revert handling in the scheduler"), vllm))


# -- score, highlights, gist, stored profile ---------------------------------------------------------------


def test_score_breakdown_sums_to_the_score(vllm: Profile) -> None:
    body = vllm_body("Fuse shared experts. Decode throughput is 16-24% higher on MI300X.")
    cls = classify(
        pr(
            "[ROCm] Fused shared experts for Qwen3-Next",
            [
                ("vllm/model_executor/layers/fused_moe/shared_fused_moe.py", 400),
                ("tests/kernels/moe/test_fse.py", 90),
            ],
            body=body,
        ),
        vllm,
    )
    reasons = {p.reason: p.points for p in cls.breakdown}
    assert reasons == {
        "core path (1 file)": 2.0,
        "kind: perf": 1.5,
        "size: ≥ 300 lines changed": 1.0,
        "measured effect stated": 2.0,
        "comes with tests (1 test file)": 0.5,
        "touches 3 modules": 1.0,
    }
    assert cls.score == pytest.approx(sum(reasons.values()))
    assert cls.highlights == ["Decode throughput is 16-24% higher on MI300X."]


def test_bugfix_docs_and_ci_score_lower_than_features(vllm: Profile) -> None:
    paths = [("vllm/v1/core/sched/scheduler.py", 150), "tests/v1/core/test_scheduler.py"]
    feature = classify(pr("[Core] Add async scheduling", paths), vllm).score
    bugfix = classify(pr("[Bugfix] Fix async scheduling", paths), vllm).score
    docs = classify(pr("[Doc] Explain scheduling", [("docs/a.md", 150)]), vllm).score
    ci = classify(pr("[CI] Shard tests", [(".buildkite/x.yaml", 150)]), vllm).score
    assert feature > bugfix > docs and feature > ci


def test_weights_come_from_the_profile(tmp_path: Path) -> None:
    path = tmp_path / "w.toml"
    path.write_text(
        'name = "w"\nversion = "7"\n[modules.misc]\n[score]\n[score.kinds]\nfeature = 7.5\n'
        "[score.labels]\nrfc = 3\n",
        encoding="utf-8",
    )
    profile = load_profile(path)
    cls = classify(pr("feat: something", labels=["RFC"]), profile)
    assert [(p.reason, p.points) for p in cls.breakdown] == [("kind: feature", 7.5), ("label: RFC", 3.0)]
    assert cls.score == 10.5
    assert (cls.profile, cls.profile_version) == ("w", "7")


def test_gist_and_stored_profile_identity(vllm: Profile) -> None:
    body = vllm_body(
        "Replace the shared-memory routing replay with a device cache and an async D2H pipeline."
    )
    cls = classify(pr("[MoE] Routing replay via device cache", body=body), vllm)
    assert (
        cls.gist == "Replace the shared-memory routing replay with a device cache and an async D2H pipeline."
    )
    assert (cls.profile, cls.profile_version) == ("vllm", vllm.version)
    assert classify(pr("[Bugfix] Fix foo (#41234)"), vllm).gist == ""  # no description: the title says it all


def test_classification_round_trips_through_json(vllm: Profile) -> None:
    body = vllm_body("Remove the tree attention backend (−1400 lines).")
    cls = classify(
        pr(
            "[Spec Decode] Remove Tree Attention backend",
            [("vllm/v1/attention/backends/tree_attn.py", 0, 1400)],
            body=body,
            labels=["ready"],
        ),
        vllm,
    )
    again = _as_json.validate_json(_as_json.dump_json(cls))
    assert again == cls
    assert set(cls.flag_kinds) == {"core-path", "breaking", "large"}
    assert cls.highlights == ["Remove the tree attention backend (−1400 lines)."]


def test_only_the_start_of_a_huge_description_is_read(vllm: Profile) -> None:
    log = "INFO step 1 ok\n" * 2000  # ~30,000 characters of pasted log
    early = classify(pr("x", body="We drop support for Python 3.9.\n" + log), vllm)
    late = classify(pr("x", body=log + "We drop support for Python 3.9.\n"), vllm)
    assert "breaking" in flags(early) and "breaking" not in flags(late)
