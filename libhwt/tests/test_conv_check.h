/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Validators written from the specs, shared by the format and cross-format
 * tests.  Each parses a converter's output on its own terms (not through
 * the converter's code) and fails the test on the first violation; each
 * returns event counts for the cross-format comparison.
 */
#ifndef TEST_CONV_CHECK_H
#define TEST_CONV_CHECK_H

#include <ctype.h>
#include <regex.h>
#include <stdbool.h>

#include "test_conv_util.h"

#include <setjmp.h>

/*
 * Validator assertions: ck_assert normally; under tc_expect_fail() a
 * violation jumps back instead, so a test can show that a validator does
 * reject broken output.  Allocations are parked in tc_mem[] to be freed on
 * either path.
 */
static int tc_soft;
static jmp_buf tc_jmp;
static void *tc_mem[4];

#define TCM(cond, ...)							\
	do {								\
		if (!(cond)) {						\
			if (tc_soft)					\
				longjmp(tc_jmp, 1);			\
			ck_abort_msg(__VA_ARGS__);			\
		}							\
	} while (0)
#define TCA(cond)	TCM(cond, "%s:%d: %s", __FILE__, __LINE__, #cond)

TU_FN void tc_mem_free(void)
{
	for (size_t i = 0; i < sizeof(tc_mem) / sizeof(tc_mem[0]); i++) {
		free(tc_mem[i]);
		tc_mem[i] = NULL;
	}
}

/* Run a validator call that must reject its input. */
#define tc_expect_fail(call)						\
	do {								\
		tc_soft = 1;						\
		if (!setjmp(tc_jmp)) {					\
			call;						\
			tc_soft = 0;					\
			ck_abort_msg("validator accepted broken output");	\
		}							\
		tc_soft = 0;						\
		tc_mem_free();						\
	} while (0)

#define TCA_eq(a, b)	TCA((a) == (b))
#define TCA_ne(a, b)	TCA((a) != (b))
#define TCA_lt(a, b)	TCA((a) < (b))
#define TCA_le(a, b)	TCA((a) <= (b))
#define TCA_gt(a, b)	TCA((a) > (b))
#define TCA_ge(a, b)	TCA((a) >= (b))
#define TCA_streq(a, b)	TCM(!strcmp((a), (b)), "'%s' != '%s'", (a), (b))
#define TCA_nonnull(p)	TCA((p) != NULL)

/* Counts every format can be compared on. */
struct tc_counts {
	size_t task[8];		/* activate start resume preempt terminate wait release */
	size_t isr[4];		/* start resume preempt terminate */
	size_t runnable[4];	/* start suspend resume terminate */
	size_t lost_marks;
};

enum { TC_ACT, TC_START, TC_RESUME, TC_PREEMPT, TC_TERM, TC_WAIT, TC_REL };
enum { TC_I_START, TC_I_RESUME, TC_I_PREEMPT, TC_I_TERM };

TU_FN bool tc_match(const char *re, const char *s)
{
	regex_t r;
	bool ok;

	TCA_eq(regcomp(&r, re, REG_EXTENDED | REG_NOSUB), 0);
	ok = regexec(&r, s, 0, NULL, 0) == 0;
	regfree(&r);
	return ok;
}

TU_FN bool tc_is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) || islower((unsigned char)s[i]))
			return false;
	return true;
}

/* --- HTF ------------------------------------------------------------------------ */

/* The spec's tables (section 3): event names per type, ids by position. */
static const char *const tc_htf_types[] = {
	"Task", "ISR", "Runnable", "CodeBlock", "Signal", "Semaphore",
};
static const int tc_htf_nevents[] = { 12, 4, 4, 2, 2, 2 };
static const char *const tc_htf_events[6][12] = {
	{ "activate", "start", "resume", "preempt", "terminate", "wait", "release",
	  "poll", "run_polling", "park", "poll_parking", "release_parking" },
	{ "start", "resume", "preempt", "terminate" },
	{ "start", "suspend", "resume", "terminate" },
	{ "start", "stop" },
	{ "read", "write" },
	{ "lock", "unlock" },
};

