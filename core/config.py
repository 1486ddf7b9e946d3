"""Typed configuration: dataclasses, YAML presets and ``key.sub=value`` overrides.

Each stage keeps its config dataclass next to its code and ships YAML presets in a ``presets``
folder of its subpackage. :func:`load_config` builds a config from (in order) the dataclass
defaults, a preset name or YAML file, and command-line overrides; every value is checked against
the field's type, and an unknown key is an error that suggests the nearest known one::

    cfg = load_config(TrainConfig, "llama3_8b_lora", ["lora.r=32", "lr=1e-4"],
                      presets=files("favakit.training") / "presets")
"""

from __future__ import annotations

import dataclasses
import difflib
import types
import typing
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar, Union

import yaml

from favakit.errors import UsageError

__all__ = [
    "ConfigError",
    "changed_settings",
    "config_from_dict",
    "config_to_dict",
    "dump_config",
    "list_presets",
    "load_config",
    "parse_overrides",
]

T = TypeVar("T")


class ConfigError(UsageError):
    """An unknown key, a value of the wrong type, or a missing preset."""


def changed_settings(
    previous: Mapping[str, Any], now: Mapping[str, Any], ignore: Sequence[str] = ()
) -> str:
    """The settings a run folder's earlier run was made with that differ now, said for a
    refusal to resume: ``"seed: 0 there, 3 now"`` (``"; "`` between settings), as ``favakit
    eval`` says it; ``""`` where none (``ignore`` aside) does."""
    keys = sorted(k for k in previous.keys() | now.keys() if k not in ignore)
    return "; ".join(
        f"{k}: {previous.get(k)!r} there, {now.get(k)!r} now"
        for k in keys
        if previous.get(k) != now.get(k)
    )


class _Dir(typing.Protocol):
    """A folder: pathlib.Path or an importlib.resources Traversable."""

    def iterdir(self) -> typing.Iterator[Any]: ...

    def joinpath(self, child: str, /) -> Any: ...


def _suggest(key: str, known: Sequence[str], what: str = "keys") -> str:
    close = difflib.get_close_matches(key, list(known), n=1, cutoff=0.5)
    return f"; did you mean {close[0]!r}?" if close else f"; known {what}: {', '.join(known)}"


