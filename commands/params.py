"""Typed command parameters, declared once per command in the registry.

Every front end reads the same declaration: the CLI builds its arguments, options and ``--help``
from it; ``help`` and the usage line are generated from it; chat text is split and assigned to
it (``split_text`` + ``parse``); Discord builds its slash-command options from ``option_spec``
and answers autocomplete with ``suggest``. Handlers receive the parsed, validated values as
keyword arguments and never look at raw words.

Words are assigned the way people type them, in any order: each word goes to the first
parameter, in declaration order, that ``claims`` it (a period word to ``period``, anything else to
``modules``); a ``trailing`` parameter may only take the last word (``search tree attention
2026-W19``). Bad values raise ``UsageError`` with a locale key, so the message reaches the caller
in their language.
"""

from __future__ import annotations

import re
import shlex
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal
from zoneinfo import ZoneInfo

from classify.models import FLAG_KINDS
from classify.periods import is_period, parse_period, week_of
from classify.rules import Profile
from commands.locale import t
from commands.model import Invocation, UsageError

OptionType = Literal["string", "integer", "boolean"]
Surface = Literal["cli", "slack", "discord"]
CHAT: frozenset[Surface] = frozenset({"slack", "discord"})
EVERYWHERE: frozenset[Surface] = frozenset({"cli", "slack", "discord"})

MAX_ARGUMENT_CHARS = 500
MAX_PR_NUMBER = 10_000_000
MAX_SUGGESTIONS = 25  # Discord shows at most 25 autocomplete choices
_PR_URL = re.compile(r"^(?:https?://[^/\s]+/)?([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)/pulls?/(\d+)(?:[/#?].*)?$")
_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


