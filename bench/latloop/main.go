// SPDX-License-Identifier: MIT
//
// latloop: G goroutines call one small function N times in all, in P
// phases, to watch what a latency tracer holds while calls go by.
//
//	latloop [-wait] [-n N] [-g G] [-phases P]
//
// With -wait, "ready" is printed and one line is read from stdin before
// each phase and once more before exiting (end of input will do there),
// so a tracer can attach first and look at its maps between phases and at
// the end, when no call is in flight. After each phase it prints
// "phase I/P: C calls" (C counts every call so far); at the end
// "N calls, X ns/call" (wall time of the phases divided by N).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"sync"
	"time"
)

//go:noinline
func leaf(x int) int {
	return x*3 + 1
}

// f is the probed function, the same as bench/loop's: it has a frame, so
// it has the stack check prologue.
//
//go:noinline
func f(x int) int {
	var a [4]int
	a[x&3] = leaf(x)
	return a[(x+1)&3] + a[x&3]
}

var sink [64]int

func main() {
	wait := flag.Bool("wait", false, "print ready and read a line before each phase")
	n := flag.Int("n", 1000000, "number of calls in all")
	g := flag.Int("g", 8, "number of goroutines")
	phases := flag.Int("phases", 1, "number of phases")
	flag.Parse()
	if *n <= 0 || *g <= 0 || *g > len(sink) || *phases <= 0 {
		fmt.Fprintln(os.Stderr, "latloop: bad -n, -g or -phases")
		os.Exit(2)
	}
	in := bufio.NewReader(os.Stdin)
	if *wait {
		fmt.Println("ready")
	}
	var elapsed time.Duration
	done := 0
	for p := 1; p <= *phases; p++ {
		if *wait {
			if _, err := in.ReadString('\n'); err != nil {
				fmt.Fprintln(os.Stderr, "latloop: no start line:", err)
				os.Exit(1)
			}
		}
		// This phase's calls, split as evenly as they go.
		calls := *n*p / *phases - done
		start := time.Now()
		var wg sync.WaitGroup
		for i := 0; i < *g; i++ {
			share := calls / *g
			if i < calls%*g {
				share++
			}
			wg.Add(1)
			go func(i, share int) {
				defer wg.Done()
				s := 0
				for j := 0; j < share; j++ {
					s += f(j)
				}
				sink[i] += s
			}(i, share)
		}
		wg.Wait()
		elapsed += time.Since(start)
		done += calls
		fmt.Printf("phase %d/%d: %d calls\n", p, *phases, done)
	}
	fmt.Printf("%d calls, %.3f ns/call\n", *n,
		float64(elapsed.Nanoseconds())/float64(*n))
	if *wait {
		in.ReadString('\n')
	}
}