/*
 * Parse an HTF file: header parameters in order, reference tables (the
 * type table and all six event tables with the spec's ids and names, every
 * entity named and typed once), #TraceData with one section per core,
 * widths, declared ids, time order.
 */
TU_FN void tc_htf(char *buf, size_t len, uint32_t nr_cpus, uint64_t num,
		  uint64_t den, struct tc_counts *cnt)
{
	static const char *const params[] = {
		"Format", "Version", "URL", "Project", "TargetSystem", "Description",
		"NumberOfCores", "CreationDate", "TimeScale", "TimeScaleNumerator",
		"TimeScaleDenominator", "TimestampLength", "EntityLength", "EventLength",
	};
	char **ln;
	size_t n = tu_lines(buf, len, &ln), i = 0;
	unsigned int tsl = 0, entl = 0, evl = 0, tables = 0;
	int *ent_type = calloc(1 << 16, sizeof(int));

	tc_mem[0] = ln;
	tc_mem[1] = ent_type;
	int core = -1, cores_seen = 0;
	uint64_t last = 0;

	TCA_nonnull(ent_type);
	memset(cnt, 0, sizeof(*cnt));
	for (size_t p = 0; p < sizeof(params) / sizeof(params[0]); p++, i++) {
		size_t kl = strlen(params[p]);

		TCM(i < n && ln[i][0] == '#' && !strncmp(ln[i] + 1, params[p], kl) &&
			      ln[i][1 + kl] == ' ', "header %s missing at line %zu", params[p], i + 1);
	}
	TCA_streq(ln[0], "#Format HTF");
	TCA_streq(ln[1], "#Version 1.0");
	TCA_eq(strtoul(ln[6] + 15, NULL, 10), nr_cpus);
	TCA(tc_match("^#CreationDate [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$", ln[7]));
	TCA(tc_match("^#TimeScale (ps|ns|us|ms|s)$", ln[8]));
	TCA_eq(strtoull(ln[9] + 20, NULL, 10), num);
	TCA_eq(strtoull(ln[10] + 22, NULL, 10), den);
	tsl = (unsigned int)strtoul(ln[11] + 17, NULL, 10);
	entl = (unsigned int)strtoul(ln[12] + 14, NULL, 10);
	evl = (unsigned int)strtoul(ln[13] + 13, NULL, 10);
	TCA(tsl == 1 || tsl == 2 || tsl == 4 || tsl == 8);
	TCA(entl == 1 || entl == 2 || entl == 4);
	TCA_eq(evl, 1);
	TCA_le(entl, 2);	/* our entity id table below is 16-bit */
	/* reference tables */
	for (; i < n && strcmp(ln[i], "#TraceData"); i++) {
		if (!strcmp(ln[i], "#TypeTable")) {
			for (int t = 0; t < 6; t++) {
				char want[32];

				snprintf(want, sizeof(want), "#-%02X %s", t, tc_htf_types[t]);
				TCA_streq(ln[++i], want);
			}
		} else if (!strcmp(ln[i], "#EntityTypeTable")) {
			while (i + 1 < n && !strncmp(ln[i + 1], "#-", 2)) {
				char *s = ln[++i] + 2;
				unsigned long id, ty;

				TCA_eq(strlen(s), 2 * entl + 3);
				TCA(tc_is_hex(s, 2 * entl) && s[2 * entl] == ' ');
				id = strtoul(s, NULL, 16);
				ty = strtoul(s + 2 * entl + 1, NULL, 16);
				TCA_eq(ent_type[id], -1);	/* in EntityTable, once */
				TCA_lt(ty, 6);
				ent_type[id] = (int)ty + 1;
			}
		} else if (!strcmp(ln[i], "#EntityTable")) {
			while (i + 1 < n && !strncmp(ln[i + 1], "#-", 2)) {
				char *s = ln[++i] + 2;

				TCA(tc_is_hex(s, 2 * entl) && s[2 * entl] == ' ' &&
					  s[2 * entl + 1]);
				/* a name: printable text, no leading blank */
				TCA(s[2 * entl + 1] != ' ');
				for (const char *c = s + 2 * entl + 1; *c; c++)
					TCM((unsigned char)*c >= 0x20 && *c != 0x7F,
					    "control character in name '%s'", s);
				TCA_eq(ent_type[strtoul(s, NULL, 16)], 0);
				ent_type[strtoul(s, NULL, 16)] = -1;
			}
		} else if (ln[i][0] == '#' && strstr(ln[i], "EventTable")) {
			int t;

			for (t = 0; t < 6; t++) {
				char want[40];

				snprintf(want, sizeof(want), "#%sEventTable", tc_htf_types[t]);
				if (!strcmp(ln[i], want))
					break;
			}
			TCM(t < 6, "unknown table %s", ln[i]);
			TCM(!(tables & 1u << t), "%s twice", ln[i]);
			tables |= 1u << t;
			for (int e = 0; e < tc_htf_nevents[t]; e++) {
				char want[40];

				snprintf(want, sizeof(want), "#-%02X %s", (unsigned int)e,
					 tc_htf_events[t][e]);
				TCA_lt(i + 1, n);
				TCA_streq(ln[++i], want);
			}
			/* the table ends there */
			TCA(i + 1 < n && strncmp(ln[i + 1], "#-", 2));
		}
	}
	TCM(tables == 0x3F, "event tables missing (%#x)", tables);
	TCA_lt(i, n);
	for (i++; i < n; i++) {
		char *s = ln[i], *c;
		size_t w = 2 * (tsl + entl + evl);
		uint64_t ts;
		unsigned long ent, ev;
		int type;

		if (!s[0])
			continue;
		if (!strncmp(s, "#-", 2)) {
			int k = (int)strtol(s + 2, NULL, 16);

			TCA_eq(k, core + 1);	/* one section per core, in order */
			core = k;
			cores_seen++;
			last = 0;
			continue;
		}
		TCA_ge(core, 0);
		c = strstr(s, "//");
		if (c) {
			cnt->lost_marks++;
			TCA(c > s && c[-1] == ' ');
			c[-1] = '\0';
		}
		TCM(strlen(s) == w && tc_is_hex(s, w), "bad dataset '%s'", s);
		{
			char tmp[17] = { 0 };

			memcpy(tmp, s, 2 * tsl);
			ts = strtoull(tmp, NULL, 16);
			memset(tmp, 0, sizeof(tmp));
			memcpy(tmp, s + 2 * tsl, 2 * entl);
			ent = strtoul(tmp, NULL, 16);
			memset(tmp, 0, sizeof(tmp));
			memcpy(tmp, s + 2 * (tsl + entl), 2 * evl);
			ev = strtoul(tmp, NULL, 16);
		}
		TCM(ts >= last, "core %d: time goes back", core);
		last = ts;
		type = ent_type[ent] - 1;
		TCM(type >= 0, "undeclared entity %lx", ent);
		TCA_lt(ev, (unsigned long)tc_htf_nevents[type]);
		if (type == 0)
			cnt->task[ev == 0 ? TC_ACT : ev == 1 ? TC_START : ev == 2 ? TC_RESUME :
				  ev == 3 ? TC_PREEMPT : ev == 4 ? TC_TERM : ev == 5 ? TC_WAIT :
				  TC_REL]++;
		else if (type == 1)
			cnt->isr[ev == 0 ? TC_I_START : ev == 1 ? TC_I_RESUME :
				 ev == 2 ? TC_I_PREEMPT : TC_I_TERM]++;
		else if (type == 2)
			cnt->runnable[ev]++;
	}
	TCA_eq(cores_seen, (int)nr_cpus);
	tc_mem_free();
}

