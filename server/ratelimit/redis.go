package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisStore is a Store on Redis: one key per client and endpoint, an
// integer that expires when the window of the replica that created it ends.
type RedisStore struct {
	client *redis.Client
	keys   []string
	args   []any
}

// RedisKeyPrefix begins every key a RedisStore writes, so the counters can
// share a Redis with other data.
const RedisKeyPrefix = "ballot:ratelimit:"

// addScript adds each key's count (ARGV triples: count, lifetime in ms,
// and 1 when the caller knows the lifetime already) and gives a key it
// creates the caller's lifetime, so the first replica to create it fixes
// the window; it returns each key's total and remaining lifetime (0 when
// the caller knows it, so the common case costs one call per key). A key
// is never left without a lifetime: INCRBY creates it only when it is
// absent, and then the total is the count. One script for a batch is one
// round trip, and it runs atomically.
var addScript = redis.NewScript(`
local out = {}
for i, key in ipairs(KEYS) do
  local delta = tonumber(ARGV[3*i-2])
  local n = redis.call('INCRBY', key, delta)
  local ttl = 0
  if n == delta then
    ttl = tonumber(ARGV[3*i-1])
    redis.call('PEXPIRE', key, ttl)
  elseif ARGV[3*i] == '0' then
    ttl = redis.call('PTTL', key)
    if ttl < 0 then
      ttl = tonumber(ARGV[3*i-1])
      redis.call('PEXPIRE', key, ttl)
    end
  end
  out[2*i-1] = n
  out[2*i] = ttl
end
return out
`)

// ParseRedisURL checks a redis:// or rediss:// (TLS) URL, such as
// redis://:password@redis.internal:6379/0, and returns the client options it
// means. Its error never repeats the URL, which may hold a password.
func ParseRedisURL(rawURL string) (*redis.Options, error) {
	opts, err := redis.ParseURL(rawURL)
	if err != nil {
		// net/url's errors quote the URL: keep only what went wrong.
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return nil, err
	}
	if opts.Network == "unix" {
		return nil, errors.New("a unix socket URL is not accepted: use redis:// or rediss://")
	}
	return opts, nil
}

// NewRedisStore returns a Store on the Redis at rawURL (see ParseRedisURL).
// It does not connect yet. Every call gives up after timeout, and is never
// retried: the next sync tries again.
func NewRedisStore(rawURL string, timeout time.Duration) (*RedisStore, error) {
	opts, err := ParseRedisURL(rawURL)
	if err != nil {
		return nil, err
	}
	opts.DialTimeout = timeout
	opts.ReadTimeout = timeout
	opts.WriteTimeout = timeout
	opts.ContextTimeoutEnabled = true
	opts.MaxRetries = -1
	// One goroutine uses the store; a second connection covers a call
	// abandoned at its timeout.
	opts.PoolSize = 2
	opts.PoolTimeout = timeout
	// One dial per call: a sync that cannot connect fails at once and
	// the next one tries again. After failed dials the client probes in
	// the background, once a second, so sharing resumes within about a
	// second of Redis answering again.
	opts.DialerRetries = 1
	opts.DisableIdentity = true
	// Every reply is checked against the bounds of replyGuard before the
	// client reads it: a peer on Redis's address that declares a huge
	// length fails the sync instead of the process.
	dial := redis.NewDialer(opts)
	opts.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &replyGuard{Conn: conn}, nil
	}
	quietOnce.Do(func() { redis.SetLogger(quiet{}) })
	return &RedisStore{client: redis.NewClient(opts)}, nil
}

// quiet drops go-redis's own log lines, which would go to stderr outside
// the server's log: the Sync logs each outage once, in the server's log.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

var quietOnce sync.Once

// Ping reports whether Redis answers.
func (r *RedisStore) Ping(ctx context.Context) error {
	return r.client.Ping(ctx).Err()
}

// Add runs addScript over deltas.
func (r *RedisStore) Add(ctx context.Context, deltas []Delta) ([]Total, error) {
	r.keys, r.args = r.keys[:0], r.args[:0]
	for _, d := range deltas {
		r.keys = append(r.keys, RedisKey(d.Key))
		known := 0
		if d.Known {
			known = 1
		}
		r.args = append(r.args, d.N, max(d.Left.Milliseconds(), 1), known)
	}
	v, err := addScript.Run(ctx, r.client, r.keys, r.args...).Int64Slice()
	if err != nil {
		return nil, err
	}
	if len(v) != 2*len(deltas) {
		return nil, fmt.Errorf("redis answered %d values for %d keys", len(v), len(deltas))
	}
	out := make([]Total, len(deltas))
	for i := range out {
		out[i] = Total{N: v[2*i], Left: time.Duration(v[2*i+1]) * time.Millisecond}
	}
	return out, nil
}

// Close closes the connections to Redis.
func (r *RedisStore) Close() error { return r.client.Close() }

// RedisKey is the Redis key of k: the prefix, the bucket and the masked
// address, as in "ballot:ratelimit:1:192.0.2.7".
func RedisKey(k Key) string {
	b := make([]byte, 0, len(RedisKeyPrefix)+48)
	b = append(b, RedisKeyPrefix...)
	b = strconv.AppendUint(b, uint64(k.Bucket), 10)
	b = append(b, ':')
	b = netip.AddrFrom16(k.Addr).Unmap().AppendTo(b)
	return string(b)
}
