"""Reading and writing classified PRs.

Writes are idempotent upserts keyed by (repo, number): a row whose content hash is unchanged is
left alone, so importing the same PRs twice changes nothing (not even the FTS index). Data from
a richer source is never replaced by a poorer one (a git import never overwrites API data).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlite_utils

from classify.models import Classification, FileChange, Flag, PullRequest, ScorePart

# Higher wins: a row from a richer source is only ever replaced by one at least as rich.
SOURCE_RANK = {"git": 0, "import": 1, "api": 2}

_PR_COLUMNS = (
    "repo, number, title, body, author, created_at, merged_at, updated_at, base_branch, labels, "
    "additions, deletions, changed_files, files, url, source"
)
_CLS_COLUMNS = "modules, kind, flags, score, breakdown, highlights, gist, profile, profile_version"
_LIGHT_COLUMNS = (
    "repo, number, title, author, created_at, merged_at, base_branch, labels, additions, deletions, "
    "changed_files, url, source, " + _CLS_COLUMNS
)


def iso(value: datetime) -> str:
    """Timestamps are stored as UTC ISO-8601 text, which sorts correctly as a string."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_iso(value: str | None) -> datetime | None:
    if not value:
        return None
    return datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


@dataclass(frozen=True)
class StoredPR:
    """A PR and its classification as read back from the cache (body may be omitted)."""

    pr: PullRequest
    cls: Classification

    @property
    def number(self) -> int:
        return self.pr.number


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


def _pr_row(pr: PullRequest) -> dict[str, Any]:
    files = [f.model_dump(exclude_defaults=True) for f in pr.files]
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
        "labels": json.dumps(pr.labels, ensure_ascii=False),
        "additions": pr.additions,
        "deletions": pr.deletions,
        "changed_files": pr.changed_files or 0,
        "files": json.dumps(files, ensure_ascii=False, separators=(",", ":")),
        "url": pr.url,
        "source": pr.source,
    }


def _cls_row(cls: Classification) -> dict[str, Any]:
    return {
        "modules": json.dumps(cls.modules, ensure_ascii=False),
        "kind": cls.kind,
        "flags": json.dumps([f.model_dump() for f in cls.flags], ensure_ascii=False),
        "score": cls.score,
        "breakdown": json.dumps([b.model_dump() for b in cls.breakdown], ensure_ascii=False),
        "highlights": json.dumps(cls.highlights, ensure_ascii=False),
        "gist": cls.gist,
        "profile": cls.profile,
        "profile_version": cls.profile_version,
    }


def _hash(row: dict[str, Any]) -> str:
    blob = json.dumps(row, sort_keys=True, ensure_ascii=False, default=str).encode()
    return hashlib.blake2b(blob, digest_size=16).hexdigest()


def _tag_rows(pr: PullRequest, cls: Classification) -> list[tuple[str, int, str, str, str]]:
    merged = iso(pr.merged_at)
    rows = [(pr.repo, pr.number, merged, "module", m) for m in dict.fromkeys(cls.modules)]
    rows += [(pr.repo, pr.number, merged, "flag", f.kind) for f in cls.flags]
    return rows


def _row_to_stored(row: dict[str, Any]) -> StoredPR:
    files = [FileChange(**f) for f in json.loads(row["files"])] if "files" in row else []
    pr = PullRequest.model_construct(
        repo=row["repo"],
        number=row["number"],
        title=row["title"],
        body=row.get("body", ""),
        author=row["author"],
        created_at=parse_iso(row["created_at"]),
        merged_at=parse_iso(row["merged_at"]),
        updated_at=parse_iso(row.get("updated_at")),
        base_branch=row["base_branch"],
        labels=json.loads(row["labels"]),
        additions=row["additions"],
        deletions=row["deletions"],
        files=files,
        changed_files=row["changed_files"],
        url=row["url"],
        source=row["source"],
    )
    cls = Classification.model_construct(
        modules=json.loads(row["modules"]),
        kind=row["kind"],
        flags=[Flag.model_construct(**f) for f in json.loads(row["flags"])],
        score=row["score"],
        breakdown=[ScorePart.model_construct(**b) for b in json.loads(row["breakdown"])],
        highlights=json.loads(row["highlights"]),
        gist=row["gist"],
        profile=row["profile"],
        profile_version=row["profile_version"],
    )
    return StoredPR(pr=pr, cls=cls)


