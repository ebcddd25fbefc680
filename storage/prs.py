"""Reading and writing classified PRs.

Writes are idempotent upserts keyed by (repo, number): a row whose content hash is unchanged is
left alone, so importing the same PRs twice changes nothing (not even the FTS index). Data from
a richer source is never replaced by a poorer one (a git import never overwrites API data).
"""

from __future__ import annotations

import bisect
import hashlib
import heapq
import itertools
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from classify.models import (
    Classification,
    FileChange,
    Flag,
    ListedPR,
    PRHead,
    PullRequest,
    ScorePart,
    StoredPR,
)
from storage.aggregates import (
    TitleCounts,
    TitleKeyer,
    bucket_of,
    refresh_aggregates,
    terms_stamp,
    title_counts,
    window_counts,
)
from storage.storylines import bump_days, writes

if TYPE_CHECKING:  # the models and queries here are read by every command (and `prdigest --help`,
    # which imports the commands); only writes need storage.db, imported when a write happens
    import sqlite3

    from storage.connection import Cache

# Higher wins: a row from a richer source is only ever replaced by one at least as rich.
SOURCE_RANK = {"git": 0, "import": 1, "demo": 1, "api": 2}

_PR_COLUMNS = (
    "repo, number, title, body, author, created_at, merged_at, updated_at, base_branch, labels, "
    "additions, deletions, changed_files, files, url, source"
)
_CLS_COLUMNS = (
    "modules, kind, flags, score, breakdown, highlights, gist, profile, profile_version, profile_hash"
)
# What lists of PRs (digest, risks, search) read: a ``ListedPR`` (no body, files, labels, breakdown …).
_LISTED_COLUMNS = "repo, number, title, author, url, merged_at, additions, deletions, modules, kind, flags, score, highlights, gist"


def iso(value: datetime) -> str:
    """Timestamps are stored as UTC ISO-8601 text, which sorts correctly as a string."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_iso(value: str | None) -> datetime | None:
    """Inverse of ``iso`` (``fromisoformat`` reads the ``Z`` suffix and is ~30× faster than strptime)."""
    if not value:
        return None
    return datetime.fromisoformat(value)


MATCH_MODES = ("any", "all", "only")


@dataclass(frozen=True)
class TagFilter:
    """Which PRs a filtered digest keeps: those passing the module filter (``any``: a listed
    module; ``all``: every listed module; ``only``: no module outside the list) or carrying any
    listed flag. Empty: every PR. "ROCm PRs and every core-path change" is
    ``TagFilter(("rocm",), "any", ("core-path",))``."""

    modules: tuple[str, ...] = ()
    match: str = "any"
    flags: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.modules or self.flags)

    def matches(self, modules: Sequence[str], flags: Sequence[str]) -> bool:
        if not self:
            return True
        if self.modules:
            have = set(modules)
            if self.match == "all":
                hit = set(self.modules) <= have
            elif self.match == "only":
                hit = bool(have) and have <= set(self.modules)
            else:
                hit = bool(have & set(self.modules))
            if hit:
                return True
        return bool(self.flags) and bool(set(flags) & set(self.flags))


@dataclass
class UpsertCounts:
    new: int = 0
    updated: int = 0
    unchanged: int = 0
    kept_richer: int = 0

    def __iadd__(self, other: UpsertCounts) -> UpsertCounts:
        self.new += other.new
        self.updated += other.updated
        self.unchanged += other.unchanged
        self.kept_richer += other.kept_richer
        return self


# ``json.dumps`` with any non-default option builds a new encoder at every call; these are built
# once (the same options, so the same text) for the ~10 encodings a stored PR needs.
_dumps = json.JSONEncoder(ensure_ascii=False).encode
_dumps_compact = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_dumps_sorted = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=str).encode
_enc_str = json.encoder.encode_basestring  # the C string encoder json uses with ensure_ascii=False


def _file_row(f: FileChange) -> dict[str, Any]:
    """The file's fields that differ from their defaults, in declaration order (the stored form)."""
    row: dict[str, Any] = {"path": f.path}
    if f.additions:
        row["additions"] = f.additions
    if f.deletions:
        row["deletions"] = f.deletions
    if f.change_type != "modified":
        row["change_type"] = f.change_type
    if f.previous_path is not None:
        row["previous_path"] = f.previous_path
    return row


def _pr_row(pr: PullRequest) -> dict[str, Any]:
    files = [_file_row(f) for f in pr.files]
    return {
        "repo": pr.repo,
        "number": pr.number,
        "title": pr.title,
        "body": pr.body,
        "author": pr.author,
        "created_at": iso(pr.created_at) if pr.created_at else None,
        "merged_at": iso(pr.merged_at),
        "updated_at": iso(pr.updated_at) if pr.updated_at else None,
        "base_branch": pr.base_branch,
        "labels": _str_list(pr.labels),
        "additions": pr.additions,
        "deletions": pr.deletions,
        "changed_files": pr.changed_files or 0,
        "files": _dumps_compact(files),
        "url": pr.url,
        "source": pr.source,
    }


def _str_list(items: Sequence[str]) -> str:
    """``json.dumps(items, ensure_ascii=False)`` for a list of strings, the same text."""
    return "[" + ", ".join(map(_enc_str, items)) + "]" if items else "[]"


def _value(v: Any) -> str | None:
    """A scalar as ``json.dumps`` writes it (None when it is not one this module writes)."""
    t = type(v)
    if t is str:
        return _enc_str(v)
    if t is int:
        return int.__repr__(v)
    if t is float:
        return float.__repr__(v) if v - v == 0 else None  # NaN and the infinities: json's own words
    if v is None:
        return "null"
    return None


