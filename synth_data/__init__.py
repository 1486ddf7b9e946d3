"""Synthetic training data: errors of FAVA's six types inserted into knowledge-source passages
by rules (:mod:`.rules`) or an LLM (:mod:`.llm_inserter`), assembled into tagged training rows
(:mod:`.pipeline`), FAVA's own data converted (:mod:`.fava`), and (claim, evidence) pairs for the
verifier (:mod:`.claims`). ``favakit synth`` is :mod:`.cli`."""