class PRStore:
    """The queries commands need, each served by an index (see migrations)."""

    def __init__(self, db: sqlite_utils.Database) -> None:
        self.db = db

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
        counts = UpsertCounts()
        conn = self.db.conn
        with self.db.atomic():
            for pr, cls in chunk:
                row = _pr_row(pr)
                row.update(_cls_row(cls))
                row["content_hash"] = _hash(row)
                existing = conn.execute(
                    "SELECT content_hash, source FROM prs WHERE repo = ? AND number = ?", (pr.repo, pr.number)
                ).fetchone()
                if existing is None:
                    counts.new += 1
                elif existing[0] == row["content_hash"]:
                    counts.unchanged += 1
                    continue
                elif SOURCE_RANK.get(existing[1], 0) > SOURCE_RANK[pr.source]:
                    counts.kept_richer += 1
                    continue
                else:
                    counts.updated += 1
                    conn.execute("DELETE FROM pr_tags WHERE repo = ? AND number = ?", (pr.repo, pr.number))
                cols = ", ".join(row)
                marks = ", ".join("?" for _ in row)
                updates = ", ".join(f"{c} = excluded.{c}" for c in row if c not in ("repo", "number"))
                conn.execute(
                    f"INSERT INTO prs ({cols}) VALUES ({marks}) ON CONFLICT (repo, number) DO UPDATE SET {updates}",
                    tuple(row.values()),
                )
                conn.executemany(
                    "INSERT OR IGNORE INTO pr_tags (repo, number, merged_at, tag_type, tag) VALUES (?, ?, ?, ?, ?)",
                    _tag_rows(pr, cls),
                )
        return counts

    def replace_classifications(
        self, items: Iterable[tuple[PullRequest, Classification]], *, batch: int = 2000
    ) -> int:
        """Store new classifications for PRs already cached (used by reclassify); returns rows changed."""
        changed = 0
        conn = self.db.conn
        chunk: list[tuple[PullRequest, Classification]] = []

        def flush() -> None:
            nonlocal changed
            with self.db.atomic():
                for pr, cls in chunk:
                    row = _pr_row(pr)
                    row.update(_cls_row(cls))
                    new_hash = _hash(row)
                    cur = conn.execute(
                        "UPDATE prs SET modules = ?, kind = ?, flags = ?, score = ?, breakdown = ?, highlights = ?, "
                        "gist = ?, profile = ?, profile_version = ?, content_hash = ? "
                        "WHERE repo = ? AND number = ? AND content_hash != ?",
                        (*_cls_row(cls).values(), new_hash, pr.repo, pr.number, new_hash),
                    )
                    if cur.rowcount:
                        changed += 1
                        conn.execute(
                            "DELETE FROM pr_tags WHERE repo = ? AND number = ?", (pr.repo, pr.number)
                        )
                        conn.executemany(
                            "INSERT OR IGNORE INTO pr_tags (repo, number, merged_at, tag_type, tag) "
                            "VALUES (?, ?, ?, ?, ?)",
                            _tag_rows(pr, cls),
                        )
            chunk.clear()

        for item in items:
            chunk.append(item)
            if len(chunk) >= batch:
                flush()
        if chunk:
            flush()
        return changed

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

    def get(self, repo: str, number: int) -> StoredPR | None:
        cur = self.db.execute(
            f"SELECT {_PR_COLUMNS}, {_CLS_COLUMNS} FROM prs WHERE repo = ? AND number = ?", (repo, number)
        )
        row = cur.fetchone()
        if row is None:
            return None
        return _row_to_stored(dict(zip([d[0] for d in cur.description], row, strict=True)))

    def merged_between(
        self, repo: str, start: datetime, end: datetime, *, with_body: bool = False, with_files: bool = False
    ) -> list[StoredPR]:
        """PRs merged in [start, end), oldest first."""
        cols = _LIGHT_COLUMNS + (", body" if with_body else "") + (", files" if with_files else "")
        cur = self.db.execute(
            f"SELECT {cols} FROM prs WHERE repo = ? AND merged_at >= ? AND merged_at < ? ORDER BY merged_at, number",
            (repo, iso(start), iso(end)),
        )
        names = [d[0] for d in cur.description]
        return [_row_to_stored(dict(zip(names, row, strict=True))) for row in cur.fetchall()]

    def bodies(self, repo: str, numbers: Sequence[int]) -> dict[int, str]:
        if not numbers:
            return {}
        marks = ",".join("?" for _ in numbers)
        rows = self.db.execute(
            f"SELECT number, body FROM prs WHERE repo = ? AND number IN ({marks})", (repo, *numbers)
        )
        return {int(n): str(b) for n, b in rows.fetchall()}

    def tag_counts(self, repo: str, tag_type: str, start: datetime, end: datetime) -> dict[str, int]:
        """How many PRs merged in [start, end) carry each module or flag."""
        rows = self.db.execute(
            "SELECT tag, count(*) FROM pr_tags WHERE repo = ? AND tag_type = ? AND merged_at >= ? AND merged_at < ? "
            "GROUP BY tag",
            (repo, tag_type, iso(start), iso(end)),
        ).fetchall()
        return {str(t): int(c) for t, c in rows}

    def merged_count(self, repo: str, start: datetime, end: datetime) -> int:
        row = self.db.execute(
            "SELECT count(*) FROM prs WHERE repo = ? AND merged_at >= ? AND merged_at < ?",
            (repo, iso(start), iso(end)),
        ).fetchone()
        return int(row[0])

    def with_tag(
        self, repo: str, tag_type: str, tag: str, start: datetime, end: datetime, *, limit: int | None = None
    ) -> list[StoredPR]:
        """PRs merged in [start, end) carrying a module or flag, newest first."""
        sql = (
            f"SELECT {', '.join('p.' + c.strip() for c in (_LIGHT_COLUMNS + ', files').split(','))} FROM pr_tags t "
            "JOIN prs p ON p.repo = t.repo AND p.number = t.number "
            "WHERE t.repo = ? AND t.tag_type = ? AND t.tag = ? AND t.merged_at >= ? AND t.merged_at < ? "
            "ORDER BY t.merged_at DESC, t.number DESC"
        )
        params: list[Any] = [repo, tag_type, tag, iso(start), iso(end)]
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        cur = self.db.execute(sql, params)
        names = [d[0] for d in cur.description]
        return [_row_to_stored(dict(zip(names, row, strict=True))) for row in cur.fetchall()]

    def search(
        self, repo: str, match: str, start: datetime | None, end: datetime | None, *, limit: int = 20
    ) -> tuple[list[StoredPR], int]:
        """Full-text search over titles and bodies (an FTS5 MATCH expression), best first.

        Returns the page of results and the total number of matches.
        """
        where = "prs_fts MATCH ? AND p.repo = ?"
        params: list[Any] = [match, repo]
        if start is not None and end is not None:
            where += " AND p.merged_at >= ? AND p.merged_at < ?"
            params += [iso(start), iso(end)]
        total = int(
            self.db.execute(
                f"SELECT count(*) FROM prs_fts JOIN prs p ON p.rowid = prs_fts.rowid WHERE {where}", params
            ).fetchone()[0]
        )
        cols = ", ".join("p." + c.strip() for c in _LIGHT_COLUMNS.split(","))
        cur = self.db.execute(
            f"SELECT {cols} FROM prs_fts JOIN prs p ON p.rowid = prs_fts.rowid WHERE {where} "
            "ORDER BY bm25(prs_fts, 3.0, 1.0), p.merged_at DESC LIMIT ?",
            [*params, limit],
        )
        names = [d[0] for d in cur.description]
        return [_row_to_stored(dict(zip(names, row, strict=True))) for row in cur.fetchall()], total

    def iter_all(self, repo: str | None = None, *, batch: int = 2000) -> Iterator[PullRequest]:
        """Every cached PR with body and files (for reclassify), streamed in rowid order."""
        where, params = ("WHERE repo = ?", [repo]) if repo else ("", [])
        last = 0
        while True:
            cur = self.db.execute(
                f"SELECT rowid, {_PR_COLUMNS}, {_CLS_COLUMNS} FROM prs {where} {'AND' if where else 'WHERE'} rowid > ? "
                f"ORDER BY rowid LIMIT {batch}",
                [*params, last],
            )
            names = [d[0] for d in cur.description]
            rows = cur.fetchall()
            if not rows:
                return
            for row in rows:
                d = dict(zip(names, row, strict=True))
                last = d.pop("rowid")
                yield _row_to_stored(d).pr


@dataclass(frozen=True)
class BriefPR:
    """The little the digest needs about PRs of comparison weeks: title, modules, flag kinds."""

    number: int
    title: str
    modules: tuple[str, ...]
    flags: tuple[str, ...]
    score: float


def brief_between(store: PRStore, repo: str, start: datetime, end: datetime) -> list[BriefPR]:
    """Cheap rows for the four comparison windows of a digest (no bodies, files or evidence)."""
    rows = store.db.execute(
        "SELECT number, title, modules, flags, score FROM prs WHERE repo = ? AND merged_at >= ? AND merged_at < ?",
        (repo, iso(start), iso(end)),
    ).fetchall()
    return [
        BriefPR(
            int(n),
            str(title),
            tuple(json.loads(mods)),
            tuple(f["kind"] for f in json.loads(flags)),
            float(score),
        )
        for n, title, mods, flags, score in rows
    ]
