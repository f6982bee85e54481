package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/taobench/taobench/internal/flagx"
	"github.com/taobench/taobench/internal/termsafe"
	"github.com/taobench/taobench/stats"
)

// cmdRatio reads rounds of two figures measured side by side, one round a
// line "NUM DEN", from a file or standard input, and prints their ratio with its interval
// (stats.Ratio: the geometric mean of the rounds' ratios, Student's t
// over their logs). bench/original.sh and bench/cpu.sh quote their ratios
// with it (docs/performance.md "Ratios with intervals").
func cmdRatio(_ context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("ratio", flag.ContinueOnError)
	confidence := fs.Float64("confidence", 0.95, "the confidence of the interval")
	label := fs.String("label", "ratio", "what the ratio is, printed first, e.g. \"taobench/original o/8 req/s\"")
	flagArgs, files := flagx.SplitArgs(fs, args)
	if err := parse(fs, flagArgs); err != nil {
		return err
	}
	if len(files) > 1 {
		return badInput("ratio: %d files given; give one file of rounds, or none to read standard input", len(files))
	}
	if !(*confidence > 0 && *confidence < 1) {
		return badInput("ratio: --confidence %g: give a level between 0 and 1, such as 0.95", *confidence)
	}
	in, from := io.Reader(os.Stdin), "standard input"
	if len(files) == 1 {
		f, err := os.Open(files[0])
		if err != nil {
			return badInput("ratio: %v", err)
		}
		defer f.Close()
		in, from = f, files[0]
	}
	num, den, err := readRounds(in)
	if err != nil {
		return badInput("ratio: %s: %v", termsafe.Escape(from), err)
	}
	if len(num) == 0 {
		return badInput("ratio: no rounds in %s: give one line \"NUM DEN\" per round, e.g. printf '1200 1000\\n1150 980\\n' | taobench ratio", termsafe.Escape(from))
	}
	iv, skipped := stats.Ratio(num, den, *confidence)
	if len(iv.Values) == 0 {
		return badInput("ratio: no round has both figures above 0 (%d skipped): a ratio needs positive figures", skipped)
	}
	rounds := make([]string, len(iv.Values))
	for i, v := range iv.Values {
		rounds[i] = fmt.Sprintf("%.2f", v)
	}
	note := ""
	if skipped > 0 {
		note = fmt.Sprintf("; %d round(s) with a figure not above 0 skipped", skipped)
	}
	if !iv.Valid() {
		fmt.Fprintf(e.stdout, "%s %.2fx [-] (one round: no interval; give 2 or more rounds%s)\n", *label, iv.Estimate, note)
		return nil
	}
	fmt.Fprintf(e.stdout, "%s %.2fx [%.2fx, %.2fx] (%g%% interval; geometric mean of %d rounds' ratios %s%s)\n",
		*label, iv.Estimate, iv.Lo, iv.Hi, 100**confidence, len(iv.Values), strings.Join(rounds, " "), note)
	return nil
}

// readRounds reads "NUM DEN" lines; blank lines and # comments are
// skipped.
func readRounds(r io.Reader) (num, den []float64, err error) {
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, nil, fmt.Errorf("line %d %q: give two numbers, the numerator then the denominator", n, line)
		}
		var x [2]float64
		for i, s := range f {
			if x[i], err = strconv.ParseFloat(s, 64); err != nil {
				return nil, nil, fmt.Errorf("line %d: %q is not a number", n, s)
			}
		}
		num, den = append(num, x[0]), append(den, x[1])
	}
	return num, den, sc.Err()
}
