"""Weekly digest composition: stats, themes, trends, risks, key PRs, recommendations.

Each module computes one section from the period's PRs; ``compose`` assembles them into one
Reply. Every number shown is computed here, and every claim names its PRs.
"""
