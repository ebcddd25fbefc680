"""Schema history. The schema changes only here, one named migration at a time.

The migrations run through sqlite-utils' ``Migrations`` (each in a transaction with the record of
it in ``_sqlite_migrations``), which is imported only when one has to run: a new cache, an older
one to upgrade, the scratch database the expected schema is built in (``storage.schema``). Which
migrations exist and which a cache has applied are read without it (``NAMES``, ``applied``).
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sqlite_utils
    from sqlite_utils.migrations import Migrations

MIGRATION_SET = "prdigest"
Step = Callable[["sqlite_utils.Database"], None]
_STEPS: list[tuple[str, Step]] = []


def _migration(name: str) -> Callable[[Step], Step]:
    """Add a step to the schema's history, in the order the steps are written here."""

    def add(fn: Step) -> Step:
        _STEPS.append((name, fn))
        return fn

    return add


@functools.cache
def _migrations() -> Migrations:
    from sqlite_utils.migrations import Migrations

    migrations = Migrations(MIGRATION_SET)
    for name, fn in _STEPS:
        migrations(name=name)(fn)
    return migrations


def _connection(db: Any) -> sqlite3.Connection:
    conn = getattr(db, "conn", db)  # a Cache, a sqlite-utils Database or a bare connection
    assert isinstance(conn, sqlite3.Connection)
    return conn


def apply(db: Any, *, stop_before: str | Iterable[str] | None = None) -> None:
    """Apply every migration ``db`` (a ``Cache``, a connection) has not applied yet, in order."""
    import sqlite_utils

    _migrations().apply(
        sqlite_utils.Database(_connection(db), execute_plugins=False), stop_before=stop_before
    )


def applied(db: Any) -> list[str]:
    """The migrations of this set ``db`` has applied, in the order it applied them."""
    conn = _connection(db)
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = '_sqlite_migrations'").fetchone():
        return []
    rows = conn.execute(
        "SELECT name FROM _sqlite_migrations WHERE migration_set = ? ORDER BY rowid", (MIGRATION_SET,)
    )
    return [str(r[0]) for r in rows]


def pending(db: Any) -> list[str]:
    """The known migrations ``db`` has not applied yet, in order."""
    done = set(applied(db))
    return [name for name in names() if name not in done]


def names() -> tuple[str, ...]:
    """Every migration this prdigest knows, in order."""
    return tuple(name for name, _ in _STEPS)


@_migration("0001_prs")
def _m0001_prs(db: sqlite_utils.Database) -> None:
    db.execute(
        """
        CREATE TABLE prs (
            repo TEXT NOT NULL,
            number INTEGER NOT NULL,
            title TEXT NOT NULL,
            body TEXT NOT NULL DEFAULT '',
            author TEXT NOT NULL DEFAULT '',
            created_at TEXT,
            merged_at TEXT NOT NULL,
            updated_at TEXT,
            base_branch TEXT NOT NULL DEFAULT 'main',
            labels TEXT NOT NULL DEFAULT '[]',
            additions INTEGER NOT NULL DEFAULT 0,
            deletions INTEGER NOT NULL DEFAULT 0,
            changed_files INTEGER NOT NULL DEFAULT 0,
            files TEXT NOT NULL DEFAULT '[]',
            url TEXT NOT NULL,
            source TEXT NOT NULL DEFAULT 'import',
            content_hash TEXT NOT NULL,
            -- classification (one row per PR keeps the hot queries join-free)
            modules TEXT NOT NULL DEFAULT '[]',
            kind TEXT NOT NULL DEFAULT 'other',
            flags TEXT NOT NULL DEFAULT '[]',
            score REAL NOT NULL DEFAULT 0,
            breakdown TEXT NOT NULL DEFAULT '[]',
            highlights TEXT NOT NULL DEFAULT '[]',
            gist TEXT NOT NULL DEFAULT '',
            profile TEXT NOT NULL DEFAULT '',
            profile_version TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (repo, number)
        )
        """
    )
    db.execute("CREATE INDEX idx_prs_repo_merged ON prs (repo, merged_at)")
    # One row per (PR, module) and (PR, flag): lets /risks and module trends over long periods
    # read an index range instead of every PR's JSON.
    db.execute(
        """
        CREATE TABLE pr_tags (
            repo TEXT NOT NULL,
            number INTEGER NOT NULL,
            merged_at TEXT NOT NULL,
            tag_type TEXT NOT NULL CHECK (tag_type IN ('module', 'flag')),
            tag TEXT NOT NULL,
            PRIMARY KEY (repo, number, tag_type, tag),
            FOREIGN KEY (repo, number) REFERENCES prs (repo, number) ON DELETE CASCADE
        )
        """
    )
    db.execute("CREATE INDEX idx_pr_tags_lookup ON pr_tags (repo, tag_type, tag, merged_at)")
    db.table("prs").enable_fts(["title", "body"], create_triggers=True, tokenize="porter")
    db.execute(
        """
        CREATE TABLE sync_state (
            repo TEXT NOT NULL,
            source TEXT NOT NULL,
            watermark TEXT,
            cursor TEXT,
            window_start TEXT,
            window_end TEXT,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (repo, source)
        )
        """
    )


