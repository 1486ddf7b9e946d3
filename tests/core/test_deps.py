from __future__ import annotations

import pytest

from favakit.deps import is_available, require
from favakit.errors import MissingDependencyError


def test_require_names_the_extra() -> None:
    with pytest.raises(MissingDependencyError, match=r"pip install 'favakit\[retrieval\]'"):
        require("favakit_no_such_module", "retrieval", purpose="dense search")
    assert require("json", "dev").dumps([]) == "[]"


def test_an_extra_that_pulls_torch_points_to_its_cpu_build(monkeypatch: pytest.MonkeyPatch) -> None:
    import favakit.deps as deps

    def said(extra: str) -> str:
        with pytest.raises(MissingDependencyError) as err:
            require("favakit_no_such_module", extra)
        return str(err.value)

    monkeypatch.setattr(deps, "is_available", lambda module: module != "torch")
    assert said("train").endswith(f"pip install 'favakit[train]' (without a GPU, install the "
                                  f"CPU build of torch first: {deps.CPU_TORCH})")  # fmt: skip
    assert "CPU build" not in said("retrieval")  # no torch in that extra
    monkeypatch.setattr(deps, "is_available", lambda module: True)
    assert "CPU build" not in said("train")  # torch is there already


def test_is_available_does_not_raise() -> None:
    assert is_available("json")
    assert not is_available("favakit_no_such_module")
    assert not is_available("favakit_no_such_module.sub")
