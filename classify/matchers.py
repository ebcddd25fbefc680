"""Matchers compiled once per profile: path globs, title keywords, and gated regexes.

Globs follow actions/labeler (minimatch) conventions so rules read like the ones repositories
already keep: a pattern matches the whole repository-relative path, ``*`` and ``?`` stay inside
one path segment, ``**`` spans any number of directories, ``[a-z]`` / ``[!a-z]`` are character
sets, ``{a,b}`` alternatives, and a trailing ``/`` means "everything under this directory".
Matching is case-sensitive, like git.

Keywords are whole words compared case-insensitively with the words of a title, where a word is
a run of letters and digits (so ``cuda`` does not hit ``cudagraph`` but does hit ``cuda_graph``
and ``CUDA graph``). A trailing ``*`` makes a word a prefix (``qwen*`` hits ``Qwen3``,
``deepseek*`` hits ``DeepSeekV2``); several words form a phrase that also matches written
together (``kv connector`` hits ``KV connector``, ``kv_connector`` and ``KVConnector``).
Punctuation inside a keyword separates words (``gpt-oss`` is the phrase ``gpt oss``).
"""

from __future__ import annotations

import re
import re._constants as _c
import re._parser as _parser
from collections.abc import Iterator
from typing import Any


class GlobError(ValueError):
    """A glob or keyword that cannot be translated; the message is the reason only."""


def _char_class(body: str) -> str:
    """Translate the inside of ``[...]`` with every character escaped (no FutureWarning sets)."""
    negate = body[:1] in ("!", "^")
    if negate:
        body = body[1:]
    if not body:
        raise GlobError("empty character set")
    parts: list[str] = []
    i = 0
    while i < len(body):
        if i + 2 < len(body) and body[i + 1] == "-":
            lo, hi = body[i], body[i + 2]
            if lo > hi:
                raise GlobError(f"bad character range {lo}-{hi}")
            parts.append(f"{re.escape(lo)}-{re.escape(hi)}")
            i += 3
        else:
            parts.append(re.escape(body[i]))
            i += 1
    return "[" + ("^" if negate else "") + "".join(parts) + "]"


def glob_to_regex(glob: str) -> str:
    """The regex body (unanchored) equivalent to ``glob``; raises GlobError with the reason."""
    g = glob.strip()
    if not g:
        raise GlobError("empty glob")
    if g.startswith("./"):
        g = g[2:]
    g = g.lstrip("/")
    if not g:
        raise GlobError("glob matches nothing")
    if g.endswith("/"):
        g += "**"
    out: list[str] = []
    depth = 0
    i, n = 0, len(g)
    while i < n:
        c = g[i]
        if c == "*":
            j = i
            while j < n and g[j] == "*":
                j += 1
            whole_segment = (i == 0 or g[i - 1] in "/{,") and (j == n or g[j] in "/},")
            if j - i >= 2 and whole_segment:
                if j < n and g[j] == "/":
                    out.append("(?:.*/)?")
                    j += 1
                else:
                    out.append(".*")
            else:
                out.append("[^/]*")
            i = j
            continue
        if c == "?":
            out.append("[^/]")
        elif c == "[":
            j = i + 1
            if j < n and g[j] in "!^":
                j += 1
            if j < n and g[j] == "]":
                j += 1
            while j < n and g[j] != "]":
                j += 1
            if j >= n:
                raise GlobError("unterminated character set")
            out.append(_char_class(g[i + 1 : j]))
            i = j + 1
            continue
        elif c == "{":
            depth += 1
            out.append("(?:")
        elif c == "}":
            if not depth:
                raise GlobError("unbalanced '}'")
            depth -= 1
            out.append(")")
        elif c == "," and depth:
            out.append("|")
        elif c == "\\":
            if i + 1 >= n:
                raise GlobError("trailing backslash")
            out.append(re.escape(g[i + 1]))
            i += 2
            continue
        else:
            out.append(re.escape(c))
        i += 1
    if depth:
        raise GlobError("unbalanced '{'")
    return "".join(out)


def compile_globs(globs: list[str] | tuple[str, ...]) -> re.Pattern[str] | None:
    """One anchored regex matching any of ``globs`` (None when there are none)."""
    if not globs:
        return None
    return re.compile("(?:" + "|".join(glob_to_regex(g) for g in globs) + r")\Z")


