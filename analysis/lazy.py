"""Names of a package imported on first use (PEP 562), so that importing the package (e.g.
for the command line's parts) does not load polars, scipy and every metric."""

from __future__ import annotations

import importlib


def lazy_names(package: str, table: dict[str, str]):
    """A module ``__getattr__`` for ``package``: ``table`` maps a name to the (relative)
    module that defines it; the value is imported on first use and kept."""

    def __getattr__(name: str):
        if name not in table:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(package)
        value = getattr(importlib.import_module(table[name], package), name)
        setattr(module, name, value)
        return value

    return __getattr__
