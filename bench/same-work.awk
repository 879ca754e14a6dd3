# SPDX-License-Identifier: GPL-2.0
#
# hackbench's work is not the same under every tracer: how its tasks batch
# decides how often they switch, and a tracer changes that.  A run's time is
# close to a line in its context switches, so each run is compared with
# what no tracer takes for as many switches: the "none" tracer's line.
#
# Input: "TRACER TIME SWITCHES" lines.  Output: a markdown table, a tracer a
# row in the order they first appear (the slope and r2 of its own
# least-squares line, "-" where its switches never varied, and its runs'
# overhead), then a blank line and how tracer `us` compares with tracer
# `peer` (awk -v us=... -v peer=...).  Exits 2, printing nothing, if none's
# switches never varied.

# least squares over the runs of tracer t: sets A, B, R2; 0 if no line
function line(t,    i, x, y, sx, sy, sxx, sxy, syy, d, e) {
	for (i = 1; i <= n[t]; i++) {
		x = sw[t, i]; y = tm[t, i]
		sx += x; sy += y; sxx += x * x; sxy += x * y; syy += y * y
	}
	d = n[t] * sxx - sx * sx
	e = n[t] * syy - sy * sy
	if (n[t] < 2 || d <= 0)
		return 0
	B = (n[t] * sxy - sx * sy) / d
	A = (sy - B * sx) / n[t]
	R2 = e > 0 ? (n[t] * sxy - sx * sy) ^ 2 / (d * e) : 1
	return 1
}

# sorts v[1..m] in place
function sort(v, m,    i, j, x) {
	for (i = 2; i <= m; i++) {
		x = v[i]
		for (j = i - 1; j >= 1 && v[j] > x; j--)
			v[j + 1] = v[j]
		v[j + 1] = x
	}
}

{
	if (!($1 in n))
		order[++tracers] = $1
	n[$1]++
	tm[$1, n[$1]] = $2
	sw[$1, n[$1]] = $3
}

# a percentage, without "-0.0%"
function pc(v) {
	return sprintf("%+.1f%%", v > -0.05 && v < 0.05 ? 0 : v)
}

END {
	if (!line("none"))
		exit 2
	a0 = A; b0 = B
	print "| tracer | its runs' switches (min-max) | us per context switch (slope) | r2 | overhead vs none at the same work (median) | min | max |"
	print "| --- | --- | --- | --- | --- | --- | --- |"
	for (k = 1; k <= tracers; k++) {
		t = order[k]
		split("", ov)
		split("", s)
		for (i = 1; i <= n[t]; i++) {
			ov[i] = (tm[t, i] / (a0 + b0 * sw[t, i]) - 1) * 100
			s[i] = sw[t, i]
		}
		sort(ov, n[t])
		sort(s, n[t])
		med[t] = n[t] % 2 ? ov[(n[t] + 1) / 2] : (ov[n[t] / 2] + ov[n[t] / 2 + 1]) / 2
		if (line(t))
			fit = sprintf("%.3f | %.3f", B * 1e6, R2)
		else
			fit = "- | -"
		printf "| %s | %d-%d | %s | %s | %s | %s |\n", t, s[1], s[n[t]], fit,
		       pc(med[t]), pc(ov[1]), pc(ov[n[t]])
	}
	print ""
	if (!(peer in med) || med[peer] <= 0)
		printf "At the same work: %s no slower than none, no ratio.\n", peer
	else if (!(us in med) || med[us] <= 0)
		printf "At the same work: %s no slower than none, no ratio.\n", us
	else
		printf "At the same work: %s's overhead is %.2fx %s's (%s against %s, medians of each run against none's line).\n",
		       us, med[us] / med[peer], peer, pc(med[us]), pc(med[peer])
}
