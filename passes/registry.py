"""The passes blkc adds to xDSL's, by flag name, imported only when used.

Each value is a factory returning the pass class, so that building the registry (which
every `blk-opt` start does) imports no pass module; start-up time dominates a lit suite.
"""

from collections.abc import Callable

from xdsl.passes import ModulePass


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Return blkc's passes by flag name, as lazy factories.

    Empty for now: passes such as `promote-types` and `insert-broadcasts` register here as
    they land, each as `"name": _import_name` with a local import inside the factory.
    """
    return {}
