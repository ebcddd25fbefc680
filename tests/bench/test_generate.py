"""The generator behind the demo data and the benchmark: deterministic, well-formed, shaped like vLLM."""

from __future__ import annotations

import gzip
import hashlib
import itertools
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bench import catalog
from bench.generate import demo_records, generate_history, generate_prs, gzip_bytes, main, to_jsonl
from bench.headlines import HEADLINES
from classify.records import parse_pr

END = datetime(2026, 5, 11, tzinfo=UTC)


def test_same_seed_same_records_other_seed_other_records() -> None:
    a = list(generate_prs(2, per_week=50, end=END, seed=5))
    b = list(generate_prs(2, per_week=50, end=END, seed=5))
    c = list(generate_prs(2, per_week=50, end=END, seed=6))
    assert a == b
    assert [r["title"] for r in a] != [r["title"] for r in c]


def test_weeks_counts_and_window() -> None:
    records = list(generate_prs(3, per_week=(60, 80), end=END, repo="acme/widgets", seed=1, first_number=500))
    start = END - timedelta(weeks=3)
    merged = [datetime.strptime(r["merged_at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC) for r in records]
    assert all(start <= m < END for m in merged)
    bounds = [start + timedelta(weeks=k) for k in range(4)]
    per_week = [sum(lo <= m < hi for m in merged) for lo, hi in itertools.pairwise(bounds)]
    assert all(60 <= n <= 80 for n in per_week), per_week
    assert records[0]["number"] > 500
    assert all(
        r["repo"] == "acme/widgets" and r["url"].startswith("https://github.com/acme/widgets/pull/")
        for r in records
    )


def test_records_are_pull_requests_with_consistent_counts() -> None:
    for record in generate_prs(2, per_week=120, end=END, seed=3):
        pr = parse_pr(record)
        assert pr.additions == sum(f.additions for f in pr.files)
        assert pr.deletions == sum(f.deletions for f in pr.files)
        assert pr.changed_files == len(pr.files) > 0
        assert json.loads(json.dumps(record)) == record
        for f in pr.files:
            assert (f.previous_path is not None) == (f.change_type == "renamed")


def test_numbers_rise_with_merge_time_and_reverts_point_backwards() -> None:
    records = list(generate_prs(4, per_week=150, end=END, seed=11))
    assert [r["merged_at"] for r in records] == sorted(r["merged_at"] for r in records)
    numbers = [r["number"] for r in records]
    assert len(set(numbers)) == len(numbers)
    fixed = {h.number for h in HEADLINES if h.number is not None}  # the report's real PR numbers
    in_order = [n for n in numbers if n not in fixed]
    assert in_order == sorted(in_order)
    assert fixed <= set(numbers)
    by_number = {r["number"]: r for r in records}
    reverts = [r for r in records if r["title"].startswith('Revert "')]
    assert reverts
    for r in reverts:
        target = int(r["title"].rsplit("(#", 1)[1].rstrip(')"'))
        assert target < r["number"]
        assert r["title"] == f'Revert "{by_number[target]["title"]} (#{target})"'
        assert f"Reverts {r['repo']}#{target}" in r["body"]


def test_history_has_the_exact_total_and_rising_volume() -> None:
    assert len(list(generate_history(300, years=10, end=END, seed=2))) == 300
    records = list(generate_history(6000, years=2, end=END, seed=2))
    assert len(records) == 6000
    assert records[0]["number"] == 1 or records[0]["number"] < 10
    first_year = sum(r["merged_at"] < "2025-05-11" for r in records)
    assert first_year < len(records) - first_year


def test_gzip_is_stable_and_jsonl_sorted() -> None:
    records = list(generate_prs(1, per_week=40, end=END, seed=4))
    data = to_jsonl(list(reversed(records)))
    assert data == to_jsonl(records)
    assert gzip_bytes(data) == gzip_bytes(data)
    assert gzip.decompress(gzip_bytes(data)) == data
    lines = data.decode().splitlines()
    in_file = [(json.loads(line)["merged_at"], json.loads(line)["number"]) for line in lines]
    assert in_file == sorted((r["merged_at"], r["number"]) for r in records)  # merge order


def test_command_line_writes_plain_or_gzip_jsonl(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plain, packed = tmp_path / "prs.jsonl", tmp_path / "prs.jsonl.gz"
    assert main(["--out", str(plain), "--weeks", "1", "--per-week", "30"]) == 0
    assert main(["--out", str(packed), "--weeks", "1", "--per-week", "30"]) == 0
    assert gzip.decompress(packed.read_bytes()) == plain.read_bytes()
    assert "wrote" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main([])


def test_a_small_week_is_still_exact() -> None:
    assert len(list(generate_prs(1, per_week=5, end=END, seed=1))) == 5


def test_rejects_zero_weeks() -> None:
    with pytest.raises(ValueError, match="n_weeks"):
        list(generate_prs(0, per_week=10, end=END))


# SHA-256 of the generator's output, recorded while its vocabulary was still Python code
# (bench/catalog.py before bench/data/catalog.toml): reading the vocabulary from data must give the
# same records byte for byte — the bundled demo, a benchmark-style history and another seed.
RECORDED = {
    "demo": "36fd7c2ecf9b64bfa8ad0bba16d37986788c185a77745404a2d2a11855238e58",
    "history": "da71afcbb704e4ec6d3278c6b04ec551c6f8119b4bb1a3b277efad570de20e9d",
    "seed 3": "8f6ed2bfda6e333a83f3d03b00347e94f31a362f75f5b8a911f036d7914b4cd8",
}


def _sha256(records: list[dict[str, object]]) -> str:
    return hashlib.sha256(to_jsonl(records)).hexdigest()


def test_the_generator_makes_what_it_made_when_its_vocabulary_was_code() -> None:
    made = {
        "demo": _sha256(demo_records()),
        "history": _sha256(list(generate_history(3000, years=10, end=END, seed=7))),
        "seed 3": _sha256(list(generate_prs(8, per_week=(100, 300), end=END, seed=3))),
    }
    assert made == RECORDED


def test_the_catalog_is_read_from_its_data_file(tmp_path: Path) -> None:
    assert catalog.CATALOG_PATH.suffix == ".toml" and catalog.CATALOG_PATH.parent.name == "data"
    text = catalog.CATALOG_PATH.read_text(encoding="utf-8")
    edited = tmp_path / "catalog.toml"
    edited.write_text(text.replace('"H100", "H200"', '"H100", "H999"', 1), encoding="utf-8")
    loaded = catalog.load(edited)
    assert loaded["HARDWARE"][:2] == ("H100", "H999") and catalog.HARDWARE[:2] == ("H100", "H200")
    rocm = next(a for a in loaded["AREAS"] if a.name == "rocm")
    assert all(0 <= i < len(loaded["PEOPLE"]) for i in rocm.people) and rocm.people  # logins → indices
    assert isinstance(rocm.subjects[0], catalog.Subject) and isinstance(rocm.src, tuple)
