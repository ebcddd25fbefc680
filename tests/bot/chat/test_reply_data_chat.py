"""The Slack and Discord renderers of a digest never read its JSON form, so it is never built for
a chat answer without a chart."""

from __future__ import annotations

from bot.chat.discord.render import render as discord_render
from bot.chat.slack.render import render as slack_render
from tests.conftest import RunFn


def test_chat_renderers_leave_the_digest_json_unbuilt(run: RunFn) -> None:
    for lang in ("en", "zh"):
        reply = run("digest", "2026-W19", lang=lang)
        assert slack_render(reply) and slack_render(reply, mode="compact")
        assert discord_render(reply) and discord_render(reply, mode="compact")
        assert not reply.data_source.built, lang
