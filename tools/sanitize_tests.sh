#!/usr/bin/env bash
# Builds svmkit._core with AddressSanitizer + UndefinedBehaviorSanitizer (CMake option
# SVMKIT_SANITIZE) in build/sanitize and runs a subset of the test suite against that module.
#
#   bash tools/sanitize_tests.sh                 # the default subset below
#   bash tools/sanitize_tests.sh tests/test_x.py # any pytest arguments instead
#
# The module is staged beside a copy of python/svmkit and Python runs with -S so that the
# editable install's import hook (which would load build/editable's module) is not used;
# site-packages is put on PYTHONPATH instead. A Python extension built with ASan needs the
# ASan runtime loaded first (LD_PRELOAD). pytest runs with -s so that a sanitizer report
# (written to stderr) is not swallowed by output capture. UBSan findings stop the run (halt_on_error=1).
# Leak detection is off: CPython's own allocations would drown the report.
set -euo pipefail
cd "$(dirname "$0")/.."
SAN=${SVMKIT_SANITIZE:-address,undefined}
BUILD=${SVMKIT_SANITIZE_BUILD:-build/sanitize}
PY=${PYTHON:-python}
SITE=$("$PY" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
LAUNCHER=()
if command -v ccache > /dev/null; then LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSVMKIT_PYTHON=ON \
  -DSVMKIT_INSTALL=OFF -DSVMKIT_SANITIZE="$SAN" -DPython_EXECUTABLE="$(command -v "$PY")" \
  -Dpybind11_DIR="$("$PY" -m pybind11 --cmakedir)" "${LAUNCHER[@]}" > "$BUILD.configure.log"
cmake --build "$BUILD" --target _core
STAGE="$BUILD/stage"
rm -rf "$STAGE" && mkdir -p "$STAGE"
cp -r python/svmkit "$STAGE/svmkit"
cp "$BUILD"/_core*.so "$STAGE/svmkit/"
# The SIMD-dispatched kernels (vec_math, smo_working_set) are run again at each level this CPU
# has, forced with SVMKIT_SIMD, by the tests below (default subset only).
SIMD_TESTS=()
if [ "$#" -eq 0 ]; then
  set -- tests/test_model_hardening.py tests/test_fuzz.py tests/test_svmlight.py \
    tests/test_malformed_csr.py tests/test_foreign_model_hardening.py \
    "tests/test_kernel_svm.py::test_svc_matches_libsvm" \
    "tests/test_kernel_svm.py::test_multiclass_matches_libsvm" \
    "tests/test_kernel_svm.py::test_save_load_round_trip" \
    "tests/test_kernel_svm.py::test_sparse_float32_and_precomputed_match_dense" \
    "tests/test_linear_api.py::test_model_file_round_trip" \
    "tests/test_tron.py::test_squared_hinge_matches_liblinear_breast_cancer" \
    tests/test_nu_svm.py tests/test_crammer_singer.py tests/test_linear_one_class.py \
    tests/test_dual_cd.py tests/test_l1_cd.py tests/test_dask.py \
    tests/test_unaligned_input.py tests/test_bad_input.py
  SIMD_TESTS=(tests/test_dual_cd.py tests/test_nu_svm.py
    "tests/test_kernel_svm.py::test_svc_matches_libsvm"
    "tests/test_kernel_svm.py::test_multiclass_matches_libsvm")
fi
# libstdc++ is preloaded too: Python itself does not link it, and ASan's __cxa_throw
# interceptor fails ("real___cxa_throw != 0") when libstdc++ arrives later with the module.
ASAN_LIB=$(${CXX:-g++} -print-file-name=libasan.so)
STDCXX_LIB=$(${CXX:-g++} -print-file-name=libstdc++.so)
export LD_PRELOAD="$ASAN_LIB $STDCXX_LIB"
export ASAN_OPTIONS=detect_leaks=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export PYTHONPATH="$PWD/$STAGE:$SITE"
"$PY" -S -m pytest -q -s -p no:cacheprovider "$@"
if [ "${#SIMD_TESTS[@]}" -gt 0 ]; then
  CPU=$("$PY" -S -c "from svmkit import _core; print(_core.build_info()['simd_cpu'])")
  for LEVEL in baseline avx2 avx512; do
    echo "== SVMKIT_SIMD=$LEVEL"
    SVMKIT_SIMD=$LEVEL "$PY" -S -m pytest -q -s -p no:cacheprovider "${SIMD_TESTS[@]}"
    if [ "$LEVEL" = "$CPU" ]; then break; fi
  done
fi
