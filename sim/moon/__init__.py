"""Three-Player Moon (dominoes), rules document part B: a self-contained game package.

Modules, one job each:

* :mod:`.tiles`    the 22 tiles ([B1]-[B2]): ids, notation, parsing.
* :mod:`.rules`    the rule set declaration (:data:`~.rules.SPEC`, knobs of part B, presets B.6).
* :mod:`.layout`   array layouts of the state, the policies' view, option rows, events.
* :mod:`.tricks`   trick maths ([B6]-[B8]): trumps, suit led, following, trick winner.
* :mod:`.engine`   the state machine: deal, auction, widow and trump, tricks, scoring, game end.
* :mod:`.kernel`   the batch entry point :func:`~.kernel.run_games`.
* :mod:`.batch`    Python helpers around it: seats -> function tables, :func:`~.batch.play_batch`,
  polars frames.
* :mod:`.api`      the decision signature :data:`~.api.DECIDE_SIG` and the decision kinds
  (a policy is a :class:`sim.policies.api.Policy` with ``game="moon"``).
* :mod:`.policies` built-in policies (``random``, ``greedy``, ``count``) in
  :data:`~.policies.POLICIES`.
* :mod:`.scripted` a policy that does what its parameters say (scenario tests).
* :mod:`.schema`   the result tables ``games``, ``seats``, ``hands``.
* :mod:`.play`     a Python handle on one game (:class:`~.play.Game`) with event recording.
* :mod:`.trace`    decoding events into JSON-ready dicts and readable text.
* :mod:`.auditor`  an independent plain-Python re-check of a trace against part B.
* :mod:`.check`    pure helpers for a ``check`` command (trick winner, legal tiles).
* :mod:`.position` positions as files: a hand set up at any decision, checked; its options.
* :mod:`.bench`    games per second (``python -m sim.moon.bench``).
* :mod:`.spec`     Moon as a :class:`sim.game.GameSpec` (the game-independent seam).

Importing this package compiles nothing.
"""
