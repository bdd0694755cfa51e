# SPDX-License-Identifier: GPL-2.0
#
# Host targets run on a Debian host as root; they make the build root
# (test/mkroot.sh) and do the work inside it. The in-root-* targets are what
# runs inside.
# sid and cloud (test/mkroot.sh: unstable's newest 7.x, the 7.3 cloud
# flavour) run only the matrix lane of make test (test/run.sh).
KERNELS ?= 7.2 7.3 sid cloud
# make check's sparse and W=1 builds: the two series devmemx targets, on the
# compiler their kernels were built with (sid's gcc moves with the archive:
# a new warning there is news for a person, not a reason for CI to fail).
CHECK_KERNELS ?= 7.2 7.3
ROOT_RUN := test/inroot.sh
MODULES := module driver-shims/sim driver-shims/vram

all: root
	$(ROOT_RUN) make -C /src in-root-build KERNELS="$(KERNELS)"

root:
	bash test/mkroot.sh

test: all
	bash test/run.sh -k "$(KERNELS)"

# The big lane (run.sh -B): an 8G VM with a 256G BAR, run only when asked.
test-big: all
	bash test/run.sh -B -k "$(KERNELS)"

# The debug lane: the suite on a 7.2 kernel with KASAN, lockdep, kmemleak,
# UBSAN and fault injection, built from Debian's source (test/debug/).
debug-kernel: root
	mkdir -p $(or $(DX_CACHE),.cache)/debug/7.2
	$(ROOT_RUN) bash /src/test/debug/build.sh

test-debug: debug-kernel
	$(ROOT_RUN) make -C /src in-root-build KERNELS=7.2-debug
	bash test/run.sh -V -k 7.2-debug

demo: all
	bash test/demo.sh

# make ab SETS=scale (or make ab-scale): those sets only; make's own
# options leave no room for ab.sh's -S.
ab: all
	bash test/ab.sh $(if $(SETS),-S $(SETS))

ab-scale: all
	bash test/ab.sh -S scale

# Where the receiving host's CPU goes: a flame graph per configuration.
ab-profile: all
	bash test/ab.sh -S profile

# The review (doc/review.md) of every 7.x kernel of the build root, as
# make all runs it: devmemx-review on each, entries in build/review/.
review: root
	$(ROOT_RUN) test/review.sh

# A kernel whose source review failed: its new texts into
# tools/review/reviewed/, to read (git diff) and commit as reviewed.
review-accept: root
	@[ -n "$(RELEASE)" ] || { echo "make review-accept RELEASE=KVER (with DEBIAN=DEBVER for a kernel the root has not installed)"; exit 2; }
	$(ROOT_RUN) python3 /src/tools/review/devmemx-review $(RELEASE) $(if $(DEBIAN),--debian $(DEBIAN)) \
		--cache /src/.cache/review --source-only --accept /src/tools/review/reviewed

check: all
	$(ROOT_RUN) make -C /src in-root-check KERNELS="$(CHECK_KERNELS)"

generate: root
	$(ROOT_RUN) make -C /src in-root-generate

deb: root
	$(ROOT_RUN) make -C /src in-root-deb

clean:
	rm -rf build

# ---- on a host, as root: install, uninstall ----------------------------------
# The tools are built with the host's compiler (libnl-3-dev, libnl-genl-3-dev
# and pkgconf needed); the modules by dkms, for KVER (default: the running
# kernel) now and for every kernel installed later. DESTDIR stages the files
# only (packaging does that), without dkms.
VERSION := $(shell cat VERSION)
PREFIX ?= /usr/local
KVER ?= $(shell uname -r)
DKMS_SRC := /usr/src/devmemx-$(VERSION)
# What dkms builds from: the module sources, the uapi header they include,
# the version, dkms.conf.
DKMS_FILES := dkms.conf VERSION uapi/linux/devmemx.h module/Kbuild \
	$(wildcard module/*.c module/*.h module/generated/*.c module/generated/*.h \
	driver-shims/sim/Kbuild driver-shims/sim/*.c driver-shims/sim/*.h)
MAN_PAGES := $(wildcard man/*.8)
# devmemx-review (tools/review): where it lives once installed.
REVIEW_DIR := $(PREFIX)/lib/devmemx/review
REVIEW_FILES := devmemx-review $(patsubst tools/review/%,%,$(wildcard tools/review/dxreview/*.py \
	tools/review/reviewed/*/*.txt tools/review/reviewed/README))
