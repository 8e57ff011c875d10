package server

import "ballot/server/ratelimit"

// CounterBytes returns the bytes of heap the rate limiter's counters take
// once clients have reached every shard (48 MiB for a cap of a million):
// live heap a memory limit must leave room for beside the rest.
func (s *Server) CounterBytes() int64 {
	return ratelimit.Reservation(s.opts.MaxClients)
}
