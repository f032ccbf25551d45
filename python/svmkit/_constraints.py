"""Declared parameter constraints for every estimator (scikit-learn's `_parameter_constraints`
idea, with svmkit's own small rule objects so that the checks cost microseconds per fit and the
messages keep one form: "<name> must be <rule>, got <value>").

Each estimator class declares `_parameter_checks`, a dict from every constructor parameter to
a rule; `validate_params(estimator)` checks them all at the start of fit (never in __init__).
A subclass extends the table of its base::

    class NuSVC(SVC):
        _parameter_checks = {**SVC._parameter_checks, "nu": Real(gt=0.0, le=1.0)}

and removes an inherited parameter with `{k: v for k, v in ... if k != "C"}`. Rules that tie
two parameters together (sigma only with the rbf/laplacian kernels, C = inf only for the
homotopy) are methods `_check_param_relations(self)` of the estimator, run after the table.
tests/test_bad_input.py checks that every estimator's table names exactly its get_params().
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

__all__ = [
    "AnyOf",
    "InvalidParameterError",
    "Bool",
    "CallableOrNone",
    "DictOrNone",
    "Int",
    "IsCallable",
    "KeyOf",
    "NJobs",
    "OneOf",
    "Predicate",
    "RandomState",
    "Real",
    "Rule",
    "Str",
    "COMMON_CHECKS",
    "DEGREE",
    "validate_args",
    "validate_params",
]


class InvalidParameterError(ValueError, TypeError):
    """A parameter of the wrong type or value. Both a ValueError and a TypeError, as
    scikit-learn's own InvalidParameterError: code written to catch either for scikit-learn's
    estimators catches svmkit's too."""


class Rule:
    """A constraint on one parameter value. check() raises InvalidParameterError naming it."""

    none_ok = False

    def accepts_type(self, value: Any) -> bool:
        raise NotImplementedError

    def check(self, value: Any, name: str) -> None:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


def _bound_text(gt, ge, lt, le) -> str:
    parts = []
    if gt is not None:
        parts.append(f"> {gt:g}")
    if ge is not None:
        parts.append(f">= {ge:g}")
    if lt is not None:
        parts.append(f"< {lt:g}")
    if le is not None:
        parts.append(f"<= {le:g}")
    return " and ".join(parts)


class Real(Rule):
    """A real number (not a bool), finite unless inf_ok, within the given bounds."""

    def __init__(self, *, gt=None, ge=None, lt=None, le=None, none=False, inf_ok=False):
        self.gt, self.ge, self.lt, self.le = gt, ge, lt, le
        self.none_ok = none
        self.inf_ok = inf_ok

    _kind = numbers.Real
    _kind_name = "float"

    def accepts_type(self, value: Any) -> bool:
        return isinstance(value, self._kind) and not isinstance(value, (bool, np.bool_))

    def describe(self) -> str:
        b = _bound_text(self.gt, self.ge, self.lt, self.le)
        article = "an" if self._kind_name[0] in "aeiou" else "a"
        return f"{article} {self._kind_name}" + (f" {b}" if b else "")

    def check(self, value: Any, name: str) -> None:
        if value is None and self.none_ok:
            return
        if not self.accepts_type(value):
            kind = self._kind_name + (" or None" if self.none_ok else "")
            raise InvalidParameterError(f"{name} must be of type {kind}, got {value!r}")
        if value != value or (not self.inf_ok and math.isinf(value)):
            raise InvalidParameterError(f"{name} must be finite, got {value!r}")
        if self.gt is not None and not value > self.gt:
            raise InvalidParameterError(f"{name} must be > {self.gt:g}, got {value!r}")
        if self.ge is not None and not value >= self.ge:
            raise InvalidParameterError(f"{name} must be >= {self.ge:g}, got {value!r}")
        if self.lt is not None and not value < self.lt:
            raise InvalidParameterError(f"{name} must be < {self.lt:g}, got {value!r}")
        if self.le is not None and not value <= self.le:
            raise InvalidParameterError(f"{name} must be <= {self.le:g}, got {value!r}")


