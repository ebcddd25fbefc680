"""The classifier: one merged PR + a rule profile → modules, kind, risk flags with evidence, score.

Pure and fast (no I/O, matchers compiled once per profile, file paths cached): ``reclassify``
re-runs it over a whole cache of 200,000 PRs, so it must stay well under a tenth of a millisecond
for a typical PR. Every conclusion carries the files, words or numbers that led to it.

Precedence, documented for profile authors:
- modules: title tags (and conventional-commit prefix/scope), then labels, then title keywords
  and patterns, then file globs (ranked by lines changed); nothing → the profile's catch-all.
- kind: a revert, then the first title tag/prefix naming a kind, then labels, then ``only_globs``
  (every file matches), then title keywords/patterns (kinds earlier in the file win), then
  ``globs``/``all_globs``; nothing → the profile's default kind.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from classify.gist import gist
from classify.matchers import Gated
from classify.models import Classification, FileChange, Flag, FlagKind, PullRequest, ScorePart
from classify.profile import Compiled, Profile, RuleMatchers
from classify.text import clean_body, highlights, shorten
from classify.titles import ParsedTitle, norm, parse_title, project_key, split_tag
from classify.topics import OWN_VERSION

MAX_EVIDENCE_WORDS = 5
# Descriptions beyond this many characters are pasted logs and benchmark dumps: not read further.
MAX_BODY_CHARS = 16_000
EVIDENCE_CHARS = 100
IGNORE_LOOKBEHIND = 30
_CLAUSE_BREAK = re.compile(r"[.!?;\n]")


def _capped(items: list[str], limit: int) -> list[str]:
    if len(items) <= limit:
        return items
    return [*items[:limit], f"+{len(items) - limit} more"]


def _add(seq: list[str], item: str) -> None:
    if item not in seq:
        seq.append(item)


def _flag(kind: FlagKind, evidence: list[str]) -> Flag:
    return Flag(kind=kind, evidence=evidence)


class _Files:
    """Per-PR tallies over the profile's path sets (files and lines per set), from cached lookups."""

    __slots__ = ("count", "ids", "lines", "n", "paths", "total")

    def __init__(self, files: list[FileChange], compiled: Compiled) -> None:
        self.n = len(files)
        self.count: dict[int, int] = {}
        self.lines: dict[int, int] = {}
        self.ids: list[tuple[int, ...]] = []
        self.paths: list[tuple[str, int]] = []
        self.total = 0
        path_ids = compiled.path_ids
        count, lines = self.count, self.lines
        for f in files:
            ids = path_ids(f.path)
            changed = f.additions + f.deletions
            self.total += changed
            self.ids.append(ids)
            self.paths.append((f.path, changed))
            for i in ids:
                count[i] = count.get(i, 0) + 1
                lines[i] = lines.get(i, 0) + changed

    def every(self, set_id: int | None) -> bool:
        return set_id is not None and self.n > 0 and self.count.get(set_id, 0) == self.n

    def matching(self, set_id: int | None) -> list[str]:
        if set_id is None or set_id not in self.count:
            return []
        return [p for (p, _), ids in zip(self.paths, self.ids, strict=True) if set_id in ids]

    def rule_lines(self, rule: RuleMatchers) -> int | None:
        """Lines changed in the files that put the PR under ``rule``; None when its paths do not match."""
        hit: int | None = None
        for s in rule.any_sets:
            if s in self.count:
                hit = max(hit or 0, self.lines[s])
        if rule.only_set is not None and self.every(rule.only_set):
            hit = self.total
        if rule.all_sets and all(s in self.count for s in rule.all_sets):
            hit = self.total
        return hit


def _quote(text: str) -> str:
    return '"' + shorten(" ".join(text.split()), EVIDENCE_CHARS) + '"'


