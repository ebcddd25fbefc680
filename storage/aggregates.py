"""Write-time aggregates: what a digest compares its period with, counted when PRs are written.

A digest compares its period with the four windows before it: how many PRs were merged, how many
touched each module and carried each flag, and how often each title topic appeared (theme
novelty). Counting that from the rows at every read cost a scan of ~1,000 PRs and the topic keys
of ~2,500 titles per digest. ``pr_aggregates`` keeps those counts per repository, key and
**quarter-hour bucket of the UTC merge time**: every time zone's midnight is a multiple of 15
minutes from UTC, so the weeks, days and ranges of any zone are whole runs of buckets, and a
window's count is one indexed range read per key. Rows are keyed ``(repo, key, bucket)``, so a
digest reads only the keys it asks about (its own topics), not every key of four weeks.

Keys: ``merged``; ``module:NAME`` and ``flag:KIND`` (from ``pr_tags``: the stored classification);
``title:TOPIC`` (``tag:…``, ``module:…``, ``word:…``: the theme code's title topics). Title topics
depend on the rule profile's vocabulary, so they are written by a ``TitleKeyer`` that carries the
profile's content hash as its ``stamp``; ``aggregate_state`` records the stamp per repository and
a reader whose profile has another hash does not use them (it counts from titles, as before).

``refresh_aggregates`` is the one function every write path calls with the buckets its write
touched (the old and the new merge time of an updated PR): it recounts exactly those buckets,
set-based, from ``prs`` and ``pr_tags``, inside the writer's transaction.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from storage.write_now import connection

if TYPE_CHECKING:  # imported by storage.prs, which `prdigest --help` loads: no SQLite at import
    import sqlite3

    from storage.connection import Cache

BUCKET_MINUTES = 15
# the quarter-hour a stored merge time (``YYYY-MM-DDTHH:MM:SSZ``) falls in, as ``YYYY-MM-DDTHH:MM``
BUCKET_SQL = "substr({col}, 1, 14) || printf('%02d', (CAST(substr({col}, 15, 2) AS INTEGER) / 15) * 15)"
TITLE = "title:"
_CHUNK = 500
_COMPOUND = 100  # windows per statement (SQLite allows 500 SELECTs in one compound)


class TitleKeyer(Protocol):
    """A title's topic keys under one profile; ``stamp`` is that profile's content hash."""

    @property
    def stamp(self) -> str: ...

    def __call__(self, title: str) -> Iterable[str]: ...


def bucket_of(merged_at: str) -> str:
    """The bucket of a stored merge time (see ``BUCKET_SQL``)."""
    return f"{merged_at[:14]}{int(merged_at[14:16]) // BUCKET_MINUTES * BUCKET_MINUTES:02d}"


def _stamp(moment: datetime) -> str:
    """A moment as stored merge times are written (``storage.prs.iso``: UTC, whole seconds)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class Split:
    """A range [start, end) as whole buckets [lo, hi) plus the partial quarter-hours at its ends
    (``edges``, as stored-time ranges), which are counted from the rows: a rolling "last 7 days"
    ends at the current second, and a zone's midnight is a quarter-hour of UTC."""

    lo: str
    hi: str
    edges: tuple[tuple[str, str], ...]


def split(start: datetime, end: datetime) -> Split:
    first, last = start.astimezone(UTC).replace(microsecond=0), end.astimezone(UTC).replace(microsecond=0)
    step = timedelta(minutes=BUCKET_MINUTES)
    floor_end = last.replace(second=0) - timedelta(minutes=last.minute % BUCKET_MINUTES)
    ceil_start = first.replace(second=0) - timedelta(minutes=first.minute % BUCKET_MINUTES)
    if ceil_start < first:
        ceil_start += step
    if ceil_start >= floor_end:  # no whole bucket inside: all of it from the rows
        return Split("", "", ((_stamp(first), _stamp(last)),) if first < last else ())
    edges = []
    if first < ceil_start:
        edges.append((_stamp(first), _stamp(ceil_start)))
    if floor_end < last:
        edges.append((_stamp(floor_end), _stamp(last)))
    return Split(ceil_start.strftime("%Y-%m-%dT%H:%M"), floor_end.strftime("%Y-%m-%dT%H:%M"), tuple(edges))


# -- writing ---------------------------------------------------------------------------------------


