"""Evaluation: detection metrics per error type (:mod:`.detect`), FActScore and its successors
(:mod:`.factscore`, :mod:`.successors`), editing gain (:mod:`.edit_gain`), the orchestration of
whole scoring runs (:mod:`.runs`) and reports (:mod:`.report`). ``favakit eval`` is :mod:`.cli`."""
