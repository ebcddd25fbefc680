"""Every GraphQL document prdigest sends to GitHub, in one place.

Kept apart from the client so the test suite can validate each of them against GitHub's published
schema with graphql-core: a typo in a field name fails a test here instead of a sync in production.
Queries with a variable number of aliases are built by functions whose output is validated for
several sizes.

Cost notes (GitHub GraphQL): every connection asks for at most 100 nodes; a search page of 100
PRs with ``files(first: 100)`` and ``labels(first: 100)`` is about 20,100 nodes (limit 500,000)
and costs about one point. ``rateLimit`` is free and lets the client see what is left.
"""

from __future__ import annotations

PAGE_SIZE = 100  # GitHub's maximum for first/last on every connection
MAX_FILE_ALIASES = 25  # PRs whose next file page is fetched in one follow-up request

RATE_LIMIT_FIELDS = "rateLimit { cost limit remaining resetAt used }"

FILE_PAGE_FIELDS = """
    totalCount
    pageInfo { hasNextPage endCursor }
    nodes { path additions deletions changeType }
"""

BACK_PAGE_FIELDS = """
    pageInfo { hasPreviousPage startCursor }
    nodes { path additions deletions changeType }
"""

PR_FRAGMENT = f"""
fragment PRFields on PullRequest {{
  number
  title
  body
  url
  createdAt
  mergedAt
  updatedAt
  baseRefName
  additions
  deletions
  changedFiles
  author {{ login }}
  labels(first: 100) {{ nodes {{ name }} }}
  files(first: 100) {{ {FILE_PAGE_FIELDS} }}
}}
"""

SEARCH_MERGED_PRS = f"""
query SearchMergedPRs($q: String!, $first: Int!, $after: String) {{
  {RATE_LIMIT_FIELDS}
  search(query: $q, type: ISSUE, first: $first, after: $after) {{
    issueCount
    pageInfo {{ hasNextPage endCursor }}
    nodes {{
      __typename
      ... on PullRequest {{ ...PRFields }}
    }}
  }}
}}
{PR_FRAGMENT}
"""

ONE_PR = f"""
query OnePR($owner: String!, $name: String!, $number: Int!) {{
  {RATE_LIMIT_FIELDS}
  repository(owner: $owner, name: $name) {{
    pullRequest(number: $number) {{
      merged
      ...PRFields
    }}
  }}
}}
{PR_FRAGMENT}
"""

RATE_LIMIT_ONLY = f"""
query RateLimit {{
  {RATE_LIMIT_FIELDS}
}}
"""


def more_files_query(count: int) -> str:
    """The remaining files of ``count`` PRs of one repository, read from both ends at once.

    Variables: ``$owner``, ``$name``, and for each PR i: ``$n{i}`` (number), ``$c{i}``/``$f{i}``
    (continue after cursor c with the next f files), and ``$w{i}``/``$l{i}``/``$b{i}`` (when w,
    also the l files just before cursor b, i.e. from the end of the list). Reading the front and
    the back together fetches 200 files per PR per request, so a PR with up to 300 files costs one
    follow-up; batching several PRs per request keeps a page with many large PRs at one round.
    """
    if not 1 <= count <= MAX_FILE_ALIASES:
        raise ValueError(f"between 1 and {MAX_FILE_ALIASES} PRs per follow-up request, not {count}")
    params = ", ".join(
        f"$n{i}: Int!, $c{i}: String, $f{i}: Int!, $w{i}: Boolean!, $l{i}: Int!, $b{i}: String"
        for i in range(count)
    )
    aliases = "\n".join(
        f"    p{i}: pullRequest(number: $n{i}) {{\n"
        f"      number\n"
        f"      front: files(first: $f{i}, after: $c{i}) {{ {FILE_PAGE_FIELDS} }}\n"
        f"      back: files(last: $l{i}, before: $b{i}) @include(if: $w{i}) {{ {BACK_PAGE_FIELDS} }}\n"
        f"    }}"
        for i in range(count)
    )
    return f"""
query MoreFiles($owner: String!, $name: String!, {params}) {{
  {RATE_LIMIT_FIELDS}
  repository(owner: $owner, name: $name) {{
{aliases}
  }}
}}
"""


def all_static_queries() -> dict[str, str]:
    """Every fixed query by name (the schema test iterates over these plus ``more_files_query``)."""
    return {
        "SEARCH_MERGED_PRS": SEARCH_MERGED_PRS,
        "ONE_PR": ONE_PR,
        "RATE_LIMIT_ONLY": RATE_LIMIT_ONLY,
    }
