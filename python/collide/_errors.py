"""The exception family of ``collide``: every rejected input raises a subclass of
:class:`Error`, which also derives from the matching built-in (``ValueError`` or
``OSError``), so ``except ValueError`` keeps working."""

from __future__ import annotations

__all__ = ["Error", "ModelError", "InputError", "FileError", "InternalError"]


class Error(Exception):
    """Base class of every exception raised by ``collide``."""


class ModelError(Error, ValueError):
    """An MJCF model that does not compile. ``file``, ``line`` (0 when unknown) and
    ``element`` say where; ``reason`` says what."""

    file: str = ""
    line: int = 0
    element: str = ""
    reason: str = ""


class InputError(Error, ValueError):
    """An argument of the wrong shape, dtype or value (NaN, wrong ``nq``, ...)."""


class FileError(Error, OSError):
    """A file that cannot be read; ``filename`` names it."""


class InternalError(Error, RuntimeError):
    """A bug in collide (a Rust panic caught at the boundary). Please report it."""