# $(call DKMS_REMOVE[,OPTIONS]): this version out of dkms, for every
# kernel, if dkms has it.
DKMS_REMOVE = if dkms status -m devmemx -v $(VERSION) | grep -q .; then \
	dkms remove $(1) devmemx/$(VERSION) --all; fi

install-tools:
	mkdir -p build/host
	$(MAKE) -C tools O=$(CURDIR)/build/host
	install -D -m 755 build/host/devmemx $(DESTDIR)$(PREFIX)/sbin/devmemx
	install -D -m 755 build/host/devmemx-rx $(DESTDIR)$(PREFIX)/sbin/devmemx-rx
	for m in $(MAN_PAGES); do \
		install -D -m 644 $$m $(DESTDIR)$(PREFIX)/share/man/man8/$$(basename $$m) || exit 1; \
	done
	for t in devmemx devmemx-rx; do \
		install -D -m 644 tools/bash-completion/devmemx \
			$(DESTDIR)$(PREFIX)/share/bash-completion/completions/$$t || exit 1; \
	done
	@# The family for other clients: the YNL spec where the kernel's YNL
	@# CLI looks (--family devmemx) and the uapi header.
	install -D -m 644 uapi/devmemx.yaml $(DESTDIR)$(PREFIX)/share/ynl/specs/devmemx.yaml
	install -D -m 644 uapi/linux/devmemx.h $(DESTDIR)$(PREFIX)/include/linux/devmemx.h
	@# devmemx-review: the command, its library and the texts reviewed,
	@# in one directory (it finds them beside itself), linked into sbin.
	for f in $(REVIEW_FILES); do \
		install -D -m 644 tools/review/$$f $(DESTDIR)$(REVIEW_DIR)/$$f || exit 1; \
	done
	chmod 755 $(DESTDIR)$(REVIEW_DIR)/devmemx-review
	install -d $(DESTDIR)$(PREFIX)/sbin
	ln -sf $(REVIEW_DIR)/devmemx-review $(DESTDIR)$(PREFIX)/sbin/devmemx-review
	install -D -m 644 VERSION $(DESTDIR)$(REVIEW_DIR)/VERSION

install-dkms-src:
	for f in $(DKMS_FILES); do \
		install -D -m 644 $$f $(DESTDIR)$(DKMS_SRC)/$$f || exit 1; \
	done
	install -D -m 755 module/probe.sh $(DESTDIR)$(DKMS_SRC)/module/probe.sh
	install -D -m 644 module/modprobe.conf $(DESTDIR)/etc/modprobe.d/devmemx.conf
	install -D -m 755 module/modprobe-devmemx $(DESTDIR)/usr/lib/devmemx/modprobe-devmemx

install: install-tools install-dkms-src
ifeq ($(DESTDIR),)
	@$(call DKMS_REMOVE,-q)
	dkms add -q devmemx/$(VERSION)
	@dkms install devmemx/$(VERSION) -k $(KVER); rc=$$?; \
	if [ $$rc = 77 ]; then \
		echo "devmemx: not built for $(KVER): devmemx needs Linux 7.2 or later on x86_64 with$$(sed -n 's/^BUILD_EXCLUSIVE_CONFIG="\(.*\)"/ \1/p' dkms.conf) (dkms.conf); dkms builds it for each such kernel installed from now on"; \
	elif [ $$rc != 0 ]; then exit $$rc; fi
	@echo "devmemx $(VERSION) installed: modprobe devmemx (devmemx_sim: the simulated NIC)"
endif