def _breaking_words(text: str, low: str, where: str, compiled: Compiled, out: list[str]) -> None:
    """Removal/renaming phrases in ``text``; a hit whose clause matches an ignore pattern is dropped.

    Overlapping hits in the same text are one signal, reported once by its longest wording.
    """
    seen: list[tuple[int, int, int]] = []  # (start, end, index in out)
    for m in compiled.breaking_patterns.finditer(text, low):
        start, end = m.span()
        overlap = next((item for item in seen if start < item[1] and item[0] < end), None)
        if overlap is not None and end - start <= overlap[1] - overlap[0]:
            continue
        if overlap is None and len(out) >= MAX_EVIDENCE_WORDS:
            return
        lo = max(0, m.start() - IGNORE_LOOKBEHIND)
        breaks = list(_CLAUSE_BREAK.finditer(text, lo, m.start()))
        if breaks:
            lo = breaks[-1].end()
        clause = text[lo : m.end()]
        clause_low = clause.lower()
        if compiled.breaking_ignore.search(clause, clause_low):
            continue
        quoted = m.group(0)
        if text[m.end() : m.end() + 1] == ":":  # "BREAKING CHANGE: X no longer loads" — what breaks is X
            rest = text[m.end() + 1 : m.end() + 1 + EVIDENCE_CHARS * 2]
            stop = _CLAUSE_BREAK.search(rest.replace(":", " "))
            said = (rest[: stop.start()] if stop else rest).strip()
            quoted = said or quoted
        ev = f"{where}: {_quote(quoted)}"
        if overlap is not None:
            out[overlap[2]] = ev
            seen[seen.index(overlap)] = (start, end, overlap[2])
        elif ev not in out:
            seen.append((start, end, len(out)))
            out.append(ev)


def _group(m: re.Match[str], name: str) -> str | None:
    return m.group(name) if name in m.re.groupindex else None


_REF_IN_TEXT = re.compile(r"(?:(?P<repo>[\w.-]+/[\w.-]+))?#(?P<num>\d+)")
_REF_ONLY = re.compile(r"^[\w.-]+/[\w.-]+#\d+$")


def _reverted(what: str, repo: str) -> str:
    """What a revert undoes, as evidence: ``#123`` (or ``owner/name#123`` for another repository)
    when a PR number is given, a commit as ``commit abc1234``, else the quoted subject."""
    text = what.strip()
    refs = list(_REF_IN_TEXT.finditer(text))
    if refs:
        m = refs[-1]  # "Revert "Fix X (#12) (#34)"": the outer subject's number is the last
        other = m.group("repo")
        return (
            f"{other}#{m.group('num')}" if other and other.lower() != repo.lower() else f"#{m.group('num')}"
        )
    if text.lower().startswith("commit "):
        return text
    return shorten(text, EVIDENCE_CHARS)


def _prefer_numbers(evidence: list[str]) -> list[str]:
    """A PR number or commit says exactly what was reverted; a quoted subject only without one."""
    exact = [e for e in evidence if e.startswith(("#", "commit ")) or _REF_ONLY.match(e)]
    return list(dict.fromkeys(exact)) if exact else evidence[:1]


def _packages(c: Compiled, text: str, low: str) -> dict[str, tuple[str | None, str | None]]:
    """Package names and (old, new) versions named in ``text`` ("bump xgrammar from 0.1 to 0.2")."""
    out: dict[str, tuple[str | None, str | None]] = {}
    if not text or not c.dependency_patterns.possible(low):
        return out
    for m in c.dependency_patterns.finditer(text, low):
        name = (_group(m, "name") or "").strip(".,;:")
        new = _group(m, "new")
        if name and new:
            _merge_package(out, name, (_group(m, "old"), new))
        if len(out) >= MAX_EVIDENCE_WORDS:
            break
    return out


def _merge_package(
    packages: dict[str, tuple[str | None, str | None]], name: str, version: tuple[str | None, str | None]
) -> None:
    """Add a package, or fill in the versions an earlier mention of it left out."""
    key = next((k for k in packages if k.lower() == name.lower()), None)
    if key is None:
        packages[name] = version
        return
    old, new = packages[key]
    packages[key] = (old or version[0], new or version[1])


