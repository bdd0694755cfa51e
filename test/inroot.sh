#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run a command inside the build root, with the project mounted at /src.
set -euo pipefail
. "$(dirname "$0")/hostlib.sh"
[ -f "$DX_ROOT/etc/devmemx-recipe" ] || dx_die "no build root; run: make root"
dx_in_root "$@"