@_migration("0002_cls_hash")
def _m0002_cls_hash(db: sqlite_utils.Database) -> None:
    """Hash the PR's data and its classification separately, so reclassify compares only the latter.

    ``content_hash`` keeps covering the PR's own fields; ``cls_hash`` covers the classification.
    Existing rows start with an empty ``cls_hash``, so the first reclassify rewrites them once.
    """
    db.execute("ALTER TABLE prs ADD COLUMN cls_hash TEXT NOT NULL DEFAULT ''")


@_migration("0003_fts_update_trigger_on_text_only")
def _m0003_fts_update_trigger(db: sqlite_utils.Database) -> None:
    """Re-index a PR's text only when its title or body changes.

    The trigger sqlite-utils creates fires on every UPDATE, so storing new classifications
    (reclassify) re-tokenised every body: half the time of a full reclassify.
    """
    db.execute('DROP TRIGGER IF EXISTS "prs_au"')
    db.execute(
        """
        CREATE TRIGGER "prs_au" AFTER UPDATE OF "title", "body" ON "prs" BEGIN
          INSERT INTO "prs_fts" ("prs_fts", rowid, "title", "body") VALUES('delete', old.rowid, old."title", old."body");
          INSERT INTO "prs_fts" (rowid, "title", "body") VALUES (new.rowid, new."title", new."body");
        END
        """
    )


_FTS_UPDATE_TRIGGER = """
CREATE TRIGGER "prs_au" AFTER UPDATE OF "title", "search_body" ON "prs" BEGIN
  INSERT INTO "prs_fts" ("prs_fts", rowid, "title", "search_body")
    VALUES('delete', old.rowid, old."title", old."search_body");
  INSERT INTO "prs_fts" (rowid, "title", "search_body") VALUES (new.rowid, new."title", new."search_body");
END
"""


@_migration("0004_search_cleaned_bodies")
def _m0004_search_cleaned_bodies(db: sqlite_utils.Database) -> None:
    """Search the description as people wrote it, not the PR template around it.

    Indexing raw bodies made every template word ("Fix", "Test Plan", "Purpose") match nearly
    every PR, which drowned real matches and made common-word searches slow. The index now covers
    the title and ``search_body`` (the body with template, comments, checklists and trailers
    removed by ``classify.text.search_text``).
    """
    from classify.text import search_text

    db.execute("ALTER TABLE prs ADD COLUMN search_body TEXT NOT NULL DEFAULT ''")
    for name in ("prs_ai", "prs_ad", "prs_au"):
        db.execute(f'DROP TRIGGER IF EXISTS "{name}"')
    db.execute("DROP TABLE IF EXISTS prs_fts")
    last = 0
    while True:
        rows = db.execute(
            "SELECT rowid, body FROM prs WHERE rowid > ? ORDER BY rowid LIMIT 5000", (last,)
        ).fetchall()
        if not rows:
            break
        db.conn.executemany(
            "UPDATE prs SET search_body = ? WHERE rowid = ?", [(search_text(b), r) for r, b in rows]
        )
        last = rows[-1][0]
    db.table("prs").enable_fts(["title", "search_body"], create_triggers=True, tokenize="porter")
    db.execute('DROP TRIGGER IF EXISTS "prs_au"')
    db.execute(_FTS_UPDATE_TRIGGER)