def _dependency_evidence(
    c: Compiled, title: str, title_low: str, cleaned: str, cleaned_low: str, files: _Files, repo: str = ""
) -> list[str]:
    """What a PR changes in its dependencies: a version that changes (named, old → new), a package
    added or removed, or lockfiles refreshed — never a manifest that changed without saying what
    (that says nothing a reader can act on), nor the project's own version ("bump version to
    0.28.1.dev1", "Bump xgboost to 3.1.0" in xgboost). Empty: no dependency flag."""
    dep_files = files.matching(c.dependency_set)
    own = {"version", "versions", project_key(repo)}
    packages = {n: v for n, v in _packages(c, title, title_low).items() if norm(n) not in own}
    if not packages and not dep_files:
        return []
    # the description often says what the title leaves out ("from 0.1.29 to 0.2.0")
    for name, version in _packages(c, cleaned[:MAX_BODY_CHARS], cleaned_low[:MAX_BODY_CHARS]).items():
        if norm(name) in own:
            continue
        if name.lower() in {n.lower() for n in packages} or not packages:
            _merge_package(packages, name, version)
    dep_ev = [_package_text(n, v) for n, v in packages.items()]
    if dep_files:
        dep_ev += [e for e in _added_or_removed(c, title, title_low) if e not in dep_ev]
        dep_ev = dep_ev or _refreshed(dep_files, files, c)
    return dep_ev


def _added_or_removed(c: Compiled, title: str, low: str) -> list[str]:
    """ "httpx added", "six removed": packages a title says it adds or removes."""
    out: list[str] = []
    for group, what in ((c.dependency_added, "added"), (c.dependency_removed, "removed")):
        for m in group.finditer(title, low):
            name = (_group(m, "name") or "").strip(".,;:`'\"")
            if name and f"{name} {what}" not in out:
                out.append(f"{name} {what}")
    return out


def _refreshed(dep_files: list[str], files: _Files, c: Compiled) -> list[str]:
    """ "uv.lock refreshed": when every dependency file a PR changes is a lockfile (nothing else
    named), the lockfiles by name; else nothing."""
    locks = files.matching(c.lockfile_set)
    if not locks or len(locks) != len(dep_files):
        return []
    return [f"{name} refreshed" for name in dict.fromkeys(p.rsplit("/", 1)[-1] for p in locks)]


def _package_text(name: str, version: tuple[str | None, str | None]) -> str:
    old, new = version
    return f"{name} {old} → {new}" if old else f"{name} → {new}"


class _Text(NamedTuple):
    """A PR's title and cleaned description, each with its lower-case form (matchers read both)."""

    title: str
    title_low: str
    body: str
    body_low: str


class _Tagged(NamedTuple):
    """What a title's tags and conventional-commit prefix say outright."""

    modules: list[str]
    kind: str | None
    breaking: list[str]
    prefix_known: bool
    """a recognised prefix ("build(deps):") is not a title word"""


