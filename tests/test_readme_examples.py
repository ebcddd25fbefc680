"""Every `$ prdigest …` example in the README and in docs/*.md works after the Quick start's first
command.

A scratch directory plays the reader's working directory: `prdigest demo` runs first (it writes
`prdigest-demo.db`, as the Quick start says), then every example of every ```console block runs
through the real executable, the README's first, then each page of docs/ in name order. An example shown with its output (the Bad input
section) must print exactly that output on stderr and exit 2; every other example must succeed.
Two files a reader brings are created first: the `prs.jsonl` that `prdigest import prs.jsonl`
imports (one record in the documented format) and the `notes.txt` that the bad-input example
passes as a database. Setup lines shown without a `$` (`prdigest sync …`, `prdigest serve …`,
`--post slack:…`) need tokens and a network; their own tests run them against loopback fakes.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.bot.cli.test_cli import EXE, cli

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _examples(page: Path) -> list[tuple[str, list[str]]]:
    """(command line, expected output lines) for every `$ prdigest` line of a page's console blocks."""
    out: list[tuple[str, list[str]]] = []
    for block in re.findall(r"```console\n(.*?)```", page.read_text(encoding="utf-8"), re.S):
        current: tuple[str, list[str]] | None = None
        for line in block.splitlines():
            if line.startswith("$ "):
                command = re.sub(r"\s+#.*$", "", line[2:]).strip()  # a trailing comment is no argument
                current = (command, [])
                out.append(current)
            elif current is not None and line.strip() and not line.startswith(" "):
                current[1].append(line)
    return out


README_EXAMPLES = _examples(ROOT / "README.md")
EXAMPLES = [example for page in PAGES for example in _examples(page)]


def _empty_answers() -> re.Pattern[str]:
    """The lines of an answer that found nothing ("No PRs were merged in 2026-W48."), in every
    language, built from the locale's own templates so a rewording keeps them recognised."""
    from commands.locale import LANGS, t

    keys = ("digest.empty", "risks.none", "search.none")
    templates = {t(lang, key) for lang in LANGS for key in keys}
    return re.compile("|".join(re.sub(r"\\\{\w+\\\}", ".+", re.escape(tpl)) for tpl in templates))


# An example of the README that finds nothing on the demo cache teaches nothing (`digest last-week`
# long after the demo's last week): every example must answer with something.
_EMPTY_ANSWER = _empty_answers()


def test_the_readme_has_examples_of_every_command() -> None:
    commands = {shlex.split(c)[1] for c, _ in README_EXAMPLES}
    assert {"digest", "risks", "pr", "search", "help", "demo", "import", "reclassify"} <= commands
    assert any("42121" in c for c, _ in README_EXAMPLES)
    assert any(expected for _, expected in README_EXAMPLES)  # and one bad input with its answer


def test_the_docs_pages_have_examples_that_run_too() -> None:
    in_docs = len(EXAMPLES) - len(README_EXAMPLES)
    assert in_docs > 0, "no page of docs/ has a `$ prdigest` example"


@pytest.fixture(scope="module")
def reader_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reader's directory after the Quick start's first command."""
    path = tmp_path_factory.mktemp("reader")
    demo = cli("demo", cwd=path)
    assert demo.returncode == 0, demo.stderr
    record = {
        "repo": "my-org/my-repo",
        "number": 7,
        "title": "[Bugfix] Fix a crash in the scheduler",
        "created_at": "2026-05-04T09:00:00Z",
        "merged_at": "2026-05-05T10:00:00Z",
        "files": [{"path": "src/scheduler.py", "additions": 12, "deletions": 3}],
    }
    (path / "prs.jsonl").write_text(json.dumps(record) + "\n")
    (path / "notes.txt").write_text("my notes\n")
    return path


@pytest.mark.parametrize(("command", "expected"), EXAMPLES, ids=[c for c, _ in EXAMPLES])
def test_every_readme_example_works_after_prdigest_demo(
    reader_dir: Path, command: str, expected: list[str]
) -> None:
    argv = shlex.split(command)
    assert argv[0] == "prdigest"
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PRDIGEST_", "GITHUB_", "SLACK_", "DISCORD_", "UV_"))
    }
    # the reader's shell after `. .venv/bin/activate`: `prdigest` runs the installed program
    env["PATH"] = os.pathsep.join([str(Path(EXE).parent), env.get("PATH", "")])
    result = subprocess.run(
        [EXE, *argv[1:]], capture_output=True, text=True, timeout=120, cwd=reader_dir, env=env
    )
    assert "Traceback" not in result.stderr
    if expected:
        assert result.returncode == 2, result
        assert result.stderr.strip().splitlines() == expected
    else:
        assert result.returncode == 0, (command, result.stderr)
        assert result.stdout.strip()
        empty = [line for line in result.stdout.splitlines() if _EMPTY_ANSWER.fullmatch(line.strip())]
        assert not empty, f"{command} answers with nothing on the demo cache: {empty[0]}"
    if argv[1:3] == ["pr", "42121"]:
        assert "Remove the Tree Attention backend" in result.stdout  # the reference report's #42121
