"""Option records: every solver declares each option once (type, default, valid range, doc) in
C++; solver_defaults() and option_table() are generated from them, and validation enforces the
declared ranges. The expected values come from the records themselves, so every option with a
bound is exercised (one parametrized test over all solvers' records)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import svmkit
from svmkit import _core
from svmkit._solvers import OPTION_TABLES

_RNG = np.random.default_rng(0)
_X = np.ascontiguousarray(_RNG.normal(size=(12, 3)))
_Y = np.where(_X[:, 0] + 0.3 * _RNG.normal(size=12) > 0, 1.0, -1.0)
_C = np.ones(12)

# One tiny fit per solver: options in, validation (ranges first) before any work.
RUNNERS = {
    "smsvm": lambda o: _core.fit_smsvm(_X, _Y, _C, 1.0, 0.0, True, 1.0, True, None, 0.0, o, None),
    "tron": lambda o: _core.fit_tron(
        _X, _Y, _C, "squared_hinge", 0.1, 0.0, True, 1.0, True, None, o, None
    ),
    "sgd": lambda o: _core.fit_sgd(
        _X, _Y, _C, "squared_hinge", 0.1, 0.0, True, 1.0, True, None, o, None
    ),
    "homotopy": lambda o: _core.fit_homotopy(_X, _Y, _C, True, 1.0, False, o, None),
    "smo": lambda o: _core.fit_smo(
        _X, _Y, _C, None, "rbf", 0.1, 0.0, 3, "svc", 0.1, False, o, None
    ),
    "adagrad_dual": lambda o: _core.fit_adagrad_dual(
        _X, _Y, _C, False, 0.1, "linear", 0.1, 0.0, 3, o, None
    ),
    "nssvm": lambda o: _core.fit_nssvm(_X, _Y, o, None),
    "platt": lambda o: _core.fit_sigmoid(_X[:, 0].copy(), _Y, o),
    "dual_cd": lambda o: _core.fit_dual_cd(
        _X, _Y, _C, "hinge", 0.1, 0.0, True, 1.0, True, None, o, None
    ),
    "l1_cd": lambda o: _core.fit_l1_cd(
        _X, _Y, _C, "squared_hinge", 1.0, 0.0, True, 1.0, True, None, o, None
    ),
    "ipm": lambda o: _core.fit_ipm(_X, _Y, _C, "hinge", 1.0, 0.0, True, 1.0, True, o, None),
    "crammer_singer": lambda o: _core.fit_crammer_singer(
        _X, (_Y > 0).astype(np.float64), _C, 2, True, 1.0, o, None
    ),
    "linear_one_class": lambda o: _core.fit_linear_one_class(_X, _C, 0.5, o, None),
}


def _parse_default(record: dict):
    text, kind = record["default"], record["type"]
    if kind == "bool":
        return text == "true"
    if kind == "std::string":
        return text.strip('"')
    if kind == "double":
        return float(text)
    return int(text)


def _outside(record: dict) -> list:
    """Values just outside each active bound of the record."""
    integral = record["type"] in ("int", "long long", "std::uint64_t")
    values = []
    if record["low"] is not None:
        v, inclusive = record["low"]
        values.append(v - 1.0 if inclusive else v)
    if record["high"] is not None:
        v, inclusive = record["high"]
        values.append(v + 1.0 if inclusive else v)
    return [int(v) if integral and math.isfinite(v) else v for v in values]


def test_every_solver_has_a_table_and_runner():
    assert set(RUNNERS) == set(OPTION_TABLES)
    # One generic accessor per kind, not one binding per solver.
    assert list(OPTION_TABLES) == sorted(_core.option_table_names())
    per_solver = [n for n in dir(_core) if n.endswith(("_defaults", "_option_records"))]
    assert per_solver == ["option_defaults"], per_solver


@pytest.mark.parametrize("solver", sorted(OPTION_TABLES))
def test_records_match_defaults(solver):
    records = svmkit.option_table(solver)
    defaults = svmkit.solver_defaults(solver)
    assert [r["name"] for r in records] == list(defaults)
    for r in records:
        assert r["doc"], f"{solver}.{r['name']} has no doc"
        expected = _parse_default(r)
        got = defaults[r["name"]]
        if isinstance(expected, float):
            assert got == pytest.approx(expected, rel=1e-15), r["name"]
        else:
            assert got == expected, r["name"]
        # The default itself lies inside the declared range.
        if isinstance(got, (int, float)) and not isinstance(got, bool):
            for bad in _outside(r):
                assert bad != got


CASES = [
    (solver, r["name"], bad)
    for solver in sorted(OPTION_TABLES)
    for r in _core.option_records(solver)
    for bad in _outside(r)
]


@pytest.mark.parametrize(("solver", "name", "value"), CASES)
def test_out_of_range_option_raises_naming_it(solver, name, value):
    with pytest.raises(ValueError, match=f"option '{name}' must be"):
        RUNNERS[solver]({name: value})


def test_glossary_names():
    """One name per concept across solvers (DESIGN.md's glossary)."""
    names = {s: set(svmkit.solver_defaults(s)) for s in OPTION_TABLES}
    everywhere = set().union(*names.values())
    for old in ("max_cg_iter", "history_interval", "regularize_bias"):
        assert old not in everywhere
    assert "cg_max_iter" in names["nssvm"] and "cg_max_iter" in names["tron"]
    assert "history_every" in names["smo"] and "history_every" in names["adagrad_dual"]


def test_unknown_solver_and_option_errors():
    with pytest.raises(ValueError, match="unknown solver 'nope'"):
        svmkit.option_table("nope")
    with pytest.raises(ValueError, match="unknown solver 'nope'"):
        svmkit.solver_defaults("nope")
    # The core's one registry of tables answers for an unknown name with the known ones.
    with pytest.raises(ValueError, match=r"unknown option table 'nope' \(known: .*tron"):
        _core.option_defaults("nope")
    with pytest.raises(ValueError, match="unknown option table 'nope'"):
        _core.option_records("nope")
    with pytest.raises(ValueError, match="unknown nssvm option 'max_cg_iter'"):
        RUNNERS["nssvm"]({"max_cg_iter": 5})
    with pytest.raises(ValueError, match="option 'tol' has the wrong type"):
        RUNNERS["smo"]({"tol": "small"})


def test_nssvm_cg_tol_is_a_plain_ratio():
    """cg_tol means ||r|| <= cg_tol ||r0|| for NSSVM as for TRON: the new default is the square
    root of the old squared-ratio default 1e-10, and the CG path still matches the direct one."""
    assert svmkit.solver_defaults("nssvm")["cg_tol"] == pytest.approx(1e-5)
    X = np.ascontiguousarray(_RNG.normal(size=(80, 6)))
    y = np.where(X[:, 0] - X[:, 1] > 0, 1.0, -1.0)
    direct = _core.fit_nssvm(X, y, {"s0": 30}, None)
    cg = _core.fit_nssvm(X, y, {"s0": 30, "cg_threshold": 0}, None)
    np.testing.assert_array_equal(direct["support"], cg["support"])
    np.testing.assert_allclose(direct["alpha"], cg["alpha"], rtol=1e-6, atol=1e-9)