def classify(
    pr: PullRequest, profile: Profile, *, known_text: tuple[list[str], str] | None = None
) -> Classification:
    """Classify one PR with ``profile``; never raises on odd titles, bodies or paths.

    ``known_text``: the PR's highlights and gist as this code computed them earlier (they depend on the
    title and body only, not on the profile), which a reclassify passes to skip recomputing them.
    """
    c = profile.compiled
    parsed = parse_title(pr.title)
    tagged = _tagged(parsed, c, profile)
    label_keys = [norm(label) for label in pr.labels]
    files = _Files(pr.files, c)
    cleaned = clean_body(pr.body[:MAX_BODY_CHARS])
    text = _Text(pr.title, pr.title.lower(), cleaned, cleaned.lower())
    revert = _reverts(parsed, text, c, profile, pr.repo)
    modules, kind_words = _modules(parsed, tagged, label_keys, text, files, profile)
    kind = _kind(revert, tagged, label_keys, text, kind_words, files, profile)
    flags, core_files, size = _flags(pr, profile, kind, files, tagged.breaking, label_keys, text, revert)
    if known_text is None:
        found = highlights(parsed.after_tags, cleaned)
        summary = gist(pr.body, parsed.after_tags or pr.title, cleaned=cleaned)
    else:
        found, summary = known_text
    signals = _Signals(
        kind=kind,
        size=size,
        highlighted=bool(found),
        modules=modules,
        core_count=len(core_files),
        test_files=_tests_with_source(files, c),
        series=parsed.series,
        author=pr.author,
    )
    breakdown = _score(profile, flags, signals, pr.labels, label_keys)
    score = round(sum(p.points for p in breakdown), 2)
    score = _never_key_part(profile, pr, parsed, pr.title, kind, files, flags, breakdown, score)
    return Classification(
        modules=modules,
        kind=kind,
        flags=flags,
        score=score,
        breakdown=breakdown,
        highlights=found,
        gist=summary,
        profile=profile.name,
        profile_version=profile.version,
        profile_hash=profile.content_hash,
    )


def _tagged(parsed: ParsedTitle, c: Compiled, profile: Profile) -> _Tagged:
    """Modules, kind and breaking evidence named by the title's tags and conventional-commit prefix."""
    fl = profile.flags
    modules: list[str] = []
    kind: str | None = None
    breaking: list[str] = []
    for tag in parsed.tags:
        key = norm(tag)
        parts = [key]
        if key not in c.module_tags and key not in c.kind_tags and key not in c.breaking_tags:
            parts = [norm(p) for p in split_tag(tag)] or [key]
        for k in parts:
            module = c.module_tags.get(k)
            if module is not None:
                _add(modules, module)
            tag_kind = c.kind_tags.get(k)
            if tag_kind is not None and kind is None:
                kind = tag_kind
            if k in c.breaking_tags and fl.breaking.enabled:
                _add(breaking, f"tag: [{tag}]")
    if not parsed.prefix:
        return _Tagged(modules, kind, breaking, False)
    k = norm(parsed.prefix)
    # "build(deps):" declared as a whole is that kind's prefix; its type word then means nothing alone
    scoped_kind = c.kind_prefixes.get(f"{k}({norm(parsed.scopes[0])})") if parsed.scopes else None
    prefix_kind = scoped_kind or c.kind_prefixes.get(k) or c.kind_tags.get(k)
    module = c.module_tags.get(k) if scoped_kind is None else None
    if prefix_kind is not None and kind is None:
        kind = prefix_kind
    if module is not None:
        _add(modules, module)
    if prefix_kind is None and module is None:
        return _Tagged(modules, kind, breaking, False)
    for scope in parsed.scopes:
        for part in split_tag(scope):
            scoped = c.module_tags.get(norm(part))
            if scoped is not None:
                _add(modules, scoped)
    if parsed.bang and fl.breaking.enabled and fl.breaking.conventional_bang:
        scope = f"({','.join(parsed.scopes)})" if parsed.scopes else ""
        breaking.append(f'title: "{parsed.prefix}{scope}!:"')
    return _Tagged(modules, kind, breaking, True)


def _reverts(parsed: ParsedTitle, text: _Text, c: Compiled, profile: Profile, repo: str) -> list[str]:
    """What the PR reverts, from its title and description (a revert decides the kind)."""
    if not profile.flags.revert.enabled:
        return []
    revert: list[str] = []
    m = c.revert_title.search(parsed.after_tags, parsed.after_tags.lower())
    if m:
        revert.append(_reverted(_group(m, "what") or m.group(0), repo))
    if text.body and c.revert_body.possible(text.body_low):
        for gated in c.revert_body:
            m = gated.search(text.body, text.body_low)
            if m:
                _add(revert, _reverted(_group(m, "what") or m.group(0), repo))
    return _prefer_numbers(revert)


