from __future__ import annotations

import pytest

from favakit.deps import is_available, require
from favakit.errors import MissingDependencyError


def test_require_names_the_extra() -> None:
    with pytest.raises(MissingDependencyError, match=r"pip install 'favakit\[retrieval\]'"):
        require("favakit_no_such_module", "retrieval", purpose="dense search")
    assert require("json", "dev").dumps([]) == "[]"


def test_is_available_does_not_raise() -> None:
    assert is_available("json")
    assert not is_available("favakit_no_such_module")
    assert not is_available("favakit_no_such_module.sub")
