"""``prdigest profile learn``: a rule profile learned from the cached history of a repository.

It prints the learned profile (commented TOML a team can read and edit), writes it to a new file
(``--out``: never over an existing one), or says what it would change against the profile in use
(``--diff``). With ``--git CLONE`` it also reads the clone's tree and CODEOWNERS (core paths come
from there only). Nothing is stored: a repository without a configured profile gets its learned
profile kept in the cache at its sync or import (``bot.ingest.learn``).
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import click

from bot.cli.main import _say, _settings, _store, prs
from bot.config.errors import UserError


@click.group("profile")
def profile_group() -> None:
    """Rule profiles: learn one from a repository's cached history."""


@profile_group.command("learn")
@click.option(
    "--repo",
    default=None,
    metavar="OWNER/NAME",
    help="Repository (default PRDIGEST_REPO, else the only one cached).",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write it to FILE (a new file).",
)
@click.option("--diff", "show_diff", is_flag=True, help="Say what it changes against the profile in use.")
@click.option(
    "--git", "git_path", default=None, metavar="PATH", help="A clone: read its tree and CODEOWNERS too."
)
@click.option(
    "--db", type=click.Path(path_type=Path), default=None, help="SQLite cache (default PRDIGEST_DB)."
)
def learn_cmd(
    repo: str | None, out: Path | None, show_diff: bool, git_path: str | None, db: Path | None
) -> None:
    """Learn a rule profile from the cached PRs of a repository: print it, --out FILE, or --diff."""
    from bot.config.repo_profiles import MIN_LEARN_PRS, choose
    from bot.ingest.gitlog import GitError, open_repo
    from bot.ingest.learn import learn_from_cache, read_clone
    from storage.learned import read_learned

    if out is not None and out.exists():
        raise UserError(f"{out} exists: profile learn never overwrites a file; give --out a new name")
    if out is not None and not out.parent.is_dir():
        raise UserError(f"cannot write {out}: no directory {out.parent}")
    settings = _settings()
    store = _store(db or settings.prdigest_db, settings=settings)
    name = _repo(repo, settings.default_repo, store.repos())
    n = store.count(name)
    if n < MIN_LEARN_PRS:
        _say(
            f"{name}: {prs(n)} cached; the automatic learning waits for {MIN_LEARN_PRS}, so this profile may be thin"
        )
    clone = None
    if git_path is not None:
        try:
            clone = read_clone(open_repo(git_path))
        except GitError as exc:
            raise UserError(str(exc)) from None
    row = read_learned(store.db, name)
    learned = learn_from_cache(store, name, clone=clone, previous=tomllib.loads(row.toml) if row else None)
    in_use = choose(settings, name, store.db)
    store.db.close()
    if out is not None:
        out.write_text(learned.toml(), encoding="utf-8")
        modules = len(learned.data["modules"]) - 1
        click.echo(
            f"wrote {out}: {modules} modules and {len(learned.data['kinds'])} kinds learned from {prs(learned.prs)} of "
            f"{name}; use it with PRDIGEST_REPO_PROFILES={name}={out} (or PRDIGEST_RULES={out}), then prdigest reclassify"
        )
    if show_diff:
        _print_diff(learned.data, in_use.profile, name)
    elif out is None:
        click.echo(learned.toml(), nl=False)
    for note in learned.notes:
        _say(f"not learned: {note}")


def _repo(given: str | None, default: str | None, cached: list[str]) -> str:
    wanted = given or default
    if wanted:
        same = [r for r in cached if r.lower() == wanted.lower()]
        if not same:
            raise UserError(
                f"{wanted} has no PRs in the cache (cached: {', '.join(cached) or 'none'}); sync or import it first"
            )
        return same[0]
    if len(cached) == 1:
        return cached[0]
    if not cached:
        raise UserError("the cache holds no PRs: sync or import a repository first")
    raise UserError(
        f"the cache holds several repositories ({', '.join(cached)}): say which with --repo OWNER/NAME"
    )


def _print_diff(learned: dict[str, object], profile: object, repo: str) -> None:
    from classify.learn.diff import diff_profiles
    from classify.rules import Profile, effective_data

    assert isinstance(profile, Profile)
    current = effective_data(tomllib.loads(profile.source.read_text(encoding="utf-8")))
    lines = diff_profiles(current, learned)
    shown = f"{profile.name} {profile.version}"
    if not lines:
        click.echo(
            f"{repo}: the learned profile classifies as the profile in use ({shown}) does; nothing to change"
        )
        return
    click.echo(f"{repo}: against the profile in use ({shown}, {profile.source.name}):")
    for line in lines:
        click.echo(f"  {line}")
    sys.stdout.flush()
