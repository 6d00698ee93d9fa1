"""Toy Tricks: a small third game that plugs into the simulator through the game seam alone.

It is not part of the shipped tool: register it in one line, from Python
(``sim.games.register_game("toy", "examples.toy.spec")``) or for a CLI process
(``LOBA_GAMES="toy=examples.toy.spec" python -m cli simulate --game toy``).

Rules (ids ``T1`` .. ``T6``, knobs in :mod:`.rules`):

* [T1] 2 to 4 players; a deck of 16 cards, two suits (S, H) of ranks 1-8.
* [T2] each hand deals 3 cards to every seat from a fresh shuffle; the hand's leader is the
  game's first leader (drawn at random) moved one seat on per hand.
* [T3] a trick: the leader plays any card, then each seat in turn; a seat must follow the led
  suit if it can (``follow``); the highest card of the led suit wins and leads the next trick.
* [T4] each trick scores its winner 1 point, the hand's last trick ``last_trick`` points.
* [T5] after a hand, a single highest score at or above ``target`` wins the game.
* [T6] a game this many hands long (``max_hands_per_game``) ends unfinished.

Modules: :mod:`.rules` (knobs, presets), :mod:`.schema` (tables), :mod:`.kernel` (the compiled
engine, events and the batch entry), :mod:`.policies` (decision signature and the policies
``random``, ``greedy``, ``low``), :mod:`.trace` (replay, decoding, text), :mod:`.auditor` (an
independent re-check of a trace), :mod:`.analysis` (its metrics and report, one
:class:`analysis.bygame.GameAnalysis`) and :mod:`.spec` (the :class:`sim.game.GameSpec`).
Importing the package compiles nothing.
"""
