"""Schema history. The schema changes only here, one named migration at a time."""

from __future__ import annotations

import sqlite_utils
from sqlite_utils.migrations import Migrations

MIGRATIONS = Migrations("prdigest")


@MIGRATIONS(name="0001_prs")
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


@MIGRATIONS(name="0002_cls_hash")
def _m0002_cls_hash(db: sqlite_utils.Database) -> None:
    """Hash the PR's data and its classification separately, so reclassify compares only the latter.

    ``content_hash`` keeps covering the PR's own fields; ``cls_hash`` covers the classification.
    Existing rows start with an empty ``cls_hash``, so the first reclassify rewrites them once.
    """
    db.execute("ALTER TABLE prs ADD COLUMN cls_hash TEXT NOT NULL DEFAULT ''")


@MIGRATIONS(name="0003_fts_update_trigger_on_text_only")
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