/* --- BTF ------------------------------------------------------------------------ */

/* Split one CSV line (quotes, doubled quotes) into at most 8 fields. */
TU_FN int tc_csv(char *s, char *f[8])
{
	int n = 0;

	while (n < 8) {
		char *o = s;

		f[n++] = s;
		if (*s == '"') {
			char *r = s + 1;

			for (;;) {
				TCM(*r, "unterminated quote");
				if (*r == '"' && r[1] == '"') {
					*o++ = '"';
					r += 2;
				} else if (*r == '"') {
					r++;
					break;
				} else {
					*o++ = *r++;
				}
			}
			TCA(*r == ',' || *r == '\0');
			*o = '\0';
			if (!*r)
				return n;
			s = r + 1;
			continue;
		}
		while (*s && *s != ',') {
			/* the note (8th column) may hold spaces */
			TCM(*s != '"' && (*s != ' ' || n == 8), "unquoted quote or space");
			s++;
		}
		if (!*s)
			return n;
		*s++ = '\0';
	}
	TCM(0, "more than 8 columns");
	return n;
}

/*
 * A BTF line as Trace Compass reads it: split at the first 7 commas, no
 * quote handling; the time a 64-bit integer, the type a known one.  A name
 * with a comma would shift the columns, a quote would stay in the name:
 * every data line must come through whole, with names free of quotes and
 * whitespace.  Returns the number of data lines.
 */