def _bucket_table(conn: sqlite3.Connection, buckets: Iterable[str]) -> None:
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS _agg_buckets (bucket TEXT PRIMARY KEY, lo TEXT, hi TEXT)")
    conn.execute("DELETE FROM _agg_buckets")
    rows = []
    for b in set(buckets):
        minute = int(b[14:16]) + BUCKET_MINUTES
        hi = b[:14] + f"{minute:02d}" if minute < 60 else None
        rows.append((b, b + ":00Z", (hi + ":00Z") if hi else b[:14] + "60:00Z"))  # ":60" sorts after ":59"
    conn.executemany("INSERT INTO _agg_buckets VALUES (?, ?, ?)", rows)


def refresh_aggregates(
    db: Cache | sqlite3.Connection,
    repo: str,
    buckets: Iterable[str] | None = None,
    *,
    title_keys: TitleKeyer | None = None,
    titles: bool = True,
) -> None:
    """Recount the aggregates of ``repo`` in ``buckets`` (all of the repository's when None).

    ``titles=False``: the write changed no title and no merge time (a reclassify), so the title
    topics of those buckets are kept as they are and only the other counts are redone.

    Call it inside the write transaction that changed ``prs``/``pr_tags``, with the buckets of
    every merge time it wrote or removed (``bucket_of``). Counts are rebuilt from the rows with
    three set-based statements; title topics need ``title_keys`` (the writer's profile): without
    it, or when the repository's topics were counted by another profile, the topic counts of the
    whole repository are recounted with it, or (no keyer) marked unusable until a writer with one
    comes (``prdigest reclassify`` recounts them).
    """
    conn = connection(db)
    everything = buckets is None
    source, tags = _sources(conn, repo, buckets, titles)
    p_bucket = BUCKET_SQL.format(col="p.merged_at")
    t_bucket = BUCKET_SQL.format(col="t.merged_at")
    conn.execute(
        f"INSERT INTO pr_aggregates (repo, key, bucket, n) SELECT :repo, 'merged', {p_bucket}, count(*) "
        f"FROM {source} GROUP BY 3",
        {"repo": repo},
    )
    conn.execute(
        f"INSERT INTO pr_aggregates (repo, key, bucket, n) SELECT :repo, t.tag_type || ':' || t.tag, "
        f"{t_bucket}, count(*) FROM {tags} GROUP BY 2, 3",
        {"repo": repo},
    )
    conn.execute(
        f"INSERT OR IGNORE INTO aggregate_keys (repo, key) SELECT DISTINCT :repo, t.tag_type || ':' || t.tag FROM {tags}",
        {"repo": repo},
    )
    stamp = terms_stamp(conn, repo)
    if not everything and not titles and (title_keys is None or stamp == title_keys.stamp):
        return  # the buckets' title topics are still right (or, without a stamp, still unused)
    if title_keys is None:
        if stamp:
            conn.execute(
                "DELETE FROM pr_aggregates WHERE repo = ? AND key >= 'title:' AND key < 'title;'", (repo,)
            )
            _set_stamp(conn, repo, "")
        return
    if not everything and stamp != title_keys.stamp:
        # counted by another profile (or never): recount the whole repository
        conn.execute(
            "DELETE FROM pr_aggregates WHERE repo = ? AND key >= 'title:' AND key < 'title;'", (repo,)
        )
        source = "prs p WHERE p.repo = :repo"
    _count_titles(conn, repo, source, title_keys)


def _sources(
    conn: sqlite3.Connection, repo: str, buckets: Iterable[str] | None, titles: bool
) -> tuple[str, str]:
    """Delete the counts about to be redone and say where their rows come from: (the PRs, their
    tags) as SQL ``FROM`` clauses — the whole repository, or the buckets a write touched."""
    if buckets is None:
        conn.execute("DELETE FROM pr_aggregates WHERE repo = ?", (repo,))
        return "prs p WHERE p.repo = :repo", "pr_tags t WHERE t.repo = :repo"
    _bucket_table(conn, buckets)
    # every key of those buckets (but their title topics when they stay), found through
    # idx_pr_aggregates_bucket
    keep = "" if titles else " AND (key < 'title:' OR key >= 'title;')"
    conn.execute(
        "DELETE FROM pr_aggregates WHERE repo = :repo AND bucket IN (SELECT bucket FROM _agg_buckets)" + keep,
        {"repo": repo},
    )
    # CROSS JOIN: SQLite keeps this order (the few touched buckets first, then their rows)
    source = (
        "_agg_buckets b CROSS JOIN prs p ON p.repo = :repo AND p.merged_at >= b.lo AND p.merged_at < b.hi"
    )
    # pr_tags has no (repo, merged_at) index: reach a bucket's tags through its PRs
    tags = (
        "_agg_buckets b CROSS JOIN prs p ON p.repo = :repo AND p.merged_at >= b.lo AND p.merged_at < b.hi "
        "CROSS JOIN pr_tags t ON t.repo = p.repo AND t.number = p.number"
    )
    return source, tags


