package server

import "ballot/server/ratelimit"

// CounterBytes returns the bytes of heap the rate limiter's counters take
// once clients have reached every shard (48 MiB for a cap of a million):
// live heap a memory limit must leave room for beside the rest. Shared
// counters take 4 bytes more per key of the cap.
func (s *Server) CounterBytes() int64 {
	n := ratelimit.Reservation(s.opts.MaxClients)
	if s.limitSync != nil {
		n += ratelimit.SharingReservation(s.opts.MaxClients)
	}
	return n
}

// PageBytes returns the bytes of heap the record pages kept once rendered
// may take (RenderedPageBytes; none without the pages): live heap that,
// like the counters, comes with the readers, not with the dataset.
func (s *Server) PageBytes() int64 {
	if !s.opts.Pages {
		return 0
	}
	return RenderedPageBytes
}
