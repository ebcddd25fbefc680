"""Small builders for classifier tests: a PR from a title, files and a body."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from classify.models import FileChange, PullRequest

FileSpec = str | tuple[str, int] | tuple[str, int, int]


def files(specs: Iterable[FileSpec]) -> list[FileChange]:
    """``"a.py"`` (10 added lines), ``("a.py", 200)`` or ``("a.py", 200, 15)`` → FileChange list."""
    out = []
    for spec in specs:
        if isinstance(spec, str):
            out.append(FileChange(path=spec, additions=10))
        elif len(spec) == 2:
            out.append(FileChange(path=spec[0], additions=spec[1]))
        else:
            out.append(FileChange(path=spec[0], additions=spec[1], deletions=spec[2]))
    return out


def pr(
    title: str,
    paths: Iterable[FileSpec] = (),
    body: str = "",
    labels: Iterable[str] = (),
    number: int = 41000,
) -> PullRequest:
    changed = files(paths)
    return PullRequest(
        repo="vllm-project/vllm",
        number=number,
        title=title,
        body=body,
        merged_at=datetime(2026, 5, 5, 12, tzinfo=UTC),
        labels=list(labels),
        files=changed,
        additions=sum(f.additions for f in changed),
        deletions=sum(f.deletions for f in changed),
    )


VLLM_TEMPLATE = """<!-- markdownlint-disable -->
PLEASE FILL IN THE PR DESCRIPTION HERE ENSURING ALL CHECKLIST ITEMS (AT THE BOTTOM) HAVE BEEN CONSIDERED.

## Purpose

{purpose}

## Test Plan

{test_plan}

## Test Result

{test_result}

---
<details>
<summary> Essential Elements of an Effective PR Description Checklist </summary>

- [ ] The purpose of the PR, such as "Fix some issue (link existing issues this PR will resolve)".
- [ ] The test plan, such as providing test command.
- [ ] The test results, such as pasting the results comparison before and after, or e2e results
{optional_docs}
{optional_notes}
</details>

{before_submitting}

Signed-off-by: Jane Developer <jane@example.com>
"""


_LONG_LINES = {
    "optional_docs": "- [ ] (Optional) The necessary documentation update, such as updating "
    "`supported_models.md` and `examples` for a new model.",
    "optional_notes": "- [ ] (Optional) Release notes update. If your change is user facing, please add "
    "release notes draft to the [Google Doc](https://docs.google.com/document/d/1YyVqrgX4gHTtrstbq8oWUImOyPCKSGnJ7xtTpmXzlRs/"
    "edit?tab=t.0).",
    "before_submitting": "**BEFORE SUBMITTING, PLEASE READ <https://docs.vllm.ai/en/latest/contributing> "
    "(anything written below this line will be removed by GitHub Actions)**",
}


def vllm_body(purpose: str, test_plan: str = "pytest tests/ -q", test_result: str = "All tests pass.") -> str:
    """vLLM's PR template (2026) filled in, as merged PR bodies carry it."""
    return VLLM_TEMPLATE.format(purpose=purpose, test_plan=test_plan, test_result=test_result, **_LONG_LINES)
