// heuristic_go: a small rule-based bot in Go, with the standard library alone. It speaks the
// stdio bridge's JSON lines (docs/stdio.md): one message a line on stdin, one answer a line
// on stdout; its log goes to stderr.
//
// It bids the tricks its high cards and high trumps should take, and plays to win a trick
// cheaply unless its partner is already winning it.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
)

type play struct {
	Seat int    `json:"seat"`
	Card string `json:"card"`
}

type trick struct {
	Leader int    `json:"leader"`
	Plays  []play `json:"plays"`
}

type observation struct {
	Seat         int      `json:"seat"`
	HandSize     int      `json:"hand_size"`
	Hand         []string `json:"hand"`
	Trump        string   `json:"trump"`
	CurrentTrick trick    `json:"current_trick"`
}

type message struct {
	Type        string      `json:"type"`
	Seat        int         `json:"seat"`
	Legal       []string    `json:"legal"`
	Observation observation `json:"observation"`
}

const ranks = "23456789TJQKA"

func isTrump(card, trump string) bool {
	return card == "BB" || card == "LB" || (trump != "" && strings.HasSuffix(card, trump))
}

// power orders the cards of a trick: jokers, then trumps, then the led suit; 0 cannot win.
func power(card, led, trump string) int {
	switch {
	case card == "BB":
		return 100
	case card == "LB":
		return 99
	case isTrump(card, trump):
		return 50 + strings.IndexByte(ranks, card[0])
	case led != "" && strings.HasSuffix(card, led):
		return 1 + strings.IndexByte(ranks, card[0])
	}
	return 0
}

// suitLed is the suit a trick's first card asks for (a joker leads trump).
func suitLed(t trick, trump string) string {
	if len(t.Plays) == 0 {
		return ""
	}
	first := t.Plays[0].Card
	if first == "BB" || first == "LB" {
		return trump
	}
	return first[len(first)-1:]
}

func bid(m message) string {
	obs := m.Observation
	expected := 0.0
	for _, card := range obs.Hand {
		switch {
		case card == "BB" || card == "LB":
			expected += 1
		case isTrump(card, obs.Trump) && strings.IndexByte(ranks, card[0]) >= strings.IndexByte(ranks, 'Q'):
			expected += 0.9
		case card[0] == 'A':
			expected += 0.8
		case card[0] == 'K':
			expected += 0.4
		}
	}
	want := int(expected + 0.25)
	best, bestGap := "", 1<<30
	for _, option := range m.Legal {
		n, err := strconv.Atoi(option)
		if option == "pass" {
			n, err = 0, nil
		}
		if err != nil {
			continue // board: never claimed
		}
		gap := n - want
		if gap < 0 {
			gap = -gap
		}
		if gap < bestGap {
			best, bestGap = option, gap
		}
	}
	if best == "" {
		best = m.Legal[0]
	}
	return best
}

func choose(m message) string {
	obs := m.Observation
	t := obs.CurrentTrick
	led := suitLed(t, obs.Trump)
	lowest := func(cards []string) string {
		pick := cards[0]
		for _, c := range cards[1:] {
			if power(c, led, obs.Trump)*20+strings.IndexByte(ranks, c[0]) <
				power(pick, led, obs.Trump)*20+strings.IndexByte(ranks, pick[0]) {
				pick = c
			}
		}
		return pick
	}
	if len(t.Plays) == 0 { // leading: an ace if it has one, else its lowest card
		for _, c := range m.Legal {
			if c[0] == 'A' && !isTrump(c, obs.Trump) {
				return c
			}
		}
		return lowest(m.Legal)
	}
	winner, top := -1, -1
	for _, p := range t.Plays {
		if pw := power(p.Card, led, obs.Trump); pw > top {
			winner, top = p.Seat, pw
		}
	}
	if winner == (obs.Seat+2)%4 { // partner is winning: cover it
		return lowest(m.Legal)
	}
	var winning []string
	for _, c := range m.Legal {
		if power(c, led, obs.Trump) > top {
			winning = append(winning, c)
		}
	}
	if len(winning) > 0 {
		return lowest(winning)
	}
	return lowest(m.Legal)
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		var m message
		if err := json.Unmarshal(in.Bytes(), &m); err != nil {
			fmt.Fprintln(os.Stderr, "heuristic_go: not JSON:", err)
			continue
		}
		switch m.Type {
		case "hello":
			fmt.Fprintf(os.Stderr, "heuristic_go: seat %d\n", m.Seat)
			fmt.Fprintln(out, `{"name":"heuristic_go"}`)
		case "bid":
			fmt.Fprintf(out, "{\"bid\":%q}\n", bid(m))
		case "play":
			fmt.Fprintf(out, "{\"card\":%q}\n", choose(m))
		default:
			continue
		}
		out.Flush()
	}
}