@_migration("0005_covering_index_for_comparison_windows")
def _m0005_window_index(db: sqlite_utils.Database) -> None:
    """Let a digest read its four comparison weeks from an index alone.

    Each comparison week needs every PR's number, score, size and title. Read through
    ``idx_prs_repo_merged``, every PR costs a lookup into a table row that also carries the whole
    description (~5 ms for four weeks of 650 PRs); this covering index holds exactly those
    columns in merge order (~1.5 ms, ~25 MB for 200,000 PRs). Module and flag counts already
    come from ``idx_pr_tags_lookup``.
    """
    db.execute(
        "CREATE INDEX IF NOT EXISTS idx_prs_window "
        "ON prs (repo, merged_at, number, score, additions, deletions, title)"
    )


@_migration("0006_profile_hash")
def _m0006_profile_hash(db: sqlite_utils.Database) -> None:
    """Store which profile content classified each PR, so reclassify re-runs only what is out of date.

    ``profile_hash`` is the profile's ``content_hash`` (its content and the classifier's code),
    kept apart from ``cls_hash``: a profile edit that changes no result updates only this column.
    The index answers "is every row up to date?" and lists the rows that are not without reading
    the table (200,000 PRs: milliseconds instead of a 40 s re-run). Existing rows start empty, so
    the first reclassify after the upgrade runs once over everything.
    """
    db.execute("ALTER TABLE prs ADD COLUMN profile_hash TEXT NOT NULL DEFAULT ''")
    db.execute("CREATE INDEX idx_prs_profile_hash ON prs (repo, profile_hash)")


@_migration("0007_subscriptions_and_deliveries")
def _m0007_subscriptions_and_deliveries(db: sqlite_utils.Database) -> None:
    """Scheduled digests: who gets which digest when, and a ledger of every delivery.

    ``deliveries`` is keyed by (subscription, period start): the claim of a period is one row,
    inserted under ``BEGIN IMMEDIATE`` before anything is posted, so two processes (or a restart)
    can never both own it. ``state`` moves claimed → posted | failed | unknown; a period that was
    not delivered in time is recorded as skipped with the reason. Deleting a subscription keeps
    its ledger (``subscription_id`` is not a foreign key) so the history stays inspectable.
    """
    db.execute(
        """
        CREATE TABLE subscriptions (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            platform TEXT NOT NULL,
            channel TEXT NOT NULL,
            repo TEXT NOT NULL,
            modules TEXT NOT NULL DEFAULT '[]',
            match TEXT NOT NULL DEFAULT 'any' CHECK (match IN ('any', 'all', 'only')),
            flags TEXT NOT NULL DEFAULT '[]',
            weekday INTEGER NOT NULL DEFAULT 0 CHECK (weekday BETWEEN 0 AND 6),
            at TEXT NOT NULL DEFAULT '09:00',
            every_weeks INTEGER NOT NULL DEFAULT 1 CHECK (every_weeks BETWEEN 1 AND 52),
            timezone TEXT NOT NULL DEFAULT 'UTC',
            lang TEXT NOT NULL DEFAULT 'en',
            layout TEXT NOT NULL DEFAULT 'thread' CHECK (layout IN ('thread', 'single')),
            quiet TEXT NOT NULL DEFAULT 'line' CHECK (quiet IN ('line', 'silent')),
            paused INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1)),
            anchor TEXT NOT NULL,
            since TEXT NOT NULL,
            created_by TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )
        """
    )
    db.execute(
        """
        CREATE TABLE deliveries (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            subscription_id INTEGER NOT NULL,
            period_start TEXT NOT NULL,
            period_end TEXT NOT NULL,
            due_at TEXT NOT NULL,
            state TEXT NOT NULL
                CHECK (state IN ('claimed', 'posted', 'failed', 'unknown', 'skipped')),
            attempts INTEGER NOT NULL DEFAULT 0,
            lease_owner TEXT,
            lease_until TEXT,
            reason TEXT NOT NULL DEFAULT '',
            message_ids TEXT NOT NULL DEFAULT '[]',
            permalink TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            UNIQUE (subscription_id, period_start)
        )
        """
    )
    db.execute("CREATE INDEX idx_deliveries_state ON deliveries (state, lease_until)")


