"""Import and reclassify paths: parallel reclassification writes what the in-process path writes."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import asdict
from pathlib import Path

import pytest

from bot.ingest.load import _WORKER, _classify_batch, _start_worker, reclassify
from classify.rules import Profile, ProfileError, identity, load_profile
from storage.db import connect
from storage.prs import PRStore

SNAPSHOT = "SELECT number, modules, kind, flags, score, breakdown, highlights, gist, profile FROM prs ORDER BY number"


def _snapshot(path: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(SNAPSHOT).fetchall()
        tags = conn.execute(
            "SELECT number, tag_type, tag FROM pr_tags ORDER BY number, tag_type, tag"
        ).fetchall()
    finally:
        conn.close()
    return [*rows, *tags]


def test_parallel_reclassify_equals_the_in_process_one(
    demo_db: Path, tmp_path: Path, profile: Profile
) -> None:
    other = tmp_path / "other.db"
    other.write_bytes(demo_db.read_bytes())
    generic = load_profile("generic")

    for path, workers in ((demo_db, 1), (other, 2)):
        store = PRStore(connect(path))
        switched = reclassify(store, generic, workers=workers, batch=200)
        assert switched.total == store.count() and switched.changed == store.count()
        assert switched.workers == workers
        back = reclassify(store, profile, workers=workers, batch=200)
        assert back.changed == store.count()
        again = reclassify(store, profile, workers=workers, batch=200)
        assert again.changed == 0, "an unchanged profile rewrites nothing"
        store.db.conn.close()
    assert _snapshot(demo_db) == _snapshot(other)


def _reference(name: str) -> tuple[dict[int, str], list[tuple[str, int, str, str, str]]]:
    """What the code before the set-based reclassify stored (commit 36acb18):
    one ``classify`` per PR, its columns serialised through ``dataclasses.asdict`` and
    ``json.dumps``, hashed over the sorted JSON, and a tag row per module and flag kind. Computed
    here, independently of ``storage.prs``' hand-written serialiser, so a profile edit needs no
    regenerated file and a serialiser slip still fails."""
    from bot.ingest.demo import demo_data_path
    from bot.ingest.load import _records
    from classify.engine import classify
    from storage.prs import iso

    profile = load_profile(name)
    hashes: dict[int, str] = {}
    tags: list[tuple[str, int, str, str, str]] = []
    for _, pr in _records(demo_data_path()):
        cls = classify(pr, profile)
        row = {
            "modules": json.dumps(cls.modules, ensure_ascii=False),
            "kind": cls.kind,
            "flags": json.dumps([asdict(f) for f in cls.flags], ensure_ascii=False),
            "score": cls.score,
            "breakdown": json.dumps([asdict(b) for b in cls.breakdown], ensure_ascii=False),
            "highlights": json.dumps(cls.highlights, ensure_ascii=False),
            "gist": cls.gist,
            "profile": cls.profile,
            "profile_version": cls.profile_version,
        }
        blob = json.dumps(row, sort_keys=True, ensure_ascii=False, default=str).encode()
        hashes[pr.number] = hashlib.blake2b(blob, digest_size=16).hexdigest()
        merged = iso(pr.merged_at)
        tags += [(pr.repo, pr.number, merged, "module", m) for m in dict.fromkeys(cls.modules)]
        tags += [(pr.repo, pr.number, merged, "flag", f.kind) for f in cls.flags]
    return hashes, tags


def test_a_full_reclassify_stores_what_the_code_before_it_stored(demo_db: Path) -> None:
    store = PRStore(connect(demo_db))
    for name in ("generic", "vllm"):  # the demo cache holds vllm's: every row changes, twice
        result = reclassify(store, load_profile(name), workers=2, batch=200)
        assert (result.classified, result.workers) == (1247, 2)
        want_hashes, want_tags = _reference(name)
        hashes = dict(store.db.execute("SELECT number, cls_hash FROM prs").fetchall())
        assert hashes == want_hashes, name
        tags = store.db.execute("SELECT repo, number, merged_at, tag_type, tag FROM pr_tags").fetchall()
        assert sorted(tags) == sorted(want_tags), name
    store.db.conn.close()


def _counts(store: PRStore) -> list[tuple[object, ...]]:
    """The stored module, flag and merged counts (not title topics, which a reclassify keeps)."""
    return store.db.execute(
        "SELECT repo, key, bucket, n FROM pr_aggregates WHERE key NOT LIKE 'title:%' ORDER BY 1, 2, 3"
    ).fetchall()


def test_a_reclassify_recounts_the_buckets_whose_tags_changed_and_only_those(
    demo_db: Path, profile: Profile, tmp_path: Path
) -> None:
    """Only a retagged PR's quarter-hour is recounted; the counts then equal a recount of every
    bucket from the rows — after tags changed (another profile) and after they did not (a new
    version string: every row rewritten, no tag touched, no aggregate statement run)."""
    from storage.aggregates import refresh_aggregates

    store = PRStore(connect(demo_db))
    bumped_path = tmp_path / profile.source.name
    text = profile.source.read_text(encoding="utf-8")
    bumped_path.write_text(text.replace(f'version = "{profile.version}"', 'version = "bumped"', 1), "utf-8")
    bumped = load_profile(bumped_path)
    assert bumped.version == "bumped"
    for prof in (load_profile("generic"), profile, bumped):
        before = _counts(store)
        statements = _statements(store)
        result = reclassify(store, prof, workers=1, batch=200)
        store.db.conn.set_trace_callback(None)
        assert result.changed == 1247
        recounts = [s for s in statements if s.startswith("INSERT INTO pr_aggregates")]
        kept = _counts(store)
        with store.db.conn:
            refresh_aggregates(store.db, "vllm-project/vllm")  # every bucket, from the rows
        assert kept == _counts(store), prof.version
        if prof is bumped:
            assert kept == before and recounts == [], "no tag changed: nothing recounted"
        else:
            assert kept != before and recounts, "tags changed: their buckets recounted"
    store.db.conn.close()


def test_a_reclassify_reuses_the_gist_and_highlights_this_code_made(
    demo_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The demo cache was classified by this code (under vllm): another profile's reclassify takes
    each row's stored gist and highlights instead of recomputing them; rows made by other code
    (here: no record of the code) are recomputed. Same results either way (see the test above)."""
    import classify.engine as engine

    calls = 0
    real = engine.highlights

    def counted(*args: object, **kwargs: object) -> list[str]:
        nonlocal calls
        calls += 1
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "highlights", counted)
    store = PRStore(connect(demo_db))
    reclassify(store, load_profile("generic"), workers=1, batch=200)
    assert calls == 0
    reused = _snapshot(demo_db)
    reclassify(store, load_profile(), workers=1, batch=200)
    assert calls == 0, "the generic run recorded its code: the rows are re-used again"
    store.db.execute("DELETE FROM classifier_codes")
    reclassify(store, load_profile("generic"), workers=1, batch=200)
    assert calls == 1247, "without a record of the code every row is recomputed"
    assert _snapshot(demo_db) == reused
    store.db.conn.close()