class Int(Real):
    """An integer (not a bool unless bool_ok), within the given bounds, or one of `also`."""

    _kind = numbers.Integral
    _kind_name = "int"

    def __init__(self, *, gt=None, ge=None, lt=None, le=None, none=False, also=(), bool_ok=False):
        super().__init__(gt=gt, ge=ge, lt=lt, le=le, none=none)
        self.also = tuple(also)
        self.bool_ok = bool_ok

    def accepts_type(self, value: Any) -> bool:
        if isinstance(value, (bool, np.bool_)):
            return self.bool_ok
        return isinstance(value, numbers.Integral)

    def check(self, value: Any, name: str) -> None:
        if self.also and self.accepts_type(value) and value in self.also:
            return
        if not self.also:
            super().check(value, name)
            return
        try:
            super().check(value, name)
        except ValueError:
            raise InvalidParameterError(
                f"{name} must be {self.describe()}, got {value!r}"
            ) from None

    def describe(self) -> str:
        extra = f" (or {', '.join(map(repr, self.also))})" if self.also else ""
        return super().describe() + extra


class Bool(Rule):
    """True or False (numpy bools too)."""

    def __init__(self, *, none=False):
        self.none_ok = none

    def accepts_type(self, value: Any) -> bool:
        return isinstance(value, (bool, np.bool_))

    def describe(self) -> str:
        return "a bool"

    def check(self, value: Any, name: str) -> None:
        if value is None and self.none_ok:
            return
        if not self.accepts_type(value):
            kind = "bool" + (" or None" if self.none_ok else "")
            raise InvalidParameterError(f"{name} must be of type {kind}, got {value!r}")


class OneOf(Rule):
    """One of the given strings."""

    def __init__(self, *choices: str, none=False):
        self.choices = tuple(choices)
        self.none_ok = none

    def accepts_type(self, value: Any) -> bool:
        return isinstance(value, str)

    def describe(self) -> str:
        return "one of " + ", ".join(map(repr, self.choices))

    def check(self, value: Any, name: str) -> None:
        if value is None and self.none_ok:
            return
        if not isinstance(value, str) or value not in self.choices:
            raise InvalidParameterError(f"{name} must be {self.describe()}; got {value!r}")


class KeyOf(OneOf):
    """A key of a table that may grow after the class is declared (a solver table)."""

    def __init__(self, table: dict):
        self.table = table
        self.none_ok = False

    @property
    def choices(self) -> tuple:
        return tuple(self.table)


class Str(Rule):
    """Any string; its value is judged elsewhere (e.g. a solver table)."""

    def accepts_type(self, value: Any) -> bool:
        return isinstance(value, str)

    def describe(self) -> str:
        return "a string"

    def check(self, value: Any, name: str) -> None:
        if not isinstance(value, str):
            raise InvalidParameterError(f"{name} must be a string, got {value!r}")


class AnyOf(Rule):
    """The value satisfies one of the rules; the error is that of the rule for its type."""

    def __init__(self, *rules: Rule, none=False):
        self.rules = rules
        self.none_ok = none or any(r.none_ok for r in rules)

    def accepts_type(self, value: Any) -> bool:
        return any(r.accepts_type(value) for r in self.rules)

    def describe(self) -> str:
        # each rule's own "or None" once, at the end
        kinds = (r.describe().removesuffix(" or None") for r in self.rules)
        return " or ".join(kinds) + (" or None" if self.none_ok else "")

    def check(self, value: Any, name: str) -> None:
        if value is None and self.none_ok:
            return
        for rule in self.rules:
            if rule.accepts_type(value):
                rule.check(value, name)
                return
        raise InvalidParameterError(f"{name} must be {self.describe()}, got {value!r}")


class Predicate(Rule):
    """A value that passes `test` (described as `what` in the message), or None when none."""

    def __init__(self, test: Any, what: str, none: bool = False):
        self.test, self.what, self.none_ok = test, what, none

    def accepts_type(self, value: Any) -> bool:
        return self.test(value)

    def describe(self) -> str:
        return f"{self.what} or None" if self.none_ok else self.what

    def check(self, value: Any, name: str) -> None:
        if (value is not None or not self.none_ok) and not self.test(value):
            raise InvalidParameterError(f"{name} must be {self.describe()}, got {value!r}")