TU_FN size_t tc_btf_tracecompass(const char *buf, size_t len)
{
	static const char *const types[] = {
		"STI", "T", "ISR", "R", "IB", "I", "ECU", "P", "C", "SCHED", "SIG",
		"SEM", "SIM", "SYS",
	};
	size_t lines = 0;

	for (size_t i = 0; i < len;) {
		const char *nl = memchr(buf + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - buf) : len;
		const char *f[8], *p = buf + i;
		size_t fl[8], nf = 0;
		bool known = false;

		if (end == i || buf[i] == '#') {
			i = end + 1;
			continue;
		}
		while (nf < 7) {
			const char *c = memchr(p, ',', (size_t)(buf + end - p));

			if (!c)
				break;
			f[nf] = p;
			fl[nf++] = (size_t)(c - p);
			p = c + 1;
		}
		f[nf] = p;
		fl[nf++] = (size_t)(buf + end - p);
		TCM(nf >= 7, "line '%.*s': %zu columns", (int)(end - i), buf + i, nf);
		TCM(fl[0] > 0 && fl[0] <= 19, "line '%.*s': time", (int)(end - i), buf + i);
		for (size_t k = 0; k < fl[0]; k++)
			TCM(isdigit((unsigned char)f[0][k]), "line '%.*s': time",
			    (int)(end - i), buf + i);
		for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++)
			known |= fl[3] == strlen(types[k]) && !memcmp(f[3], types[k], fl[3]);
		TCM(known, "line '%.*s': type", (int)(end - i), buf + i);
		/* names and the event: no quote, no whitespace */
		for (size_t c = 1; c < 7; c++)
			for (size_t k = 0; k < fl[c]; k++)
				TCM(f[c][k] != '"' && !isspace((unsigned char)f[c][k]),
				    "line '%.*s': column %zu", (int)(end - i), buf + i, c);
		lines++;
		i = end + 1;
	}
	return lines;
}

struct tc_inst {
	char name[160];
	char type[8];
	long inst;
	int state;		/* 0 none, 1 active, 2 running, 3 ready, 4 waiting,
				 * 5 terminated; runnables: 2 running, 3 suspended */
	char parent[160];	/* runnables: their process */
	long parent_inst;
};

TU_FN struct tc_inst *tc_inst(struct tc_inst **v, size_t *n, const char *type,
			      const char *name, long inst)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i].name, name) && (*v)[i].inst == inst &&
		    !strcmp((*v)[i].type, type))
			return &(*v)[i];
	*v = realloc(*v, (*n + 1) * sizeof(**v));
	TCA_nonnull(*v);
	memset(&(*v)[*n], 0, sizeof(**v));
	snprintf((*v)[*n].name, sizeof((*v)[*n].name), "%s", name);
	snprintf((*v)[*n].type, sizeof((*v)[*n].type), "%s", type);
	(*v)[*n].inst = inst;
	return &(*v)[(*n)++];
}

/*
 * Instance counters (section 2.3, SourceInstance): an instanceable entity's
 * instances count from 0, each new one the next number.  A new instance of
 * type/name must be number *next; returns whether inst is new.
 */
struct tc_counter {
	char key[170];
	long next;
};

