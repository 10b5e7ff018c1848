// Command benchforge audits LLM bug-fixing benchmarks for training-data
// contamination and grows provenance-tracked synthetic bug/fix corpora.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/benchforge/benchforge/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := cli.Run(ctx, os.Args, os.Stdout, os.Stderr, cli.Commands()...)
	stop()
	os.Exit(code)
}