def _count_titles(conn: sqlite3.Connection, repo: str, source: str, title_keys: TitleKeyer) -> None:
    """Count the title topics of the PRs ``source`` selects, and stamp them with the keyer's profile."""
    p_bucket = BUCKET_SQL.format(col="p.merged_at")
    rows = conn.execute(f"SELECT {p_bucket}, p.title FROM {source}", {"repo": repo})
    counts: Counter[tuple[str, str]] = Counter()
    for bucket, title in rows:
        for key in title_keys(title):
            counts[(TITLE + key, bucket)] += 1
    conn.executemany(
        "INSERT INTO pr_aggregates (repo, key, bucket, n) VALUES (?, ?, ?, ?)",
        ((repo, key, bucket, n) for (key, bucket), n in counts.items()),
    )
    _set_stamp(conn, repo, title_keys.stamp)


def terms_stamp(db: Cache | sqlite3.Connection, repo: str) -> str:
    """The profile content hash the repository's title topics were counted with ("" if none)."""
    row = connection(db).execute("SELECT terms_stamp FROM aggregate_state WHERE repo = ?", (repo,)).fetchone()
    return str(row[0]) if row else ""


def _set_stamp(conn: sqlite3.Connection, repo: str, stamp: str) -> None:
    conn.execute(
        "INSERT INTO aggregate_state (repo, terms_stamp) VALUES (?, ?) "
        "ON CONFLICT (repo) DO UPDATE SET terms_stamp = excluded.terms_stamp",
        (repo, stamp),
    )


def refresh_all(db: Cache | sqlite3.Connection, title_keys: TitleKeyer | None = None) -> None:
    """Recount every repository (migration, a repair)."""
    conn = connection(db)
    for (repo,) in conn.execute("SELECT DISTINCT repo FROM prs").fetchall():
        refresh_aggregates(conn, repo, None, title_keys=title_keys)


# -- reading ---------------------------------------------------------------------------------------


def window_counts(
    db: Cache | sqlite3.Connection,
    repo: str,
    windows: Sequence[tuple[datetime, datetime]],
    prefix: str,
) -> list[dict[str, int]] | None:
    """Per window, the count of every key starting with ``prefix`` (``module:``, ``flag:``; the
    prefix is cut off) or of ``merged`` (prefix ``merged``): whole buckets from the aggregates,
    partial quarter-hours at a window's ends from the rows."""
    splits = [split(s, e) for s, e in windows]
    conn = connection(db)
    out: list[dict[str, int]] = [{} for _ in splits]
    for i, part in enumerate(splits):
        for lo, hi in part.edges:
            _count_edge(conn, repo, lo, hi, prefix, out[i])
    bounds = [(p.lo, p.hi) for p in splits]
    if not any(lo for lo, _ in bounds):
        for counts in out if prefix == "merged" else ():
            counts.setdefault("merged", 0)
        return out
    if prefix == "merged":
        keys, key_params = "key = 'merged'", []
    else:  # the repository's keys of that kind, each read as one range of the primary key
        upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        keys = "key IN (SELECT key FROM aggregate_keys WHERE repo = ? AND key >= ? AND key < ?)"
        key_params = [repo, prefix, upper]
    # one SELECT per window, joined: each reads its keys' ranges in key order and sums them as
    # they stream (labelling the rows of one range scan by window needed a sort: ~3x the time)
    whole = [(i, lo, hi) for i, (lo, hi) in enumerate(bounds) if lo]
    rows: list[tuple[int, str, int]] = []
    for at in range(0, len(whole), _COMPOUND):
        chunk = whole[at : at + _COMPOUND]
        sql = " UNION ALL ".join(
            f"SELECT {i}, key, sum(n) FROM pr_aggregates WHERE repo = ? AND {keys} "
            "AND bucket >= ? AND bucket < ? GROUP BY key"
            for i, _, _ in chunk
        )
        rows += conn.execute(sql, [p for _, lo, hi in chunk for p in (repo, *key_params, lo, hi)]).fetchall()
    cut = 0 if prefix == "merged" else len(prefix)
    for w, key, n in rows:
        if n:
            name = str(key)[cut:]
            out[w][name] = out[w].get(name, 0) + int(n)
    if prefix == "merged":
        for counts in out:
            counts.setdefault("merged", 0)
    return out


