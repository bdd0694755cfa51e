#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Inside the VM: what make demo shows.
. /dx/tlib.sh
set -x
PS4="# "
uname -r
insmod /dx/modules/devmemx.ko
devmemx info
devmemx -j info
rmmod devmemx
