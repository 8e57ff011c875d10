// Command ballot publishes election data as a public, read-only JSON API,
// imports datasets from spreadsheets, checks and compares them before they
// are published, and answers the same queries offline. See README.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"ballot/commands"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := commands.Run(ctx, os.Args, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