def test_reclassify_after_an_import_reaches_the_same_rows(demo_db: Path, profile: Profile) -> None:
    before = _snapshot(demo_db)
    store = PRStore(connect(demo_db))
    assert reclassify(store, profile, workers=1).changed == 0
    store.db.conn.close()
    assert _snapshot(demo_db) == before


# -- only rows not classified with the profile's content are re-run ------------------------------


def _statements(store: PRStore) -> list[str]:
    """Statements run on ``store`` from now on (to see what reclassify read and wrote)."""
    seen: list[str] = []
    store.db.conn.set_trace_callback(seen.append)
    return seen


def _edited_copy(profile: Profile, tmp_path: Path, old: str, new: str) -> Profile:
    """The profile's file with one edit and the same version string."""
    text = profile.source.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path = tmp_path / profile.source.name
    path.write_text(text.replace(old, new), encoding="utf-8")
    edited = load_profile(path)
    assert (edited.name, edited.version) == (profile.name, profile.version)
    return edited


def test_an_unchanged_profile_is_recognised_and_nothing_is_read_or_written(
    demo_db: Path, profile: Profile
) -> None:
    before = _snapshot(demo_db)
    store = PRStore(connect(demo_db))
    statements = _statements(store)
    changes = store.db.conn.total_changes
    result = reclassify(store, profile, workers=2, batch=200)
    store.db.conn.set_trace_callback(None)
    assert result.up_to_date and (result.classified, result.changed) == (0, 0)
    assert result.total == store.count() == 1247
    assert store.db.conn.total_changes == changes, "no row was written"
    assert len(statements) == 2 and all(s.startswith("SELECT count(*) FROM prs") for s in statements), (
        "two counts from the index, no PR row read"
    )
    store.db.conn.close()
    assert _snapshot(demo_db) == before