def _modules(
    parsed: ParsedTitle, tagged: _Tagged, label_keys: list[str], text: _Text, files: _Files, profile: Profile
) -> tuple[list[str], list[str]]:
    """The PR's modules (tags, labels, title words and patterns, then files by lines changed; the
    catch-all when nothing matched), and the kinds the title's keywords named on the way."""
    c = profile.compiled
    modules = tagged.modules
    for k in label_keys:
        named = c.module_labels.get(k)
        if named is not None:
            _add(modules, named)
    words = text.title if not tagged.prefix_known else " ".join((*parsed.tags, parsed.text))
    kind_words: list[str] = []
    for owner in c.keywords.find(words):
        if owner[0] == "m":
            _add(modules, owner[2:])
        else:
            kind_words.append(owner[2:])
    for i in c.module_pattern_rules:
        rule = c.modules[i]
        if rule.name not in modules and _title_matches(rule.patterns, text.title, text.title_low):
            modules.append(rule.name)
    if files.n:
        for name in _modules_from_files(files, profile):
            _add(modules, name)
    if not modules:
        modules.append(profile.catch_all_module)
    return modules, kind_words


def _modules_from_files(files: _Files, profile: Profile) -> list[str]:
    """Modules whose paths the PR changes, most lines first; a file touched in passing does not
    make a module when the profile says how much counts (the largest always does)."""
    c = profile.compiled
    candidates: set[int] = set()
    for set_id in files.count:
        candidates.update(c.module_rules_by_set.get(set_id, ()))
    path_hits: list[tuple[int, int, str]] = []
    for i in candidates:
        rule = c.modules[i]
        lines = files.rule_lines(rule)
        if lines is not None:
            path_hits.append((-lines, i, rule.name))
    path_hits.sort()
    least = profile.min_path_share * files.total if path_hits and profile.min_path_share else 0
    return [name for rank, (neg_lines, _, name) in enumerate(path_hits) if rank == 0 or -neg_lines >= least]


def _kind(
    revert: list[str],
    tagged: _Tagged,
    label_keys: list[str],
    text: _Text,
    kind_words: list[str],
    files: _Files,
    profile: Profile,
) -> str:
    """A revert, else the title's tag or prefix, else a label, else the rules (see the module docstring)."""
    if revert and "revert" in profile.kinds:
        return "revert"
    if tagged.kind is not None:
        return tagged.kind
    c = profile.compiled
    label_kind = next((kd for k in label_keys if (kd := c.kind_labels.get(k)) is not None), None)
    if label_kind is not None:
        return label_kind
    return _kind_from_rules(text.title, text.title_low, kind_words, files, c) or profile.default_kind


def _flags(
    pr: PullRequest,
    profile: Profile,
    kind: str,
    files: _Files,
    breaking: list[str],
    label_keys: list[str],
    text: _Text,
    revert: list[str],
) -> tuple[list[Flag], list[str], int]:
    """The risk flags in their fixed order, the core files changed and the PR's size in lines
    (both also count in the key-PR score)."""
    c, fl = profile.compiled, profile.flags
    flags: list[Flag] = []
    core_files = files.matching(c.core_set)
    if core_files:
        flags.append(_flag("core-path", _capped(core_files, fl.core_path.max_evidence)))
    missing = _missing_tests(pr, profile, kind, files)
    if missing:
        flags.append(_flag("missing-tests", missing))
    if fl.breaking.enabled:
        # words in a PR that changes only documentation describe a change, they make none
        # ("Sync with #14575 (Drop support for Pydantic v1)" in a translation update)
        wording = not (_only_kind(files, c, "docs") or _only_kind(files, c, "translation"))
        ordered = _breaking(pr, c, breaking, label_keys, text, wording=wording)
        if ordered:
            flags.append(_flag("breaking", ordered))
    if fl.dependency.enabled:
        dep_ev = _dependency_evidence(c, text.title, text.title_low, text.body, text.body_low, files, pr.repo)
        if dep_ev:
            flags.append(_flag("dependency", dep_ev[: fl.dependency.max_evidence]))
    size, large_ev = _size(pr, profile, files)
    if large_ev:
        flags.append(_flag("large", large_ev))
    if revert:
        flags.append(_flag("revert", revert))
    return flags, core_files, size


