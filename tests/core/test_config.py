from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pytest
import yaml

from favakit.config import (
    ConfigError,
    changed_settings,
    config_from_dict,
    dump_config,
    list_presets,
    load_config,
    parse_overrides,
)


@dataclass
class Lora:
    r: int = 8
    alpha: float = 16.0
    targets: list[str] = field(default_factory=lambda: ["q_proj", "v_proj"])


@dataclass
class Cfg:
    model: str = "tiny"
    lr: float = 2e-5
    epochs: int = 2
    bf16: bool = True
    schedule: Literal["cosine", "linear"] = "cosine"
    out: Path = Path("runs/x")
    lora: Lora | None = field(default_factory=Lora)
    max_steps: int | None = None


@pytest.fixture
def presets(tmp_path: Path) -> Path:
    (tmp_path / "small.yaml").write_text("model: small\nlr: 1e-4\nlora:\n  r: 4\n")
    (tmp_path / "full.yaml").write_text("model: big\nlora: null\n")
    (tmp_path / "notes.txt").write_text("not a preset")
    return tmp_path


def test_defaults_preset_and_overrides_in_order(presets: Path) -> None:
    cfg = load_config(Cfg, "small", ["lora.alpha=32", "epochs=3", "bf16=false"], presets=presets)
    assert cfg.model == "small"
    assert cfg.lr == pytest.approx(1e-4)  # YAML 1.1 reads 1e-4 as a string; still a float
    assert cfg.lora == Lora(r=4, alpha=32.0)
    assert (cfg.epochs, cfg.bf16) == (3, False)
    assert load_config(Cfg, "full", presets=presets).lora is None
    assert list_presets(presets) == ["full", "small"]


def test_yaml_file_source_and_dump_round_trip(tmp_path: Path) -> None:
    f = tmp_path / "my.yaml"
    f.write_text("schedule: linear\nout: /tmp/run\nlora:\n  targets: [a, b]\n")
    cfg = load_config(Cfg, str(f), ["max_steps=10"])
    assert cfg.schedule == "linear" and cfg.out == Path("/tmp/run") and cfg.max_steps == 10
    assert cfg.lora is not None and cfg.lora.targets == ["a", "b"]
    again = config_from_dict(Cfg, yaml.safe_load(dump_config(cfg)))
    assert again == cfg


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["lerning_rate=1"], "unknown config key 'lerning_rate'"),
        (["lora.alpah=4"], "unknown config key 'lora.alpah'; did you mean 'alpha'"),
        (["lora.rank=4"], "known keys: r, alpha, targets"),
        (["epoch=3"], "did you mean 'epochs'"),
        (["epochs=three"], "epochs: expected an integer"),
        (["bf16=maybe"], "bf16: expected true or false"),
        (["schedule=step"], "schedule: 'step' is not one of"),
        (["lora.targets=q_proj"], "lora.targets: expected a list"),
        (["noequals"], "is not key=value"),
    ],
)
def test_errors_name_the_key_and_suggest(overrides: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        load_config(Cfg, None, overrides)


def test_unknown_preset_suggests_the_closest(presets: Path) -> None:
    with pytest.raises(ConfigError, match="did you mean 'small'"):
        load_config(Cfg, "smal", presets=presets)
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(Cfg, "nothere.yaml", presets=presets)
    with pytest.raises(ConfigError, match=r"; known presets: full, small$"):
        load_config(Cfg, "zzzz", presets=presets)


def test_bad_yaml_file(tmp_path: Path) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text("- a list\n- not a mapping\n")
    with pytest.raises(ConfigError, match="holds a mapping"):
        load_config(Cfg, str(f))


def test_parse_overrides_builds_a_tree() -> None:
    assert parse_overrides(["a.b=1", "a.c=[1, 2]", "d=x=y"]) == {
        "a": {"b": 1, "c": [1, 2]},
        "d": "x=y",
    }


def test_changed_settings_names_each_difference_then_and_now() -> None:
    """A refusal to resume a run used to print the earlier run's whole settings dict."""
    before = {"n": 20, "seed": 0, "references": 4, "kb": "a.db"}
    assert changed_settings(before, {**before, "n": 30}, ignore=("n",)) == ""
    assert changed_settings(before, {**before, "seed": 3, "references": 2, "new": True}) == (
        "new: None there, True now; references: 4 there, 2 now; seed: 0 there, 3 now"
    )