def _cls_row(cls: Classification) -> dict[str, Any]:
    # Every field but ``profile_hash``, in declaration order, as JSON text: the stored form (and
    # what ``cls_hash`` is computed from), so it must not change.
    # Written out by hand (same keys, same order, same text as ``json.dumps(...,
    # ensure_ascii=False)``): this runs once per PR in every reclassify, where the json encoder's
    # per-call set-up was ~8% of it (tests/storage/test_serialise.py compares the text with
    # json.dumps').
    flags = (
        "["
        + ", ".join(f'{{"kind": {_enc_str(f.kind)}, "evidence": {_str_list(f.evidence)}}}' for f in cls.flags)
        + "]"
    )
    parts: list[str] = []
    for b in cls.breakdown:
        points = _value(b.points)
        if points is None:  # not a plain number: the encoder's own text
            breakdown = _dumps(
                [
                    {"reason": x.reason, "points": x.points, "rule": x.rule, "detail": x.detail}
                    for x in cls.breakdown
                ]
            )
            break
        parts.append(
            f'{{"reason": {_enc_str(b.reason)}, "points": {points}, "rule": {_enc_str(b.rule)}, '
            f'"detail": {_enc_str(b.detail)}}}'
        )
    else:
        breakdown = "[" + ", ".join(parts) + "]"
    return {
        "modules": _str_list(cls.modules),
        "kind": cls.kind,
        "flags": flags,
        "score": cls.score,
        "breakdown": breakdown,
        "highlights": _str_list(cls.highlights),
        "gist": cls.gist,
        "profile": cls.profile,
        "profile_version": cls.profile_version,
    }


def _hash(row: dict[str, Any]) -> str:
    """blake2b of the row as ``json.dumps(row, sort_keys=True, ensure_ascii=False)`` — written out
    for rows of plain scalars (every row this module hashes), the encoder itself otherwise."""
    items: list[str] = []
    for key in sorted(row):
        text = _value(row[key])
        if text is None:  # a value of another type: the encoder's own text
            blob = _dumps_sorted(row).encode()
            break
        items.append(f"{_enc_str(key)}: {text}")
    else:
        blob = ("{" + ", ".join(items) + "}").encode()
    return hashlib.blake2b(blob, digest_size=16).hexdigest()


def _tag_rows(pr: PullRequest, cls: Classification) -> list[tuple[str, int, str, str, str]]:
    merged = iso(pr.merged_at)
    rows = [(pr.repo, pr.number, merged, "module", m) for m in dict.fromkeys(cls.modules)]
    rows += [(pr.repo, pr.number, merged, "flag", f.kind) for f in cls.flags]
    return rows


_scan_json = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # set in __init__


def _json(text: str) -> Any:
    """``json.loads`` for the compact JSON this module stores: the C scanner called directly.

    ``json.loads`` spends most of its time on wrapper work (type checks, two whitespace regex
    matches) around the scan; on the short lists stored per PR the direct call is ~3× faster,
    and a digest decodes ~3,000 of them.
    """
    try:
        return _scan_json(text, 0)[0]
    except StopIteration:
        raise ValueError(f"the cache holds malformed JSON: {text[:60]!r}") from None


def _file(f: dict[str, Any]) -> FileChange:
    return FileChange(
        path=f["path"],
        additions=f.get("additions", 0),
        deletions=f.get("deletions", 0),
        change_type=f.get("change_type", "modified"),
        previous_path=f.get("previous_path"),
    )


def _flags(text: str) -> list[Flag]:
    return [Flag(kind=f["kind"], evidence=f["evidence"]) for f in _list(text)]


def _row_to_stored(row: dict[str, Any]) -> StoredPR:
    pr = PullRequest(
        repo=row["repo"], number=row["number"], title=row["title"], body=row["body"], author=row["author"],
        created_at=parse_iso(row["created_at"]), merged_at=_merged(row["merged_at"]),
        updated_at=parse_iso(row["updated_at"]), base_branch=row["base_branch"], labels=_json(row["labels"]),
        additions=row["additions"], deletions=row["deletions"], files=[_file(f) for f in _json(row["files"])],
        changed_files=row["changed_files"], url=row["url"], source=row["source"],
    )  # fmt: skip
    breakdown = [
        ScorePart(reason=b["reason"], points=b["points"], rule=b.get("rule", ""), detail=b.get("detail", ""))
        for b in _json(row["breakdown"])
    ]
    cls = Classification(
        modules=_json(row["modules"]), kind=row["kind"], flags=_flags(row["flags"]), score=row["score"],
        breakdown=breakdown, highlights=_json(row["highlights"]), gist=row["gist"], profile=row["profile"],
        profile_version=row["profile_version"], profile_hash=row["profile_hash"],
    )  # fmt: skip
    return StoredPR(pr=pr, cls=cls)


def _merged(value: str) -> datetime:
    merged = parse_iso(value)
    assert merged is not None  # NOT NULL in the schema
    return merged


_EMPTY_JSON_LIST = "[]"


def _list(text: str) -> list[Any]:
    """A stored JSON list; most PRs have no labels, highlights or flags, so "[]" skips the scan."""
    return [] if text == _EMPTY_JSON_LIST else _json(text)


def _listed(row: tuple[Any, ...]) -> ListedPR:
    """A row of ``_LISTED_COLUMNS`` as a ``ListedPR``."""
    (
        repo, number, title, author, url, merged_at, additions, deletions,
        modules, kind, flags, score, highlights, gist,
    ) = row  # fmt: skip
    pr = PRHead(repo, number, title, author, url, _merged(merged_at), additions, deletions)
    cls = Classification(
        modules=_list(modules),
        kind=kind,
        flags=_flags(flags),
        score=score,
        highlights=_list(highlights),
        gist=gist,
    )
    return ListedPR(pr=pr, cls=cls)


class ClassifiedRow(NamedTuple):
    """A classification ready to store: plain values, cheap to pass between processes (a named
    tuple pickles as a tuple; a dataclass of dicts cost reclassify ~1 s per 200,000 PRs)."""

    repo: str
    number: int
    values: tuple[Any, ...]  # the ``_CLS_ROW_COLUMNS`` in order
    cls_hash: str
    tags: list[tuple[str, int, str, str, str]]
    profile_hash: str = ""


