"""Shared test helpers: the ../shared/datasets folder and small reference computations."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests explore the same examples on every run (CI must not depend on luck) and keep
# no example database in the checkout.
settings.register_profile("svmkit", derandomize=True, database=None)
settings.load_profile("svmkit")

REPO = Path(__file__).resolve().parents[1]

# The Ctrl-C tests need SIGINT to reach Python. A shell that starts pytest as a background job
# (`( pytest & )` in a non-interactive bash, some CI runners) starts it with SIGINT ignored, and
# Python then installs no KeyboardInterrupt handler; install it here. The subprocesses the tests
# start then begin with SIGINT at its default (exec resets a handled signal, not an ignored one).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def _seeded_c_rand() -> None:
    """Every test starts from the same C-library rand() state: liblinear-official and
    libsvm-official draw their coordinate orders and folds from it (process-wide), so an
    official reference would otherwise depend on which tests ran before it."""
    from references import seed_c_rand

    seed_c_rand(1)


def shared_datasets_dir() -> Path | None:
    """../shared/datasets beside the repository (or $SVMKIT_SHARED_DIR/datasets), if present."""
    env = os.environ.get("SVMKIT_SHARED_DIR")
    root = Path(env) if env else REPO.parent / "shared"
    d = root / "datasets"
    return d if d.is_dir() else None


@pytest.fixture(scope="session")
def shared_datasets() -> Path:
    d = shared_datasets_dir()
    if d is None:
        pytest.skip(
            "../shared/datasets is not present beside this checkout; the same requirement is "
            "covered by the tests on scikit-learn's bundled datasets"
        )
    return d
