// SPDX-License-Identifier: MIT
//
// demo: a small word-frequency service to try the gotools tracers on.
//
// A producer feeds lines of text to a few worker goroutines, which split
// them into words and record them in a shared store (methods on a pointer
// receiver, under a mutex). Every half second the current top words are
// printed. It runs for about 3 seconds and exits.
//
//	sudo gofunccount -c ./demo 'main.*'
package main

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

var text = []string{
	"the quick brown fox jumps over the lazy dog",
	"a tracer watches the program run without changing it",
	"every function call is a probe hit and every hit is counted",
	"goroutines share the store and the store keeps the counts",
	"the dog sleeps while the fox runs around the field",
}

// store counts words; it is shared by all workers.
type store struct {
	mu     sync.Mutex
	counts map[string]int
	total  int
}

func newStore() *store {
	return &store{counts: make(map[string]int)}
}

func (s *store) add(word string) {
	s.mu.Lock()
	s.counts[word]++
	s.total++
	s.mu.Unlock()
}

type wordCount struct {
	word  string
	count int
}

// top returns the n most frequent words, most frequent first.
func (s *store) top(n int) []wordCount {
	s.mu.Lock()
	all := make([]wordCount, 0, len(s.counts))
	for w, c := range s.counts {
		all = append(all, wordCount{w, c})
	}
	s.mu.Unlock()
	sort.Slice(all, func(i, j int) bool {
		if all[i].count != all[j].count {
			return all[i].count > all[j].count
		}
		return all[i].word < all[j].word
	})
	if len(all) > n {
		all = all[:n]
	}
	return all
}

// normalize lower-cases a word and drops anything but letters.
func normalize(word string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' {
			return r
		}
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return -1
	}, word)
}

func worker(lines <-chan string, s *store, wg *sync.WaitGroup) {
	defer wg.Done()
	for line := range lines {
		for _, w := range strings.Fields(line) {
			if w = normalize(w); w != "" {
				s.add(w)
			}
		}
		// Pretend each line takes a moment to process.
		time.Sleep(200 * time.Microsecond)
	}
}

func report(s *store, elapsed time.Duration) {
	var b strings.Builder
	for i, wc := range s.top(3) {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%d", wc.word, wc.count)
	}
	fmt.Printf("%4.1fs  top words: %s\n", elapsed.Seconds(), b.String())
}

func main() {
	const workers = 4
	fmt.Println("demo: counting words for 3 seconds with", workers, "workers")
	s := newStore()
	lines := make(chan string)
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go worker(lines, s, &wg)
	}

	start := time.Now()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(3 * time.Second)
	sent := 0
loop:
	for {
		select {
		case lines <- text[sent%len(text)]:
			sent++
		case <-tick.C:
			report(s, time.Since(start))
		case <-deadline:
			break loop
		}
	}
	close(lines)
	wg.Wait()
	fmt.Println("demo: done:", sent, "lines,", s.total, "words")
}
