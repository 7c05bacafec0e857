// SPDX-License-Identifier: MIT
//
// traceloop: call one small function with an int and a string N times, at
// full speed or at a set rate, to measure what printing its arguments from
// a uprobe costs and how many such events a second a tracer keeps up with.
//
//	traceloop [-wait] [-value] [-n N] [-rate R]
//
// With -value the loop calls g instead, with a pointer to a struct of a
// string, a pointer and an int: what a %v of it costs.
// With -wait, "ready" is printed and one line is read from stdin before the
// loop starts, so a tracer can attach first. With -rate, the calls go in
// bursts of a millisecond's share (R/1000 calls, at least one), each burst
// starting when the schedule says, so a slower call falls behind and the
// loop runs at full speed. At the end it prints
// "N calls, X ns/call, R calls/s" (wall time of the loop divided by N, and
// N divided by it): the calls it made, the ground truth of a trace.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"time"
)

//go:noinline
func leaf(x int) int {
	return x*3 + 1
}

// f is the probed function, bench/loop's f with a string: an int in RAX,
// the string's pointer and length in RBX and RCX (Go 1.17+). It has a
// frame, so it has the stack check prologue, where the tools probe.
//
//go:noinline
func f(x int, s string) int {
	var a [4]int
	a[x&3] = leaf(x) + len(s)
	return a[(x+1)&3] + a[x&3]
}

var names = [...]string{"alpha", "bravo", "charlie", "delta"}

type req struct {
	Name string
	Next *req
	ID   int
}

var reqs [4]req

// g is f's twin for -value: a pointer in RAX to a struct that %v prints
// whole, &{alpha 0xc000010018 0}.
//
//go:noinline
func g(r *req) int {
	var a [4]int
	a[r.ID&3] = leaf(r.ID) + len(r.Name)
	return a[(r.ID+1)&3] + a[r.ID&3]
}

var sink int

func main() {
	wait := flag.Bool("wait", false, "print ready and read a line first")
	value := flag.Bool("value", false, "call g with a struct instead of f")
	n := flag.Int("n", 1000000, "number of calls")
	rate := flag.Int("rate", 0, "calls per second (0: as fast as it goes)")
	flag.Parse()
	if *n <= 0 || *rate < 0 {
		fmt.Fprintln(os.Stderr, "traceloop: bad -n or -rate")
		os.Exit(2)
	}
	if *wait {
		fmt.Println("ready")
		if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
			fmt.Fprintln(os.Stderr, "traceloop: no start line:", err)
			os.Exit(1)
		}
	}
	burst := *n
	if *rate > 0 {
		burst = *rate / 1000
	}
	if burst < 1 {
		burst = 1
	}
	for i := range reqs {
		reqs[i] = req{names[i], &reqs[(i+1)&3], i}
	}
	start := time.Now()
	s := 0
	for i := 0; i < *n; {
		end := i + burst
		if end > *n {
			end = *n
		}
		if *value {
			for ; i < end; i++ {
				s += g(&reqs[i&3])
			}
		} else {
			for ; i < end; i++ {
				s += f(i, names[i&3])
			}
		}
		if *rate > 0 && i < *n {
			due := time.Duration(float64(i) / float64(*rate) * 1e9)
			if ahead := due - time.Since(start); ahead > 0 {
				time.Sleep(ahead)
			}
		}
	}
	elapsed := time.Since(start)
	sink = s
	fmt.Printf("%d calls, %.3f ns/call, %.0f calls/s\n", *n,
		float64(elapsed.Nanoseconds())/float64(*n),
		float64(*n)/elapsed.Seconds())
}