@_migration("0008_aggregates")
def _m0008_aggregates(db: sqlite_utils.Database) -> None:
    """Counts per quarter-hour of merge time, kept at write time (see ``storage.aggregates``).

    ``pr_aggregates`` is keyed (repo, key, bucket) so a digest reads one short range per key it
    asks about; ``idx_pr_aggregates_bucket`` lets a writer recount the buckets it touched. Merged,
    module and flag counts are filled here from the rows; title topics need the rule profile and
    are counted by the next writer that has one (``prdigest reclassify``, an import, a sync).

    A cache whose planner statistics were gathered before migration 0006 added an index (the
    benchmark's) had the planner trust the unmeasured index for ``min(merged_at)`` (85 ms instead
    of 0.1 ms); the statistics are refreshed when there are any.
    """
    from storage.aggregates import refresh_all

    db.execute(
        """
        CREATE TABLE pr_aggregates (
            repo TEXT NOT NULL,
            key TEXT NOT NULL,
            bucket TEXT NOT NULL,
            n INTEGER NOT NULL,
            PRIMARY KEY (repo, key, bucket)
        ) WITHOUT ROWID
        """
    )
    db.execute("CREATE INDEX idx_pr_aggregates_bucket ON pr_aggregates (repo, bucket)")
    # the module and flag keys a repository's aggregates hold, so a window's counts are one
    # index seek per key instead of a scan over every bucket of every key
    db.execute(
        """
        CREATE TABLE aggregate_keys (
            repo TEXT NOT NULL,
            key TEXT NOT NULL,
            PRIMARY KEY (repo, key)
        ) WITHOUT ROWID
        """
    )
    db.execute(
        """
        CREATE TABLE aggregate_state (
            repo TEXT PRIMARY KEY,
            terms_stamp TEXT NOT NULL DEFAULT ''
        )
        """
    )
    refresh_all(db.conn)
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'").fetchone():
        db.execute("ANALYZE")


_FTS_TRIGGERS = (
    """
    CREATE TRIGGER "prs_ai" AFTER INSERT ON "prs" WHEN NOT EXISTS (SELECT 1 FROM fts_deferred) BEGIN
      INSERT INTO "prs_fts" (rowid, "title", "search_body") VALUES (new.rowid, new."title", new."search_body");
    END
    """,
    """
    CREATE TRIGGER "prs_ad" AFTER DELETE ON "prs" WHEN NOT EXISTS (SELECT 1 FROM fts_deferred) BEGIN
      INSERT INTO "prs_fts" ("prs_fts", rowid, "title", "search_body")
        VALUES('delete', old.rowid, old."title", old."search_body");
    END
    """,
    """
    CREATE TRIGGER "prs_au" AFTER UPDATE OF "title", "search_body" ON "prs"
    WHEN NOT EXISTS (SELECT 1 FROM fts_deferred) BEGIN
      INSERT INTO "prs_fts" ("prs_fts", rowid, "title", "search_body")
        VALUES('delete', old.rowid, old."title", old."search_body");
      INSERT INTO "prs_fts" (rowid, "title", "search_body") VALUES (new.rowid, new."title", new."search_body");
    END
    """,
)


