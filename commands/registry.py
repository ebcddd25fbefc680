"""One registry of commands shared by every front end.

Each command is a function ``(Invocation, Context, **values) -> Reply`` registered with
``@command`` together with its typed parameters (``commands.params``). The CLI generates its
subcommands from this registry, the chat adapters dispatch to it and Discord builds its
application commands from it, so parsing, usage lines, help and the messages for bad input exist
once, in both languages.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from classify.rules import Profile
from commands.digest_cache import DigestCache
from commands.locale import t
from commands.model import Invocation, Reply, UsageError
from commands.params import Param, Parsed, Scope, Surface, parse, public, typed_words, usage_line
from storage.prs import PRStore

Handler = Callable[..., Reply]
CHAT_PLATFORMS = ("slack", "discord")


class ProfileChoice(Protocol):
    """Which profile answers for a repository and why (``bot.config.repo_profiles.Choice``)."""

    @property
    def profile(self) -> Profile: ...

    @property
    def how(self) -> str: ...

    @property
    def prs(self) -> int: ...

    @property
    def automatic(self) -> bool: ...

    @property
    def needed(self) -> int: ...


class Profiles(Protocol):
    """Each repository's profile (the front end knows the settings and the cache that choose it)."""

    def choice(self, repo: str | None) -> ProfileChoice: ...


@dataclass
class Context:
    """What a command may use: the cache and the rule profile of the repository asked about
    (``profiles`` chooses it per repository; without it ``profile`` answers for every one)."""

    store: PRStore
    profile: Profile
    digests: DigestCache | None = None
    """closed periods' digests, kept by a long-running server (``commands.digest_cache``)"""
    stored_storylines: bool = True
    """closed periods' storylines read from and stored in the cache (``commands.report.stored_themes``);
    off: found again at every digest (benchmarks, the tests that compare both)"""
    profiles: Profiles | None = None
    chosen: ProfileChoice | None = field(default=None, repr=False)
    """how ``profile`` was chosen, when ``profiles`` chose it"""

    def for_repo(self, repo: str | None) -> Context:
        """This context with the profile that answers for ``repo`` (itself without ``profiles``)."""
        if self.profiles is None:
            return self
        choice = self.profiles.choice(repo)
        if choice.profile is self.profile and self.chosen is not None:
            return self
        return replace(self, profile=choice.profile, chosen=choice)

    def guess_repo(self, inv: Invocation) -> str | None:
        """The repository an invocation is about before its words are parsed: its ``--repo``
        option, the front end's default, else the only one in the cache."""
        named = inv.options.get("repo")
        if isinstance(named, str) and named.strip():
            return named.strip()
        if inv.repo:
            return inv.repo
        repos = self.store.repos()
        return repos[0] if len(repos) == 1 else None

    def resolve_repo(self, inv: Invocation, named: str | None = None, *, cached: bool = True) -> str:
        """The repository to answer about: ``named`` (a PR URL's), else the invocation's, else
        the only one in the cache.

        A chat front end sets ``inv.allowed_repos``: any other repository is refused before
        anything is read or fetched. With ``cached`` (every command but ``pr``, which may fetch a
        PR on demand) a repository the cache does not hold is refused, naming the ones it holds:
        an empty report about a misspelt name would read as "nothing happened there".
        """
        wanted = named or inv.repo
        if inv.allowed_repos is not None and wanted:
            allowed = inv.allowed_repos or tuple(self.store.repos())
            same = [r for r in allowed if r.lower() == wanted.lower()]
            if not same:
                raise UsageError("error.repo_not_served", repo=wanted[:100], repos=", ".join(allowed) or "—")
            wanted = same[0]
        if named:
            return wanted or named
        inv = replace(inv, repo=wanted) if wanted else inv
        repos = self.store.repos()
        if inv.repo:
            if not cached:
                return inv.repo
            same = [r for r in repos if r.lower() == inv.repo.lower()]
            if same:
                return same[0]
            if not repos:
                raise UsageError("error.repo_not_cached_empty", repo=inv.repo[:100])
            raise UsageError("error.repo_not_cached", repo=inv.repo[:100], repos=", ".join(repos))
        if len(repos) == 1:
            return repos[0]
        if not repos:
            raise UsageError("error.cache_empty")
        chat = inv.platform in CHAT_PLATFORMS
        raise UsageError(
            "error.several_repos_chat" if chat else "error.several_repos", repos=", ".join(repos)
        )


