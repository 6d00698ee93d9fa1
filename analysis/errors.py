"""The one exception type of the analysis layer."""

from __future__ import annotations


class AnalysisError(ValueError):
    """A run directory, table or request the analysis cannot use. The message is one sentence
    naming the problem (the CLI prints it and exits with code 2)."""