@_migration("0009_fts_built_after_a_first_import")
def _m0009_fts_deferred(db: sqlite_utils.Database) -> None:
    """Let a first import build the full-text index once, at its end (see ``storage.fts``).

    While ``fts_deferred`` holds a row (the importing process), the three index triggers do
    nothing; the importer then rebuilds the index from every row. The triggers are otherwise
    the same as migration 0004's.
    """
    db.execute("CREATE TABLE fts_deferred (pid INTEGER NOT NULL, host TEXT NOT NULL)")
    for name in ("prs_ai", "prs_ad", "prs_au"):
        db.execute(f'DROP TRIGGER IF EXISTS "{name}"')
    for sql in _FTS_TRIGGERS:
        db.execute(sql)


@_migration("0010_classifier_codes")
def _m0010_classifier_codes(db: sqlite_utils.Database) -> None:
    """Which classifier code made the classifications stored under each profile hash.

    A reclassify with another profile re-uses a row's stored gist and highlights (they depend on
    the PR's text and the classifier's code, not on the profile) when the code that made them is
    this code; the profile hash alone mixes profile and code (``classify.rules.content_hash``).
    """
    db.execute(
        "CREATE TABLE classifier_codes (profile_hash TEXT PRIMARY KEY, code_hash TEXT NOT NULL) WITHOUT ROWID"
    )


@_migration("0013_stored_storylines")
def _m0013_stored_storylines(db: sqlite_utils.Database) -> None:
    """Closed periods' storylines kept across processes, and the per-day stamps that keep them exact.

    ``storyline_days`` counts, per repository and UTC day, the writes of PR rows merged that day
    (``PRStore`` bumps it wherever it writes ``prs``); a ``stored_storylines`` entry keeps the
    stamps of the days it read and is used only while they are unchanged (``storage.storylines``).
    """
    db.execute(
        """
        CREATE TABLE storyline_days (
            repo TEXT NOT NULL,
            day TEXT NOT NULL,
            n INTEGER NOT NULL,
            PRIMARY KEY (repo, day)
        ) WITHOUT ROWID
        """
    )
    db.execute(
        """
        CREATE TABLE stored_storylines (
            repo TEXT NOT NULL,
            start TEXT NOT NULL,
            end TEXT NOT NULL,
            profile_hash TEXT NOT NULL,
            code_hash TEXT NOT NULL,
            stamps TEXT NOT NULL,
            themes TEXT NOT NULL,
            PRIMARY KEY (repo, start, end)
        ) WITHOUT ROWID
        """
    )


