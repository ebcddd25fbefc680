"""The edges: the CLI, the server, ingestion and the chat platforms.

prdigest checks its settings, profiles and imported records with pydantic but uses no pydantic
plugin, and pydantic looks for plugins by scanning every installed distribution's entry points
when the first model is built —
at every start of a one-shot command, which must start in a fraction of a second. Unless the user
set ``PYDANTIC_DISABLE_PLUGINS`` themselves, it is set here (pydantic's documented switch).
"""

import os

os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
