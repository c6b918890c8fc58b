"""What every command of the command line shares: the consoles, the exit statuses and
:func:`friendly`, which turns expected errors into one message and an exit status.

It lives apart from :mod:`shortflow.cli` so that sub-applications mounted by the CLI
(``shortflow.repro.cli``) can use it without importing the CLI that imports them.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any, Callable, Optional, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from .errors import ScenarioError, SimulationError
from .units import UnitError

__all__ = ["out_console", "err_console", "fail", "friendly", "integer", "seed_option", "EXIT_USAGE", "EXIT_FAILURE",
           "EXIT_INTERRUPTED"]

#: A user mistake (bad scenario, option, value): the message says what to change.
EXIT_USAGE = 2
#: Something outside the user's input failed (a file that cannot be written, no core).
EXIT_FAILURE = 1
#: Ctrl-C (an interrupted sweep resumes when run again).
EXIT_INTERRUPTED = 130

F = TypeVar("F", bound=Callable[..., Any])


def _console(stderr: bool = False) -> Console:
    c = Console(stderr=stderr, soft_wrap=True)
    if not c.is_terminal and "COLUMNS" not in os.environ:
        c = Console(stderr=stderr, soft_wrap=True, width=160)
    return c


out_console = _console()
err_console = _console(stderr=True)


def fail(message: str, code: int = EXIT_USAGE) -> "typer.Exit":
    """Print ``error: message`` (markup-escaped) and return the ``typer.Exit`` to raise."""
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


def friendly(fn: F) -> F:
    """Turn expected errors into one message and an exit status, never a traceback:
    scenario, unit and configuration errors exit 2; a missing file 2; another file that
    cannot be read or written (``OSError``, e.g. disk full) or a missing core 1; Ctrl-C
    130. ``SHORTFLOW_DEBUG=1`` re-raises them with the traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        # Imported here: the sweeper pulls in the process pool and polars, which most
        # commands (check, config, iw) do not need. Not a circle: the sweeper does not
        # import this module.
        from .sweeper import SweepInterrupted

        debug = bool(os.environ.get("SHORTFLOW_DEBUG"))
        try:
            return fn(*args, **kwargs)
        except (typer.Exit, typer.Abort):
            raise
        except SweepInterrupted as e:
            err_console.print(f"[yellow]{escape(str(e))}[/]", highlight=False)
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except KeyboardInterrupt:
            err_console.print("[yellow]interrupted[/]")
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except (ScenarioError, UnitError, SimulationError) as e:
            if debug:
                raise
            raise fail(str(e)) from None
        except ImportError as e:
            if debug:
                raise
            raise fail(str(e), EXIT_FAILURE) from None
        except FileNotFoundError as e:
            if debug:
                raise
            raise fail(str(e)) from None
        except OSError as e:  # a result file that cannot be written, a damaged input (files.FileProblem)
            if debug:
                raise
            raise fail(str(e), EXIT_FAILURE) from None

    return wrapper  # type: ignore[return-value]


# --- option parsers: messages that name the option (typer adds it) and the value ---------


def integer(lo: Optional[int] = None, hi: Optional[int] = None) -> Callable[[str], int]:
    """A typer ``parser=`` for an integer option within [lo, hi]; a bad value is reported
    with the value itself (typer's own checks name only the bound)."""

    def parse(text: Any) -> int:
        if isinstance(text, int) and not isinstance(text, bool):  # a default
            return text
        try:
            value = int(str(text).strip(), 10)
        except ValueError:
            raise typer.BadParameter(f"{text!r} is not an integer") from None
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            rng = f"from {lo} to {hi}" if lo is not None and hi is not None else (
                f"at least {lo}" if lo is not None else f"at most {hi}")
            raise typer.BadParameter(f"{text!r} is out of range: give an integer {rng}")
        return value

    return parse


def path_option(text: Any) -> Path:
    """A typer ``parser=`` for a file or directory option: an empty value (an unset shell
    variable, ``--out "$OUT"``) is refused instead of meaning the working directory,
    where the command would write its files."""
    if isinstance(text, Path):  # a default
        return text
    if not str(text).strip():
        raise typer.BadParameter(f"{text!r}: an empty path (an unset variable?); give a file or directory")
    return Path(text)


def seed_option(text: Any) -> int:
    """``--seed``: an integer checked by the same rule as ``seeds = [...]``
    (:func:`shortflow.schema.check_seed`)."""
    from .schema import check_seed

    value = integer()(text)
    try:
        return check_seed(value, "--seed")
    except ScenarioError as e:
        raise typer.BadParameter(f"{text!r}: {e.problems[0].message}") from None
