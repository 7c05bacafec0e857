/* SPDX-License-Identifier: MIT */
/* log2 histograms printed as bcc's tools print them. */
#ifndef GOTOOLS_HISTOGRAM_H
#define GOTOOLS_HISTOGRAM_H

#include <stdint.h>
#include <stdio.h>
#include "hist.h"	/* HIST_NSLOTS, histogram__slot(): as BPF fills them */

/*
 * Print SLOTS[0..n) in bcc's print_log2_hist format:
 *      nsecs               : count     distribution
 *          0 -> 1          : 0        |                                        |
 * Leading and trailing empty slots are left out as bcc does.
 */
void histogram__print(FILE *f, const uint64_t *slots, unsigned int n,
		      const char *unit);

/* One JSON object: {"unit":"nsecs","buckets":[{"low":..,"high":..,"count":..}]} */
void histogram__print_json(FILE *f, const uint64_t *slots, unsigned int n,
			   const char *unit);

#endif