def _missing_tests(pr: PullRequest, profile: Profile, kind: str, files: _Files) -> list[str]:
    """Evidence that source changed with no test file: enough source lines, some of them added
    (a pure removal has nothing new to test), none exempt, and a kind that is not exempt."""
    c, mt = profile.compiled, profile.flags.missing_tests
    if not (
        mt.enabled
        and files.n
        and c.source_set is not None
        and c.source_set in files.count
        and (c.test_set is None or c.test_set not in files.count)
        and kind not in mt.exempt_kinds
    ):
        return []
    src_lines = src_added = src_files = 0
    source_set, exempt_set = c.source_set, c.exempt_set
    for f, (_, changed), ids in zip(pr.files, files.paths, files.ids, strict=True):
        if source_set in ids and exempt_set not in ids:
            src_lines += changed
            src_added += f.additions
            src_files += 1
    if src_lines < mt.min_source_lines or not src_added:
        return []
    noun = "file" if src_files == 1 else "files"
    return [f"{src_lines:,} source lines changed in {src_files} {noun}, no test file changed"]


def _breaking(
    pr: PullRequest,
    c: Compiled,
    breaking: list[str],
    label_keys: list[str],
    text: _Text,
    *,
    wording: bool = True,
) -> list[str]:
    """Breaking-change evidence: the title's tags (``breaking``, already found), labels, then
    (``wording``) removal wording in the title and description — labels, tags and the
    description first, as a title quote only repeats the title."""
    for label, key in zip(pr.labels, label_keys, strict=True):
        if key in c.breaking_labels:
            _add(breaking, f"label: {label}")
    if wording:
        _breaking_words(text.title, text.title_low, "title", c, breaking)
    if wording and text.body:
        _breaking_words(text.body, text.body_low, "body", c, breaking)
    ordered = [e for e in breaking if not e.startswith("title: ")] + [
        e for e in breaking if e.startswith("title: ")
    ]
    return ordered[:MAX_EVIDENCE_WORDS]


def _size(pr: PullRequest, profile: Profile, files: _Files) -> tuple[int, list[str]]:
    """Lines changed, generated and data files not counted, and the evidence of a large PR."""
    c, large = profile.compiled, profile.flags.large
    adds, dels = pr.additions, pr.deletions
    if adds + dels == 0 and files.total:
        adds = sum(f.additions for f in pr.files)
        dels = sum(f.deletions for f in pr.files)
    ignored = files.lines.get(c.large_ignore_set, 0) if c.large_ignore_set is not None else 0
    size = max(0, adds + dels - ignored)
    if not large.enabled:
        return size, []
    evidence: list[str] = []
    if size >= large.lines:
        said = f"{size:,} lines changed (+{adds:,} −{dels:,})"
        if ignored:
            said += f", not counting {ignored:,} lines in generated or data files"
        evidence.append(said)
    n_files = max(pr.changed_files or 0, files.n)
    if n_files >= large.files:
        evidence.append(f"{n_files:,} files changed")
    return size, evidence


_TYPO = re.compile(
    r"\b(?:typos?|grammar|grammatical|spelling|misspell\w*|docstrings?|wording|whitespace|punctuation)\b",
    re.I,
)
_RELEASE_MARKS = frozenset({"🔖", ":bookmark:"})


