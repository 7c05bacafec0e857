/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The ring buffer of the tools that send an event per hit (gotrace,
 * gofuncgraph), and the count of events it had no room for: never hidden,
 * the tools print it. Include after gotools.bpf.h.
 */
#ifndef GOTOOLS_EVENTS_BPF_H
#define GOTOOLS_EVENTS_BPF_H

#define RINGBUF_SIZE	(8 << 20)

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, RINGBUF_SIZE);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/* One event the ring buffer had no room for. */
static __always_inline void events__lost(void)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&lost, &zero);

	if (n)
		__sync_fetch_and_add(n, 1);
}

/*
 * The flags to submit an event with: the reader is woken when a quarter of
 * the ring buffer waits (it polls every 100 ms anyway), not per event,
 * which would cost more than the probe itself and take a CPU from the
 * traced program. (A plain submit wakes it only when the buffer was empty
 * before, which events submitted without a wakeup keep from happening.)
 */
static __always_inline __u64 events__wakeup(void)
{
	return bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= RINGBUF_SIZE / 4 ?
		BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

#endif