@dataclass(frozen=True)
class CommandSpec:
    """A registered command: its parameters, its one-line summary (a locale key), examples.

    ``admin_only`` commands (the subscription commands to come) are refused unless the front end
    marked the invocation ``is_admin``. ``postable`` commands produce a Reply worth posting to a
    channel (``--post``). ``charted`` commands carry the numbers a chart is drawn from
    (``data["modules"]`` and ``data["counts"]``; the CLI offers ``--chart FILE.png``).
    """

    name: str
    params: tuple[Param, ...]
    summary: str
    handler: Handler
    examples: tuple[str, ...] = ()
    admin_only: bool = False
    postable: bool = True
    cli: bool = True  # False: chat only (the terminal has its own command of that name, or none)
    charted: bool = False
    cli_summary: str | None = None  # the terminal's summary key, where chat's says something a terminal lacks
    cli_examples: tuple[str, ...] | None = None  # the terminal's examples, where chat's do not work there

    def summary_for(self, surface: Surface) -> str:
        """The summary's locale key where the command is typed."""
        return self.cli_summary if surface == "cli" and self.cli_summary else self.summary

    def examples_for(self, surface: Surface) -> tuple[str, ...]:
        return self.cli_examples if surface == "cli" and self.cli_examples is not None else self.examples

    @property
    def usage(self) -> str:
        """The usage line as a terminal shows it (without the ``prdigest`` in front)."""
        return usage_line(self.name, self.params, "cli")

    def usage_for(self, surface: Surface) -> str:
        return usage_line(self.name, self.params, surface)


REGISTRY: dict[str, CommandSpec] = {}

# Which module registers each command, so a front end imports only the command it runs: a
# one-shot `prdigest pr N` does not import the digest's composition (~30 ms of its start).
# tests/commands/test_registry_modules.py checks this against what the modules register.
COMMAND_MODULES: dict[str, str] = {
    "digest": "commands.digest",
    "help": "commands.help",
    "pr": "commands.pr",
    "risks": "commands.risks",
    "search": "commands.search",
    "subscribe": "commands.subscriptions",
    "unsubscribe": "commands.subscriptions",
    "subscriptions": "commands.subscriptions",
    "preview": "commands.subscriptions",
}


def command(
    name: str,
    *,
    params: Sequence[Param] = (),
    summary: str,
    examples: tuple[str, ...] = (),
    admin_only: bool = False,
    postable: bool = True,
    cli: bool = True,
    charted: bool = False,
    cli_summary: str | None = None,
    cli_examples: tuple[str, ...] | None = None,
) -> Callable[[Handler], Handler]:
    """Register a command. Every command also takes the chat flag ``public``."""

    def register(fn: Handler) -> Handler:
        if name in REGISTRY:
            raise ValueError(f"command {name!r} registered twice")
        declared = (*params, public())
        REGISTRY[name] = CommandSpec(
            name,
            declared,
            summary,
            fn,
            examples,
            admin_only,
            postable,
            cli,
            charted,
            cli_summary=cli_summary,
            cli_examples=cli_examples,
        )
        return fn

    return register


def load_all() -> None:
    """Import every command module so that its ``@command`` runs (idempotent)."""
    from commands import digest, help, pr, risks, search, subscriptions  # noqa: F401


def specs() -> list[CommandSpec]:
    """Every command, in the registry's own order (whichever module happened to be imported first)."""
    load_all()
    rank = {name: i for i, name in enumerate(COMMAND_MODULES)}
    return sorted(REGISTRY.values(), key=lambda s: rank.get(s.name, len(rank)))


def load(name: str) -> CommandSpec | None:
    """The command ``name``, importing only its own module; None for an unknown name."""
    spec = REGISTRY.get(name)
    if spec is None and name in COMMAND_MODULES:
        import importlib

        importlib.import_module(COMMAND_MODULES[name])
        spec = REGISTRY.get(name)
    return spec


def surface(inv: Invocation) -> Surface:
    return "slack" if inv.platform == "slack" else "discord" if inv.platform == "discord" else "cli"


def how_to_type(inv: Invocation) -> str:
    """What goes before a command where it was asked: ``/digest`` in chat, ``prdigest digest`` in
    a terminal (the program as the user invoked it)."""
    return "/" if inv.platform in CHAT_PLATFORMS else f"{inv.program} "


def typed(inv: Invocation, command: str, *words: str) -> str:
    """A command as the asker types it where they asked: ``prdigest digest 2026-W19`` in a
    terminal, ``/digest 2026-W19`` in Slack, ``/digest period:2026-W19`` in Discord (whose
    commands take named options) — so a hint works when copied."""
    where = surface(inv)
    # the command's parameters are read (its module imported) only where they change the words
    spec = load(command) if where == "discord" or (where == "cli" and any("=" in w for w in words)) else None
    if where == "discord" and spec is not None:
        shown = typed_words(spec.params, words)
    else:
        shown = [_quoted_word(w) for w in words]
        if spec is not None:  # a terminal names them as options: --page 2
            shown = [_as_option(spec, w) for w in shown]
    return " ".join([how_to_type(inv) + command, *shown]).rstrip()


