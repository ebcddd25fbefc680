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


@pytest.mark.parametrize(("name", "text"), _documents(), ids=[n for n, _ in _documents()])
def test_query_is_valid_against_the_part_of_github_the_fake_serves(name: str, text: str) -> None:
    """Runs without GitHub's schema file: the fake executes these against its own part of it."""
    import graphql

    from tests.fakes.github import SERVED_SCHEMA

    served = graphql.build_schema(SERVED_SCHEMA.read_text(encoding="utf-8"))
    errors = graphql.validate(served, graphql.parse(text))
    assert errors == [], f"{name}: {[e.message for e in errors]}"


def test_every_definition_the_fake_serves_is_githubs_own() -> None:
    """Each type, field, argument, enum value and union member of github_served.graphql is in
    GitHub's published schema with the same type: the fake never answers what GitHub would not."""
    import graphql

    from tests.fakes.github import SERVED_SCHEMA

    github = require_schema()
    served = graphql.build_schema(SERVED_SCHEMA.read_text(encoding="utf-8"))
    for name, mine in served.type_map.items():
        if name.startswith("__") or name in ("String", "Int", "Boolean", "ID", "Float"):
            continue
        theirs = github.type_map.get(name)
        assert theirs is not None and type(theirs) is type(mine), name
        for field_name, field in getattr(mine, "fields", {}).items():
            real = theirs.fields.get(field_name)  # type: ignore[union-attr]
            assert real is not None and str(real.type) == str(field.type), f"{name}.{field_name}"
            for arg, value in field.args.items():
                assert str(real.args[arg].type) == str(value.type), f"{name}.{field_name}({arg})"
        if isinstance(mine, graphql.GraphQLEnumType):
            assert set(mine.values) <= set(theirs.values), name  # type: ignore[union-attr]
        if isinstance(mine, graphql.GraphQLUnionType):
            assert {t.name for t in mine.types} <= {t.name for t in theirs.types}, name  # type: ignore[union-attr]