def _never_key_part(
    profile: Profile,
    pr: PullRequest,
    parsed: ParsedTitle,
    title: str,
    kind: str,
    files: _Files,
    flags: list[Flag],
    breakdown: list[ScorePart],
    score: float,
) -> float:
    """The score once a chore the profile never makes key is held below its minimum, whatever
    else it earned; the part added to ``breakdown`` says why."""
    never = _never_key(profile, pr, parsed.tags, parsed.after_tags or title, kind, files, flags)
    if never is None or score <= profile.key_min_score - 1:
        return score
    points = round(profile.key_min_score - 1 - score, 2)
    breakdown.append(ScorePart(reason=f"never key: {never}", points=points, rule="never-key", detail=never))
    return round(score + points, 2)


def _never_key(
    profile: Profile,
    pr: PullRequest,
    tags: tuple[str, ...],
    text: str,
    kind: str,
    files: _Files,
    flags: list[Flag],
) -> str | None:
    """The class of chore a PR is, when its profile says that class is never key (``[score]
    never_key``): a bot's PR, a translation, documentation only, lockfiles refreshed, the
    repository's own version bumped, a typo, grammar or docstring fix."""
    wanted = profile.score.never_key
    if not wanted:
        return None
    c = profile.compiled
    dep = next((f for f in flags if f.kind == "dependency"), None)
    named = dep is not None and any(" refreshed" not in e for e in dep.evidence)

    checks: tuple[tuple[str, Callable[[], bool]], ...] = (
        ("bot", lambda: is_bot(pr.author, c.bot_authors)),
        ("translation", lambda: kind == "translation" or _only_kind(files, c, "translation")),
        ("docs-only", lambda: _only_kind(files, c, "docs")),
        ("lockfile", lambda: dep is not None and not named),
        (
            "own-version",
            lambda: not named and (bool(_RELEASE_MARKS & set(tags)) or bool(OWN_VERSION.search(text))),
        ),
        ("typo", lambda: bool(_TYPO.search(text))),
    )
    for name, test in checks:
        if name in wanted and test():
            return name
    return None


def _only_kind(files: _Files, c: Compiled, kind_name: str) -> bool:
    """Whether every file of the PR is of the profile's kind ``kind_name`` by its paths (its
    ``only_globs``: documentation, translations …)."""
    rule = next((r for r in c.kinds if r.name == kind_name), None)
    return rule is not None and files.every(rule.only_set)


def _tests_with_source(files: _Files, c: Compiled) -> int:
    """Test files changed in a PR that also changes source outside the tests (else 0)."""
    test_set, source_set = c.test_set, c.source_set
    if test_set is None or source_set is None or test_set not in files.count:
        return 0
    for ids in files.ids:
        if source_set in ids and test_set not in ids and c.exempt_set not in ids:
            return files.count[test_set]
    return 0


def _title_matches(patterns: tuple[Gated, ...], title: str, title_low: str) -> bool:
    """Whether any of ``patterns`` matches the title: ``any(p.search(…))`` spelt as a loop, with
    each pattern's literal pre-check inlined (it runs ~5 times per PR in every reclassify)."""
    for p in patterns:  # noqa: SIM110 - a plain loop is measurably faster than any(<genexpr>) here
        if p.possible(title_low) and p.pattern.search(title):
            return True
    return False


def _kind_from_rules(
    title: str, title_low: str, kind_words: list[str], files: _Files, c: Compiled
) -> str | None:
    if files.n:
        for rule in c.kinds:
            if rule.only_set is not None and files.every(rule.only_set):
                return rule.name
    hits = set(kind_words)
    for rule in c.kinds:
        if rule.patterns and rule.name not in hits and _title_matches(rule.patterns, title, title_low):
            hits.add(rule.name)
    if hits:
        return min(hits, key=lambda name: c.kind_order[name])
    if files.n:
        for rule in c.kinds:
            if not files.count.keys().isdisjoint(rule.any_sets) or (
                rule.all_sets and all(s in files.count for s in rule.all_sets)
            ):
                return rule.name
    return None