_CLS_ROW_COLUMNS = tuple(_cls_row(Classification()))
_MODULES = _CLS_ROW_COLUMNS.index("modules")
_FLAGS = _CLS_ROW_COLUMNS.index("flags")


def _same_tags(old_modules: str, old_flags: str, new_modules: str, new_flags: str) -> bool:
    """Whether two stored classifications (their modules and flags JSON) give the same ``pr_tags``
    rows: the same set of modules and the same flag kinds (evidence does not count)."""
    if old_modules != new_modules and set(_list(old_modules)) != set(_list(new_modules)):
        return False
    if old_flags == new_flags:
        return True
    return {f["kind"] for f in _list(old_flags)} == {f["kind"] for f in _list(new_flags)}


def classified_row(pr: PullRequest, cls: Classification) -> ClassifiedRow:
    columns = _cls_row(cls)
    return ClassifiedRow(
        pr.repo, pr.number, tuple(columns.values()), _hash(columns), _tag_rows(pr, cls), cls.profile_hash
    )


def _pr_from_values(values: Sequence[Any]) -> PullRequest:
    """A PullRequest from a row of ``_PR_COLUMNS``, read by position (reclassify reads 200,000)."""
    (
        repo, number, title, body, author, created_at, merged_at, updated_at, base_branch, labels,
        additions, deletions, changed_files, files, url, source,
    ) = values  # fmt: skip
    return PullRequest(
        repo=repo, number=number, title=title, body=body, author=author, created_at=parse_iso(created_at),
        merged_at=_merged(merged_at), updated_at=parse_iso(updated_at), base_branch=base_branch,
        labels=_list(labels), additions=additions, deletions=deletions, files=[_file(f) for f in _list(files)],
        changed_files=changed_files, url=url, source=source,
    )  # fmt: skip


def _record_codes(conn: sqlite3.Connection, profile_hashes: Iterable[str]) -> None:
    """Note that this process's classifier code made the classifications stored under these
    profile hashes (see migration 0010): a later reclassify may then re-use their text work."""
    from classify.rules import classifier_code_hash

    code = classifier_code_hash()
    conn.executemany(
        "INSERT OR IGNORE INTO classifier_codes (profile_hash, code_hash) VALUES (?, ?)",
        [(h, code) for h in set(profile_hashes) if h],
    )


def profile_hashes_of_code(conn: sqlite3.Connection, code_hash: str) -> frozenset[str]:
    """The profile hashes whose stored classifications this classifier code made."""
    rows = conn.execute("SELECT profile_hash FROM classifier_codes WHERE code_hash = ?", (code_hash,))
    return frozenset(r[0] for r in rows)


def stored_text(
    conn: sqlite3.Connection, rowids: Sequence[int], profile_hashes: frozenset[str]
) -> dict[tuple[str, int], tuple[list[str], str]]:
    """The stored highlights and gist of the PRs at ``rowids`` classified under one of
    ``profile_hashes`` (by this code): what ``classify`` may re-use instead of recomputing."""
    out: dict[tuple[str, int], tuple[list[str], str]] = {}
    if not profile_hashes:
        return out
    for i in range(0, len(rowids), _ROWIDS_PER_QUERY):
        chunk = rowids[i : i + _ROWIDS_PER_QUERY]
        marks = ",".join("?" * len(chunk))
        rows = conn.execute(
            f"SELECT repo, number, profile_hash, highlights, gist FROM prs WHERE rowid IN ({marks})", chunk
        )
        for repo, number, profile_hash, found, summary in rows:
            if profile_hash in profile_hashes:
                out[(repo, number)] = (_list(found), summary)
    return out


def read_prs(conn: sqlite3.Connection, rowids: Sequence[int]) -> list[PullRequest]:
    """The cached PRs at ``rowids`` (a reclassify batch), in rowid order, without classification.

    Takes a bare connection: reclassify's worker processes read their own batches through one
    of their own (``storage.db.open_reader``), so PR rows never travel between processes.
    """
    out: list[PullRequest] = []
    for i in range(0, len(rowids), _ROWIDS_PER_QUERY):
        chunk = rowids[i : i + _ROWIDS_PER_QUERY]
        marks = ",".join("?" * len(chunk))
        rows = conn.execute(f"SELECT {_PR_COLUMNS} FROM prs WHERE rowid IN ({marks}) ORDER BY rowid", chunk)
        out.extend(_pr_from_values(row) for row in rows)
    return out


_ROWIDS_PER_QUERY = 2000  # under SQLite's default limit of 32,766 parameters, well over its cost


# ``search`` in a cache of one repository: the newest ``?`` matches ranked (``hits``), the best
# ``?`` of them (``page``), and each page row with the size of the pool in front. ``hits`` is read
# twice, so SQLite ≥ 3.35 computes it once (no ``MATERIALIZED`` keyword: older versions reject it;
# they run the ranking twice, with the same answer).
_SEARCH_ONE_REPO = (
    "WITH hits AS (SELECT bm25(prs_fts, 3.0, 1.0) AS rank, rowid AS id FROM prs_fts "
    "WHERE prs_fts MATCH ? ORDER BY rowid DESC LIMIT ?), "
    "page AS (SELECT rank, id FROM hits ORDER BY rank, id DESC LIMIT ? OFFSET ?) "
    "SELECT (SELECT count(*) FROM hits), "
    + ", ".join("p." + c.strip() for c in _LISTED_COLUMNS.split(","))
    + " FROM page JOIN prs p ON p.rowid = page.id ORDER BY page.rank, page.id DESC"
)


_SEARCH_POOL_COUNT = (
    "SELECT count(*) FROM (SELECT rowid FROM prs_fts WHERE prs_fts MATCH ? ORDER BY rowid DESC LIMIT ?)"
)


def _search_text(body: str) -> str:
    """``classify.text.search_text``, imported by the first write: reads never need its patterns,
    whose compiling was ~3 ms of every one-shot command's start."""
    from classify.text import search_text

    return search_text(body)


