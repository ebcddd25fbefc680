"""Meta-tests that keep the house honest: the layer contract, settings ↔ .env.example, docs ↔ registry."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config.settings import ALIASES, FIELDS, Settings
from commands.registry import REGISTRY, load_all

ROOT = Path(__file__).resolve().parents[1]


def test_layers_hold_and_lower_layers_import_no_platform_sdk() -> None:
    """import-linter: bot > commands > storage > classify; the rooms of bot/ (cli > host > delivery >
    chat | ingest > prose > config, and no component importing the host or the CLI) and of
    commands/ (registry > commands > spec > context); no SDK or network below bot/."""
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 5 kept, 0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "line"),
    [
        ("storage._layer_probe", "import commands.registry  # the domain's layers: storage over commands\n"),
        (
            "bot.chat._layer_probe",
            "import bot.host.serve  # the edge's rooms: a component importing the host\n",
        ),
        (
            "bot.delivery._layer_probe",
            "from bot.host import runner  # a component reaching for the host instead of what it is handed\n",
        ),
        ("bot.ingest._layer_probe", "import bot.chat.post  # ingestion and chat are rooms apart\n"),
        ("bot.prose._layer_probe", "import bot.chat.slack.app  # prose under the chat that uses it\n"),
        (
            "commands.context",
            "import commands.registry  # the commands' rooms: the context loading commands\n",
        ),
    ],
)
def test_layer_check_catches_a_violation(tmp_path: Path, module: str, line: str) -> None:
    """The contracts are not vacuous: a module importing a layer above its own is reported (a new
    module with the import, or an existing one with it appended).

    The probe goes into a copy of the packages under ``tmp_path``; the source tree is never written.
    """
    for package in ("bot", "commands", "storage", "classify"):
        shutil.copytree(
            ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__", "*.gz")
        )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    probe = tmp_path / (module.replace(".", "/") + ".py")
    probe.write_text((probe.read_text() if probe.exists() else "") + line)
    lint = Path(sys.executable).with_name("lint-imports")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    result = subprocess.run(
        [str(lint), "--no-cache"], cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env
    )
    assert result.returncode != 0
    assert f"- {module} -> " in result.stdout, result.stdout  # the offending import is named


def _env_example_names() -> set[str]:
    text = (ROOT / ".env.example").read_text()
    return set(re.findall(r"^#?\s*([A-Z][A-Z0-9_]+)=", text, re.M))


def test_env_example_lists_exactly_the_settings() -> None:
    fields = {name.upper() for name in FIELDS}
    assert _env_example_names() == fields
    text = (ROOT / ".env.example").read_text()
    for alias, field in ALIASES.items():  # an older name is explained, not set
        assert f"{alias.upper()} " in text and field in FIELDS


def _user_docs() -> str:
    """What users read: the README and the pages under docs/ (where the README's depth lives)."""
    pages = sorted((ROOT / "docs").glob("*.md")) if (ROOT / "docs").is_dir() else []
    return "\n".join(p.read_text() for p in [ROOT / "README.md", *pages])


def test_every_setting_is_documented_in_the_readme() -> None:
    docs = _user_docs()
    missing = [n.upper() for n in [*FIELDS, *ALIASES] if n.upper() not in docs]
    assert not missing, f"neither README nor docs/ mention {missing}"


def test_every_command_is_in_the_readme_and_in_help() -> None:
    load_all()
    readme = (ROOT / "README.md").read_text()
    for name in REGISTRY:
        assert f"prdigest {name}" in readme, f"README has no example of `prdigest {name}`"


def test_every_declared_parameter_is_in_help_everywhere_and_in_the_readme() -> None:
    """The declarations are the single source: each parameter shows up in ``help COMMAND`` on
    every surface that offers it (in both languages) and in the README's section of its command."""
    from classify.rules import load_profile
    from commands.locale import t
    from commands.model import Invocation
    from commands.params import listed, typed_usage
    from commands.registry import Context, dispatch
    from commands.render_text import render_text
    from storage.db import connect
    from storage.prs import PRStore

    load_all()
    readme = (ROOT / "README.md").read_text()
    ctx = Context(store=PRStore(connect(":memory:")), profile=load_profile())
    for spec in REGISTRY.values():
        for surface in ("cli", "slack", "discord"):
            for lang in ("en", "zh"):
                inv = Invocation(command="help", args=(spec.name,), platform=surface, lang=lang)  # type: ignore[arg-type]
                text = render_text(dispatch(inv, ctx))
                for param in listed(spec.params, surface):  # type: ignore[arg-type]
                    shown = typed_usage(param) if surface == "discord" else param.usage()
                    assert shown.strip("[]") in text, (spec.name, surface, param.name)
                    assert t(lang, param.help) in text, (spec.name, surface, lang, param.name)
        section = readme.split(f"### `{spec.usage}`", 1)
        assert len(section) == 2, f"README has no section headed `{spec.usage}`"
        for param in spec.params:
            named = param.option or param.named
            word = f"--{param.name}" if named else f"`{param.name}`" if param.flag else param.metavar
            # a parameter left out of help (``Param.listed``) is documented with its feature in docs/
            assert word in (readme if param.listed else _user_docs()), (spec.name, param.name)


def test_every_front_end_is_a_component_with_documented_settings() -> None:
    """The host's list of front ends: each module builds a component, and the variables that turn
    it on are real settings, in .env.example and the README."""
    from bot.config.settings import ConfigError
    from bot.host.serve import FRONT_ENDS, components_for

    readme = (ROOT / "README.md").read_text()
    env_names = _env_example_names()
    for front in FRONT_ENDS:
        assert callable(front.build), front.name
        names = re.findall(r"\b[A-Z]+_[A-Z0-9_]+\b", front.variables)
        assert names, front
        for name in names:
            assert name.lower() in FIELDS and name in env_names and name in readme
    nothing = Settings(_env_file=None)  # type: ignore[call-arg]
    try:
        components_for(nothing)
    except ConfigError as exc:
        assert str(exc).startswith("nothing to serve: set ")
        assert all(front.variables in str(exc) for front in FRONT_ENDS)
    else:
        raise AssertionError("serve with nothing configured must refuse")


def test_every_invocation_is_made_by_the_one_factory() -> None:
    """Front ends and subscriptions ask ``commands.invocations`` for their Invocations: no other
    module of the product constructs one (what a request carries is decided in one place)."""
    import ast

    makers = []
    for package in ("bot", "commands", "storage", "classify"):
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id == "Invocation"
                ):
                    makers.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert len(makers) == 1 and makers[0].startswith("commands/invocations.py:"), makers