def _count_edge(
    conn: sqlite3.Connection, repo: str, lo: str, hi: str, prefix: str, into: dict[str, int]
) -> None:
    """Add the counts of the PRs merged in [lo, hi) (less than a quarter-hour) read from the rows."""
    if prefix == "merged":
        row = conn.execute(
            "SELECT count(*) FROM prs WHERE repo = ? AND merged_at >= ? AND merged_at < ?", (repo, lo, hi)
        ).fetchone()
        if row[0]:
            into["merged"] = into.get("merged", 0) + int(row[0])
        return
    rows = conn.execute(
        "SELECT t.tag, count(*) FROM prs p CROSS JOIN pr_tags t ON t.repo = p.repo AND t.number = p.number "
        "WHERE p.repo = ? AND p.merged_at >= ? AND p.merged_at < ? AND t.tag_type = ? GROUP BY t.tag",
        (repo, lo, hi, prefix.rstrip(":")),
    ).fetchall()
    for tag, n in rows:
        into[str(tag)] = into.get(str(tag), 0) + int(n)


class TitleCounts:
    """How many titles of some windows carry each topic key, read from ``pr_aggregates`` on demand.

    ``fetch`` reads many keys in one statement (a digest's candidate topics); a key asked for
    later is read then. ``prs``/``with_data`` are the windows' title totals. The titles of the
    partial quarter-hours at the windows' ends (``edge_titles``) are not in the aggregates: the
    caller counts their topics with ``count_edges``.
    """

    def __init__(
        self,
        conn: sqlite3.Connection,
        repo: str,
        bounds: Sequence[tuple[str, str]],
        merged: Sequence[int],
        edge_titles: Sequence[str] = (),
    ) -> None:
        self._conn = conn
        self._repo = repo
        self._bounds = list(bounds)
        self._lo = min((lo for lo, _ in bounds), default="")
        self._hi = max((hi for _, hi in bounds), default="")
        # consecutive windows (a week's four previous weeks) cover [lo, hi) whole: no per-row test
        ordered = sorted(self._bounds)
        self._gapless = all(a[1] == b[0] for a, b in itertools.pairwise(ordered))
        self._counts: dict[str, int] = {}
        self._extra: Counter[str] = Counter()
        self.edge_titles = list(edge_titles)
        self.windows = len(merged)
        self.with_data = sum(1 for n in merged if n)
        self.prs = sum(merged)

    def count_edges(self, keys: Callable[[str], Iterable[str]]) -> None:
        """Add the topics of the edge titles, as ``keys`` reads a title (the profile's vocabulary)."""
        for title in self.edge_titles:
            self._extra.update(keys(title))
        self.edge_titles = []

    def fetch(self, keys: Iterable[str]) -> None:
        wanted = sorted({k for k in keys if k not in self._counts})
        for k in wanted:
            self._counts[k] = 0
        if not wanted or not self.prs or not self._bounds:
            return
        for i in range(0, len(wanted), _CHUNK):
            chunk = [TITLE + k for k in wanted[i : i + _CHUNK]]
            marks = ",".join("?" * len(chunk))
            ranges = (
                "" if self._gapless else " OR ".join("(bucket >= ? AND bucket < ?)" for _ in self._bounds)
            )
            rows = self._conn.execute(  # the overall range lets each key's rows be one index seek
                f"SELECT key, sum(n) FROM pr_aggregates WHERE repo = ? AND key IN ({marks}) "
                f"AND bucket >= ? AND bucket < ?{f' AND ({ranges})' if ranges else ''} GROUP BY key",
                (
                    self._repo,
                    *chunk,
                    self._lo,
                    self._hi,
                    *(() if self._gapless else (b for pair in self._bounds for b in pair)),
                ),
            ).fetchall()
            for key, n in rows:
                self._counts[str(key)[len(TITLE) :]] = int(n)

    def __getitem__(self, key: str) -> int:
        if key not in self._counts:
            self.fetch((key,))
        return self._counts[key] + self._extra[key]


def title_counts(
    db: Cache | sqlite3.Connection,
    repo: str,
    windows: Sequence[tuple[datetime, datetime]],
    stamp: str,
    merged: Sequence[int],
) -> TitleCounts | None:
    """The windows' title-topic counts when they are stored for the profile ``stamp``, else None
    (count from the titles). The titles of partial quarter-hours come along as ``edge_titles``."""
    if not stamp or terms_stamp(db, repo) != stamp:
        return None
    conn = connection(db)
    splits = [split(s, e) for s, e in windows]
    edges = [
        str(title)
        for part in splits
        for lo, hi in part.edges
        for (title,) in conn.execute(
            "SELECT title FROM prs WHERE repo = ? AND merged_at >= ? AND merged_at < ?", (repo, lo, hi)
        )
    ]
    return TitleCounts(conn, repo, [(p.lo, p.hi) for p in splits if p.lo], merged, edges)
