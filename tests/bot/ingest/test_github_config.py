"""Endpoint derivation (github.com, GHES, loopback), token messages and the search string."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest

from bot.config.settings import Secret
from bot.ingest.github import (
    GitHubClient,
    MissingToken,
    client_from_settings,
    graphql_endpoint,
    missing_token_message,
    search_string,
    web_base,
)


@pytest.mark.parametrize(
    ("base", "endpoint"),
    [
        ("https://api.github.com", "https://api.github.com/graphql"),
        ("https://api.github.com/", "https://api.github.com/graphql"),
        ("https://api.github.com/graphql", "https://api.github.com/graphql"),
        ("https://github.com", "https://api.github.com/graphql"),
        ("https://ghe.example.com/api/v3", "https://ghe.example.com/api/graphql"),
        ("https://ghe.example.com/api/v3/", "https://ghe.example.com/api/graphql"),
        ("https://ghe.example.com", "https://ghe.example.com/api/graphql"),
        ("https://ghe.example.com/", "https://ghe.example.com/api/graphql"),
        ("https://ghe.example.com:8443/api/v3", "https://ghe.example.com:8443/api/graphql"),
        ("https://ghe.example.com/api/graphql", "https://ghe.example.com/api/graphql"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080/graphql"),
        ("http://127.0.0.1:8080/", "http://127.0.0.1:8080/graphql"),
        ("http://localhost:9000", "http://localhost:9000/graphql"),
        ("http://127.0.0.1:8080/api/v3", "http://127.0.0.1:8080/api/graphql"),
    ],
)
def test_graphql_endpoint(base: str, endpoint: str) -> None:
    assert graphql_endpoint(base) == endpoint


@pytest.mark.parametrize(
    ("base", "reason"),
    [
        ("ftp://api.github.com", "is not a https"),
        ("api.github.com", "is not a https"),
        ("http://ghe.example.com/api/v3", "plain http:// is allowed only to this machine"),
        ("https://ghe.example.com/some/where", "expected https://api.github.com"),
    ],
)
def test_graphql_endpoint_refuses(base: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        graphql_endpoint(base)


def test_web_base() -> None:
    assert web_base("https://api.github.com") == "https://github.com"
    assert web_base("https://ghe.example.com/api/v3") == "https://ghe.example.com"
    assert web_base("http://127.0.0.1:1234") == "https://github.com"


def test_missing_token_explains_how_and_which_scopes() -> None:
    msg = missing_token_message()
    assert "GITHUB_TOKEN is not set" in msg
    assert "https://github.com/settings/personal-access-tokens/new" in msg
    assert "Pull requests: Read-only" in msg and "'repo'" in msg
    assert "https://ghe.example.com/settings/tokens/new" in missing_token_message(
        "https://ghe.example.com/api/v3"
    )
    with pytest.raises(MissingToken, match="GITHUB_TOKEN is not set"):
        GitHubClient("")
    settings = SimpleNamespace(github_token=None, prdigest_github_api_url="https://api.github.com")
    with pytest.raises(MissingToken):
        client_from_settings(settings)
    settings.github_token = Secret("   ")
    with pytest.raises(MissingToken):
        client_from_settings(settings)


def test_token_never_in_repr_of_settings_based_client() -> None:
    settings = SimpleNamespace(
        github_token=Secret("ghp_secret"), prdigest_github_api_url="https://api.github.com"
    )
    client = client_from_settings(settings)
    try:
        assert "ghp_secret" not in repr(client.__dict__.get("rate"))
        assert client.endpoint == "https://api.github.com/graphql"
    finally:
        client.close()


def test_search_string_is_half_open_and_short() -> None:
    start = datetime(2026, 5, 4, tzinfo=UTC)
    q = search_string("vllm-project/vllm", start, start + timedelta(days=7))
    assert q == (
        "repo:vllm-project/vllm is:pr is:merged "
        "merged:2026-05-04T00:00:00+00:00..2026-05-10T23:59:59+00:00 sort:created-asc"
    )
    assert len(search_string("a" * 39 + "/" + "b" * 100, start, start + timedelta(days=1))) <= 256