_FLAG_REASONS: dict[FlagKind, str] = {
    "core-path": "core path",
    "missing-tests": "no tests for source changes",
    "breaking": "breaking change",
    "dependency": "dependency change",
    "large": "large change",
    "revert": "revert",
}


class _Signals(NamedTuple):
    """What the score looks at besides flags and labels, gathered while classifying."""

    kind: str
    size: int
    highlighted: bool
    modules: list[str]
    core_count: int
    test_files: int
    """test files changed together with source files (0 when either is missing)"""
    series: str | None
    author: str


def is_bot(author: str, known: frozenset[str]) -> bool:
    """GitHub apps sign as ``name[bot]`` (``app/name`` in GraphQL); a profile may name more bots."""
    login = author.strip().lower().removeprefix("app/")
    return login.endswith("[bot]") or (bool(login) and login.removesuffix("[bot]") in known)


def _score(
    profile: Profile,
    flags: list[Flag],
    sig: _Signals,
    labels: list[str],
    label_keys: list[str],
) -> list[ScorePart]:
    """The score's parts; weights are the profile's (data), reasons say what earned them."""
    s = profile.score
    parts: list[ScorePart] = []
    cache = profile.compiled.score_parts

    def add(reason: str, points: float, rule: str, detail: str = "") -> None:
        if points:
            key = (reason, points)
            part = cache.get(key)
            if part is None:
                part = cache[key] = ScorePart(
                    reason=reason, points=round(points, 2), rule=rule, detail=detail
                )
            parts.append(part)

    for f in flags:
        points = s.flags.get(f.kind, 0.0)
        if points:
            reason = _FLAG_REASONS[f.kind]
            if f.kind == "core-path":
                n = sig.core_count
                add(f"{reason} ({n} file{'s' if n != 1 else ''})", points, "core-path", str(n))
            else:
                add(reason, points, "flag", f.kind)
    add(f"kind: {sig.kind}", s.kinds.get(sig.kind, 0.0), "kind", sig.kind)
    tier: tuple[int, float] | None = None
    for lines, points in profile.compiled.size_tiers:
        if sig.size >= lines:
            tier = (lines, points)
    if tier is not None:
        add(f"size: ≥ {tier[0]:,} lines changed", tier[1], "size", str(tier[0]))
    elif s.small is not None and sig.size < s.small.lines:
        add(f"small change: < {s.small.lines:,} lines", s.small.points, "small", str(s.small.lines))
    if sig.highlighted:
        add("measured effect stated", s.highlight, "highlight")
    if sig.test_files and s.with_tests:
        n = sig.test_files
        add(f"comes with tests ({n} test file{'s' if n != 1 else ''})", s.with_tests, "tests", str(n))
    if sig.series and s.series:
        add(f"one of a series ({sig.series})", s.series, "series", sig.series)
    if s.bot and is_bot(sig.author, profile.compiled.bot_authors):
        add(f"opened by a bot ({sig.author})", s.bot, "bot", sig.author)
    real = [m for m in sig.modules if m != profile.catch_all_module]
    if len(real) >= s.many_modules_min:
        add(f"touches {len(real)} modules", s.many_modules, "modules", str(len(real)))
    if s.modules:
        # the best and the worst weighted module count once each: a PR touching ten weighted
        # modules (a mass rename) is not ten times as important
        weighted = [(s.modules[m], m) for m in sig.modules if s.modules.get(m)]
        best = max((w for w in weighted if w[0] > 0), key=lambda w: w[0], default=None)
        worst = min((w for w in weighted if w[0] < 0), key=lambda w: w[0], default=None)
        for w in (best, worst):
            if w is not None:
                add(f"module: {w[1]}", w[0], "module", w[1])
    if s.labels:
        for label, key in zip(labels, label_keys, strict=True):
            add(f"label: {label}", profile.compiled.score_labels.get(key, 0.0), "label", label)
    return parts