TU_FN bool tc_count_inst(struct tc_counter **v, size_t *n, const char *type,
			 const char *name, long inst, size_t line)
{
	char key[170];
	struct tc_counter *c = NULL;

	snprintf(key, sizeof(key), "%s/%s", type, name);
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i].key, key))
			c = &(*v)[i];
	if (!c) {
		/* checked before the array moves: tc_mem[] holds it */
		TCM(inst == 0, "line %zu: %s starts at instance %ld", line, key, inst);
		*v = realloc(*v, (*n + 1) * sizeof(**v));
		TCA_nonnull(*v);
		c = &(*v)[(*n)++];
		snprintf(c->key, sizeof(c->key), "%s", key);
		c->next = 0;
	}
	TCM(inst >= 0 && inst <= c->next, "line %zu: %s instance %ld, next is %ld",
	    line, key, inst, c->next);
	if (inst < c->next)
		return false;
	c->next++;
	return true;
}

/*
 * The process state chart (figure 3 / table 7) and the runnable chart
 * (figure 5 / table 11) on every line; sources as tables 5, 7, 9; instance
 * counters of processes, runnables and stimuli run 0, 1, 2, ... (a
 * stimulus's every use is its next instance), cores are -1.
 */
TU_FN void tc_btf(char *buf, size_t len, const char *isr_type, struct tc_counts *cnt)
{
	char **ln;
	size_t n = tu_lines(buf, len, &ln), ninst = 0, ncnt = 0, i;
	struct tc_inst *v = NULL;
	struct tc_counter *ic = NULL;
	uint64_t last = 0;

	tc_mem[0] = ln;
	memset(cnt, 0, sizeof(*cnt));
	TCA_streq(ln[0], "#version 2.1.3");
	TCA(!strncmp(ln[1], "#creator ", 9));
	TCA(tc_match("^#creationDate [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$",
			   ln[2]));
	TCA_streq(ln[3], "#timeScale ns");
	for (i = 4; i < n; i++) {
		char *f[8], *end;
		int nf;
		uint64_t t;
		long si, ti;
		const char *ev;
		struct tc_inst *x;

		if (!ln[i][0])
			continue;
		if (ln[i][0] == '#') {
			TCM(ln[i][1] == ' ', "parameter in the data section");
			if (!strncmp(ln[i], "# lost ", 7))
				cnt->lost_marks++;
			continue;
		}
		nf = tc_csv(ln[i], f);
		TCM(nf == 7 || nf == 8, "line %zu: %d columns", i + 1, nf);
		t = strtoull(f[0], &end, 10);
		TCA(!*end && f[0][0]);
		TCM(t >= last, "line %zu: time goes back", i + 1);
		last = t;
		si = strtol(f[2], &end, 10);
		TCA(!*end);
		ti = strtol(f[5], &end, 10);
		TCA(!*end);
		ev = f[6];
		if (!strncmp(f[1], "STI_", 4)) {
			TCA(tc_count_inst(&ic, &ncnt, "STI", f[1], si, i + 1));
			tc_mem[2] = ic;
		} else if (!strncmp(f[1], "Core_", 5)) {
			TCM(si == -1, "line %zu: core instance %ld", i + 1, si);
		}
		if (!strcmp(f[3], "T") || !strcmp(f[3], isr_type) || !strcmp(f[3], "R")) {
			/* a new instance starts with activate (R: start) */
			bool is_new = tc_count_inst(&ic, &ncnt, f[3], f[4], ti, i + 1);

			tc_mem[2] = ic;
			TCM(is_new == !strcmp(ev, strcmp(f[3], "R") ? "activate" : "start"),
			    "line %zu: %s instance %ld by %s", i + 1, f[4], ti, ev);
		}
		if (!strcmp(f[3], "T") || !strcmp(f[3], isr_type)) {
			bool task = !strcmp(f[3], "T");
			int from, to = -1;

			x = tc_inst(&v, &ninst, f[3], f[4], ti);
			tc_mem[1] = v;
			from = x->state;
			if (!strcmp(ev, "activate")) {
				to = from == 0 ? 1 : -1;
				/* STI or P, never a core */
				TCA(strncmp(f[1], "Core_", 5));
			} else {
				/* everything else comes from a core, instance -1 */
				TCM(!strncmp(f[1], "Core_", 5) && si == -1,
					      "line %zu: source %s", i + 1, f[1]);
				if (!strcmp(ev, "start"))
					to = from == 1 ? 2 : -1;
				else if (!strcmp(ev, "preempt"))
					to = from == 2 ? 3 : -1;
				else if (!strcmp(ev, "resume"))
					to = from == 3 ? 2 : -1;
				else if (!strcmp(ev, "terminate"))
					to = from == 2 ? 5 : -1;
				else if (!strcmp(ev, "wait"))
					to = from == 2 ? 4 : -1;
				else if (!strcmp(ev, "release"))
					to = from == 4 ? 3 : -1;
			}
			TCM(to >= 0, "line %zu: %s %s in state %d", i + 1,
				      f[4], ev, from);
			/* a process leaving the core has no running runnable */
			if (from == 2 && to != 2)
				for (size_t k = 0; k < ninst; k++)
					TCM(!(v[k].state == 2 &&
							!strcmp(v[k].parent, f[4]) &&
							v[k].parent_inst == ti),
						      "line %zu: runnable still running", i + 1);
			x = tc_inst(&v, &ninst, f[3], f[4], ti);
			x->state = to;
			if (task)
				cnt->task[!strcmp(ev, "activate") ? TC_ACT :
					  !strcmp(ev, "start") ? TC_START :
					  !strcmp(ev, "resume") ? TC_RESUME :
					  !strcmp(ev, "preempt") ? TC_PREEMPT :
					  !strcmp(ev, "terminate") ? TC_TERM :
					  !strcmp(ev, "wait") ? TC_WAIT : TC_REL]++;
			else if (strcmp(ev, "activate"))
				cnt->isr[!strcmp(ev, "start") ? TC_I_START :
					 !strcmp(ev, "resume") ? TC_I_RESUME :
					 !strcmp(ev, "preempt") ? TC_I_PREEMPT : TC_I_TERM]++;
		} else if (!strcmp(f[3], "R")) {
			struct tc_inst *p = NULL;
			int from, to = -1;

			/* the source is a process, running when the runnable runs */
			for (size_t k = 0; k < ninst; k++)
				if (!strcmp(v[k].name, f[1]) && v[k].inst == si &&
				    strcmp(v[k].type, "R"))
					p = &v[k];
			TCM(p, "line %zu: runnable source unknown", i + 1);
			x = tc_inst(&v, &ninst, "R", f[4], ti);
			tc_mem[1] = v;
			from = x->state;
			if (!strcmp(ev, "start"))
				to = from == 0 ? 2 : -1;
			else if (!strcmp(ev, "suspend"))
				to = from == 2 ? 3 : -1;
			else if (!strcmp(ev, "resume"))
				to = from == 3 ? 2 : -1;
			else if (!strcmp(ev, "terminate"))
				to = from == 2 ? 5 : -1;
			TCM(to >= 0, "line %zu: runnable %s in %d", i + 1, ev, from);
			x->state = to;
			snprintf(x->parent, sizeof(x->parent), "%s", f[1]);
			x->parent_inst = si;
			cnt->runnable[!strcmp(ev, "start") ? 0 : !strcmp(ev, "suspend") ? 1 :
				      !strcmp(ev, "resume") ? 2 : 3]++;
		} else if (!strcmp(f[3], "SIG")) {
			TCA(!strcmp(ev, "write") || !strcmp(ev, "read"));
			if (!strcmp(f[4], "lost_events"))
				cnt->lost_marks++;
		} else {
			TCA_streq(f[3], "SEM");
		}
	}
	tc_mem[1] = v;
	tc_mem[2] = ic;
	tc_mem_free();
}