@_migration("0014_delivery_steps")
def _m0014_delivery_steps(db: sqlite_utils.Database) -> None:
    """A delivery's messages, rendered once and stored with its claim, one ledger step each.

    ``delivery_steps`` holds, per delivery, every message in the order it is posted (``seq``) under
    a key named after its section (``lead``, ``risks``, ``risks.2``), the platform payload exactly
    as it is sent (``body``; the lead's smaller layout in ``fallback``), and how far it got:
    ``pending`` → ``sending`` (a request may have reached the platform: look before sending again)
    → ``posted`` (with the platform's message id), or ``dropped`` (the smaller layout replaced
    it). ``uploads`` lists files uploaded for it (Slack's chart), so a run that dies between upload
    and post leaves nothing behind that a later run cannot find and delete.

    ``deliveries.state`` gains ``partial``: the lead landed and some replies did not. SQLite cannot
    change a CHECK constraint in place, so the table is rebuilt with every row kept.
    """
    db.execute(
        """
        CREATE TABLE deliveries_new (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            subscription_id INTEGER NOT NULL,
            period_start TEXT NOT NULL,
            period_end TEXT NOT NULL,
            due_at TEXT NOT NULL,
            state TEXT NOT NULL
                CHECK (state IN ('claimed', 'posted', 'partial', 'failed', 'unknown', 'skipped')),
            attempts INTEGER NOT NULL DEFAULT 0,
            lease_owner TEXT,
            lease_until TEXT,
            reason TEXT NOT NULL DEFAULT '',
            message_ids TEXT NOT NULL DEFAULT '[]',
            permalink TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            UNIQUE (subscription_id, period_start)
        )
        """
    )
    db.execute("INSERT INTO deliveries_new SELECT * FROM deliveries")
    db.execute("DROP TABLE deliveries")
    db.execute("ALTER TABLE deliveries_new RENAME TO deliveries")
    db.execute("CREATE INDEX idx_deliveries_state ON deliveries (state, lease_until)")
    db.execute(
        """
        CREATE TABLE delivery_steps (
            delivery_id INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            key TEXT NOT NULL,
            body TEXT NOT NULL,
            fallback TEXT,
            state TEXT NOT NULL DEFAULT 'pending'
                CHECK (state IN ('pending', 'sending', 'posted', 'dropped')),
            message_id TEXT,
            uploads TEXT NOT NULL DEFAULT '[]',
            attempts INTEGER NOT NULL DEFAULT 0,
            sent_at TEXT,
            posted_at TEXT,
            PRIMARY KEY (delivery_id, key),
            UNIQUE (delivery_id, seq)
        )
        """
    )


@_migration("0015_learned_profiles")
def _m0015_learned_profiles(db: sqlite_utils.Database) -> None:
    """The rule profile learned for each repository that has none configured (``storage.learned``):
    its TOML as written, how many PRs it was learned from and when, so it is loaded through the
    profile loader like any file and learned again when the history has grown enough."""
    db.execute(
        """
        CREATE TABLE learned_profiles (
            repo TEXT PRIMARY KEY,
            toml TEXT NOT NULL,
            prs INTEGER NOT NULL,
            learned_at TEXT NOT NULL
        ) WITHOUT ROWID
        """
    )


@_migration("0016_prose")
def _m0016_prose(db: sqlite_utils.Database) -> None:
    """Sentences a language model wrote for a digest, kept by content; a subscription's choice.

    ``prose_sentences`` is a cache keyed by a hash of one digest part's facts, the model, the checks and the
    prompt version (``commands.prose.key.cache_key``): the same part asked again — the same
    digest in chat and on Monday, or for a second subscription — is not asked of the model again.
    ``answer`` is the verified sentences (or the checks the model's answers failed), as JSON; it
    depends on nothing else, so no write of PR rows invalidates it. ``subscriptions.prose`` turns
    the model off for one subscription (``prose=off``).
    """
    db.execute(
        """
        CREATE TABLE prose_sentences (
            key TEXT PRIMARY KEY,
            model TEXT NOT NULL,
            answer TEXT NOT NULL,
            created_at TEXT NOT NULL
        ) WITHOUT ROWID
        """
    )
    db.execute(
        "ALTER TABLE subscriptions ADD COLUMN prose TEXT NOT NULL DEFAULT 'on' CHECK (prose IN ('on', 'off'))"
    )


@_migration("0017_posted_payloads_dropped")
def _m0017_posted_payloads_dropped(db: sqlite_utils.Database) -> None:
    """A posted delivery's stored messages are kept only as keys, states and message ids
    (``DeliveryStore.finish`` drops the payloads from now on): drop those of deliveries posted
    before, which would otherwise keep each lead's chart in the cache for good."""
    db.execute(
        "UPDATE delivery_steps SET body = '{}', fallback = NULL "
        "WHERE delivery_id IN (SELECT id FROM deliveries WHERE state = 'posted')"
    )
