"""Supervised fine-tuning of the editor: LoRA, QLoRA and full (issue 5, not implemented yet)."""
