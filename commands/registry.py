"""One registry of commands shared by every front end.

Each command is a function ``(Invocation, Context) -> Reply`` registered with ``@command``.
The CLI generates its subcommands from this registry and the chat adapters dispatch to it, so
argument parsing, usage messages and help text exist once.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

from classify.rules import Profile
from commands.model import Invocation, Reply, UsageError
from storage.prs import PRStore

Handler = Callable[[Invocation, "Context"], Reply]

MAX_ARGUMENT_CHARS = 500


@dataclass
class Context:
    """What a command may use: the cache and the active rule profile."""

    store: PRStore
    profile: Profile

    def resolve_repo(self, inv: Invocation, *, cached: bool = True) -> str:
        """The repository to answer about: the invocation's, else the only one in the cache.

        With ``cached`` (every command but ``pr``, which may fetch a PR on demand) a repository the
        cache does not hold is refused, naming the ones it holds: an empty report about a
        misspelt name would read as "nothing happened there".
        """
        repos = self.store.repos()
        if inv.repo:
            if not cached:
                return inv.repo
            same = [r for r in repos if r.lower() == inv.repo.lower()]
            if same:
                return same[0]
            if not repos:
                raise UsageError(
                    f"the cache holds no PRs of {inv.repo[:100]}: run `prdigest sync --repo {inv.repo[:100]}` first"
                )
            raise UsageError(
                f"the cache holds no PRs of {inv.repo[:100]}; it holds {', '.join(repos)} "
                f"(`prdigest sync --repo {inv.repo[:100]}` fetches it)"
            )
        if len(repos) == 1:
            return repos[0]
        if not repos:
            raise UsageError(
                "the cache is empty: run `prdigest demo`, `prdigest import FILE` or `prdigest sync` first"
            )
        raise UsageError(
            f"the cache holds several repositories ({', '.join(repos)}); choose one with --repo OWNER/NAME"
        )


@dataclass(frozen=True)
class CommandSpec:
    name: str
    usage: str
    summary: dict[str, str]
    handler: Handler
    examples: tuple[str, ...] = ()
    admin_only: bool = False
    details: dict[str, str] = field(default_factory=dict)


REGISTRY: dict[str, CommandSpec] = {}


def command(
    name: str,
    *,
    usage: str,
    summary: dict[str, str],
    examples: tuple[str, ...] = (),
    admin_only: bool = False,
    details: dict[str, str] | None = None,
) -> Callable[[Handler], Handler]:
    """Register a command; ``summary``/``details`` hold one string per language (en, zh)."""

    def register(fn: Handler) -> Handler:
        if name in REGISTRY:
            raise ValueError(f"command {name!r} registered twice")
        REGISTRY[name] = CommandSpec(name, usage, summary, fn, examples, admin_only, details or {})
        return fn

    return register


def split_args(text: str) -> tuple[str, ...]:
    """Split chat text into words the way a shell would, forgiving an unbalanced quote."""
    if len(text) > MAX_ARGUMENT_CHARS:
        raise UsageError(f"arguments are too long ({len(text)} characters; at most {MAX_ARGUMENT_CHARS})")
    try:
        return tuple(shlex.split(text))
    except ValueError:
        return tuple(text.replace('"', " ").replace("'", " ").split())


def load_all() -> None:
    """Import every command module so that its ``@command`` runs (idempotent)."""
    from commands import digest, help, pr, risks, search  # noqa: F401


def dispatch(inv: Invocation, ctx: Context) -> Reply:
    """Run ``inv`` and always return a Reply: bad input becomes a one-line usage answer."""
    load_all()
    spec = REGISTRY.get(inv.command)
    if spec is None:
        known = ", ".join(sorted(REGISTRY))
        return Reply.usage(inv.command or "?", f"unknown command {inv.command!r}; commands are: {known}")
    if spec.admin_only and not inv.is_admin:
        return Reply.usage(spec.name, f"{spec.name} is for workspace admins only")
    try:
        return spec.handler(inv, ctx)
    except UsageError as exc:
        return Reply.usage(spec.name, f"{exc} — usage: {spec.usage}")
