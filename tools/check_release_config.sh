#!/usr/bin/env bash
# Check what can be checked here of the release configuration (.ci/run runs it):
# cibuildwheel reads [tool.cibuildwheel] (validating it) and lists the wheels it would build on
# each platform; the workflow file passes GitHub's workflow schema (check-jsonschema, its
# bundled copy: no network needed) and yamllint. Needs: pip install cibuildwheel
# check-jsonschema yamllint.
set -euo pipefail
cd "$(dirname "$0")/.."
for platform in linux macos windows; do
  ids=$(cibuildwheel --print-build-identifiers --platform "$platform" .)
  echo "$platform: $(echo "$ids" | wc -l) wheels: $(echo "$ids" | tr '\n' ' ')"
  [ -n "$ids" ] || { echo "no $platform wheels configured" >&2; exit 1; }
done
ids=$(cibuildwheel --print-build-identifiers --platform linux --archs x86_64,aarch64 .)
for want in manylinux_x86_64 manylinux_aarch64 musllinux_x86_64; do
  echo "$ids" | grep -q "$want" || { echo "no $want wheel configured" >&2; exit 1; }
done
check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/wheels.yml
yamllint -d "{extends: default, rules: {line-length: {max: 100}, truthy: disable, document-start: disable}}" \
  .github/workflows/wheels.yml
echo "release configuration: ok"