/* --- JSON ------------------------------------------------------------------------ */

/* A strict recursive-descent JSON validator (RFC 8259), UTF-8 checked. */
TU_FN const char *tc_json_value(const char *p, int depth);

TU_FN const char *tc_json_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

TU_FN const char *tc_json_string(const char *p)
{
	TCA(*p == '"');
	for (p++; *p != '"'; p++) {
		unsigned char c = (unsigned char)*p;

		TCM(c >= 0x20, "raw control char in string");
		if (c == '\\') {
			p++;
			TCA(strchr("\"\\/bfnrtu", *p) && *p);
			if (*p == 'u') {
				for (int k = 1; k <= 4; k++)
					TCA(isxdigit((unsigned char)p[k]));
				p += 4;
			}
		} else if (c >= 0x80) {
			int len = (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;

			TCM(len, "invalid UTF-8");
			for (int k = 1; k < len; k++)
				TCA(((unsigned char)p[k] & 0xC0) == 0x80);
			p += len - 1;
		}
	}
	return p + 1;
}

TU_FN const char *tc_json_value(const char *p, int depth)
{
	TCA_lt(depth, 64);
	p = tc_json_ws(p);
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';

		p = tc_json_ws(p + 1);
		if (*p == close)
			return p + 1;
		for (;;) {
			if (close == '}') {
				p = tc_json_string(tc_json_ws(p));
				p = tc_json_ws(p);
				TCA(*p == ':');
				p++;
			}
			p = tc_json_ws(tc_json_value(p, depth + 1));
			if (*p == close)
				return p + 1;
			TCM(*p == ',', "expected ,");
			p++;
		}
	}
	if (*p == '"')
		return tc_json_string(p);
	if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	TCM(*p == '-' || isdigit((unsigned char)*p), "bad value");
	if (*p == '-')
		p++;
	TCA(isdigit((unsigned char)*p));
	if (*p == '0')
		p++;
	else
		while (isdigit((unsigned char)*p))
			p++;
	if (*p == '.') {
		p++;
		TCA(isdigit((unsigned char)*p));
		while (isdigit((unsigned char)*p))
			p++;
	}
	return p;
}

