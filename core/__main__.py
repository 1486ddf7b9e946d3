"""``python -m favakit`` is the ``favakit`` command."""

from favakit.cli import main

raise SystemExit(main())
