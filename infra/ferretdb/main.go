// Command ferretdb runs FerretDB 1.24.2 through its embeddable package.
//
// `go install github.com/FerretDB/FerretDB/cmd/ferretdb@v1.24.2` builds a binary that panics at start:
// its version check needs build/version/version.txt, which the published module leaves empty. The
// embeddable package skips that check when another module holds `main`, so this wrapper is that module.
// Flags mirror the real command's names.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen-addr", "127.0.0.1:27017", "TCP address to listen on")
	handler := flag.String("handler", "sqlite", "backend handler: sqlite or postgresql")
	sqliteURL := flag.String("sqlite-url", "file:data/", "SQLite directory URI, ending with /")
	postgresURL := flag.String("postgresql-url", "", "PostgreSQL URL for the postgresql handler")
	flag.Parse()

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	f, err := ferretdb.New(&ferretdb.Config{
		Listener:      ferretdb.ListenerConfig{TCP: *listen},
		Logger:        logger,
		Handler:       *handler,
		SQLiteURL:     *sqliteURL,
		PostgreSQLURL: *postgresURL,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "ferretdb:", err)
		os.Exit(1)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintln(os.Stderr, "ferretdb: listening on", *listen)
	_ = f.Run(ctx)
}