struct tc_json_x {
	long pid, tid;
	double ts, dur;
};

static int tc_json_x_cmp(const void *a, const void *b)
{
	const struct tc_json_x *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->dur > y->dur ? -1 : x->dur < y->dur;	/* the outer one first */
}

/*
 * Slices are complete (X) events of positive length, never B/E; on each
 * track they nest (one inside the other or apart, never crossing); no
 * displayTimeUnit.  Counts the slices of the CPU and irq tracks and the
 * lost-event instants.
 */
TU_FN void tc_json(char *buf, size_t len, size_t *cpu_slices, size_t *irq_slices,
		   size_t *lost_marks)
{
	const char *end = tc_json_ws(tc_json_value(buf, 0));
	struct tc_json_x *x = NULL;
	double stack[64];
	size_t nx = 0, cap = 0;
	char **ln;
	size_t n;

	TCM(*end == '\0', "trailing data after JSON");
	TCA_nonnull(strstr(buf, "\"traceEvents\":["));
	TCM(!strstr(buf, "displayTimeUnit"), "displayTimeUnit");
	*cpu_slices = *irq_slices = *lost_marks = 0;
	n = tu_lines(buf, len, &ln);
	tc_mem[0] = ln;
	for (size_t i = 0; i < n; i++) {
		char ph;
		long pid, tid;
		double ts, dur;

		if (sscanf(ln[i], "{\"ph\":\"%c\",\"pid\":%ld,\"tid\":%ld,\"ts\":%lf",
			   &ph, &pid, &tid, &ts) != 4)
			continue;
		if (strstr(ln[i], "\"lost events\""))
			(*lost_marks)++;
		TCM(ph != 'B' && ph != 'E', "line %zu: a B/E slice", i + 1);
		if (ph != 'X')
			continue;
		TCA_nonnull(strstr(ln[i], ",\"dur\":"));
		dur = strtod(strstr(ln[i], ",\"dur\":") + 7, NULL);
		TCM(dur > 0, "line %zu: slice of length %f", i + 1, dur);
		if (nx == cap) {
			cap = cap ? 2 * cap : 1024;
			x = realloc(x, cap * sizeof(*x));
			TCA_nonnull(x);
			tc_mem[1] = x;
		}
		x[nx++] = (struct tc_json_x){ pid, tid, ts, dur };
		if (pid == 0x7FFFFFF0 && tid < 100000)
			(*cpu_slices)++;
		else if (pid == 0x7FFFFFF0 && tid < 200000)
			(*irq_slices)++;
	}
	qsort(x, nx, sizeof(*x), tc_json_x_cmp);
	for (size_t i = 0, depth = 0; i < nx; i++) {
		double e = x[i].ts + x[i].dur;

		if (i && (x[i].pid != x[i - 1].pid || x[i].tid != x[i - 1].tid))
			depth = 0;
		/* µs with ns digits: compare in whole ns */
		while (depth && stack[depth - 1] <= x[i].ts * 1000 + 0.5)
			depth--;
		TCM(!depth || e * 1000 <= stack[depth - 1] + 0.5,
		    "track %ld/%ld: slices cross at %f", x[i].pid, x[i].tid, x[i].ts);
		TCA_lt(depth, 64);
		stack[depth++] = e * 1000;
	}
	tc_mem_free();
}