uninstall:
	@for m in devmemx_sim devmemx; do \
		if grep -q "^$$m " /proc/modules; then \
			modprobe -r $$m || { echo "devmemx: $$m is in use: unbind (devmemx unbind) and stop its receivers first"; exit 1; }; \
		fi; \
	done
	@$(call DKMS_REMOVE)
	rm -rf $(DESTDIR)$(DKMS_SRC) $(DESTDIR)/usr/lib/devmemx $(DESTDIR)$(REVIEW_DIR)
	rm -f $(DESTDIR)/etc/modprobe.d/devmemx.conf \
		$(DESTDIR)$(PREFIX)/sbin/devmemx $(DESTDIR)$(PREFIX)/sbin/devmemx-rx \
		$(DESTDIR)$(PREFIX)/sbin/devmemx-review \
		$(addprefix $(DESTDIR)$(PREFIX)/share/man/man8/,$(notdir $(MAN_PAGES)))
	rm -f $(DESTDIR)$(PREFIX)/share/bash-completion/completions/devmemx \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/devmemx-rx \
		$(DESTDIR)$(PREFIX)/share/ynl/specs/devmemx.yaml \
		$(DESTDIR)$(PREFIX)/include/linux/devmemx.h
	@for d in share/man/man8 share/bash-completion/completions share/bash-completion \
		  share/ynl/specs share/ynl include/linux lib/devmemx; do \
		d=$(DESTDIR)$(PREFIX)/$$d; \
		[ ! -d $$d ] || rmdir --ignore-fail-on-non-empty $$d; \
	done

# ---- inside the build root --------------------------------------------------
in-root-build: build/tools/ncdevmem build/tools/ynl-bind build/tools/iou-zcrx
	test/review.sh
	set -e; for s in $(KERNELS); do test/kbuild.sh $$s /src/build; done
	mkdir -p build/tools build/tools-asan
	$(MAKE) -C tools O=/src/build/tools
	@# The same tools with ASan and UBSan, for the VM test tools-asan.
	$(MAKE) -s -C tools O=/src/build/tools-asan CFLAGS="-O1 -g" \
		SANITIZE="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
	@# The test helpers (dx-*), for the VM tests.
	$(MAKE) -C test/helpers O=$(CURDIR)/build/tools

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

# The kernel's io_uring zcrx client, iou-zcrx (the selftest iou-zcrx.py
# drives), from the same source, linked statically with sid's liburing
# (test/mkroot.sh: trixie's has no zcrx); the VM test sim-zcrx runs it.
IOU_ZCRX_C := /opt/linux/tools/testing/selftests/drivers/net/hw/iou-zcrx.c
LIBURING := /opt/liburing/usr
build/tools/iou-zcrx: $(IOU_ZCRX_C) /etc/devmemx-recipe
	@echo "  IOU-ZCRX $@ (from linux-source-7.2, sid's liburing; log: build/iou-zcrx.log)"
	@mkdir -p build/tools
	@$(CC) -O2 -Wall -static -I$(LIBURING)/include -o $@ $(IOU_ZCRX_C) \
		$(LIBURING)/lib/x86_64-linux-gnu/liburing.a >build/iou-zcrx.log 2>&1 || \
		{ tail -n 20 build/iou-zcrx.log; echo "iou-zcrx: build failed; log: build/iou-zcrx.log"; exit 1; }

# doc/examples/ynl-bind.c, a client of devmemx's family in the C that the
# kernel's YNL generator makes from uapi/devmemx.yaml (generated here, not
# kept), linked with ncdevmem's libynl; the VM test ynl-bind runs it.
YNL_STAGE := build/ynl
build/tools/ynl-bind: doc/examples/ynl-bind.c uapi/devmemx.yaml build/tools/ncdevmem
	@echo "  YNL-BIND $@ (devmemx-user.[ch] from YNL; log: $(YNL_STAGE)/build.log)"
	@rm -rf $(YNL_STAGE) && mkdir -p $(YNL_STAGE)/uapi && touch $(YNL_STAGE)/MAINTAINERS
	@cp /opt/linux/Documentation/netlink/genetlink.yaml $(YNL_STAGE)/
	@cp uapi/devmemx.yaml $(YNL_STAGE)/uapi/
	@{ for m in header source; do \
		python3 /opt/linux/tools/net/ynl/pyynl/ynl_gen_c.py --mode user --$$m \
			--spec $(CURDIR)/$(YNL_STAGE)/uapi/devmemx.yaml \
			-o $(YNL_STAGE)/devmemx-user.$$(echo $$m | cut -c1 | tr s c) || exit 1; \
	   done && \
	   $(CC) -O2 -Wall -Iuapi -I$(NCDEVMEM_YNL)/lib -c -o $(YNL_STAGE)/devmemx-user.o \
		$(YNL_STAGE)/devmemx-user.c && \
	   $(CC) -O2 -Wall -Wextra -Werror -Iuapi -I$(NCDEVMEM_YNL)/lib -I$(YNL_STAGE) \
		-c -o $(YNL_STAGE)/ynl-bind.o doc/examples/ynl-bind.c && \
	   $(CC) -static -o $@ $(YNL_STAGE)/ynl-bind.o $(YNL_STAGE)/devmemx-user.o \
		$(NCDEVMEM_YNL)/libynl.a; \
	 } >$(YNL_STAGE)/build.log 2>&1 || { tail -n 20 $(YNL_STAGE)/build.log; \
		echo "ynl-bind: build failed; whole log in $(YNL_STAGE)/build.log"; exit 1; }

