"""Thread counts (affinity, cgroup quota, OMP_NUM_THREADS, threadpoolctl) and the parallel
loop over the binary fits of a multiclass model: same numbers as the sequential loop."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import svmkit
from sklearn.datasets import make_classification
from svmkit import _core, _threads
from svmkit._validation import check_n_jobs


def _run_python(code: str, env_extra: dict | None = None) -> str:
    env = dict(os.environ)
    env.pop("OMP_NUM_THREADS", None)
    env.update(env_extra or {})
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return out.stdout.strip()


@pytest.mark.parametrize(
    ("text", "cpus"),
    [
        ("max 100000\n", 0.0),
        ("150000 100000\n", 1.5),
        ("200000 100000", 2.0),
        ("50000 100000", 0.5),
        ("400000", 4.0),  # period omitted: the kernel's default 100000
        ("", 0.0),
        ("garbage here", 0.0),
        ("-5 100000", 0.0),
    ],
)
def test_parse_cgroup_cpu_max(text, cpus):
    assert _core.parse_cgroup_cpu_max(text) == pytest.approx(cpus)


@pytest.mark.parametrize(
    ("quota", "period", "cpus"),
    [
        ("-1\n", "100000\n", 0.0),
        ("50000\n", "100000\n", 0.5),
        ("300000", "100000", 3.0),
        ("x", "100000", 0.0),
        ("100000", "0", 0.0),
    ],
)
def test_parse_cgroup_v1_quota(quota, period, cpus):
    assert _core.parse_cgroup_v1_quota(quota, period) == pytest.approx(cpus)


def test_usable_cpus_within_affinity_and_quota():
    n = _core.usable_cpus()
    assert 1 <= n <= len(os.sched_getaffinity(0))
    quota = _core.cgroup_cpu_limit()
    if quota > 0:
        assert n <= int(np.ceil(quota))
    assert 1 <= _core.default_threads() <= n


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no sched_setaffinity")
def test_default_threads_follow_affinity_mask():
    out = _run_python(
        """
        import os
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
        from svmkit import _core, _threads
        print(_core.usable_cpus(), _core.default_threads(), _threads.resolve_n_jobs(-1))
        """
    )
    assert out.split() == ["1", "1", "1"]


def test_default_threads_follow_omp_num_threads():
    code = "from svmkit import _core; print(_core.default_threads(), _core.usable_cpus())"
    out = _run_python(code, {"OMP_NUM_THREADS": "1"})
    assert out.split()[0] == "1"
    out = _run_python(code, {"OMP_NUM_THREADS": "64"})
    n, usable = map(int, out.split())
    assert n == usable  # OMP_NUM_THREADS above the usable CPUs does not oversubscribe


def _multiclass(n=3000, d=20, k=6, seed=0):
    X, y = make_classification(
        n_samples=n, n_features=d, n_informative=10, n_classes=k, random_state=seed
    )
    return X, y


def test_threadpoolctl_limit_gives_one_thread(monkeypatch):
    import threadpoolctl  # a dependency of scikit-learn, always installed

    X, y = _multiclass()
    with threadpoolctl.threadpool_limits(1):
        assert _core.default_threads() == 1
        assert _threads.resolve_n_jobs(None) == 1

        def no_pool(*args, **kwargs):
            raise AssertionError("a thread pool was started under threadpool_limits(1)")

        monkeypatch.setattr(_threads, "ThreadPoolExecutor", no_pool)
        limited = svmkit.LinearSVC().fit(X, y)
    ref = svmkit.LinearSVC(n_jobs=1).fit(X, y)
    np.testing.assert_array_equal(limited.coef_, ref.coef_)


def test_n_jobs_minus_one_is_usable_cpus():
    assert check_n_jobs(-1) == _core.usable_cpus()
    assert check_n_jobs(-(_core.usable_cpus() + 5)) == 1


def test_use_pool_rule():
    assert _threads.use_pool(26, 2, 20000, 20000 * 16)  # many classes: a fit per thread
    assert not _threads.use_pool(26, 1, 20000, 20000 * 16)  # one thread
    assert not _threads.use_pool(1, 2, 20000, 20000 * 16)  # binary
    assert not _threads.use_pool(3, 2, 100000, 100000 * 100)  # big passes split inside
    assert _threads.use_pool(3, 2, 3000, 3000 * 20)  # small passes: one thread inside anyway
    assert not _threads.use_pool(3, 2, 150, 150 * 4)  # iris-sized: no pool at all


def test_linear_svc_multiclass_identical_for_1_and_2_threads():
    X, y = _multiclass()
    assert _threads.use_pool(6, 2, *X.shape[:1], X.size)
    one = svmkit.LinearSVC(n_jobs=1).fit(X, y)
    two = svmkit.LinearSVC(n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(one.coef_, two.coef_)
    np.testing.assert_array_equal(one.intercept_, two.intercept_)
    assert [r["iterations"] for r in one.result_] == [r["iterations"] for r in two.result_]


def test_linear_svc_sparse_hinge_multiclass_identical_for_1_and_2_threads():
    X, y = _multiclass(n=2000, d=60, k=5, seed=1)
    X[np.abs(X) < 1.0] = 0.0
    Xs = sp.csr_matrix(X)
    one = svmkit.LinearSVC(loss="hinge", n_jobs=1).fit(Xs, y)
    two = svmkit.LinearSVC(loss="hinge", n_jobs=2).fit(Xs, y)
    np.testing.assert_array_equal(one.coef_, two.coef_)


def test_svc_one_vs_one_identical_for_1_and_2_threads():
    X, y = _multiclass(n=1500, d=20, k=5, seed=2)
    one = svmkit.SVC(n_jobs=1).fit(X, y)
    two = svmkit.SVC(n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(one.dual_coef_, two.dual_coef_)
    np.testing.assert_array_equal(one.intercept_, two.intercept_)
    np.testing.assert_array_equal(one.support_, two.support_)


def test_pool_fits_really_overlap():
    # The GIL is released around each solve: two fits must be inside C++ at the same time.
    import threading
    import time

    active, peak, lock = [0], [0], threading.Lock()

    def fit_one(k, threads, stop):
        assert threads == 1 and isinstance(stop, _core.StopToken) and not stop.is_set()
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.05)  # releases the GIL, as a solve does
        with lock:
            active[0] -= 1
        return k

    out = _threads.map_binary_fits(fit_one, 6, 2, 3000, 60000)
    assert out == list(range(6)) and peak[0] == 2


def test_pool_error_stops_other_fits_and_propagates():
    seen_stop = []

    def fit_one(k, threads, stop):
        if k == 1:
            raise FloatingPointError("fit 1 failed")
        import time

        time.sleep(0.05)
        seen_stop.append(not stop.is_set())
        return k

    with pytest.raises(FloatingPointError, match="fit 1 failed"):
        _threads.map_binary_fits(fit_one, 8, 2, 3000, 60000)
    assert False in seen_stop  # the fit running beside the failure was told to stop


def test_pool_error_stops_a_running_solve(monkeypatch):
    # The StopToken reaches the C++ solve: a one-vs-rest fit running beside a failed one ends
    # at its next poll, not after its minute of sgd epochs (see the Ctrl-C test below).
    import time

    X, y = _long_sgd_problem()
    original = _threads.map_binary_fits

    def first_fit_fails(fit_one, *args, **kwargs):
        def fit_or_fail(k, threads, stop):
            if k == 0:
                time.sleep(0.3)
                raise FloatingPointError("fit 0 failed")
            return fit_one(k, threads, stop)

        return original(fit_or_fail, *args, **kwargs)

    monkeypatch.setattr(svmkit._linear, "map_binary_fits", first_fit_fails)
    t0 = time.perf_counter()
    with pytest.raises(FloatingPointError, match="fit 0 failed"):
        _long_sgd_classifier().fit(X, y)
    assert time.perf_counter() - t0 < 10.0  # generous: the solve alone would take a minute


def test_stop_token_flag():
    token = _core.StopToken()
    assert not token.is_set()
    token.set()
    assert token.is_set()


def test_callback_keeps_fits_sequential(monkeypatch):
    X, y = _multiclass()
    calls = []

    def no_pool(*args, **kwargs):
        raise AssertionError("a user callback must see one fit at a time")

    monkeypatch.setattr(_threads, "ThreadPoolExecutor", no_pool)
    clf = svmkit.LinearSVC(n_jobs=2, callback=lambda rec: calls.append(rec) or True).fit(X, y)
    ref = svmkit.LinearSVC(n_jobs=1).fit(X, y)
    np.testing.assert_array_equal(clf.coef_, ref.coef_)
    assert len(calls) == sum(r["iterations"] for r in ref.result_)


def _long_sgd_problem() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    y = np.arange(20000) % 4
    X = rng.standard_normal((20000, 20))
    X[np.arange(20000), y] += 12.0
    assert _threads.use_pool(4, 2, *X.shape[:1], X.size)
    return X, y


def _long_sgd_classifier() -> svmkit.LinearSVC:
    # sgd with no stopping rule but max_iter: each one-vs-rest fit would run for a minute
    # (an epoch is a pass over 400,000 entries), whatever the machine's speed.
    return svmkit.LinearSVC(
        loss="hinge",
        solver="sgd",
        tol=0.0,
        max_iter=300_000,
        n_jobs=2,
        solver_options={"n_iter_no_change": 10**7, "record_history": False},
    )


def test_ctrl_c_stops_parallel_one_vs_rest_fits():
    # Ctrl-C reaches only the main thread; the fits on the pool stop at their next iteration.
    import signal
    import threading
    import time

    X, y = _long_sgd_problem()
    clf = _long_sgd_classifier()
    timer = threading.Timer(0.5, lambda: signal.raise_signal(signal.SIGINT))
    timer.start()
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the other fits end "interrupted" (a warning)
        with pytest.raises(KeyboardInterrupt):
            clf.fit(X, y)
    assert time.perf_counter() - t0 < 5.0
    timer.join()
    assert not [t for t in threading.enumerate() if t.name.startswith("svmkit-fit")]
