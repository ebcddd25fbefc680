"""The ``[flags.*]`` tables of a rule profile: which risks are flagged, and how.

Apart from the rest of the schema (``classify.profile_schema``), as the ``[score]`` table is
(``classify.score_spec``): the compiled ``Profile`` holds these settings, so naming their type
must not import the compiler.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from classify.score_spec import TABLE_CONFIG, Strs


class _Table(BaseModel):
    model_config = TABLE_CONFIG


class CorePathSpec(_Table):
    enabled: bool = True
    globs: Strs = []
    exclude: Strs = []
    max_evidence: Annotated[int, Field(ge=1, le=100)] = 5


# Schema defaults are deliberately bare: a profile that leaves out [kinds], a [flags.*] table or
# [score] gets the generic profile's (see _with_generic_defaults), so the defaults live in one
# readable TOML file rather than twice.


class MissingTestsSpec(_Table):
    enabled: bool = True
    min_source_lines: Annotated[int, Field(ge=1)] = 50
    source_globs: Strs = []
    test_globs: Strs = []
    exempt_globs: Strs = []
    exempt_kinds: Strs = []


class BreakingSpec(_Table):
    enabled: bool = True
    labels: Strs = []
    tags: Strs = []
    conventional_bang: bool = True
    patterns: Strs = []
    ignore: Strs = []


class DependencySpec(_Table):
    enabled: bool = True
    globs: Strs = []
    exclude: Strs = []
    patterns: Strs = []
    added_patterns: Strs = []
    removed_patterns: Strs = []
    lockfiles: Strs = []
    max_evidence: Annotated[int, Field(ge=1, le=100)] = 5


class LargeSpec(_Table):
    enabled: bool = True
    lines: Annotated[int, Field(ge=1)] = 1000
    files: Annotated[int, Field(ge=1)] = 30
    ignore: Strs = []


class RevertSpec(_Table):
    enabled: bool = True
    title_patterns: Strs = []
    body_patterns: Strs = []


class FlagsSpec(_Table):
    core_path: CorePathSpec = Field(default=CorePathSpec(), alias="core-path")
    missing_tests: MissingTestsSpec = Field(default=MissingTestsSpec(), alias="missing-tests")
    breaking: BreakingSpec = BreakingSpec()
    dependency: DependencySpec = DependencySpec()
    large: LargeSpec = LargeSpec()
    revert: RevertSpec = RevertSpec()
