# SPDX-License-Identifier: GPL-2.0
"""devmemx-review: whether this kernel's code is what devmemx's redirects
were reviewed against (the source side here, the binary side in
binary.py)."""
