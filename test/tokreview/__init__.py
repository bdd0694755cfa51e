# SPDX-License-Identifier: GPL-2.0
#
# The parts of test/tok-review.py: image.py (the image, its symbols and
# BTF), insn.py (the instruction model), checks.py (the review).