def shortened(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, the cut marked with "…" (an echo never passes for the
    whole of what was typed)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def quoted(word: str, limit: int = 40) -> str:
    """A user's word as it appears inside a message: quoted, and short."""
    return repr(shortened(word, limit))


@dataclass(frozen=True)
class Scope:
    """What parsing may consult: the clock and zone (periods), the profile (modules), the
    command names (``help COMMAND``), the repositories in the cache (suggestions)."""

    now: datetime
    timezone: str
    profile: Profile
    commands: tuple[str, ...] = ()
    repos: tuple[str, ...] = ()


@dataclass(frozen=True)
class PRTarget:
    """``pr``'s argument: a number, and the repository when a PR URL named one."""

    number: int
    repo: str | None = None


Parse = Callable[[str, Scope], Any]


@dataclass(frozen=True)
class Param:
    """One declared parameter.

    ``metavar`` is how usage lines and help show it; ``help`` is a locale key; ``kind`` is the
    option type a typed front end offers (Discord: string, integer, boolean). ``many`` takes
    several words (a chat option carries them comma-separated). ``option`` makes it a named
    option (``--repo X``) instead of a word; ``flag`` a bare word that is on or off
    (``public``). ``surfaces`` says where it is offered. ``parse`` turns one word into a value
    (raising ``UsageError``); ``claims`` tells whether a word may be this parameter at all;
    ``choices`` are the only accepted words (Discord offers them as fixed choices);
    ``suggest`` lists likely values for autocomplete; ``extra`` adds to its help what only the
    active profile knows (the module names).
    """

    name: str
    metavar: str
    help: str
    kind: OptionType = "string"
    required: bool = False
    many: bool = False
    trailing: bool = False
    option: bool = False
    flag: bool = False
    surfaces: frozenset[Surface] = EVERYWHERE
    default: str | None = None
    choices: tuple[str, ...] = ()
    claims: Callable[[str], bool] = lambda word: True
    parse: Parse = lambda word, scope: word
    suggest: Callable[[Scope, str], list[str]] | None = None
    missing: str = "error.missing"
    extra: Callable[[Scope, str], str] | None = field(default=None)
    sets: str | None = None  # an Invocation field this option fills instead of a handler argument
    named: bool = False  # a ``name=value`` word in chat, ``--name`` in a terminal, an option in Discord
    listed: bool = True  # False: parsed and offered as a typed option, but left out of usage and help

    @property
    def positional(self) -> bool:
        return not (self.option or self.flag)

    def usage(self) -> str:
        """``[PERIOD]``, ``[MODULE…]``, ``NUMBER|URL``, ``[--repo OWNER/NAME]``, ``[public]``."""
        if self.flag:
            text = self.name
        elif self.named:
            text = f"{self.name}={self.metavar}"
        elif self.option:
            text = f"--{self.name} {self.metavar}"
        else:
            text = self.metavar + ("…" if self.many else "")
        return text if self.required else f"[{text}]"

    def value(self, words: Sequence[str], scope: Scope) -> Any:
        """The parsed value of the words assigned to this parameter (its default when none)."""
        if self.flag:
            return bool(words)
        if not words:
            if self.required:
                raise UsageError(self.missing, name=self.metavar)
            if self.many:
                return []
            return None if self.default is None else self.parse(self.default, scope)
        if self.many:
            out: list[Any] = []
            for word in words:
                item = self.parse(word, scope)
                if item not in out:
                    out.append(item)
            return out
        return self.parse(words[0], scope)


# -- splitting chat text ---------------------------------------------------------------------------


def split_words(text: str) -> tuple[str, ...]:
    """Split text into words the way a shell would, forgiving an unbalanced quote."""
    if len(text) > MAX_ARGUMENT_CHARS:
        raise UsageError("error.too_long", n=len(text), limit=MAX_ARGUMENT_CHARS)
    try:
        return tuple(shlex.split(text))
    except ValueError:
        return tuple(text.replace('"', " ").replace("'", " ").split())


def split_text(text: str, params: Sequence[Param]) -> tuple[tuple[str, ...], frozenset[str]]:
    """Chat text → (words, flags). A declared flag counts only unquoted, in any case:
    ``/search "public" api`` searches for "public"."""
    names = {p.name for p in params if p.flag}
    raw = text.split()
    flags = frozenset(w.lower() for w in raw if w.lower() in names)
    rest = " ".join(w for w in raw if w.lower() not in names)
    return split_words(rest), flags


# -- assigning and parsing -------------------------------------------------------------------------


def assign(params: Sequence[Param], words: Sequence[str]) -> dict[str, list[str]]:
    """Which words go to which positional parameter (see the module docstring)."""
    positional = [p for p in params if p.positional]
    taken: dict[str, list[str]] = {p.name: [] for p in positional}
    rest = list(words)
    for p in positional:  # a ``name=value`` word is its parameter's wherever it stands
        if p.named:
            taken[p.name] = [w for w in rest if p.claims(w)]
            rest = [w for w in rest if not p.claims(w)]
    for p in positional:
        if p.trailing and len(rest) > 1 and p.claims(rest[-1]):
            taken[p.name].append(rest.pop())
    for word in rest:
        for p in positional:
            if p.trailing:
                continue
            if (p.many or not taken[p.name]) and p.claims(word):
                taken[p.name].append(word)
                break
        else:
            full = next((p for p in positional if not p.trailing and p.claims(word)), None)
            if full is not None:  # `pr 1 2`: the parameter that wanted it takes one word only
                raise UsageError("error.one_only", name=full.metavar, word=quoted(word))
            raise UsageError("error.unexpected", word=quoted(word))
    return taken


def _option_words(param: Param, value: object) -> list[str]:
    """A typed front end's value (Discord option) as the words the parsers take."""
    if value is None or value == "":
        return []
    if param.flag:
        return [param.name] if value is True else []
    if isinstance(value, bool):
        raise UsageError("error.unexpected", word=quoted(str(value)))
    text = str(value)
    if param.many:
        return [w for w in re.split(r"[,\s]+", text) if w]
    return [text]


_NUMBER_SHAPED = re.compile(r"^#?[-+]?\d")


def number_shaped(word: str) -> bool:
    """Whether a word is meant as a number (``42``, ``-5``, ``#3``): a numeric parameter claims it,
    so that a negative or out-of-range one is refused as that number."""
    return bool(_NUMBER_SHAPED.match(word))


def halfwidth(word: str) -> str:
    """A word typed with a Chinese or Japanese input method as ASCII: full-width digits, letters
    and signs (``２０２６-Ｗ１９``, ``ｐａｇｅ＝２``) are the same word (NFKC); other text is left."""
    if word.isascii():
        return word
    return "".join(unicodedata.normalize("NFKC", ch) if "\uff01" <= ch <= "\uff5e" else ch for ch in word)


@dataclass(frozen=True)
class Parsed:
    """Parsed parameters: ``values`` for the handler; ``flags`` (delivery, e.g. ``public``) and
    ``invocation`` (fields of the Invocation an option sets, e.g. ``repo``) for the caller."""

    values: dict[str, Any]
    flags: frozenset[str]
    invocation: dict[str, Any]


def parse(params: Sequence[Param], inv: Invocation, scope: Scope) -> Parsed:
    """Parse ``inv.args`` (a command line's words) or ``inv.text`` (a chat message's text, split
    here), and ``inv.options`` (named values, which win) against ``params``."""
    known = {p.name for p in params}
    unknown = sorted(set(inv.options) - known)
    if unknown:
        raise UsageError("error.unexpected", word=quoted(unknown[0]))
    args, typed = split_text(inv.text, params) if inv.text is not None else (inv.args, frozenset())
    words = assign(params, [halfwidth(w) for w in args])
    for p in params:
        if p.name in inv.options:
            words[p.name] = [halfwidth(w) for w in _option_words(p, inv.options[p.name])]
    values: dict[str, Any] = {}
    flags = (set(inv.flags) | typed) & {p.name for p in params if p.flag}
    updates: dict[str, Any] = {}
    for p in params:
        given = words.get(p.name, [])
        if p.flag:
            if given:
                flags.add(p.name)
        elif p.sets is not None:
            if given:
                updates[p.sets] = p.value(given, scope)
        else:
            values[p.name] = p.value(given, scope)
    return Parsed(values, frozenset(flags), updates)


# -- what a typed front end needs --------------------------------------------------------------------


@dataclass(frozen=True)
class OptionSpec:
    """A parameter as a platform-neutral typed option (Discord: an application command option)."""

    name: str
    description: str
    type: OptionType
    required: bool
    choices: tuple[str, ...]
    autocomplete: bool


def option_spec(param: Param, description: str) -> OptionSpec:
    return OptionSpec(
        name=param.name,
        description=description,
        type=param.kind,
        required=param.required,
        choices=param.choices,
        autocomplete=param.suggest is not None and not param.choices,
    )


def suggestions(param: Param, scope: Scope, prefix: str) -> list[str]:
    """Autocomplete values for ``prefix`` (at most 25, answered from memory)."""
    if param.choices:
        pool = list(param.choices)
    elif param.suggest is not None:
        pool = param.suggest(scope, prefix)
    else:
        return []
    if param.many and "," in prefix:  # "rocm,sp" → suggest "rocm,spec-decode"
        head, _, last = prefix.rpartition(",")
        return [f"{head},{v}" for v in pool if v.startswith(last.strip().lower())][:MAX_SUGGESTIONS]
    low = prefix.strip().lower()
    return [v for v in pool if v.lower().startswith(low)][:MAX_SUGGESTIONS]


# -- the parameters prdigest's commands use -------------------------------------------------------


def _period(word: str, scope: Scope) -> Any:
    return parse_period(word, scope.now, scope.timezone)


def _period_suggestions(scope: Scope, prefix: str) -> list[str]:
    """``week``, ``last-week`` and the ISO weeks of the last quarter, newest first."""
    zone = ZoneInfo(scope.timezone)
    weeks = [week_of(scope.now - timedelta(weeks=k), zone).label for k in range(13)]
    return ["week", "last-week", *dict.fromkeys(weeks)]


def period(*, trailing: bool = False, default: str | None = "week") -> Param:
    """``[PERIOD]``; without one the command covers the last 7 days, or with ``default=None``
    (search) the whole cache: the help says which."""
    if default not in ("week", None):
        raise ValueError(f"period default {default!r}: help describes only week or None")
    return Param(
        name="period",
        metavar="PERIOD",
        help="param.period" if default == "week" else "param.period_all",
        trailing=trailing,
        default=default,
        claims=is_period,
        parse=_period,
        suggest=_period_suggestions,
    )


def _module(word: str, scope: Scope) -> str:
    module = scope.profile.resolve_module(word)
    if module is not None:
        return module
    if is_period(word):
        raise UsageError("error.second_period", word=quoted(word))
    known = ", ".join(list(scope.profile.modules)[:12])
    raise UsageError("error.module", word=quoted(word), known=known)


def _module_names(scope: Scope, prefix: str) -> list[str]:
    return list(scope.profile.modules)


def _module_list(scope: Scope, lang: str) -> str:
    sep = "、" if lang == "zh" else ", "
    return t(lang, "help.modules", profile=scope.profile.name, modules=sep.join(scope.profile.modules))


def modules(*, claims: Callable[[str], bool] = lambda word: True) -> Param:
    """Module names; ``claims`` leaves words to parameters declared after it (``digest``'s flags)."""
    return Param(
        name="modules",
        metavar="MODULE",
        help="param.modules",
        many=True,
        claims=claims,
        parse=_module,
        suggest=_module_names,
        extra=_module_list,
    )


def _kind(word: str, scope: Scope) -> str:
    kind = word.lower()
    if kind in RISK_KINDS:
        return kind
    raise UsageError("error.risk_kind", word=quoted(word), kinds=", ".join(RISK_KINDS))


RISK_KINDS = (*FLAG_KINDS, "all")


def risk_kind() -> Param:
    return Param(
        name="kind",
        metavar="KIND",
        help="param.kind",
        default="all",
        choices=RISK_KINDS,
        claims=lambda word: not is_period(word),
        parse=_kind,
    )


MATCH_MODES = ("any", "all", "only")


def _match_word(word: str) -> bool:
    return word.lower().removeprefix("match:") in MATCH_MODES


def _match(word: str, scope: Scope) -> str:
    mode = word.lower().removeprefix("match:")
    if mode in MATCH_MODES:
        return mode
    raise UsageError("error.match", word=quoted(word), modes=", ".join(MATCH_MODES))


def match() -> Param:
    """How the module list filters (``any``, ``all``, ``only``); typed as a word (``all`` or
    ``match:all``) or, on Discord, a choice."""
    return Param(
        name="match",
        metavar="any|all|only",
        help="param.match",
        default="any",
        choices=MATCH_MODES,
        claims=_match_word,
        parse=_match,
    )


def _flag_word(word: str) -> bool:
    return word.lower() in FLAG_KINDS


def not_a_filter_word(word: str) -> bool:
    """Words that are modules rather than a match mode or a flag."""
    return not (_match_word(word) or _flag_word(word))


def _flag(word: str, scope: Scope) -> str:
    kind = word.lower()
    if kind in FLAG_KINDS:
        return kind
    raise UsageError("error.risk_kind", word=quoted(word), kinds=", ".join(FLAG_KINDS))


def flag_filter() -> Param:
    """Risk flags whose PRs a digest also includes (``core-path``, ``breaking``, …)."""
    return Param(
        name="flags",
        metavar="FLAG",
        help="param.flags",
        many=True,
        claims=_flag_word,
        parse=_flag,
        suggest=lambda scope, prefix: list(FLAG_KINDS),
    )


def parse_pr(word: str, scope: Scope | None = None) -> PRTarget:
    """A PR number (``42121``, ``#42121``) or URL (which also names the repository)."""
    text = word.strip()
    repo: str | None = None
    m = _PR_URL.match(text)
    if m:
        repo, text = m.group(1), m.group(2)
    text = text.removeprefix("#")
    if not text.isdigit():
        raise UsageError("error.pr_number", word=quoted(word))
    number = int(text)
    if number <= 0 or number > MAX_PR_NUMBER:
        shown = text if len(text) <= 20 else f"{text[:12]}… ({len(text)} digits)"
        raise UsageError("error.pr_range", word=shown, limit=f"{MAX_PR_NUMBER:,}")
    return PRTarget(number, repo)


def pr_number() -> Param:
    return Param(
        name="number",
        metavar="NUMBER|URL",
        help="param.pr",
        kind="integer",
        required=True,
        parse=parse_pr,
        missing="error.pr_missing",
    )


def words() -> Param:
    return Param(
        name="words", metavar="WORDS", help="param.words", required=True, many=True, missing="error.no_words"
    )


def _command(word: str, scope: Scope) -> str:
    name = word.lower().lstrip("/")
    if name in scope.commands:
        return name
    raise UsageError("error.command", word=quoted(word), known=", ".join(sorted(scope.commands)))


def command_name() -> Param:
    return Param(
        name="command",
        metavar="COMMAND",
        help="param.command",
        parse=_command,
        suggest=lambda scope, prefix: sorted(scope.commands),
    )


def _repo(word: str, scope: Scope) -> str:
    if not _REPO.match(word):
        raise UsageError("error.repo", word=quoted(word))
    return word


def repo() -> Param:
    """The repository, where the cache holds several (chat: Discord's option; CLI: ``--repo``)."""
    return Param(
        name="repo",
        metavar="OWNER/NAME",
        help="param.repo",
        option=True,
        surfaces=frozenset({"cli", "discord"}),
        parse=_repo,
        suggest=lambda scope, prefix: list(scope.repos),
        sets="repo",
    )


MAX_PAGE = 1000


def _page(word: str, scope: Scope) -> int:
    text = word.removeprefix("page=")
    if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= MAX_PAGE:
        raise UsageError("error.page", word=quoted(word), limit=MAX_PAGE)
    return int(text)


def page() -> Param:
    """Which page of a long answer: ``page=2`` in chat, ``--page 2`` in a terminal."""
    return Param(
        name="page",
        metavar="N",
        help="param.page",
        kind="integer",
        named=True,
        claims=lambda word: word.lower().startswith("page="),
        parse=_page,
    )


PROSE_WORDS = ("on", "off")


def is_prose_word(word: str) -> bool:
    """``prose=on`` / ``prose=off`` (another parameter must not claim it)."""
    return word.lower() in ("prose=on", "prose=off")


def _prose(word: str, scope: Scope) -> str:
    value = word.lower().removeprefix("prose=")
    if value in PROSE_WORDS:
        return value
    raise UsageError("error.prose", word=quoted(word))


def prose() -> Param:
    """``prose=off``: the digest in computed text only, even where a language model is configured
    to word it (``bot.prose``). Not listed in usage lines and help: it means something only
    where a model is configured, and the docs of that feature say it (``docs/prose.md``)."""
    return Param(
        name="prose",
        metavar="prose=off",
        help="param.prose",
        default="on",
        choices=PROSE_WORDS,
        claims=is_prose_word,
        parse=_prose,
        listed=False,
    )


def public() -> Param:
    """Chat only: answer in the channel for everyone instead of privately."""
    return Param(
        name="public", metavar="public", help="param.public", kind="boolean", flag=True, surfaces=CHAT
    )


def for_surface(params: Sequence[Param], surface: Surface) -> list[Param]:
    return [p for p in params if surface in p.surfaces]


def listed(params: Sequence[Param], surface: Surface) -> list[Param]:
    """The parameters usage lines and help show where ``surface`` is (``Param.listed``)."""
    return [p for p in for_surface(params, surface) if p.listed]


def bare_metavar(param: Param) -> str:
    """The metavar without the option's own name: a ``key=value`` word's ``WHEN`` of ``at=WHEN``
    (a typed front end names the option already: ``at:WHEN``, never ``at:at=WHEN``)."""
    return param.metavar.removeprefix(f"{param.name}=")


def typed_words(params: Sequence[Param], words: Sequence[str]) -> list[str]:
    """Words as a typed front end (Discord) takes them: ``period:2026-W19 modules:rocm,kernel``
    for ``2026-W19 rocm kernel``; a ``key=value`` word gives its value to its option. Words no
    parameter claims are left as they are."""
    try:
        assigned = assign(params, words)
    except UsageError:
        return list(words)
    out = []
    for p in params:
        given = [w.removeprefix(f"{p.name}=") for w in assigned.get(p.name, [])]
        if given:
            value = ",".join(given) if p.many and p.suggest is not None else " ".join(given)
            out.append(f"{p.name}:{value}")
    return out


def typed_usage(param: Param) -> str:
    """How a typed front end (Discord) shows an option: ``[period:PERIOD]``, ``number:NUMBER``,
    ``[modules:MODULE,…]`` (several, comma-separated), ``words:WORDS…``, ``[public:True]``."""
    if param.flag:
        text = f"{param.name}:True"
    else:
        metavar = "NUMBER" if param.kind == "integer" else bare_metavar(param)
        # several values: comma-separated where autocomplete builds the list (modules), else words
        several = ",…" if param.suggest is not None else "…"
        text = f"{param.name}:{metavar}" + (several if param.many else "")
    return text if param.required else f"[{text}]"


def usage_line(name: str, params: Sequence[Param], surface: Surface) -> str:
    """``digest [PERIOD] [MODULE…]`` (Slack adds ``[public]``; the CLI lists its options itself);
    on Discord every option by name: ``digest [period:PERIOD] [modules:MODULE,…] …``."""
    if surface == "discord":
        return " ".join([name, *(typed_usage(p) for p in listed(params, surface))])
    shown = [p.usage() for p in listed(params, surface) if not (p.option or (p.named and surface == "cli"))]
    return " ".join([name, *shown])
