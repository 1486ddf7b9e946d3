"""Evaluation: detection metrics per error type (``detect``) and FActScore (``factscore``)."""
