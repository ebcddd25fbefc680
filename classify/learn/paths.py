"""The tree's conventions: which paths are tests, docs, translations, CI, dependencies or build.

Every repository keeps these in places the whole ecosystem recognises — ``tests/`` and
``test_*.py``, ``docs/`` and ``*.md``, ``.github/workflows/``, ``requirements.txt`` and
``uv.lock``, ``Dockerfile`` and ``CMakeLists.txt`` — so the candidates are ordinary knowledge,
not any repository's. What is learned is which of them *this* tree uses: a learned profile lists
only the globs that match some path of the tree (or of the history, without a clone), with how
many files and PRs each holds.

Translations are found from the tree too: a documentation directory with three or more
children named by language codes (``docs/pt/``, ``docs/zh-hant/``) keeps its source language in
the one most PRs change and the others' translations.

A path has one role, the first of ``ROLES`` whose globs match it (a ``tests/requirements.txt``
is a dependency file, a ``docs/pt/index.md`` a translation). Matching uses the profile's own glob
compiler, so what the learner counts is what the learned profile will match.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from classify.matchers import compile_globs

# Roles in priority order, each with the ecosystem's usual places (globs as profiles write them).
ROLE_GLOBS: dict[str, tuple[str, ...]] = {
    "ci": (
        ".github/**", ".circleci/**", ".buildkite/**", ".gitlab/**", ".gitlab-ci.yml", ".travis.yml",
        "azure-pipelines.yml", ".azure-pipelines/**", "Jenkinsfile", "appveyor.yml", ".appveyor.yml",
        ".pre-commit-config.yaml", ".pre-commit-hooks.yaml", ".cirrus.yml", "codecov.yml", ".codecov.yml",
        "tox.ini", "noxfile.py", ".gitignore", ".gitattributes", ".editorconfig", ".mergify.yml", ".ci/**",
        "ci/**",
    ),
    "deps": (
        "**/requirements*.txt", "**/requirements/**", "**/*requirements.txt", "**/constraints*.txt",
        "**/pyproject.toml", "**/setup.py", "**/setup.cfg", "**/*.lock", "**/package.json",
        "**/package-lock.json", "**/pnpm-lock.yaml", "**/go.mod", "**/go.sum", "**/go.work", "**/go.work.sum",
        "**/Cargo.toml", "**/Gemfile", "**/Gemfile.lock", "**/pom.xml", "**/build.gradle", "**/build.gradle.kts",
        "**/Pipfile", "**/Pipfile.lock", "**/environment*.yml", "**/conda*.yml", "**/.python-version",
        "**/.nvmrc", "**/.tool-versions", "**/vendor/**", "**/third_party/**", "**/third-party/**",
        "**/3rdparty/**",
    ),
    "build": (
        "**/Dockerfile*", "**/*.dockerfile", "**/docker-compose*.y*ml", "**/.dockerignore", "**/Makefile",
        "**/*.mk", "**/CMakeLists.txt", "**/*.cmake", "cmake/**", "**/meson.build", "**/BUILD",
        "**/BUILD.bazel", "**/WORKSPACE", "**/*.bzl", "**/MANIFEST.in", "**/build.rs", "**/webpack.config.*",
        "**/vite.config.*", "**/tsconfig*.json", ".bumpversion*", "**/*.nix", "**/setup.sh", "**/build.sh",
    ),
    "tests": (
        "tests/**", "test/**", "**/tests/**", "**/test/**", "**/testing/**", "**/__tests__/**", "**/spec/**",
        "**/testdata/**", "**/test_data/**", "**/fixtures/**", "**/test_*.py", "**/*_test.py",
        "**/conftest.py", "**/*_test.go", "**/*.test.*", "**/*.spec.*", "**/*Test.java", "**/*Tests.java",
        "**/*Test.kt", "**/*_test.rs", "**/*_spec.rb", "**/*_test.cc", "**/*_test.cpp", "**/test_*.cc",
        "**/test_*.cpp", "**/*_test.R", "**/test-*.R",
    ),
    "docs": (
        "docs/**", "doc/**", "documentation/**", "docs_src/**", "docs-src/**", "**/*.md", "**/*.rst",
        "**/*.adoc", "**/*.mdx", "mkdocs.y*ml", "LICENSE*", "NOTICE*", "AUTHORS*", "CITATION*",
        "CONTRIBUTORS*", "examples/**", "example/**", "demo/**", "demos/**", "samples/**", "tutorials/**",
        "**/*.Rd", "**/man/**",
    ),
}  # fmt: skip
ROLES = ("translations", *ROLE_GLOBS)
"""every role, in priority order (translations are found per tree, see ``translation_globs``)"""

# ISO 639-1 codes and the common regional forms documentation trees use (``zh-hant``, ``pt_BR``)
_LANGUAGE = re.compile(
    r"(?:af|am|ar|az|be|bg|bn|bs|ca|cs|cy|da|de|el|em|en|eo|es|et|eu|fa|fi|fr|ga|gl|gu|he|hi|hr|hu|hy|id|is|"
    r"it|ja|ka|kk|km|kn|ko|ky|lo|lt|lv|mk|ml|mn|mr|ms|my|nb|ne|nl|nn|no|pa|pl|ps|pt|ro|ru|si|sk|sl|sq|sr|sv|"
    r"sw|ta|te|tg|th|tk|tl|tr|uk|ur|uz|vi|yo|zh|zu)(?:[-_](?:[a-z]{2}|hans|hant|latn|cyrl))?",
    re.I,
)
# the languages' names, for a translation module's label (English and Chinese)
LANGUAGE_NAMES: dict[str, tuple[str, str]] = {
    "ar": ("Arabic", "阿拉伯语"), "az": ("Azerbaijani", "阿塞拜疆语"), "bg": ("Bulgarian", "保加利亚语"),
    "bn": ("Bengali", "孟加拉语"), "ca": ("Catalan", "加泰罗尼亚语"), "cs": ("Czech", "捷克语"),
    "da": ("Danish", "丹麦语"), "de": ("German", "德语"), "el": ("Greek", "希腊语"), "en": ("English", "英语"),
    "es": ("Spanish", "西班牙语"), "fa": ("Persian", "波斯语"), "fi": ("Finnish", "芬兰语"),
    "fr": ("French", "法语"), "he": ("Hebrew", "希伯来语"), "hi": ("Hindi", "印地语"),
    "hu": ("Hungarian", "匈牙利语"), "hy": ("Armenian", "亚美尼亚语"), "id": ("Indonesian", "印度尼西亚语"),
    "it": ("Italian", "意大利语"), "ja": ("Japanese", "日语"), "ko": ("Korean", "韩语"),
    "lt": ("Lithuanian", "立陶宛语"), "lv": ("Latvian", "拉脱维亚语"), "ms": ("Malay", "马来语"),
    "nl": ("Dutch", "荷兰语"), "no": ("Norwegian", "挪威语"), "pl": ("Polish", "波兰语"),
    "pt": ("Portuguese", "葡萄牙语"), "pt-br": ("Brazilian Portuguese", "巴西葡萄牙语"),
    "ro": ("Romanian", "罗马尼亚语"), "ru": ("Russian", "俄语"), "sk": ("Slovak", "斯洛伐克语"),
    "sl": ("Slovenian", "斯洛文尼亚语"), "sr": ("Serbian", "塞尔维亚语"), "sv": ("Swedish", "瑞典语"),
    "ta": ("Tamil", "泰米尔语"), "th": ("Thai", "泰语"), "tr": ("Turkish", "土耳其语"),
    "uk": ("Ukrainian", "乌克兰语"), "ur": ("Urdu", "乌尔都语"), "uz": ("Uzbek", "乌兹别克语"),
    "vi": ("Vietnamese", "越南语"), "zh": ("Chinese", "中文"), "zh-cn": ("Simplified Chinese", "简体中文"),
    "zh-hans": ("Simplified Chinese", "简体中文"), "zh-hant": ("Traditional Chinese", "繁体中文"),
    "zh-tw": ("Traditional Chinese", "繁体中文"),
}  # fmt: skip
_DOC_DIR = re.compile(r"^(?:docs?|documentation|locales?|i18n|l10n|translations?)$", re.I)
MIN_LANGUAGES = 3


def is_language(name: str) -> bool:
    """Whether a directory name is a language code (``pt``, ``zh-hant``, ``pt_BR``)."""
    return _LANGUAGE.fullmatch(name) is not None


@functools.lru_cache(maxsize=4096)
def glob_rx(glob: str) -> re.Pattern[str]:
    """One glob compiled as profiles compile it (cached: the candidates are a few hundred)."""
    rx = compile_globs([glob])
    assert rx is not None
    return rx


def translation_globs(paths: Iterable[str], pr_counts: Mapping[str, int] | None = None) -> list[str]:
    """Globs of the translated documentation: under a documentation directory with at least three
    children named by language codes, every language directory but the source one (the one most
    PRs change, else the one with most files)."""
    children: dict[str, Counter[str]] = {}
    for path in paths:
        parts = path.split("/")
        for i, part in enumerate(parts[:-1]):
            if _DOC_DIR.match(part) and i + 2 < len(parts) and _LANGUAGE.fullmatch(parts[i + 1]):
                children.setdefault("/".join(parts[: i + 1]), Counter())[parts[i + 1]] += 1
    out: list[str] = []
    for parent, langs in sorted(children.items()):
        if len(langs) < MIN_LANGUAGES:
            continue
        counts = pr_counts or {}
        source = max(langs, key=lambda lang: (counts.get(f"{parent}/{lang}", 0), langs[lang], lang == "en"))
        out += [f"{parent}/{lang}/**" for lang in sorted(langs) if lang != source]
    return out


@dataclass(frozen=True)
class PathRoles:
    """The tree's conventions: for each role the globs it uses, and each path's role."""

    globs: Mapping[str, tuple[str, ...]]
    """role → the candidate globs some path of the tree matches (in ``ROLE_GLOBS`` order)"""
    files: Mapping[str, Counter[str]]
    """role → glob → how many of the paths given that role it matches"""

    def __post_init__(self) -> None:
        compiled = {role: compile_globs(list(g)) for role, g in self.globs.items() if g}
        object.__setattr__(self, "_compiled", compiled)
        object.__setattr__(self, "_cache", {})

    def role(self, path: str) -> str | None:
        """The path's role (the first matching in ``ROLES`` order), None for source."""
        cache: dict[str, str | None] = self._cache  # type: ignore[attr-defined]
        if path in cache:
            return cache[path]
        found = None
        for role, rx in self._compiled.items():  # type: ignore[attr-defined]
            if rx is not None and rx.match(path):
                found = role
                break
        cache[path] = found
        return found

    def glob_of(self, path: str) -> str | None:
        """The glob that gives ``path`` its role (None for source)."""
        role = self.role(path)
        if role is None:
            return None
        return next(g for g in self.globs[role] if glob_rx(g).match(path))

    def matches(self, role: str, path: str) -> bool:
        """Whether one of ``role``'s globs matches ``path`` (whatever the path's own role)."""
        rx = self._compiled.get(role)  # type: ignore[attr-defined]
        return rx is not None and rx.match(path) is not None

    def earlier(self, role: str) -> list[str]:
        """The globs of the roles before ``role`` (a module of ``role`` excludes them)."""
        out: list[str] = []
        for r in ROLES:
            if r == role:
                return out
            out += self.globs.get(r, ())
        return out


def path_roles(paths: Sequence[str], translations: Sequence[str] = ()) -> PathRoles:
    """Which candidate globs the tree's ``paths`` use, and how many paths each gives its role."""
    candidates: dict[str, tuple[str, ...]] = {"translations": tuple(translations), **ROLE_GLOBS}
    files: dict[str, Counter[str]] = {role: Counter() for role in candidates}
    unions = {role: compile_globs(list(globs)) for role, globs in candidates.items()}
    for path in paths:
        for role in ROLES:
            union = unions[role]
            if union is None or union.match(path) is None:
                continue
            for glob in candidates[role]:  # every glob of the role that matches counts as used
                if glob_rx(glob).match(path):
                    files[role][glob] += 1
            break
    used = {role: tuple(g for g in candidates[role] if files[role][g]) for role in ROLES}
    return PathRoles(globs=used, files=files)
