"""The documentation holds together: every relative link and anchor resolves, the README stays a
manual a user can read (at most 400 lines) and points at every page under docs/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
README_MAX_LINES = 400

_FENCE = re.compile(r"^(```|~~~)")
_LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks, with inline code spans blanked out."""
    out, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        if not fenced:
            out.append(re.sub(r"`[^`]*`", lambda m: "`" + " " * (len(m.group()) - 2) + "`", line))
    return out


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading keeps its text
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a Markdown file, with GitHub's -1, -2 … for repeated headings."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if _FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        match = None if fenced else _HEADING.match(line)
        if match:
            base = slug(match.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            out.add(base if n == 0 else f"{base}-{n}")
    return out


def relative_links(path: Path) -> list[str]:
    """Every link target of a page that is not a URL (http, https, mailto)."""
    targets = []
    for line in prose_lines(path.read_text(encoding="utf-8")):
        targets += [t for t in _LINK.findall(line) if not re.match(r"[a-z]+:", t)]
    return targets


def broken_links(path: Path) -> list[str]:
    problems = []
    for target in relative_links(path):
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.exists():
            problems.append(
                f"{target}: {dest.relative_to(ROOT) if dest.is_relative_to(ROOT) else dest} does not exist"
            )
        elif anchor and (dest.suffix != ".md" or anchor not in anchors(dest)):
            problems.append(f"{target}: no heading with anchor #{anchor} in {dest.name}")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_every_relative_link_and_anchor_resolves(page: Path) -> None:
    assert not broken_links(page), broken_links(page)


def test_the_checker_finds_a_missing_file_and_a_missing_anchor(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other page\n\n## Setting up `serve` (HTTP)\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n[ok](other.md#setting-up-serve-http) [ok](#page) [url](https://example.com/x)\n"
        "[gone](missing.md) [bad anchor](other.md#nowhere) `[code](not-a-link.md)`\n"
        "```\n[in a block](also-not-a-link.md)\n```\n",
        encoding="utf-8",
    )
    problems = broken_links(page)
    assert len(problems) == 2, problems
    assert problems[0].startswith("missing.md:") and "#nowhere" in problems[1]


def test_slugs_follow_githubs_rules() -> None:
    assert (
        slug("`digest [PERIOD] [MODULE…] [FLAG…] [any|all|only]`") == "digest-period-module-flag-anyallonly"
    )
    assert slug("Commands on a 200,000-PR cache (`python -m bench.run`)") == (
        "commands-on-a-200000-pr-cache-python--m-benchrun"
    )
    assert slug("The tests and GitHub's GraphQL schema") == "the-tests-and-githubs-graphql-schema"


def test_the_readme_is_a_manual_of_at_most_400_lines() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; move depth into docs/"


def test_the_readme_links_every_page_under_docs() -> None:
    linked = {(ROOT / t.partition("#")[0]).resolve() for t in relative_links(ROOT / "README.md")}
    pages = set((ROOT / "docs").glob("*.md"))
    assert pages, "docs/ has no pages"
    assert not pages - linked, f"README.md does not link {sorted(p.name for p in pages - linked)}"
