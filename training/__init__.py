"""Fine-tuning: the editor (LoRA, QLoRA, full; :mod:`.recipe`) and the encoder detector
(:mod:`.detector`), from YAML presets (:mod:`.config`), with the machine's runtime helpers in
:mod:`.runtime`. ``favakit train`` is :mod:`.cli`."""
