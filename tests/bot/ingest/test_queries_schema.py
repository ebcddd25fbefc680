"""Every GraphQL document the code sends is valid against GitHub's published schema."""

from __future__ import annotations

import pytest

from bot.ingest import github_queries as Q
from tests.fakes.github import require_schema


def _documents() -> list[tuple[str, str]]:
    docs = list(Q.all_static_queries().items())
    docs += [(f"more_files_query({n})", Q.more_files_query(n)) for n in (1, 2, Q.MAX_FILE_ALIASES)]
    return docs


@pytest.mark.parametrize(("name", "text"), _documents(), ids=[n for n, _ in _documents()])
def test_query_is_valid_against_github_schema(name: str, text: str) -> None:
    import graphql

    schema = require_schema()
    errors = graphql.validate(schema, graphql.parse(text))
    assert errors == [], f"{name}: {[e.message for e in errors]}"


def test_every_query_constant_is_covered() -> None:
    """A new query added to the module must also be listed in ``all_static_queries``."""
    constants = {k for k, v in vars(Q).items() if k.isupper() and isinstance(v, str) and "query " in v}
    assert constants == set(Q.all_static_queries())


def test_connections_stay_within_github_limits() -> None:
    import re

    for _name, text in _documents():
        for value in re.findall(r"\b(?:first|last):\s*(\d+)", text):
            assert int(value) in range(1, 101)


def test_more_files_query_bounds() -> None:
    with pytest.raises(ValueError):
        Q.more_files_query(0)
    with pytest.raises(ValueError):
        Q.more_files_query(Q.MAX_FILE_ALIASES + 1)