_TOKEN = re.compile(r"[^\W_]+")


def tokens(text: str) -> list[str]:
    """Lower-case runs of letters/digits: the words keywords are compared with."""
    return _TOKEN.findall(text.lower())


def parse_keyword(keyword: str) -> tuple[tuple[str, bool], ...]:
    """``"kv connector*"`` → ``(("kv", False), ("connector", True))``: words, each maybe a prefix."""
    words: list[tuple[str, bool]] = []
    for raw in keyword.lower().split():
        prefix = raw.endswith("*")
        body = raw.rstrip("*")
        if "*" in body:
            raise GlobError("'*' is only allowed at the end of a word")
        parts = tokens(body)
        if not parts:
            if body:
                raise GlobError("needs a letter or digit")
            continue
        words.extend((p, False) for p in parts[:-1])
        words.append((parts[-1], prefix))
    if not words:
        raise GlobError("empty keyword")
    return tuple(words)


Phrase = tuple[tuple[str, bool], ...]
WORD_CACHE_LIMIT = 50_000


class KeywordIndex:
    """Finds every keyword of every owner in a text with about three dictionary lookups per word.

    Cheaper than one big regex alternation and, unlike one, reports overlapping keywords of
    different owners ("cuda" for nvidia and "cuda graph" for compile in the same title).
    Prefix keywords are bucketed by their first three letters (shorter ones are kept in a small
    list), phrases by their first word.
    """

    def __init__(self) -> None:
        self._exact: dict[str, list[str]] = {}
        self._prefix3: dict[str, list[tuple[str, list[str]]]] = {}
        self._short: list[tuple[str, list[str]]] = []
        self._phrases: dict[str, list[tuple[Phrase, list[str]]]] = {}
        self._phrase_prefix: list[tuple[Phrase, list[str]]] = []
        # word -> owners of its one-word keywords (exact and prefix): words repeat across titles
        self._word_cache: dict[str, tuple[str, ...]] = {}

    def __bool__(self) -> bool:
        return bool(self._exact or self._prefix3 or self._short or self._phrases or self._phrase_prefix)

    @staticmethod
    def _entry(bucket: list[tuple[Any, list[str]]], key: Any) -> list[str]:
        for k, existing in bucket:
            if k == key:
                return existing
        owners: list[str] = []
        bucket.append((key, owners))
        return owners

    @staticmethod
    def _append(owners: list[str], owner: str) -> None:
        if owner not in owners:
            owners.append(owner)

    def add(self, keyword: str, owner: str) -> None:
        self._word_cache.clear()
        words = parse_keyword(keyword)
        joined = "".join(w for w, _ in words)
        if not words[-1][1]:
            self._append(self._exact.setdefault(joined, []), owner)
        elif len(joined) >= 3:
            self._append(self._entry(self._prefix3.setdefault(joined[:3], []), joined), owner)
        else:
            self._append(self._entry(self._short, joined), owner)
        if len(words) > 1:
            first, first_is_prefix = words[0]
            bucket = self._phrase_prefix if first_is_prefix else self._phrases.setdefault(first, [])
            self._append(self._entry(bucket, words), owner)

    def find(self, text: str) -> list[str]:
        """Owners whose keywords occur in ``text``, in order of first occurrence."""
        words = _TOKEN.findall(text.lower())
        found: list[str] = []
        cache, phrases = self._word_cache, self._phrases
        n_words = len(words)
        for i, word in enumerate(words):
            hit = cache.get(word)
            if hit is None:
                hit = self._word_owners(word)
                if len(cache) >= WORD_CACHE_LIMIT:
                    cache.clear()
                cache[word] = hit
            if hit:
                for o in hit:
                    if o not in found:
                        found.append(o)
            candidates = phrases.get(word)
            if self._phrase_prefix:
                candidates = [*(candidates or ()), *self._phrase_prefix]
            if candidates:
                for phrase, owners in candidates:
                    n = len(phrase)
                    if i + n > n_words:
                        continue
                    for j in range(n):
                        w, is_prefix = phrase[j]
                        candidate = words[i + j]
                        if not (candidate.startswith(w) if is_prefix else candidate == w):
                            break
                    else:
                        found.extend(o for o in owners if o not in found)
        return found

    def _word_owners(self, word: str) -> tuple[str, ...]:
        owners: list[str] = list(self._exact.get(word, ()))
        for pre, prefix_owners in [*self._prefix3.get(word[:3], ()), *self._short]:
            if word.startswith(pre):
                owners.extend(o for o in prefix_owners if o not in owners)
        return tuple(owners)


