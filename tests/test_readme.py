"""The documentation's examples are real: the example profile of docs/rule-profiles.md loads, and the
README's Quick start is what CI runs."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from classify.engine import classify
from classify.models import FileChange, PullRequest
from classify.rules import load_profile

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
RULE_PROFILES = (ROOT / "docs" / "rule-profiles.md").read_text(encoding="utf-8")


def test_the_example_profile_in_the_docs_loads_and_classifies(tmp_path: Path) -> None:
    block = re.search(r"```toml\n(.*?)```", RULE_PROFILES, re.S)
    assert block is not None
    path = tmp_path / "mine.toml"
    path.write_text(block.group(1), encoding="utf-8")
    profile = load_profile(path)
    assert profile.name == "myproject" and "rocm" in profile.modules
    assert profile.resolve_module("AMD") == "rocm"
    pr = PullRequest(
        repo="o/r",
        number=1,
        title="[ROCm] Faster MI300X decode",
        merged_at=datetime(2026, 5, 4, tzinfo=UTC),
        files=[FileChange(path="csrc/rocm/attention.cu", additions=10, deletions=2)],
    )
    cls = classify(pr, profile)
    assert "rocm" in cls.modules
    flag = cls.flag("core-path")
    assert flag is not None and flag.evidence == ["csrc/rocm/attention.cu"]
    cpu = replace(pr, files=[replace(pr.files[0], path="csrc/cpu/attention.cpp")])
    assert classify(cpu, profile).flag("core-path") is None  # the example excludes csrc/cpu/**


def test_quick_start_has_two_commands_and_ci_runs_the_second() -> None:
    section = README.split("## Quick start", 1)[1]
    block = re.search(r"```[a-z]*\n(.*?)```", section, re.S)
    assert block is not None
    commands = [line for line in block.group(1).splitlines() if line.strip() and not line.startswith("#")]
    assert len(commands) == 2
    assert "prdigest demo" in commands[0]
    assert commands[1] in (ROOT / ".ci" / "run").read_text()
