"""A plug-in that answers every decision out of range (999): the engine must read each answer
as the documented fallback (the first option; "stop" for plays; decline for rebuys), count it
as a bad answer of that seat, and play the game to its end."""

from sim.policies.api import AddOnRule, Policy, decision


@decision
def wild(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return 999


wild_policy = Policy("wild", wild, wild, wild)
wild_rebuy = AddOnRule("wild", wild)
