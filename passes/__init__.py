"""blkc's passes, one per module (`blkc.passes.registry` names them by flag)."""


def __dir__() -> list[str]:
    """The pass modules (imported on first use), for `dir()` and completion."""
    import pkgutil

    return sorted(set() | {m.name for m in pkgutil.iter_modules(__path__)})