def _as_option(spec: CommandSpec, word: str) -> str:
    """``page=2`` as a terminal takes it, ``--page 2``, for a parameter named in chat by ``name=``."""
    name, eq, value = word.partition("=")
    if eq and any(p.named and p.name == name for p in spec.params):
        return f"--{name} {value}"
    return word


def _quoted_word(word: str) -> str:
    """A word with a space, quoted as a shell and the chat parser read it: ``at="mon 09:00"``."""
    if " " not in word:
        return word
    key, eq, value = word.partition("=")
    return f'{key}="{value}"' if eq and " " not in key else f'"{word}"'


def scope(inv: Invocation, ctx: Context, *, repos: bool = False) -> Scope:
    """What the parameter parsers may consult for ``inv`` (``repos`` costs a query)."""
    return Scope(
        now=inv.now,
        timezone=inv.timezone,
        profile=ctx.profile,
        commands=tuple(COMMAND_MODULES),
        repos=tuple(ctx.store.repos()) if repos else (),
    )


def program(inv: Invocation) -> str:
    """The terminal command for what only a terminal does (``sync``, ``reclassify``): as the user
    invoked it in a terminal; in chat the operator's ``prdigest``."""
    return inv.program if surface(inv) == "cli" else "prdigest"


def error_text(inv: Invocation, exc: UsageError) -> str:
    """A UsageError in the caller's language; the commands it names as typed where it was asked."""
    template = t("en", exc.key)  # the placeholders are the same in every language
    writers: dict[str, Callable[[], str]] = {
        "prog": lambda: program(inv),
        "help": lambda: typed(inv, "help", inv.command if inv.command in COMMAND_MODULES else ""),
        "subscribe": lambda: typed(inv, "subscribe"),
    }
    # a hint's command module is imported only when the message names it
    hints = {name: write() for name, write in writers.items() if "{" + name + "}" in template}
    return t(inv.lang, exc.key, **hints, **exc.values)


def usage_reply(inv: Invocation, exc: UsageError) -> Reply:
    """``<what was wrong> — usage: /digest [PERIOD] [MODULE…] [public]``, in the caller's language."""
    message = error_text(inv, exc)
    spec = REGISTRY.get(inv.command)
    if spec is None:
        return Reply.usage(inv.command or "?", message)
    line = how_to_type(inv) + spec.usage_for(surface(inv))
    return Reply.usage(spec.name, t(inv.lang, "usage.line", message=message, usage=line))


def parse_invocation(inv: Invocation, ctx: Context) -> tuple[CommandSpec, Invocation, Parsed]:
    """Look the command up and parse its parameters; raises UsageError."""
    spec = load(inv.command)
    if spec is None:
        load_all()
        raise UsageError(
            "error.unknown_command", word=repr(inv.command[:40]), known=", ".join(sorted(REGISTRY))
        )
    parsed = parse(spec.params, inv, scope(inv, ctx))
    if parsed.invocation:
        inv = replace(inv, **parsed.invocation)
    return spec, inv, parsed


def _parsed_for_repo(inv: Invocation, ctx: Context) -> tuple[CommandSpec, Invocation, Parsed, Context]:
    """Parse with the profile of the repository the invocation is about (a module word means
    what that repository's profile says); parsed again if the words named another repository."""
    if ctx.profiles is None or inv.command == "help":
        return (*parse_invocation(inv, ctx), ctx)
    ctx = ctx.for_repo(ctx.guess_repo(inv))
    spec, parsed_inv, parsed = parse_invocation(inv, ctx)
    if parsed_inv.repo and parsed_inv.repo != inv.repo:
        other = ctx.for_repo(parsed_inv.repo)
        if other.profile is not ctx.profile:
            ctx = other
            spec, parsed_inv, parsed = parse_invocation(inv, ctx)
    return spec, parsed_inv, parsed, ctx


def dispatch(inv: Invocation, ctx: Context) -> Reply:
    """Run ``inv`` and always return a Reply: bad input becomes a one-line usage answer."""
    wanted = load(inv.command)
    if wanted is not None and wanted.admin_only and not inv.is_admin:
        key = "error.admin_only_discord" if inv.platform == "discord" else "error.admin_only"
        reply = Reply.usage(wanted.name, t(inv.lang, key, name=wanted.name))
    else:
        try:
            spec, inv, parsed, ctx = _parsed_for_repo(inv, ctx)
            reply = spec.handler(inv, ctx, **parsed.values)
        except UsageError as exc:
            reply = usage_reply(inv, exc)
    reply.lang = inv.lang
    return reply
