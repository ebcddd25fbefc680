"""``digest [PERIOD] [MODULE…] [FLAG…] [any|all|only]``: the weekly report, computed from the cache."""

from __future__ import annotations

from functools import partial

from classify.periods import Period
from commands import params as P
from commands.cache_range import cache_range
from commands.common import profile_line, profile_note
from commands.context import Context
from commands.locale import t
from commands.locale.words import join_list, period_text, tn
from commands.model import Block, Invocation, Paragraph, Reply, UsageError
from commands.spec import command, program, typed
from storage.prs import TagFilter


@command(
    "digest",
    params=(
        P.period(),
        P.modules(claims=lambda word: P.not_a_filter_word(word) and not P.is_prose_word(word)),
        P.flag_filter(),
        P.match(),
        P.repo(),
        P.prose(),
    ),
    summary="cmd.digest",
    examples=(
        "digest",
        "digest last-week",
        "digest 2026-W19 rocm",
        "digest 2026-05-04..2026-05-10",
        "digest last-week rocm core-path",
        "digest last-week rocm kernel all",
    ),
    charted=True,
)
def run(
    inv: Invocation,
    ctx: Context,
    *,
    period: Period,
    match: str,
    flags: list[str],
    modules: list[str],
    prose: str = "on",
) -> Reply:
    """The digest of ``period``; ``modules`` (with ``match``) and ``flags`` narrow it to the PRs a
    filtered subscription gets: those passing the module filter or carrying one of the flags.
    ``prose=off`` leaves out what a language model could word (``Reply.prose``)."""
    repo = ctx.resolve_repo(inv)
    ctx = ctx.for_repo(repo)
    if match != "any" and not modules:
        example = typed(inv, "digest", "last-week", "rocm", "kernel", match)
        raise UsageError("error.match_needs_modules", mode=match, example=example)
    from commands.report.compose import compose  # imported when a digest is asked for
    from commands.report.stats import gather

    flt = TagFilter(tuple(modules), match, tuple(flags))
    closed_at = inv.now if ctx.stored_storylines else None  # closed periods' storylines kept in the cache
    stats = gather(ctx.store, ctx.profile, repo, period, flt, closed_at=closed_at)
    reply = compose(stats, ctx.profile, inv.lang, partial(typed, inv))
    note = profile_note(ctx, repo, period.start, period.end, inv.lang, program(inv))
    if not stats.prs:
        reply.blocks = _empty(ctx, inv, repo, period, stats.merged_overall, modules)
        reply.sections = []
    if not stats.prs or prose == "off":
        reply.prose = None
    if note is not None:
        reply.blocks.insert(0, note)
        reply.data_source.update({"profile_note": note.text})  # keeps the JSON form deferred
    said = profile_line(ctx, ctx.profile.name, ctx.profile.version, repo, inv.lang, digest=True)
    if said:  # a profile prdigest chose (learned, or generic for now) says so at the end
        (reply.sections[-1].blocks if reply.sections else reply.blocks).append(Paragraph(text=said))
        reply.data_source.update({"profile": said})
    return reply


def _empty(
    ctx: Context, inv: Invocation, repo: str, period: Period, overall: int | None, modules: list[str]
) -> list[Block]:
    """What an empty digest says: nothing in the filtered modules (and what there is), or
    nothing at all in the period (and where the cache's data is)."""
    lang = inv.lang
    if modules and overall:
        names = ", ".join(ctx.profile.module_label(m, lang) for m in modules)
        text = tn(
            lang,
            "digest.empty_filter",
            overall,
            modules=names,
            period=period_text(period, lang),
            overall=overall,
        )
        blocks: list[Block] = [Paragraph(text=text)]
        present = ctx.store.tag_counts(repo, "module", period.start, period.end)
        top = sorted(present, key=lambda m: (-present[m], m))[:6]
        if top:
            word = period.label if period.kind in ("iso-week", "range") else "week"
            listed = join_list([t(lang, "digest.module_count", module=m, n=present[m]) for m in top], lang)
            blocks.append(
                Paragraph(
                    text=t(
                        lang,
                        "digest.empty_modules",
                        period=period_text(period, lang),
                        modules=listed,
                        command=typed(inv, "digest", word, "MODULE"),
                    )
                )
            )
        return blocks
    blocks = [Paragraph(text=t(lang, "digest.empty", period=period_text(period, lang)))]
    outside = cache_range(ctx, inv, repo, period, always=True)
    if outside is not None:
        blocks.append(outside)
    return blocks
