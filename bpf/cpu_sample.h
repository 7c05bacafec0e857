/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* What bpf/cpu_sample.bpf.c and lib/probe/cpu_samples.c share. */
#ifndef GOTOOLS_CPU_SAMPLE_H
#define GOTOOLS_CPU_SAMPLE_H

/* Distinct user IPs counted; samples at others are counted as lost. */
#define CPU_SAMPLE_IPS	32768

#endif
