"""discord.py 2.7 imports ``audioop`` (voice), deprecated since Python 3.11 (PEP 594), and this suite
turns warnings into errors. Import discord once here with only that warning silenced, before any test
module of this package imports it. (A project-wide alternative is a ``filterwarnings`` entry in
pyproject.toml: ``"ignore:'audioop' is deprecated:DeprecationWarning"``.)
"""

import warnings

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="'audioop' is deprecated", category=DeprecationWarning)
    import discord  # noqa: F401