/* --- ATF ------------------------------------------------------------------------ */

/* xmllint against our XSD; returns its exit status. */
TU_FN int tc_xmllint(const char *buf, size_t len)
{
	char tmpl[] = "/tmp/hwt-atf-XXXXXX";
	char *xsd = tu_path("conv/atf.xsd"), *cmd;
	int fd = mkstemp(tmpl), ret;

	TCA_ge(fd, 0);
	TCA_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
	TCA_gt(asprintf(&cmd, "xmllint --noout --schema '%s' '%s' >/dev/null 2>&1",
				  xsd, tmpl), 0);
	ret = system(cmd);
	unlink(tmpl);
	free(cmd);
	free(xsd);
	return ret;
}

/* TraceEntry counts by EventID (1 activation .. 5 terminate, 6 error, 7 user). */
TU_FN void tc_atf_counts(const char *buf, size_t ev[8])
{
	const char *p = buf;

	memset(ev, 0, 8 * sizeof(size_t));
	while ((p = strstr(p, "<TraceEntry Time=\""))) {
		const char *e = strstr(p, "EventID=\"");
		unsigned long id;

		TCA_nonnull(e);
		id = strtoul(e + 9, NULL, 10);
		TCA_lt(id, 8);
		ev[id]++;
		p = e;
	}
}

/*
 * Cores: one TraceData per core, Core_<n> in order in its Comment; in each,
 * at most one task or ISR runs at a time (start/resume +1, preempt/
 * terminate -1; a task an ISR interrupts is preempted first).
 */
TU_FN void tc_atf_cores(const char *buf, uint32_t nr_cpus)
{
	static char type[65536];	/* by SystemElement ID: 't'ask, 'i'sr */
	const char *p = buf, *td;
	uint32_t core = 0;

	memset(type, 0, sizeof(type));
	while ((p = strstr(p, "<SystemElement Name=\""))) {
		const char *id = strstr(p, "\" ID=\"");
		unsigned long v;

		TCA_nonnull(id);
		v = strtoul(id + 6, NULL, 10);
		TCA_lt(v, sizeof(type));
		p = strstr(id, "Type=\"");
		type[v] = !strncmp(p, "Type=\"task\"", 11) ? 't' :
			  !strncmp(p, "Type=\"isr\"", 10) ? 'i' : 0;
	}
	for (td = strstr(buf, "<TraceData "); td; core++) {
		const char *next = strstr(td + 1, "<TraceData ");
		char want[32];
		int running = 0;

		snprintf(want, sizeof(want), "<Comment>Core_%u: ", core);
		p = strstr(td, "<Comment>");
		TCM(p && !strncmp(p, want, strlen(want)), "TraceData %u is not Core_%u",
		    core, core);
		while ((p = strstr(p, "<TraceEntry Time=\"")) && (!next || p < next)) {
			unsigned long ev, ref;

			TCA_eq(sscanf(p, "<TraceEntry Time=\"%*[0-9]\" EventID=\"%lu\" "
				      "ReferenceID=\"%lu\"", &ev, &ref), 2);
			p++;
			if (ref >= sizeof(type) || !type[ref])
				continue;
			if (ev == 2 || ev == 4)		/* start, resume */
				running++;
			else if (ev == 3 || ev == 5)	/* preempt, terminate */
				running--;
			TCM(running >= 0 && running <= 1,
			    "Core_%u: %d tasks and ISRs run at once", core, running);
		}
		td = next;
	}
	TCM(core == nr_cpus, "%u TraceData for %u cores", core, nr_cpus);
}

#endif /* TEST_CONV_CHECK_H */