# Kernel code: checkpatch (from the 7.2 source) and sparse, zero warnings.
# Tools: -Wall -Wextra -Werror is their normal build. Generated code: no drift.
KSRC := $(wildcard module/*.c module/*.h module/generated/*.[ch] \
	driver-shims/*/*.c driver-shims/*/*.h)

in-root-check: in-root-check-generated in-root-check-version
	/opt/linux/scripts/checkpatch.pl --no-tree --quiet --strict \
		--ignore FILE_PATH_CHANGES -f $(KSRC)
	@# Sparse over every C file of both modules, on each kernel: it must have
	@# checked them all (Kbuild skips it silently when it thinks the checker
	@# does not work) and said nothing. Then a W=1 build, warning-free.
	set -e; for s in $(KERNELS); do \
		test/kbuild.sh $$s /src/build build/sparse-$$s.log \
			-- KBUILD_CHECKSRC=2 CHECK=/opt/sparse/sparse; \
		want=$$(ls $(addsuffix /*.c,$(MODULES)) module/generated/*.c | wc -l); \
		got=$$(grep -c '^  CHECK ' build/sparse-$$s.log || true); \
		if [ "$$got" != "$$want" ]; then \
			grep -i "sparse\|checker" build/sparse-$$s.log || true; \
			echo "sparse checked $$got of $$want C files on $$s (log: build/sparse-$$s.log)"; \
			exit 1; fi; \
		if grep -E ": (warning|error):|^make.*Error" build/sparse-$$s.log; then \
			echo "sparse is not clean on $$s"; exit 1; fi; \
		echo "  SPARSE $$s: $$got C files, clean"; \
		test/kbuild.sh $$s /src/build/w1 build/w1-$$s.log -- W=1; \
		if grep -E "warning:" build/w1-$$s.log; then \
			echo "W=1 is not clean on $$s"; exit 1; fi; \
		echo "  W=1 $$s: clean"; \
	done
	test/coccicheck.sh
	$(MAKE) -s -C tools O=/src/build/tools clean all
	@echo "check: clean"

in-root-generate:
	uapi/regen.sh

# Debian packages devmemx-dkms and devmemx-tools, built from a copy of the
# tree (dpkg-buildpackage writes beside it) into build/deb/.
in-root-deb:
	rm -rf build/deb && mkdir -p build/deb/devmemx-$(VERSION)
	rsync -a --exclude=/build --exclude=/.cache --exclude=/.git ./ \
		build/deb/devmemx-$(VERSION)/
	@echo "  DEB build/deb (log: build/deb/build.log)"
	@cd build/deb/devmemx-$(VERSION) && dpkg-buildpackage -b -us -uc \
		>../build.log 2>&1 || { tail -n 30 ../build.log; \
		echo "deb: dpkg-buildpackage failed; whole log in build/deb/build.log"; exit 1; }
	@ls build/deb/*.deb

in-root-check-generated:
	uapi/regen.sh --check

# VERSION is the one version: the module and tools are built with it;
# dkms.conf and debian/changelog must say the same.
in-root-check-version:
	@v=$$(cat VERSION); \
	d=$$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' dkms.conf); \
	c=$$(sed -n '1s/^devmemx (\([^)]*\)).*/\1/p' debian/changelog); \
	[ "$$d" = "$$v" ] || { echo "dkms.conf: PACKAGE_VERSION \"$$d\", VERSION $$v"; exit 1; }; \
	[ "$$c" = "$$v" ] || { echo "debian/changelog: version \"$$c\", VERSION $$v"; exit 1; }; \
	echo "  VERSION $$v (dkms.conf, debian/changelog)"

.PHONY: all root test test-big test-debug debug-kernel demo ab ab-scale ab-profile review review-accept check generate clean deb \
	install install-tools \
	install-dkms-src uninstall in-root-build in-root-generate in-root-deb \
	in-root-check-version
