//go:build !linux

package server

func corkState(uintptr) (corked, queued int) { return 0, 0 }
