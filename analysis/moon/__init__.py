"""Three-Player Moon's analysis: its metrics (:mod:`.metrics`: bids, trump, the moon, the
widow, the first bidder), findings in words (:mod:`.words`), figures (:mod:`.plots`) and
report sections (:mod:`.report`), registered as one :class:`analysis.bygame.GameAnalysis`,
:data:`ANALYSIS` (Moon's spec names it)::

    import analysis
    from analysis import moon
    runs = analysis.load_runs(["runs/m1"])
    moon.moon_metrics(runs.games, runs.seats, runs.rounds)   # rounds: Moon's hands table
"""

from __future__ import annotations

from ..lazy import lazy_names

GAME = "moon"  # the registered name of the game this analysis is of

__all__ = [
    "ANALYSIS",
    "BIDS",
    "TRUMP_KINDS",
    "all_pass_rate",
    "bid_success",
    "first_bidder_advantage",
    "hands_per_game",
    "moon_metrics",
    "moon_rates",
    "per_game",
    "widow_value",
]

__getattr__ = lazy_names(
    __name__,
    {
        "BIDS": ".metrics",
        "TRUMP_KINDS": ".metrics",
        "all_pass_rate": ".metrics",
        "bid_success": ".metrics",
        "first_bidder_advantage": ".metrics",
        "hands_per_game": ".metrics",
        "moon_metrics": ".metrics",
        "moon_rates": ".metrics",
        "per_game": ".metrics",
        "widow_value": ".metrics",
        "ANALYSIS": ".registration",
    },
)
