// SPDX-License-Identifier: GPL-2.0
/*
 * devmemx-rx ab's policy configurations and --app. A policy configuration
 * sets a devmemx policy on the device's queues at its size before the bind
 * and takes it off after, so that netdev's bind-rx (ab's own, or the
 * application's) is served by devmemx. With --app, an application that
 * binds through netdev itself (the kernel's ncdevmem) receives each run in
 * place of ab: ab starts it, waits until it listens, starts the sender and
 * measures until the application exits; its cmsgs are the lines of its
 * standard error that --app-frags names (its standard output is discarded:
 * ncdevmem writes every byte it receives there unless it validates).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "family.h"
#include "rx-ab-run.h"

/* POLICY-SET at @size on --dev's --queues (@set), or POLICY-DEL. */
static int ab_policy_call(struct ab *a, bool set, uint32_t size)
{
	struct nl_msg *msg;
	struct dx_nl nl;
	char what[96];
	int ret;

	ret = dx_nl_open(&nl, DEVMEMX_FAMILY_NAME);
	if (ret)
		return ret;
	msg = set ? dx_policy_set_msg(&nl, a->ro.ifindex, size, a->ro.queues,
				      a->ro.nqueues) :
		    dx_policy_del_msg(&nl, a->ro.ifindex);
	snprintf(what, sizeof(what), "%s on %s", set ? "policy" : "policy off",
		 a->o->dev);
	ret = msg ? dx_nl_call(&nl, msg, DEVMEMX_A_POLICY_MAX, NULL, NULL, what) :
		    -ENOMEM;
	dx_nl_close(&nl);
	return ret;
}

int ab_policy_set(struct ab *a, uint32_t size)
{
	return ab_policy_call(a, true, size);
}

int ab_policy_del(struct ab *a)
{
	return ab_policy_call(a, false, 0);
}

/* Whether a TCP socket listens on @port (any address, this namespace). */
static bool ab_listening(uint16_t port)
{
	static const char * const files[] = { "/proc/net/tcp", "/proc/net/tcp6" };
	char line[512], want[8];
	unsigned int i;
	bool found = false;
	FILE *f;

	snprintf(want, sizeof(want), ":%04X", port);
	for (i = 0; i < 2 && !found; i++) {
		f = fopen(files[i], "r");
		if (!f)
			continue;
		while (!found && fgets(line, sizeof(line), f)) {
			char local[128], st[8];

			/* sl local_address rem_address st ... */
			if (sscanf(line, "%*s %127s %*s %7s", local, st) == 2 &&
			    !strcmp(st, "0A") && strlen(local) > 5 &&
			    !strcmp(local + strlen(local) - 5, want))
				found = true;
		}
		fclose(f);
	}
	return found;
}

/* CMD with %p replaced by @port, and @verify's ARGS added at the end. */
static int ab_app_cmd(const struct ab_opts *o, uint16_t port, bool verify,
		      char *out, size_t len)
{
	const char *s;
	size_t n = 0;
	int w;

	w = snprintf(out, len, "exec ");
	n = w;
	for (s = o->app; *s && n < len; s++) {
		if (s[0] == '%' && s[1] == 'p') {
			w = snprintf(out + n, len - n, "%u", port);
			n += w;
			s++;
		} else {
			out[n++] = *s;
		}
	}
	if (n < len && verify && o->app_verify)
		n += snprintf(out + n, len - n, " %s", o->app_verify);
	if (n >= len) {
		fprintf(stderr, "devmemx-rx: --app too long\n");
		return -E2BIG;
	}
	out[n] = '\0';
	return 0;
}

/*
 * Start the application, its standard error into @log, its standard output
 * to /dev/null: its pid, or -errno.
 */
static pid_t ab_app_start(const char *cmd, int log)
{
	pid_t pid = fork();
	int null;

	if (pid == 0) {
		null = open("/dev/null", O_WRONLY);
		if (null < 0 || dup2(null, STDOUT_FILENO) < 0 ||
		    dup2(log, STDERR_FILENO) < 0)
			_exit(127);
		ab_exec_sh(cmd);
	}
	if (pid < 0) {
		fprintf(stderr, "devmemx-rx: fork for --app: %s\n", strerror(errno));
		return -errno;
	}
	return pid;
}

/*
 * Wait up to @timeout s (0: for ever) for the application to exit; its CPU
 * is the receiver's in @r. 0 if it exited 0, else -EIO (said) or -ETIMEDOUT
 * (killed).
 */
static int ab_app_wait(pid_t pid, int timeout, struct ab_result *r)
{
	double end = ab_now() + timeout;
	struct rusage ru;
	pid_t got;
	int st;

	for (;;) {
		got = wait4(pid, &st, WNOHANG, &ru);
		if (got == pid)
			break;
		if (got < 0 && errno != EINTR)
			return -errno;
		if (timeout && ab_now() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			fprintf(stderr, "devmemx-rx: --app did not exit %d s after the sender finished\n",
				timeout);
			return -ETIMEDOUT;
		}
		usleep(2000);
	}
	r->rx_user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	r->rx_sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "devmemx-rx: --app exited %s %d\n",
			WIFEXITED(st) ? "with" : "on signal",
			WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		return -EIO;
	}
	return 0;
}

/*
 * The application's standard error: its cmsgs (lines starting with
 * --app-frags), none starting with --app-bad, and with --app-bytes the
 * bytes it received (the number after the prefix on the last such line),
 * which must be the @sent. 0 or -EIO (said, with the line).
 */
