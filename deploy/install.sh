#!/bin/sh
# Install prdigest and its locked runtime dependencies (uv.lock, without the dev tools) into a new
# virtual environment TARGET, from the project in the current directory. The Containerfile's build
# stage runs it; tests/deploy/test_containerfile.py replays it in a temporary directory.
#
#   sh deploy/install.sh TARGET
#
# PYTHON names the interpreter (default python3). uv comes from UV when it is set (a uv you already
# have); otherwise it is installed from the package index into a throwaway environment, so that it
# does not end up in TARGET. prdigest is installed as a wheel (--no-editable): TARGET works without
# the source tree.
set -eu
target=${1:?usage: sh deploy/install.sh TARGET}
python=${PYTHON:-python3}
tools=
if [ -z "${UV:-}" ]; then
    tools=$(mktemp -d)
    "$python" -m venv "$tools"
    "$tools/bin/pip" install --quiet --no-cache-dir --disable-pip-version-check uv
    UV="$tools/bin/uv"
fi
"$python" -m venv "$target"
UV_PROJECT_ENVIRONMENT="$target" UV_PYTHON_DOWNLOADS=never \
    "$UV" sync --frozen --no-dev --no-editable --compile-bytecode --quiet
if [ -n "$tools" ]; then rm -rf "$tools"; fi