def _stored_row(pr: PullRequest, cls: Classification) -> dict[str, Any]:
    """Every column ``upsert`` writes for a PR and its classification, hashes included."""
    row = _pr_row(pr)
    row["content_hash"] = _hash(row)
    row["search_body"] = _search_text(pr.body)  # derived, so outside the hash
    cls_row = _cls_row(cls)
    row.update(cls_row)
    row["cls_hash"] = _hash(cls_row)
    row["profile_hash"] = cls.profile_hash  # outside cls_hash: see migration 0006
    return row


class PRStore:
    """The queries commands need, each served by an index (see migrations)."""

    def __init__(self, db: Cache, *, title_keys: TitleKeyer | None = None) -> None:
        self.db = db
        # the writer's profile's title topics, counted into ``pr_aggregates`` at every write
        self.title_keys = title_keys
        # read counts from ``pr_aggregates`` where they answer exactly (off: count rows, as a
        # check that both give the same answers — tests/storage/test_aggregates_equivalence.py)
        self.use_aggregates = True

    def refresh_aggregates(self, touched: Mapping[str, set[str]], *, titles: bool = True) -> None:
        """Recount the aggregates of the buckets a write touched (repo → buckets); see
        ``storage.aggregates.refresh_aggregates``, which every write path calls (``titles=False``
        when the write changed no title or merge time)."""
        for repo, buckets in touched.items():
            if buckets:
                refresh_aggregates(self.db, repo, buckets, title_keys=self.title_keys, titles=titles)
                bump_days(
                    self.db, repo, (b[:10] for b in buckets)
                )  # stored storylines of those days are stale

    # -- writes -------------------------------------------------------------------------------

    def upsert(
        self, items: Iterable[tuple[PullRequest, Classification]], *, batch: int = 500
    ) -> UpsertCounts:
        """Insert or update PRs with their classifications, in transactions of ``batch`` rows."""
        total = UpsertCounts()
        chunk: list[tuple[PullRequest, Classification]] = []
        for item in items:
            chunk.append(item)
            if len(chunk) >= batch:
                total += self._upsert_chunk(chunk)
                chunk = []
        if chunk:
            total += self._upsert_chunk(chunk)
        return total

    def _upsert_chunk(self, chunk: Sequence[tuple[PullRequest, Classification]]) -> UpsertCounts:
        """One transaction: the rows are built first, the stored hashes of the whole chunk are read
        with one query, and each statement runs once over the chunk (``executemany``): a first
        import is then a bulk insert, ~1.5× faster than three statements per PR."""
        from storage.transaction import write_transaction

        counts = UpsertCounts()
        rows = [_stored_row(pr, cls) for pr, cls in chunk]
        touched: dict[str, set[str]] = {}
        with write_transaction(self.db):
            start = 0
            while start < len(rows):  # a PR listed twice in a chunk starts a new group at its second row
                seen: set[tuple[str, int]] = set()
                end = start
                while end < len(rows) and (key := (rows[end]["repo"], rows[end]["number"])) not in seen:
                    seen.add(key)
                    end += 1
                counts += self._upsert_rows(rows[start:end], chunk[start:end], touched)
                start = end
            self.refresh_aggregates(touched)
        return counts

    def _upsert_rows(
        self,
        rows: list[dict[str, Any]],
        items: Sequence[tuple[PullRequest, Classification]],
        touched: dict[str, set[str]],
    ) -> UpsertCounts:
        """``_upsert_chunk`` for rows of distinct PRs, inside its transaction; adds the aggregate
        buckets a write moves (the old merge time's and the new one's) to ``touched``."""
        counts = UpsertCounts()
        conn = self.db.conn
        existing = self._existing(rows)
        write: list[dict[str, Any]] = []
        retag: list[tuple[str, int]] = []
        tags: list[tuple[str, int, str, str, str]] = []
        rehash: list[tuple[str, str, int]] = []
        for row, (pr, cls) in zip(rows, items, strict=True):
            found = existing.get((pr.repo, pr.number))
            if found is None:
                counts.new += 1
            elif (found[0], found[1]) == (row["content_hash"], row["cls_hash"]):
                counts.unchanged += 1
                if found[3] != cls.profile_hash:  # the same result from another profile content
                    rehash.append((cls.profile_hash, pr.repo, pr.number))
                continue
            elif SOURCE_RANK.get(found[2], 0) > SOURCE_RANK[pr.source]:
                counts.kept_richer += 1
                continue
            else:
                counts.updated += 1
                retag.append((pr.repo, pr.number))
                touched.setdefault(pr.repo, set()).add(bucket_of(found[4]))
            touched.setdefault(pr.repo, set()).add(bucket_of(row["merged_at"]))
            write.append(row)
            tags += _tag_rows(pr, cls)
        conn.executemany("UPDATE prs SET profile_hash = ? WHERE repo = ? AND number = ?", rehash)
        _record_codes(conn, (cls.profile_hash for _, cls in items))
        conn.executemany("DELETE FROM pr_tags WHERE repo = ? AND number = ?", retag)
        if write:
            cols = ", ".join(write[0])
            marks = ", ".join("?" for _ in write[0])
            updates = ", ".join(f"{c} = excluded.{c}" for c in write[0] if c not in ("repo", "number"))
            conn.executemany(
                f"INSERT INTO prs ({cols}) VALUES ({marks}) ON CONFLICT (repo, number) DO UPDATE SET {updates}",
                [tuple(row.values()) for row in write],
            )
        conn.executemany(
            "INSERT OR IGNORE INTO pr_tags (repo, number, merged_at, tag_type, tag) VALUES (?, ?, ?, ?, ?)",
            tags,
        )
        return counts

    def _existing(
        self, rows: Sequence[dict[str, Any]]
    ) -> dict[tuple[str, int], tuple[str, str, str, str, str]]:
        """(content_hash, cls_hash, source, profile_hash, merged_at) of the PRs of ``rows`` already cached."""
        keys = [(row["repo"], row["number"]) for row in rows]
        return self._columns(keys, "content_hash, cls_hash, source, profile_hash, merged_at")

    def _columns(self, keys: Iterable[tuple[str, int]], columns: str) -> dict[tuple[str, int], Any]:
        """``columns`` of the cached PRs among ``keys`` (repo, number), by primary-key reads in
        chunks of ``_ROWIDS_PER_QUERY``; PRs not cached are absent."""
        by_repo: dict[str, list[int]] = {}
        for repo, number in keys:
            by_repo.setdefault(repo, []).append(number)
        out: dict[tuple[str, int], Any] = {}
        for repo, numbers in by_repo.items():
            for i in range(0, len(numbers), _ROWIDS_PER_QUERY):
                chunk = numbers[i : i + _ROWIDS_PER_QUERY]
                marks = ",".join("?" * len(chunk))
                found = self.db.conn.execute(
                    f"SELECT number, {columns} FROM prs WHERE repo = ? AND number IN ({marks})",
                    (repo, *chunk),
                )
                out.update(((repo, row[0]), tuple(row[1:])) for row in found)
        return out

    def store_classifications(self, items: Iterable[ClassifiedRow]) -> int:
        """Write new classifications of cached PRs in one transaction; returns how many changed.

        A row whose ``cls_hash`` already matches keeps its classification and tags; only its
        ``profile_hash`` is brought up to date, so the next reclassify skips it. Set-based: one
        read of the batch's current hashes, then one ``executemany`` per statement (rows, their
        tags, the hashes of unchanged rows) instead of three statements per PR.
        """
        from storage.transaction import write_transaction

        batch = list(items)
        conn = self.db.conn
        touched: dict[str, set[str]] = {}
        days: dict[str, set[str]] = {}  # every changed row's day, retagged or not (storylines read scores)
        with write_transaction(self.db):
            current = self._stored_classifications(batch)
            changed: list[ClassifiedRow] = []
            retag: list[ClassifiedRow] = []
            same: list[tuple[str, str, int, str]] = []
            for it in batch:
                stored = current.get((it.repo, it.number))
                if stored is None:
                    continue  # deleted meanwhile
                if stored[0] == it.cls_hash:
                    same.append((it.profile_hash, it.repo, it.number, it.profile_hash))
                    continue
                changed.append(it)
                days.setdefault(it.repo, set()).add(stored[3][:10])
                if not _same_tags(stored[1], stored[2], it.values[_MODULES], it.values[_FLAGS]):
                    retag.append(it)
                    # the counts come from merge times (unchanged here) and tags: only a retagged
                    # PR's bucket needs recounting (recounting every changed row's was ~85% of
                    # the store phase when a new profile version keeps every tag)
                    touched.setdefault(it.repo, set()).add(bucket_of(stored[3]))
            sets = ", ".join(f"{c} = ?" for c in _CLS_ROW_COLUMNS)
            conn.executemany(
                f"UPDATE prs SET {sets}, cls_hash = ?, profile_hash = ? WHERE repo = ? AND number = ?",
                [(*it.values, it.cls_hash, it.profile_hash, it.repo, it.number) for it in changed],
            )
            # Tags follow from modules and flag kinds alone: most new classifications (a new
            # profile version, a changed score) keep them, and rewriting them was half the writes.
            conn.executemany(
                "DELETE FROM pr_tags WHERE repo = ? AND number = ?", [(it.repo, it.number) for it in retag]
            )
            conn.executemany(
                "INSERT OR IGNORE INTO pr_tags (repo, number, merged_at, tag_type, tag) VALUES (?, ?, ?, ?, ?)",
                [tag for it in retag for tag in it.tags],
            )
            conn.executemany(
                "UPDATE prs SET profile_hash = ? WHERE repo = ? AND number = ? AND profile_hash != ?", same
            )
            _record_codes(conn, (it.profile_hash for it in batch))
            self.refresh_aggregates(touched, titles=False)  # classifications only: titles unchanged
            for repo, changed_days in days.items():
                bump_days(self.db, repo, changed_days)
        return len(changed)

    def _stored_classifications(
        self, batch: Sequence[ClassifiedRow]
    ) -> dict[tuple[str, int], tuple[str, str, str, str]]:
        """(cls_hash, modules, flags, merged_at) as stored for each PR of ``batch`` still cached (primary-key reads)."""
        return self._columns(((it.repo, it.number) for it in batch), "cls_hash, modules, flags, merged_at")

    def writes(self) -> int:
        """Grows with every write of PR rows, by any connection in any process (the per-day write
        stamps, ``storage.storylines.writes``); stored storylines do not move it."""
        return writes(self.db)

    def count_title_topics(self, repo: str | None = None) -> None:
        """Count the title topics of ``repo`` (or every repository) with this store's profile
        where they were counted with another one, or never (a cache from before the aggregates)."""
        if self.title_keys is None:
            return
        from storage.transaction import write_transaction

        stamp = self.title_keys.stamp
        stale = [r for r in ([repo] if repo else self.repos()) if terms_stamp(self.db, r) != stamp]
        for name in stale:
            with write_transaction(self.db):
                refresh_aggregates(self.db, name, (), title_keys=self.title_keys)

    # -- reads --------------------------------------------------------------------------------

    def repos(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT DISTINCT repo FROM prs ORDER BY repo").fetchall()]

    def count(self, repo: str | None = None) -> int:
        if repo is None:
            return int(self.db.execute("SELECT count(*) FROM prs").fetchone()[0])
        return int(self.db.execute("SELECT count(*) FROM prs WHERE repo = ?", (repo,)).fetchone()[0])

    def merged_range(self, repo: str) -> tuple[datetime, datetime] | None:
        row = self.db.execute(
            "SELECT min(merged_at), max(merged_at) FROM prs WHERE repo = ?", (repo,)
        ).fetchone()
        if not row or row[0] is None:
            return None
        lo, hi = parse_iso(row[0]), parse_iso(row[1])
        assert lo is not None and hi is not None
        return lo, hi

    def first_merged(self, repo: str) -> datetime | None:
        """When the cache's first PR of ``repo`` was merged (one index seek, unlike ``merged_range``)."""
        row = self.db.execute("SELECT min(merged_at) FROM prs WHERE repo = ?", (repo,)).fetchone()
        return parse_iso(row[0]) if row and row[0] is not None else None

    def get(self, repo: str, number: int) -> StoredPR | None:
        cur = self.db.execute(
            f"SELECT {_PR_COLUMNS}, {_CLS_COLUMNS} FROM prs WHERE repo = ? AND number = ?", (repo, number)
        )
        row = cur.fetchone()
        if row is None:
            return None
        return _row_to_stored(dict(zip([d[0] for d in cur.description], row, strict=True)))

    def history(self, repo: str) -> list[StoredPR]:
        """Every cached PR of ``repo`` in full (files, labels, body, classification), oldest first:
        what learning a profile and judging one read; a digest reads ``merged_between``."""
        cur = self.db.execute(
            f"SELECT {_PR_COLUMNS}, {_CLS_COLUMNS} FROM prs WHERE repo = ? ORDER BY merged_at, number",
            (repo,),
        )
        names = [d[0] for d in cur.description]
        return [_row_to_stored(dict(zip(names, row, strict=True))) for row in cur.fetchall()]

    def merged_between(self, repo: str, start: datetime, end: datetime) -> list[ListedPR]:
        """PRs merged in [start, end), oldest first, as lists read them (``ListedPR``)."""
        cur = self.db.execute(
            f"SELECT {_LISTED_COLUMNS} FROM prs WHERE repo = ? AND merged_at >= ? AND merged_at < ? "
            "ORDER BY merged_at, number",
            (repo, iso(start), iso(end)),
        )
        return [_listed(row) for row in cur.fetchall()]

    def scores_between(
        self, repo: str, start: datetime, end: datetime, modules: Sequence[str] | TagFilter = ()
    ) -> list[tuple[int, float, int]]:
        """(number, score, lines changed) of every PR merged in [start, end): enough to rank a week."""
        only, params = self._only(repo, start, end, modules)
        rows = self.db.execute(
            "SELECT number, score, additions + deletions FROM prs WHERE repo = ? AND merged_at >= ? AND merged_at < ?"
            f"{only}",
            (repo, iso(start), iso(end), *params),
        ).fetchall()
        return [(int(n), float(sc), int(size)) for n, sc, size in rows]

    def paths(self, repo: str, numbers: Sequence[int]) -> dict[int, list[str]]:
        """The changed files' paths of some PRs (themes look for files several PRs share)."""
        out: dict[int, list[str]] = {}
        for i in range(0, len(numbers), 500):
            chunk = numbers[i : i + 500]
            marks = ",".join("?" for _ in chunk)
            rows = self.db.execute(
                f"SELECT number, files FROM prs WHERE repo = ? AND number IN ({marks})", (repo, *chunk)
            )
            for n, files in rows.fetchall():
                out[int(n)] = [f["path"] for f in _list(files)]
        return out

    @staticmethod
    def _only(
        repo: str, start: datetime, end: datetime, modules: Sequence[str] | TagFilter
    ) -> tuple[str, list[Any]]:
        """SQL restricting ``number`` to PRs of the window that pass the filter (a plain list of
        modules means "any of them")."""
        flt = modules if isinstance(modules, TagFilter) else TagFilter(tuple(modules))
        if not flt:
            return "", []
        window = "repo = ? AND merged_at >= ? AND merged_at < ?"
        wargs: list[Any] = [repo, iso(start), iso(end)]
        parts: list[str] = []
        args: list[Any] = []
        if flt.modules:
            marks = ",".join("?" for _ in flt.modules)
            base = f"SELECT number FROM pr_tags WHERE {window} AND tag_type = 'module'"
            if flt.match == "all":
                parts.append(
                    f"number IN ({base} AND tag IN ({marks}) GROUP BY number HAVING COUNT(DISTINCT tag) = ?)"
                )
                args += [*wargs, *flt.modules, len(set(flt.modules))]
            elif flt.match == "only":
                parts.append(f"number IN ({base} GROUP BY number HAVING SUM(tag NOT IN ({marks})) = 0)")
                args += [*wargs, *flt.modules]
            else:
                parts.append(f"number IN ({base} AND tag IN ({marks}))")
                args += [*wargs, *flt.modules]
        if flt.flags:
            marks = ",".join("?" for _ in flt.flags)
            parts.append(
                f"number IN (SELECT number FROM pr_tags WHERE {window} AND tag_type = 'flag' AND tag IN ({marks}))"
            )
            args += [*wargs, *flt.flags]
        return f" AND ({' OR '.join(parts)})", args

    def tag_counts(
        self,
        repo: str,
        tag_type: str,
        start: datetime,
        end: datetime,
        modules: Sequence[str] | TagFilter = (),
    ) -> dict[str, int]:
        """How many PRs merged in [start, end) carry each module or flag (optionally only PRs of ``modules``)."""
        only, params = self._only(repo, start, end, modules)
        rows = self.db.execute(
            "SELECT tag, count(*) FROM pr_tags WHERE repo = ? AND tag_type = ? AND merged_at >= ? AND merged_at < ?"
            f"{only} GROUP BY tag",
            (repo, tag_type, iso(start), iso(end), *params),
        ).fetchall()
        return {str(t): int(c) for t, c in rows}

    def outside_counts(
        self,
        repo: str,
        windows: Sequence[tuple[datetime, datetime]],
        shown: Sequence[str],
        modules: Sequence[str] | TagFilter = (),
    ) -> list[int]:
        """How many PRs merged in each [start, end) window carry none of the ``shown`` modules
        (optionally only PRs of ``modules``): the "none of these" row of a chart that shows a few
        modules, in the windows before its period. Counted per PR, not per module — a sum over the
        other modules would count a PR once for each."""
        if not windows:
            return []
        lo, hi = min(windows)[0], max(e for _, e in windows)
        only, params = self._only(repo, lo, hi, modules)
        marks = ",".join("?" for _ in shown)
        # one indexed read over the windows' span, as window_rows does, then each PR to its window
        rows = self.db.execute(
            "SELECT merged_at FROM prs WHERE repo = ? AND merged_at >= ? AND merged_at < ? "
            "AND number NOT IN (SELECT number FROM pr_tags WHERE repo = ? AND tag_type = 'module' "
            f"AND tag IN ({marks}) AND merged_at >= ? AND merged_at < ?){only}",
            (repo, iso(lo), iso(hi), repo, *shown, iso(lo), iso(hi), *params),
        ).fetchall()
        bounds = [(iso(s), iso(e)) for s, e in windows]
        return [sum(1 for (m,) in rows if a <= m < b) for a, b in bounds]

    def window_rows(
        self, repo: str, windows: Sequence[tuple[datetime, datetime]], modules: Sequence[str] | TagFilter = ()
    ) -> list[list[tuple[int, float, int, str]]]:
        """(number, score, lines changed, title) of the PRs merged in each [start, end) window.

        One indexed range read over the windows' span instead of two queries per window: a
        digest compares its week with four earlier ones, and each read of a window touches the
        same rows again.
        """
        if not windows:
            return []
        bounds = [(iso(s), iso(e)) for s, e in windows]
        lo, hi = min(windows)[0], max(e for _, e in windows)
        only, params = self._only(repo, lo, hi, modules)
        rows = self.db.execute(
            "SELECT merged_at, number, score, additions + deletions, title FROM prs "
            f"WHERE repo = ? AND merged_at >= ? AND merged_at < ?{only}",
            (repo, iso(lo), iso(hi), *params),
        ).fetchall()
        out: list[list[tuple[int, float, int, str]]] = [[] for _ in windows]
        order = sorted(range(len(bounds)), key=lambda i: bounds[i])
        starts = [bounds[i][0] for i in order]
        disjoint = all(bounds[a][1] <= bounds[b][0] for a, b in itertools.pairwise(order))
        for merged, number, score, size, title in rows:
            item = (number, score, size, title)
            if disjoint:  # the usual case (consecutive weeks): one binary search per PR
                k = bisect.bisect_right(starts, merged) - 1
                if k >= 0 and merged < bounds[order[k]][1]:
                    out[order[k]].append(item)
            else:
                for i, (s, e) in enumerate(bounds):
                    if s <= merged < e:
                        out[i].append(item)
        return out

    def window_aggregates(
        self, repo: str, windows: Sequence[tuple[datetime, datetime]]
    ) -> list[tuple[int, dict[str, int], dict[str, int]]] | None:
        """(merged, flag counts, module counts) of each window from the write-time aggregates (and
        the rows of partial quarter-hours at its ends); None when switched off."""
        if not self.use_aggregates:
            return None
        merged = window_counts(self.db, repo, windows, "merged")
        flags = window_counts(self.db, repo, windows, "flag:")
        modules = window_counts(
            self.db, repo, windows, "module:"
        )  # three statements for any number of windows
        if merged is None or flags is None or modules is None:
            return None
        return [(m["merged"], f, mod) for m, f, mod in zip(merged, flags, modules, strict=True)]

    def scored_at_least(
        self, repo: str, windows: Sequence[tuple[datetime, datetime]], score: float
    ) -> list[int]:
        """How many PRs of each window scored at least ``score`` (from the covering index)."""
        return [
            int(
                self.db.execute(
                    "SELECT count(*) FROM prs WHERE repo = ? AND merged_at >= ? AND merged_at < ? AND score >= ?",
                    (repo, iso(s), iso(e), score),
                ).fetchone()[0]
            )
            for s, e in windows
        ]

    def title_counts(
        self, repo: str, windows: Sequence[tuple[datetime, datetime]], stamp: str, merged: Sequence[int]
    ) -> TitleCounts | None:
        """The windows' title-topic counts stored for the profile ``stamp``, or None (read titles)."""
        if not self.use_aggregates:
            return None
        return title_counts(self.db, repo, windows, stamp, merged)

    def profiles_between(self, repo: str, start: datetime, end: datetime) -> dict[tuple[str, str], int]:
        """How many PRs merged in [start, end) each (profile, version) classified."""
        rows = self.db.execute(
            "SELECT profile, profile_version, count(*) FROM prs WHERE repo = ? AND merged_at >= ? AND merged_at < ? "
            "GROUP BY profile, profile_version",
            (repo, iso(start), iso(end)),
        ).fetchall()
        return {(str(p), str(v)): int(n) for p, v, n in rows}

    def merged_count(self, repo: str, start: datetime, end: datetime) -> int:
        row = self.db.execute(
            "SELECT count(*) FROM prs WHERE repo = ? AND merged_at >= ? AND merged_at < ?",
            (repo, iso(start), iso(end)),
        ).fetchone()
        return int(row[0])

    def flagged_between(
        self, repo: str, start: datetime, end: datetime, kind: str | None = None
    ) -> list[ListedPR]:
        """PRs merged in [start, end) with a flag (``kind``, or any), as lists read them
        (``ListedPR``), highest score first."""
        if kind is None:
            sql = (
                f"SELECT {_LISTED_COLUMNS} FROM prs WHERE repo = ? AND merged_at >= ? AND merged_at < ? "
                "AND flags != '[]' ORDER BY score DESC, number DESC"
            )
            params: tuple[Any, ...] = (repo, iso(start), iso(end))
        else:
            cols = ", ".join("p." + c.strip() for c in _LISTED_COLUMNS.split(","))
            sql = (
                f"SELECT {cols} FROM pr_tags t JOIN prs p ON p.repo = t.repo AND p.number = t.number "
                "WHERE t.repo = ? AND t.tag_type = 'flag' AND t.tag = ? AND t.merged_at >= ? AND t.merged_at < ? "
                "ORDER BY p.score DESC, p.number DESC"
            )
            params = (repo, kind, iso(start), iso(end))
        return [_listed(row) for row in self.db.execute(sql, params).fetchall()]

    SEARCH_POOL = 1000
    COUNT_CAP = 1_000

    def search(
        self,
        repo: str,
        match: str,
        start: datetime | None,
        end: datetime | None,
        *,
        limit: int = 20,
        offset: int = 0,
    ) -> tuple[list[ListedPR], int]:
        """Full-text search over titles and bodies (an FTS5 MATCH expression), best first.

        Without a period, the best matches among the newest ``SEARCH_POOL`` matching PRs are
        returned: ranking every match of a common word in a 200,000-PR cache costs ~70 ms, the
        newest thousand ~1.2 ms, and a reader searching a PR cache wants recent PRs. The same pass
        counts the matches, so only a cache shared by several repositories needs a second query.
        With a period, all matches inside it are ranked. Returns the page and the number of
        matches (counted up to ``COUNT_CAP``), the PRs as lists read them (``ListedPR``);
        ``offset`` skips that many of the best (a later page).

        Order: best rank (``bm25``, the title weighing three times the description) first and,
        among equal ranks, the PR stored later (rowid order ≈ merge order) first.
        """
        if start is not None and end is not None:
            cols = ", ".join("p." + c.strip() for c in _LISTED_COLUMNS.split(","))
            cur = self.db.execute(
                f"SELECT {cols} FROM prs_fts JOIN prs p ON p.rowid = prs_fts.rowid "
                "WHERE prs_fts MATCH ? AND prs_fts.rowid IN "
                "(SELECT rowid FROM prs WHERE repo = ? AND merged_at >= ? AND merged_at < ?) "
                "ORDER BY bm25(prs_fts, 3.0, 1.0), p.merged_at DESC",
                (match, repo, iso(start), iso(end)),
            )
            rows = cur.fetchall()
            return [_listed(row) for row in rows[offset : offset + limit]], len(rows)
        if self.repos() == [repo]:
            # The cache holds only this repository: one statement ranks the newest matches, picks
            # the page, counts the pool and reads the page's rows — SQLite's sorter picks the page
            # where fetching ~1,000 (rank, rowid) rows into Python to pick it cost ~10 % of a search.
            rows = self.db.execute(_SEARCH_ONE_REPO, (match, self.SEARCH_POOL, limit, offset)).fetchall()
            if not rows and offset:  # past the last page: the count alone
                count = self.db.execute(_SEARCH_POOL_COUNT, (match, self.SEARCH_POOL)).fetchone()[0]
                return [], int(count)
            return [_listed(row[1:]) for row in rows], (rows[0][0] if rows else 0)
        # Several repositories share the cache: the pool is ranked over all of them, then this
        # one's hits are picked. Hits are (rank, -rowid): compared as tuples, in the order above.
        shared = self.db.execute(
            "SELECT hits.rank, -hits.rowid, p.repo = ? FROM (SELECT rowid, "
            "bm25(prs_fts, 3.0, 1.0) AS rank FROM prs_fts WHERE prs_fts MATCH ? ORDER BY rowid DESC "
            "LIMIT ?) AS hits JOIN prs p ON p.rowid = hits.rowid",
            (repo, match, self.SEARCH_POOL),
        ).fetchall()
        mine = [(rank, neg) for rank, neg, ours in shared if ours]
        if len(shared) < self.SEARCH_POOL or len(mine) == len(shared):
            total = len(mine)  # every match was seen, or the pool is all this repository's (≥ the cap)
        else:  # the pool was full: count this repository's matches
            total = int(
                self.db.execute(
                    "SELECT count(*) FROM (SELECT 1 FROM prs_fts JOIN prs p ON p.rowid = prs_fts.rowid "
                    "WHERE prs_fts MATCH ? AND p.repo = ? LIMIT ?)",
                    (match, repo, self.COUNT_CAP),
                ).fetchone()[0]
            )
        # ``nsmallest`` compares the tuples in C (sorting with a Python key function cost more)
        top = [-neg for _, neg in heapq.nsmallest(offset + limit, mine)[offset:]]
        if not top:
            return [], total
        marks = ",".join("?" for _ in top)
        cur = self.db.execute(f"SELECT rowid, {_LISTED_COLUMNS} FROM prs WHERE rowid IN ({marks})", top)
        by_rowid = {r[0]: r[1:] for r in cur.fetchall()}
        return [_listed(by_rowid[rowid]) for rowid in top], total

    def _other_profile(self, repo: str | None, profile_hash: str) -> tuple[str, list[Any]]:
        """SQL (and parameters) selecting the rows ``profile_hash`` did not classify; SQLite
        answers it from ``idx_prs_profile_hash`` alone, without reading a PR row."""
        if repo is None:
            return "profile_hash != ?", [profile_hash]
        return "repo = ? AND profile_hash != ?", [repo, profile_hash]

    def count_other_profile(self, repo: str | None, profile_hash: str) -> int:
        """How many cached PRs (of ``repo``, or all) were classified by other profile content than
        ``profile_hash`` — or by none yet (read from the index alone: milliseconds for 200,000 PRs)."""
        where, params = self._other_profile(repo, profile_hash)
        return int(self.db.execute(f"SELECT count(*) FROM prs WHERE {where}", params).fetchone()[0])

    def rowids_to_classify(self, repo: str | None = None, *, other_than: str | None = None) -> list[int]:
        """Rowids of the cached PRs (of ``repo``, or every repository) in order: all of them, or only
        those the profile hash ``other_than`` did not classify — listed from an index, so re-running
        the few rows an interrupted reclassify left costs reading those rows, not the whole table."""
        if other_than is not None:
            where, params = self._other_profile(repo, other_than)
        else:
            where, params = ("repo = ?", [repo]) if repo is not None else ("1", [])
        return sorted(r[0] for r in self.db.execute(f"SELECT rowid FROM prs WHERE {where}", params))