static int ab_app_output(const struct ab_opts *o, int log, uint64_t sent,
			 struct ab_result *r)
{
	size_t nf = strlen(o->app_frags), nb = o->app_bad ? strlen(o->app_bad) : 0;
	size_t nby = o->app_bytes ? strlen(o->app_bytes) : 0;
	unsigned long long got = 0;
	char line[512];
	int ret = 0;
	FILE *f;

	f = fdopen(dup(log), "r");
	if (!f || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "devmemx-rx: reading --app's output: %s\n", strerror(errno));
		if (f)
			fclose(f);
		return -EIO;
	}
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, o->app_frags, nf))
			r->st.cmsgs_dmabuf++;
		else if (nby && !strncmp(line, o->app_bytes, nby))
			got = strtoull(line + nby, NULL, 10);
		else if (nb && !ret && !strncmp(line, o->app_bad, nb)) {
			fprintf(stderr, "devmemx-rx: --app said: %s", line);
			ret = -EIO;
		}
	}
	fclose(f);
	r->st.bytes = nby ? got : sent;
	if (!ret && nby && got != sent) {
		fprintf(stderr, "devmemx-rx: --app received %llu bytes (its last %s line), of %llu sent\n",
			got, o->app_bytes, (unsigned long long)sent);
		ret = -EIO;
	}
	return ret;
}

/* Print the last lines of the application's output after a failure. */
static void ab_app_tail(int log)
{
	char buf[2048];
	off_t end = lseek(log, 0, SEEK_END);
	ssize_t n;

	n = pread(log, buf, sizeof(buf) - 1, end > (off_t)sizeof(buf) - 1 ?
		  end - (off_t)sizeof(buf) + 1 : 0);
	if (n > 0) {
		buf[n] = '\0';
		fprintf(stderr, "devmemx-rx: the end of --app's output:\n%s%s", buf,
			buf[n - 1] == '\n' ? "" : "\n");
	}
}

int ab_app_run(struct ab *a, struct ab_result *r, bool verify)
{
	struct ab_flow f = { .lfd = -1, .fd = -1 };
	char cmd[4096], path[] = "/tmp/devmemx-rx-app.XXXXXX";
	double end;
	struct ab_snap s0, s1;
	bool exited = false;
	pid_t app = -1;
	int log, ret, err;

	f.o = a->ro;
	f.o.port = a->o->port;
	f.o.expect = verify && a->o->bytes > AB_VERIFY_BYTES ? AB_VERIFY_BYTES :
		     a->o->bytes;
	f.o.no_verify = !verify;
	r->verified = verify && a->o->app_verify;
	r->unbind_sec = NAN;
	r->avail_kb[0] = r->avail_kb[1] = r->avail_kb[2] = -1;
	log = mkstemp(path);
	if (log < 0) {
		fprintf(stderr, "devmemx-rx: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	unlink(path);
	ret = ab_app_cmd(a->o, f.o.port, verify, cmd, sizeof(cmd));
	if (!ret && r->cfg->prov == AB_POLICY)
		ret = ab_policy_set(a, r->cfg->size);
	if (ret)
		goto out;
	app = ab_app_start(cmd, log);
	ret = app < 0 ? app : 0;
	/* It has bound once it listens (the kernel's ncdevmem does both). */
	end = ab_now() + (a->o->timeout ? a->o->timeout : 120);
	while (!ret && !ab_listening(f.o.port)) {
		if (waitpid(app, NULL, WNOHANG) == app) {
			app = -1;
			fprintf(stderr, "devmemx-rx: --app exited before it listened on port %u\n",
				f.o.port);
			ret = -EIO;
		} else if (ab_now() > end) {
			fprintf(stderr, "devmemx-rx: --app did not listen on port %u\n",
				f.o.port);
			ret = -ETIMEDOUT;
		} else {
			usleep(10000);
		}
	}
	if (!ret)
		ret = ab_napi_queues(a, !a->nres);
	if (!ret)
		ret = ab_snap(a, &s0);
	if (!ret) {
		f.sender = ab_sender_start(a, &f);
		ret = f.sender < 0 ? -EIO : 0;
	}
	if (!ret) {
		ret = ab_sender_wait(&f, r);
		err = ab_app_wait(app, a->o->timeout, r);
		exited = err != -ETIMEDOUT;
		app = -1;
		ret = ret ?: err;
	}
	if (!ret)
		ret = ab_snap(a, &s1);
	if (!ret) {
		double rx_user = r->rx_user, rx_sys = r->rx_sys;

		ab_delta(a, r, &s0, &s1);
		r->have_device = s1.have_device;
		/* ab's own CPU is nothing here: the application's is. */
		r->rx_user = rx_user;
		r->rx_sys = rx_sys;
	}
	/* What it said, also when it failed: an --app-bad line says why. */
	if (exited) {
		err = ab_app_output(a->o, log, f.o.expect, r);
		r->bytes = r->st.bytes;
		ret = ret ?: err;
	}
out:
	if (app > 0) {
		kill(app, SIGKILL);
		waitpid(app, NULL, 0);
	}
	if (f.sender > 0) {
		kill(f.sender, SIGKILL);
		ab_sender_wait(&f, r);
	}
	if (ret)
		ab_app_tail(log);
	close(log);
	if (r->cfg->prov == AB_POLICY) {
		err = ab_policy_del(a);
		ret = ret ?: err;
	}
	return ret;
}
