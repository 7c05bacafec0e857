/* SPDX-License-Identifier: MIT */
/*
 * DURATION option values: a number and a unit (ns, us, ms, s), or a plain
 * number of microseconds: 10ms, 500us, 2s, 1.5ms, 250 (gofuncgraph -t).
 */
#ifndef GOTOOLS_DURATION_H
#define GOTOOLS_DURATION_H

/*
 * ARG in nanoseconds into *NS (fractions of a nanosecond dropped, more
 * than fits held at the largest value). Returns 0, or -EINVAL and the
 * reason to print (a number below 0, no number, another unit).
 */
int duration__parse(const char *arg, unsigned long long *ns);

#endif