def CallableOrNone() -> Rule:  # noqa: N802 (a rule, spelled like the others)
    return Predicate(callable, "callable", none=True)


def IsCallable() -> Rule:  # noqa: N802 (a kernel function: None refused)
    return Predicate(callable, "a callable")


def DictOrNone() -> Rule:  # noqa: N802
    return Predicate(lambda v: isinstance(v, dict), "a dict", none=True)


class RandomState(Rule):
    """None, an int >= 0, a numpy RandomState or Generator."""

    none_ok = True

    def accepts_type(self, value: Any) -> bool:
        return isinstance(
            value, (numbers.Integral, np.random.RandomState, np.random.Generator)
        ) and not isinstance(value, (bool, np.bool_))

    def describe(self) -> str:
        return "None, an int, or a numpy random generator"

    def check(self, value: Any, name: str) -> None:
        if value is None:
            return
        if not self.accepts_type(value):
            raise InvalidParameterError(f"{name} must be {self.describe()}, got {value!r}")
        if isinstance(value, numbers.Integral) and value < 0:
            raise InvalidParameterError(f"{name} must be >= 0 when an int, got {value!r}")


class NJobs(Int):
    """scikit-learn's n_jobs: None, or a nonzero int (-1: every usable CPU)."""

    def __init__(self):
        super().__init__(none=True)

    def describe(self) -> str:
        return "a nonzero integer or None"

    def check(self, value: Any, name: str) -> None:
        super().check(value, name)
        if value == 0:
            raise InvalidParameterError(f"{name} must be a nonzero integer or None, got 0")


# The parameters every estimator has, with one rule each.
COMMON_CHECKS: dict[str, Rule] = {
    "verbose": Int(ge=0, bool_ok=True),
    "n_jobs": NJobs(),
    "solver_options": DictOrNone(),
    "callback": CallableOrNone(),
}

# The one rule for the polynomial degree, shared by SVC, SVR, fit_adagrad_dual and the C++
# kernel (kernel.cpp refuses degree < 1 for the poly kernel): an int >= 1 for every kernel,
# so that a grid over kernels never meets a degree one kernel accepts and another refuses.
DEGREE = Int(ge=1)


_MISSING = object()


def validate_params(estimator: Any) -> None:
    """Check every declared parameter of `estimator`, then its cross-parameter relations.

    Reads the attributes directly (no get_params(), which costs a signature inspection).
    """
    for name, rule in type(estimator)._parameter_checks.items():
        value = getattr(estimator, name, _MISSING)
        # A subclass without one of its base's parameters (NuSVC has no C) skips its rule;
        # tests/test_bad_input.py checks that each table names exactly get_params().
        if value is not _MISSING:
            rule.check(value, name)
    relations = getattr(estimator, "_check_param_relations", None)
    if relations is not None:
        relations()


def validate_args(checks: dict[str, Rule], values: dict[str, Any]) -> None:
    """The same checks for a function's keyword arguments (fit_adagrad_dual, smsvm_path)."""
    for name, rule in checks.items():
        rule.check(values[name], name)


def check_callback_result(callback: Any, value: Any) -> bool:
    """The rule for what a user callback returns: None or True go on, False stops the fit;
    ints are read as bools; anything else is a TypeError naming the callback."""
    if value is None:
        return True
    if isinstance(value, (bool, np.bool_, numbers.Integral)):
        return bool(value)
    name = getattr(callback, "__qualname__", None) or repr(callback)
    raise TypeError(
        f"callback {name} must return None, True or False (False stops the fit), "
        f"got {value!r} of type {type(value).__name__}"
    )


def merge_solver_options(
    estimator: str, user: dict | None, owned: dict[str, tuple[str, Any]]
) -> dict:
    """The options dict for a solver: the user's solver_options plus what the estimator sets.

    `owned` maps an option name to (the estimator parameter that sets it, its value). A user
    entry for an owned option would be silently overwritten: refuse it, naming the parameter.
    """
    opts = dict(user) if user else {}
    for key, (param, value) in owned.items():
        if key in opts:
            raise ValueError(
                f"{estimator}: solver_options[{key!r}] = {opts[key]!r} conflicts with the "
                f"estimator parameter {param!r}, which sets it; set {param} instead"
            )
        opts[key] = value
    return opts
