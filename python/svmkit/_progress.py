"""Progress reporting and seeds shared by every estimator: the verbose printer, combining it
with a user callback, and turning random_state into the seed a C++ solver takes."""

from __future__ import annotations

import numbers
import sys
from typing import Any, Callable

import numpy as np

Callback = Callable[[dict], Any]


def verbose_printer(name: str) -> Callable[[dict], bool]:
    """One line per solver iteration on stdout, from the C++ iteration record."""

    def show(rec: dict) -> bool:
        parts = [f"{name} iter {rec['iteration']:4d}", f"f {rec['objective']:.8e}"]
        if np.isfinite(rec["optimality"]):
            parts.append(f"opt {rec['optimality']:.3e}")
        if rec["inner_iterations"] >= 0:
            parts.append(f"inner {rec['inner_iterations']}")
        if rec["active_size"] >= 0:
            parts.append(f"active {rec['active_size']}")
        if np.isfinite(rec["smoothing"]):
            parts.append(f"smooth {rec['smoothing']:.2e}")
        parts.append(f"passes {rec['passes']}")
        parts.append(f"t {rec['time']:.3f}s")
        print("  ".join(parts), file=sys.stdout, flush=True)
        return True

    return show


def make_callback(
    name: str, verbose: Any, user: Callback | None, printer: Callback | None = None
) -> Callback | None:
    """The callback a solve gets: the verbose printer, the user's callback, both or none.

    `printer` replaces the standard line where a solver reports other fields. The user's
    return value decides whether the solve goes on (False stops it).
    """
    show = (printer or verbose_printer(name)) if verbose else None
    if user is not None:
        user = _checked(user)
    if user is None or show is None:
        return user if show is None else show

    def both(rec: dict) -> Any:
        show(rec)
        return user(rec)

    return both


def _checked(user: Callback) -> Callable[[dict], bool]:
    """The user's callback with its return value read by one rule (see
    _constraints.check_callback_result): a clear TypeError instead of a failed C++ cast."""
    from ._constraints import check_callback_result

    def call(rec: dict) -> bool:
        return check_callback_result(user, user(rec))

    return call


def seed_from(random_state: Any) -> int | None:
    """A seed for a C++ solver's own generator (None: the solver's default seed)."""
    if random_state is None:
        return None
    if isinstance(random_state, numbers.Integral):
        return int(random_state)
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    return int(np.random.default_rng(random_state).integers(0, 2**31 - 1))
