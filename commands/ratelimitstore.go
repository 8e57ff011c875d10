package commands

import (
	"context"
	"fmt"

	"ballot/server"
	"ballot/server/ratelimit"
)

// memoryStore is rate_limit_store's default: each process counts alone.
const memoryStore = "memory"

// checkRateLimitStore checks a rate_limit_store URL; its error never
// repeats the URL, which may hold a password.
func checkRateLimitStore(rawURL string) error {
	_, err := ratelimit.ParseRedisURL(rawURL)
	return err
}

// openRateLimitStore returns the Redis store rate_limit_store names, or nil
// for memory. It does not connect: a Redis that does not answer at start-up
// is logged by the sync, and serve starts all the same.
func openRateLimitStore(setting string) (*ratelimit.RedisStore, error) {
	if setting == memoryStore {
		return nil, nil
	}
	store, err := ratelimit.NewRedisStore(setting, ratelimit.DefaultSyncTimeout)
	if err != nil {
		return nil, fmt.Errorf("rate_limit_store: %w", err)
	}
	return store, nil
}

// runLimitSync keeps srv's rate-limit counts in step with its store until
// ctx ends, and closes the channel it returns then.
func runLimitSync(ctx context.Context, srv *server.Server) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.RunLimitSync(ctx)
	}()
	return done
}