def required_literals(pattern: str, flags: int = re.IGNORECASE) -> tuple[tuple[str, ...], ...]:
    """Lower-case substrings a match must contain: each inner tuple is "one of these".

    Read from the parsed regex (literal runs outside optional parts, and the leading literals of
    every branch of an alternation), so a pattern can be skipped with a few ``in`` tests when
    the text cannot match — much cheaper than scanning a PR body with a case-insensitive regex.
    An unreadable pattern simply has no requirements (it is always run).
    """
    try:
        tree = _parser.parse(pattern, flags)
    except Exception:
        return ()
    reqs: list[tuple[str, ...]] = []
    _walk(list(tree.data), reqs)
    kept = dict.fromkeys(r for r in reqs if r and all(r))
    # most selective first (longest shortest-alternative, fewest alternatives): fails fastest
    return tuple(sorted(kept, key=lambda r: (-min(map(len, r)), len(r))))


def _leading(items: Any) -> str:
    run: list[str] = []
    for op, av in items:
        if op is _c.LITERAL:
            run.append(chr(av))
        elif op is _c.SUBPATTERN and not run:
            return _leading(av[-1])
        elif op is _c.AT:
            continue
        else:
            break
    return "".join(run).lower()


def _walk(items: Any, reqs: list[tuple[str, ...]]) -> None:
    run: list[str] = []

    def flush() -> None:
        if run:
            reqs.append(("".join(run).lower(),))
            run.clear()

    for op, av in items:
        if op is _c.LITERAL:
            run.append(chr(av))
            continue
        flush()
        if op is _c.SUBPATTERN:
            _walk(av[-1], reqs)
        elif op is _c.BRANCH:
            alts = tuple(dict.fromkeys(_leading(b) for b in av[1]))
            if all(alts):
                reqs.append(alts)
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT) and av[0] >= 1:
            _walk(av[2], reqs)
    flush()


class Gated:
    """A regex plus the literals it needs; ``search``/``finditer`` skip texts that lack them.

    ``low`` is the text lower-cased once by the caller and shared by every pattern.
    """

    __slots__ = ("pattern", "requires")

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.requires = required_literals(pattern.pattern, pattern.flags)

    def possible(self, low: str) -> bool:
        for alts in self.requires:
            for s in alts:
                if s in low:
                    break
            else:
                return False
        return True

    def search(self, text: str, low: str) -> re.Match[str] | None:
        return self.pattern.search(text) if self.possible(low) else None

    def finditer(self, text: str, low: str) -> Iterator[re.Match[str]]:
        if self.possible(low):
            yield from self.pattern.finditer(text)


class GatedGroup:
    """Several gated regexes with one shared pre-check: if none of the patterns' most selective
    literals occurs in the text, none of them is run (the common case for a PR body)."""

    __slots__ = ("gate", "patterns")

    def __init__(self, patterns: tuple[Gated, ...]) -> None:
        self.patterns = patterns
        gate: set[str] | None = set()
        for p in patterns:
            if not p.requires:
                gate = None
                break
            assert gate is not None
            gate.update(p.requires[0])
        self.gate = tuple(sorted(gate, key=len, reverse=True)) if gate is not None else None

    def __iter__(self) -> Iterator[Gated]:
        return iter(self.patterns)

    def __len__(self) -> int:
        return len(self.patterns)

    def possible(self, low: str) -> bool:
        if self.gate is None:
            return bool(self.patterns)
        for s in self.gate:  # noqa: SIM110 - a plain loop is measurably faster than any(<genexpr>) here
            if s in low:
                return True
        return False

    def finditer(self, text: str, low: str) -> Iterator[re.Match[str]]:
        """Matches of every pattern in turn (pattern order, then text order)."""
        if self.possible(low):
            for p in self.patterns:
                yield from p.finditer(text, low)

    def search(self, text: str, low: str) -> re.Match[str] | None:
        """The first pattern's match that succeeds (pattern order)."""
        if self.possible(low):
            for p in self.patterns:
                m = p.search(text, low)
                if m:
                    return m
        return None
