"""The one exception for problems the user can fix: printed as one line, never a traceback.

``UserError`` is a ``click.ClickException``, so raising it anywhere under a click command (the
CLI, ``sync``, ``serve``) prints ``prdigest[ COMMAND]: message`` on stderr and exits with its code
— 2 for bad input or configuration (the default), 1 for a failure outside our control (GitHub
down, a post refused), 130 for an interruption.
"""

from __future__ import annotations

from typing import IO, Any

import click

EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class UserError(click.ClickException):
    """One line for the user; ``where`` names the subcommand in the prefix (``prdigest sync: …``)."""

    def __init__(self, message: str, *, exit_code: int = EXIT_USAGE, where: str | None = None) -> None:
        super().__init__(message)
        self.exit_code = exit_code  # type: ignore[misc]  # click reads it from the instance
        self.where = where

    @property
    def prefix(self) -> str:
        return f"prdigest {self.where}" if self.where else "prdigest"

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(f"{self.prefix}: {self.format_message()}", err=True, file=file)


def named_setting(exc: UserError, variable: str | None) -> UserError:
    """``exc`` with the setting that chose the failing value named first ("PRDIGEST_DB: database
    x.db does not exist; …"), as every error about a setting's value reads; as it was when the
    value came from the command line (``variable`` None)."""
    if variable is None or exc.format_message().startswith(variable):
        return exc
    return UserError(f"{variable}: {exc.format_message()}", exit_code=exc.exit_code, where=exc.where)
