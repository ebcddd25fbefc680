"""``prdigest discord sync-commands / invite-url``, ``serve`` with Discord (alone, with Slack, with a
rejected token) and the Discord URL settings, against the fake Discord."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from bot.chat.discord.post import invite_permissions
from bot.cli.main import cli
from bot.config.settings import ConfigError, load_settings
from tests.bot.chat.discord.test_discord_app import CALLBACK, FOLLOWUP, discord_settings
from tests.bot.chat.slack.conftest import slack_settings
from tests.fakes.discord import APP_ID, CHANNEL_ID, GUILD_ID, TOKEN, FakeDiscord, Perm, discord_error
from tests.fakes.host import RunningHost
from tests.fakes.slack import FakeSlack

PUT_GUILD = "PUT /applications/{application_id}/guilds/{guild_id}/commands"


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeDiscord]:
    with FakeDiscord() as running, running.patched():
        monkeypatch.setenv("DISCORD_BOT_TOKEN", TOKEN)
        monkeypatch.setenv("PRDIGEST_DISCORD_API_URL", running.api_url)
        monkeypatch.setenv("PRDIGEST_DISCORD_GATEWAY_URL", running.gateway_url)
        yield running


def test_sync_commands_guild_then_clear(fake: FakeDiscord) -> None:
    result = CliRunner().invoke(cli, ["discord", "sync-commands", "--guild", GUILD_ID])
    assert result.exit_code == 0, result.output
    assert result.output == (
        f"registered 9 commands (guild {GUILD_ID}): /digest, /help, /pr, /risks, /search, /subscribe, "
        "/unsubscribe, /subscriptions, /preview\n"
    )
    assert fake.connections == []  # REST only
    cleared = CliRunner().invoke(cli, ["discord", "sync-commands", "--clear-guild", GUILD_ID])
    assert cleared.exit_code == 0 and cleared.output == f"cleared the commands of guild {GUILD_ID}\n"
    assert fake.commands(GUILD_ID) == []


def test_sync_commands_at_the_daily_limit_is_one_line_not_a_days_wait() -> None:
    with FakeDiscord(daily_command_creates=0) as fake, fake.patched():
        env = {"DISCORD_BOT_TOKEN": TOKEN, "PRDIGEST_DISCORD_API_URL": fake.api_url}
        result = CliRunner().invoke(cli, ["discord", "sync-commands", "--guild", GUILD_ID], env=env)
    assert result.exit_code == 1
    assert result.output.startswith(
        "prdigest discord: Discord rate-limits command registration (retry after "
    )
    assert len(result.output.strip().splitlines()) == 1


def test_sync_commands_with_a_rejected_token_is_one_line_exit_2(fake: FakeDiscord) -> None:
    result = CliRunner().invoke(cli, ["discord", "sync-commands"], env={"DISCORD_BOT_TOKEN": "wrong"})
    assert result.exit_code == 2
    assert result.output == (
        "prdigest discord: Discord rejected DISCORD_BOT_TOKEN: reset the token (Developer Portal › Bot › "
        "Reset Token) and put the new one in .env\n"
    )


def test_sync_commands_refused_by_discord_is_exit_1(fake: FakeDiscord) -> None:
    fake.script(PUT_GUILD, discord_error(50001))
    result = CliRunner().invoke(cli, ["discord", "sync-commands", "--guild", GUILD_ID])
    assert result.exit_code == 1 and "code 50001" in result.output


def test_invite_url_asks_for_exactly_the_bots_permissions(fake: FakeDiscord) -> None:
    result = CliRunner().invoke(cli, ["discord", "invite-url"])
    assert result.exit_code == 0, result.output
    url = urllib.parse.urlsplit(result.output.strip())
    query = urllib.parse.parse_qs(url.query)
    assert (url.netloc, url.path) == ("discord.com", "/oauth2/authorize")
    assert query == {
        "client_id": [APP_ID],
        "scope": ["bot applications.commands"],
        "permissions": [str(invite_permissions())],
    }
    wanted = (
        Perm.VIEW_CHANNEL
        | Perm.SEND_MESSAGES
        | Perm.EMBED_LINKS
        | Perm.ATTACH_FILES
        | Perm.READ_MESSAGE_HISTORY
        | Perm.CREATE_PUBLIC_THREADS
        | Perm.SEND_MESSAGES_IN_THREADS
    )
    assert invite_permissions() == int(wanted)
    offline = CliRunner().invoke(cli, ["discord", "invite-url", "--application-id", "123"])
    assert offline.exit_code == 0 and "client_id=123&" in offline.output
    bad = CliRunner().invoke(cli, ["discord", "invite-url", "--application-id", "abc"])
    assert bad.exit_code == 2


def test_serve_with_a_rejected_token_is_one_line_exit_2(fake: FakeDiscord, tmp_path: Path) -> None:
    CliRunner().invoke(cli, ["demo", "--db", str(tmp_path / "demo.db")])
    result = CliRunner().invoke(
        cli,
        ["serve", "--db", str(tmp_path / "demo.db"), "--host", "127.0.0.1", "--port", "0"],
        env={"DISCORD_BOT_TOKEN": "wrong"},
    )
    assert result.exit_code == 2
    assert result.output.endswith(
        "prdigest serve: Discord rejected DISCORD_BOT_TOKEN: reset the token (Developer Portal › Bot › "
        "Reset Token) and put the new one in .env\n"
    )
    assert "Traceback" not in result.output and fake.connections == []


def test_serve_runs_discord_and_slack_in_one_loop(fake: FakeDiscord, tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    CliRunner().invoke(cli, ["demo", "--db", str(db)])
    with FakeSlack() as slack:
        settings = slack_settings(slack).replace(
            **{
                k: v
                for k, v in discord_settings(fake).as_dict().items()
                if k.startswith(("discord", "prdigest_discord"))
            }
        )
        settings = settings.replace(prdigest_repo=None)
        with RunningHost(settings, db) as host:
            fake.wait(lambda: fake.frames_where(t="GUILD_CREATE"), what="the gateway session")
            with urllib.request.urlopen(f"{host.base}/healthz", timeout=5) as resp:
                components = json.load(resp)["components"]
            assert set(components) == {"slack", "discord", "scheduler", "storyline_fill"}
            ix = fake.interact(fake.slash_command("help", {}))
            calls = fake.wait(lambda: ix.calls() if len(ix.calls()) >= 2 else None, what="the answer")
            assert [c.route for c in calls[:2]] == [CALLBACK, FOLLOWUP]


@pytest.mark.parametrize(
    ("name", "value", "ok"),
    [
        ("PRDIGEST_DISCORD_API_URL", "https://discord.example/api/v10", True),
        ("PRDIGEST_DISCORD_API_URL", "http://127.0.0.1:9/api/v10", True),
        ("PRDIGEST_DISCORD_API_URL", "http://discord.example/api/v10", False),
        ("PRDIGEST_DISCORD_API_URL", "ftp://discord.example", False),
        ("PRDIGEST_DISCORD_GATEWAY_URL", "wss://gateway.example", True),
        ("PRDIGEST_DISCORD_GATEWAY_URL", "ws://localhost:9/gateway", True),
        ("PRDIGEST_DISCORD_GATEWAY_URL", "ws://gateway.example", False),
    ],
)
def test_discord_urls_are_encrypted_or_loopback(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, ok: bool
) -> None:
    monkeypatch.setenv(name, value)
    if ok:
        assert getattr(load_settings(_env_file=None), name.lower()) == value
    else:
        with pytest.raises(
            ConfigError, match=f"^{name} .*(is not a (https|wss)://|allowed only to this machine)"
        ):
            load_settings(_env_file=None)


def test_the_url_settings_alone_point_discordpy_at_the_server(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import discord.gateway
    import discord.http
    import yarl

    # no fake.patched(): discord.py starts at addresses that lead nowhere, restored afterwards
    monkeypatch.setattr(discord.http.Route, "BASE", "https://discord.invalid/api/v10")
    monkeypatch.setattr(
        discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", yarl.URL("wss://gateway.discord.invalid/")
    )
    db = tmp_path / "demo.db"
    CliRunner().invoke(cli, ["demo", "--db", str(db)])
    with FakeDiscord() as fake:
        with RunningHost(discord_settings(fake), db):
            fake.wait(lambda: fake.frames_where(t="GUILD_CREATE"), what="a gateway session via the setting")
        assert [c.route for c in fake.calls[:2]] == ["GET /users/@me", "GET /oauth2/applications/@me"]
        assert fake.connections[0].path == "/gateway"


def test_a_rejected_token_exits_2_everywhere(fake: FakeDiscord, demo_db: Path) -> None:
    """A wrong token is a setting to fix: exit 2 from `discord sync-commands`, from `serve` (the
    tests above) and from `--post` on either platform, never 1 ("the platform failed")."""
    from tests.bot.cli.test_cli import cli as run_cli

    env = {"PRDIGEST_DISCORD_API_URL": fake.api_url, "PRDIGEST_DISCORD_GATEWAY_URL": fake.gateway_url}
    posted = run_cli(
        "digest", "2026-W19", "--db", str(demo_db), "--post", f"discord:{CHANNEL_ID}",
        env={**env, "DISCORD_BOT_TOKEN": "wrong"},
    )  # fmt: skip
    assert posted.returncode == 2, posted.stderr
    assert "rejected DISCORD_BOT_TOKEN" in posted.stderr and len(posted.stderr.strip().splitlines()) == 1
    with FakeSlack() as slack:
        senv = {"SLACK_BOT_TOKEN": "xoxb-wrong", "PRDIGEST_SLACK_API_URL": slack.api_url}
        refused = run_cli("digest", "2026-W19", "--db", str(demo_db), "--post", "slack:C0TEAM", env=senv)
    assert refused.returncode == 2, refused.stderr
    assert "invalid_auth" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1
