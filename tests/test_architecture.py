"""Meta-tests that keep the house honest: the layer contract, settings ↔ .env.example, docs ↔ registry."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from bot.config import Settings
from commands.registry import REGISTRY, load_all

ROOT = Path(__file__).resolve().parents[1]


def test_layers_hold_and_lower_layers_import_no_platform_sdk() -> None:
    """import-linter: bot > commands > storage > classify; no SDK/network below bot/."""
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 2 kept, 0 broken" in result.stdout


def test_layer_check_catches_a_violation(tmp_path: Path) -> None:
    """The contract is not vacuous: a storage module importing commands is reported as broken."""
    bad = ROOT / "storage" / "_layer_probe.py"
    bad.write_text("import commands.registry  # deliberate violation for the test\n")
    try:
        lint = Path(sys.executable).with_name("lint-imports")
        result = subprocess.run(
            [str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120
        )
    finally:
        bad.unlink()
    assert result.returncode != 0
    assert "storage._layer_probe" in result.stdout


def _env_example_names() -> set[str]:
    text = (ROOT / ".env.example").read_text()
    return set(re.findall(r"^#?\s*([A-Z][A-Z0-9_]+)=", text, re.M))


def test_env_example_lists_exactly_the_settings() -> None:
    fields = {name.upper() for name in Settings.model_fields}
    assert _env_example_names() == fields


def test_every_setting_is_documented_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text()
    missing = [n.upper() for n in Settings.model_fields if n.upper() not in readme]
    assert not missing, f"README does not mention {missing}"


def test_every_command_is_in_the_readme_and_in_help() -> None:
    load_all()
    readme = (ROOT / "README.md").read_text()
    for name in REGISTRY:
        assert f"prdigest {name}" in readme, f"README has no example of `prdigest {name}`"