def test_a_profile_edited_without_a_version_bump_is_reclassified(
    demo_db: Path, profile: Profile, tmp_path: Path
) -> None:
    # A real rule change: the MoE module also claims PRs that mention kernels.
    edited = _edited_copy(profile, tmp_path, '"all to all"]', '"all to all", "kernel"]')
    assert edited.content_hash != profile.content_hash
    store = PRStore(connect(demo_db))
    result = reclassify(store, edited, workers=1)
    assert not result.up_to_date and result.classified == 1247 and result.changed > 0
    assert reclassify(store, edited, workers=1).up_to_date
    store.db.conn.close()
    hashes = sqlite3.connect(demo_db).execute("SELECT DISTINCT profile_hash FROM prs").fetchall()
    assert hashes == [(edited.content_hash,)]


def test_an_edit_that_changes_no_result_only_marks_the_rows(
    demo_db: Path, profile: Profile, tmp_path: Path
) -> None:
    before = _snapshot(demo_db)
    edited = _edited_copy(profile, tmp_path, 'description = "vLLM', 'description = "The vLLM')
    store = PRStore(connect(demo_db))
    result = reclassify(store, edited, workers=1)
    assert (result.classified, result.changed) == (1247, 0)
    assert reclassify(store, edited, workers=1).up_to_date
    store.db.conn.close()
    assert _snapshot(demo_db) == before


def test_an_interrupted_reclassify_is_completed_by_the_next_run(
    demo_db: Path, tmp_path: Path, profile: Profile
) -> None:
    whole = tmp_path / "whole.db"
    whole.write_bytes(demo_db.read_bytes())
    generic = load_profile("generic")
    store = PRStore(connect(whole))
    reclassify(store, generic, workers=1, batch=200)
    store.db.conn.close()

    store = PRStore(connect(demo_db))
    real = store.store_classifications
    calls = 0

    def interrupted(items: object) -> int:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise KeyboardInterrupt  # Ctrl-C while the third batch is stored
        return real(items)  # type: ignore[arg-type]

    store.store_classifications = interrupted  # type: ignore[method-assign]
    with pytest.raises(KeyboardInterrupt):
        reclassify(store, generic, workers=1, batch=200)
    assert calls == 3
    store.store_classifications = real  # type: ignore[method-assign]
    assert store.count_other_profile(None, generic.content_hash) == 1247 - 400
    rest = reclassify(store, generic, workers=1, batch=200)
    assert (rest.total, rest.classified) == (1247, 1247 - 400)
    store.db.conn.close()
    assert _snapshot(demo_db) == _snapshot(whole)


def test_a_profile_edited_before_a_worker_loads_it_is_a_profile_error_of_the_batch(
    demo_db: Path, tmp_path: Path, profile: Profile
) -> None:
    # A worker process loads the parent's profile from its file and checks the content hash; an
    # edit in between must reach the command as a ProfileError (one line), not a broken pool.
    copy = _edited_copy(profile, tmp_path, 'description = "vLLM', 'description = "The vLLM')
    sent = identity(copy)
    text = copy.source.read_text(encoding="utf-8")
    copy.source.write_text(text.replace('"all to all"]', '"all to all", "kernel"]'), encoding="utf-8")
    try:
        _start_worker(sent, str(demo_db))
        with pytest.raises(ProfileError, match="edited while in use"):
            _classify_batch([1, 2])
    finally:
        _WORKER.clear()
    _start_worker(identity(profile), str(demo_db))  # the unedited profile: the batch is classified
    try:
        rows = _classify_batch([1, 2])
        assert [r.profile_hash for r in rows] == [profile.content_hash] * 2
    finally:
        _WORKER.pop("conn").close()
        _WORKER.clear()
