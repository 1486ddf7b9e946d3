"""Running the models: generation backends, the editors, the judges and verifiers, the servers.

Build editors and verifiers with :mod:`favakit.inference.factory` (``favakit.open_editor``,
``favakit.open_verifier``); each is a :class:`~favakit.contracts.Editor` or a
:class:`~favakit.contracts.Verifier`. The modules, from the bottom up: :mod:`.models` (finding
and loading weights), :mod:`.generators` (transformers, vLLM, an endpoint), :mod:`.batching`,
:mod:`.editor` (the generative editor), :mod:`.detector` (the encoder and the cascade),
:mod:`.judges` and :mod:`.verifiers` (is this claim supported?), :mod:`.factory`,
:mod:`.runs` (batch runs over JSONL), :mod:`.server` and :mod:`.llm_server` (HTTP), :mod:`.cli`.
"""
