// SPDX-License-Identifier: MIT
//
// schedloop: a scheduler-heavy loop for gofunclatency -S: N items pass
// through a pipeline of 8 goroutines over unbuffered channels, each stage
// moving one item per call of main.handoff, which parks on nearly every
// receive and send. At the end it prints "C calls, X ns/call": C handoffs
// in all (N x 8), the loop's wall time divided by C.
//
//	schedloop [-wait] [-n N]
//
// With -wait, "ready" is printed and one line is read from stdin first.
// main.never is never called: tracing it leaves the goroutine-state
// tracker's probes on with no call in flight.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"time"
)

const stages = 8

// handoff moves one item from in to out; false when in is closed.
//
//go:noinline
func handoff(in <-chan int, out chan<- int) bool {
	v, ok := <-in
	if !ok {
		return false
	}
	out <- v + 1
	return true
}

//go:noinline
func never() int { return 42 }

func main() {
	wait := flag.Bool("wait", false, "print ready and read a line first")
	n := flag.Int("n", 100000, "number of items")
	flag.Parse()
	if *n < 0 {
		fmt.Println(never())
	}
	if *wait {
		fmt.Println("ready")
		if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
			fmt.Fprintln(os.Stderr, "schedloop: no start line:", err)
			os.Exit(1)
		}
	}
	start := time.Now()
	first := make(chan int)
	in := first
	for i := 0; i < stages; i++ {
		out := make(chan int)
		go func(in <-chan int, out chan<- int) {
			for handoff(in, out) {
			}
			close(out)
		}(in, out)
		in = out
	}
	go func() {
		for i := 0; i < *n; i++ {
			first <- i
		}
		close(first)
	}()
	for range in {
	}
	elapsed := time.Since(start)
	calls := *n * stages
	fmt.Printf("%d calls, %.3f ns/call\n", calls,
		float64(elapsed.Nanoseconds())/float64(calls))
}
