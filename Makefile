# SPDX-License-Identifier: GPL-2.0
#
# Host targets run on a Debian host as root; they make the build root
# (test/mkroot.sh) and do the work inside it. The in-root-* targets are what
# runs inside.
KERNELS ?= 7.2 7.3
ROOT_RUN := test/inroot.sh
MODULES := module driver-shims/sim

all: root
	$(ROOT_RUN) make -C /src in-root-build KERNELS="$(KERNELS)"

root:
	bash test/mkroot.sh

test: all
	bash test/run.sh -k "$(KERNELS)"

demo: all
	bash test/demo.sh

ab: all
	bash test/ab.sh

check: all
	$(ROOT_RUN) make -C /src in-root-check KERNELS="$(KERNELS)"

generate: root
	$(ROOT_RUN) make -C /src in-root-generate

clean:
	rm -rf build

# ---- inside the build root --------------------------------------------------
kver = $(shell awk '$$1 == "$(1)" { print $$2 }' /etc/devmemx-kernels)

in-root-build: build/tools/ncdevmem
	set -e; for s in $(KERNELS); do \
		k=$$(awk -v s=$$s '$$1 == s { print $$2 }' /etc/devmemx-kernels); \
		for m in $(MODULES); do \
			mkdir -p build/$$k/$$m; \
			$(MAKE) -C /lib/modules/$$k/build M=/src/$$m MO=/src/build/$$k/$$m modules; \
		done; \
	done
	mkdir -p build/tools
	$(MAKE) -C tools O=/src/build/tools
	$(CC) -O2 -Wall -Wextra -Werror -o build/tools/dx-xdp-pass test/helpers/xdp-pass.c

# The kernel's devmem reference client, ncdevmem, built from the kernel
# source test/mkroot.sh put at /opt/linux (nothing of it lives here): its YNL
# library is made in a scratch tree under build/ncdevmem (YNL builds in
# place), then ncdevmem is linked statically so the VM needs no libraries.
NCDEVMEM_C := /opt/linux/tools/testing/selftests/drivers/net/hw/ncdevmem.c
NCDEVMEM_TREE := build/ncdevmem/linux
NCDEVMEM_YNL := $(NCDEVMEM_TREE)/tools/net/ynl

build/tools/ncdevmem: $(NCDEVMEM_C) /etc/devmemx-recipe
	@echo "  NCDEVMEM $@ (from linux-source-7.2; log: build/ncdevmem/build.log)"
	@rm -rf build/ncdevmem && mkdir -p $(NCDEVMEM_TREE)/tools/net build/tools
	@ln -s /opt/linux/MAINTAINERS /opt/linux/Documentation /opt/linux/include \
		$(NCDEVMEM_TREE)/
	@ln -s /opt/linux/tools/scripts $(NCDEVMEM_TREE)/tools/
	@cp -a /opt/linux/tools/net/ynl $(NCDEVMEM_TREE)/tools/net/
	@{ $(MAKE) -C $(NCDEVMEM_YNL) SHELL=/bin/bash GENS="ethtool netdev" RSTS="" libynl.a && \
	   $(CC) -O2 -Wall -static -I$(NCDEVMEM_YNL)/lib -I$(NCDEVMEM_YNL)/generated \
		-o $@ $(NCDEVMEM_C) $(NCDEVMEM_YNL)/libynl.a; \
	 } >build/ncdevmem/build.log 2>&1 || { tail -n 20 build/ncdevmem/build.log; \
		echo "ncdevmem: build failed; whole log in build/ncdevmem/build.log"; \
		exit 1; }

# Kernel code: checkpatch (from the 7.2 source) and sparse, zero warnings.
# Tools: -Wall -Wextra -Werror is their normal build. Generated code: no drift.
KSRC := $(wildcard module/*.c module/*.h module/generated/*.[ch] \
	driver-shims/*/*.c driver-shims/*/*.h)

in-root-check: in-root-check-generated
	/opt/linux/scripts/checkpatch.pl --no-tree --quiet --strict \
		--ignore FILE_PATH_CHANGES -f $(KSRC)
	set -e; for s in $(KERNELS); do \
		k=$$(awk -v s=$$s '$$1 == s { print $$2 }' /etc/devmemx-kernels); \
		for m in $(MODULES); do \
			$(MAKE) -s -C /lib/modules/$$k/build M=/src/$$m \
				MO=/src/build/$$k/$$m KBUILD_CHECKSRC=2 \
				CHECK=/opt/sparse/sparse modules; \
		done 2>&1 | tee build/sparse-$$k.log; \
		if grep -E ": (warning|error):" build/sparse-$$k.log; then \
			echo "sparse is not clean on $$k"; exit 1; fi; \
	done
	$(MAKE) -s -C tools O=/src/build/tools clean all
	@echo "check: clean"

in-root-generate:
	uapi/regen.sh

in-root-check-generated:
	uapi/regen.sh --check

.PHONY: all root test demo ab check generate clean in-root-build in-root-generate
