// SPDX-License-Identifier: MIT
//
// loop: call one small function N times and print what a call cost, to
// measure what a uprobe on that function adds per call.
//
//	loop [-wait] [-n N]
//
// With -wait, "ready" is printed and one line is read from stdin before the
// loop starts, so a tracer can attach first. At the end it prints
// "N calls, X ns/call" (wall time of the loop divided by N).
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

// f is the probed function. It calls leaf and keeps a small array, so it
// has a frame and the compiler gives it the usual stack check prologue
// (a frameless leaf would have none): the site gofunccount probes.
//
//go:noinline
func f(x int) int {
	var a [4]int
	a[x&3] = leaf(x)
	return a[(x+1)&3] + a[x&3]
}

var sink int

func main() {
	wait := flag.Bool("wait", false, "print ready and read a line first")
	n := flag.Int("n", 1000000, "number of calls")
	flag.Parse()
	if *wait {
		fmt.Println("ready")
		if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
			fmt.Fprintln(os.Stderr, "loop: no start line:", err)
			os.Exit(1)
		}
	}
	start := time.Now()
	s := 0
	for i := 0; i < *n; i++ {
		s += f(i)
	}
	elapsed := time.Since(start)
	sink = s
	fmt.Printf("%d calls, %.3f ns/call\n", *n,
		float64(elapsed.Nanoseconds())/float64(*n))
}