def _coerce(value: Any, tp: Any, key: str) -> Any:
    """Check ``value`` against the annotation ``tp``; convert where the meaning is unambiguous."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if tp is Any:
        return value
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        if isinstance(value, tp):
            return value
        if not isinstance(value, Mapping):
            raise ConfigError(f"{key}: expected a mapping of {tp.__name__} fields, got {value!r}")
        return config_from_dict(tp, value, prefix=f"{key}.")
    if origin in (Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        errors = []
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _coerce(value, arg, key)
            except ConfigError as exc:
                errors.append(str(exc))
        raise ConfigError(
            errors[0] if len(errors) == 1 else f"{key}: {value!r} matches no type in {tp}"
        )
    if origin is Literal:
        if value not in args:
            raise ConfigError(f"{key}: {value!r} is not one of {list(args)}")
        return value
    if origin in (list, tuple, Sequence) or tp in (list, tuple):
        if isinstance(value, str) or not isinstance(value, (list, tuple)):
            raise ConfigError(f"{key}: expected a list, got {value!r}")
        item = args[0] if args else Any
        items = [_coerce(v, item, f"{key}[{i}]") for i, v in enumerate(value)]
        return tuple(items) if origin is tuple or tp is tuple else items
    if origin in (dict, Mapping) or tp is dict:
        if not isinstance(value, Mapping):
            raise ConfigError(f"{key}: expected a mapping, got {value!r}")
        vt = args[1] if len(args) == 2 else Any
        return {str(k): _coerce(v, vt, f"{key}.{k}") for k, v in value.items()}
    if tp is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in (
            "true",
            "yes",
            "on",
            "1",
            "false",
            "no",
            "off",
            "0",
        ):
            return value.lower() in ("true", "yes", "on", "1")
        raise ConfigError(f"{key}: expected true or false, got {value!r}")
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise ConfigError(f"{key}: expected an integer, got {value!r}")
        try:
            return int(value)
        except ValueError:
            raise ConfigError(f"{key}: expected an integer, got {value!r}") from None
    if tp is float:
        # YAML 1.1 reads "1e-4" as a string; accept any number spelled as one
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise ConfigError(f"{key}: expected a number, got {value!r}")
        try:
            return float(value)
        except ValueError:
            raise ConfigError(f"{key}: expected a number, got {value!r}") from None
    if tp is str:
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise ConfigError(f"{key}: expected a string, got {value!r}")
        return str(value)
    if tp is Path:
        if not isinstance(value, (str, Path)):
            raise ConfigError(f"{key}: expected a path, got {value!r}")
        return Path(value)
    raise ConfigError(f"{key}: unsupported field type {tp!r}")


def config_from_dict(cls: type[T], data: Mapping[str, Any], prefix: str = "") -> T:
    """Build a config dataclass from a mapping; unknown keys and bad values are errors."""
    if not (dataclasses.is_dataclass(cls) and isinstance(cls, type)):
        raise TypeError(f"{cls!r} is not a dataclass")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        if key not in fields:
            raise ConfigError(
                f"unknown config key {prefix + str(key)!r}" + _suggest(str(key), list(fields))
            )
        kwargs[key] = _coerce(value, hints[key], f"{prefix}{key}")
    missing = [
        n
        for n, f in fields.items()
        if n not in kwargs
        and f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING
    ]
    if missing:
        raise ConfigError(f"missing config key(s) {[prefix + m for m in missing]}")
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{prefix or cls.__name__}: {exc}") from exc


def config_to_dict(cfg: Any) -> dict[str, Any]:
    """A plain, YAML-safe dict of a config dataclass (paths as strings, tuples as lists)."""

    def plain(v: Any) -> Any:
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            return {f.name: plain(getattr(v, f.name)) for f in dataclasses.fields(v)}
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        if isinstance(v, Mapping):
            return {str(k): plain(x) for k, x in v.items()}
        if isinstance(v, Path):
            return str(v)
        return v

    out = plain(cfg)
    assert isinstance(out, dict)
    return out


def dump_config(cfg: Any) -> str:
    """YAML text of a resolved config: loads back to the same config."""
    return yaml.safe_dump(config_to_dict(cfg), sort_keys=False, allow_unicode=True)


def parse_overrides(overrides: Sequence[str]) -> dict[str, Any]:
    """``["a.b=1", "c=[x, y]"]`` -> nested dict; values are read as YAML scalars or lists."""
    tree: dict[str, Any] = {}
    for item in overrides:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"override {item!r} is not key=value (e.g. lr=2e-5 or lora.r=16)")
        try:
            value = yaml.safe_load(raw) if raw.strip() else ""
        except yaml.YAMLError:
            value = raw
        node = tree
        parts = key.split(".")
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise ConfigError(
                    f"override {item!r} conflicts with an earlier override of {part!r}"
                )
            node = child
        node[parts[-1]] = value
    return tree


def _merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in extra.items():
        if isinstance(v, Mapping) and isinstance(out.get(k), Mapping):
            out[k] = _merge(dict(out[k]), v)
        else:
            out[k] = v
    return out


def list_presets(presets: _Dir | Path | str | None) -> list[str]:
    """Names of the YAML presets in a folder."""
    if presets is None:
        return []
    folder = Path(presets) if isinstance(presets, str) else presets
    return sorted(p.name.rsplit(".", 1)[0] for p in folder.iterdir() if p.name.endswith(".yaml"))


def _read_yaml(text: str, where: str) -> dict[str, Any]:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{where}: invalid YAML: {exc}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: a config file holds a mapping, got {type(data).__name__}")
    return data


def load_config(
    cls: type[T],
    source: str | Path | Mapping[str, Any] | None = None,
    overrides: Sequence[str] = (),
    presets: _Dir | Path | str | None = None,
) -> T:
    """Defaults < preset or YAML file (``source``) < ``key=value`` overrides, type-checked."""
    data: dict[str, Any] = {}
    if isinstance(source, Mapping):
        data = dict(source)
    elif source is not None:
        name = str(source)
        path = Path(name)
        if name.endswith((".yaml", ".yml")) or path.is_file():
            if not path.is_file():
                raise ConfigError(f"config file {name!r} does not exist")
            data = _read_yaml(path.read_text(encoding="utf-8"), name)
        else:
            known = list_presets(presets)
            if name not in known:
                raise ConfigError(
                    f"unknown preset {name!r}" + _suggest(name, known, "presets")
                    if known
                    else f"unknown preset {name!r}: no presets available; give a YAML file"
                )
            folder = Path(presets) if isinstance(presets, str) else presets
            assert folder is not None
            entry = folder.joinpath(f"{name}.yaml")
            data = _read_yaml(entry.read_text(encoding="utf-8"), f"preset {name}")
    data = _merge(data, parse_overrides(overrides))
    return config_from_dict(cls, data)
