//go:build !linux

package server

func corkState(uintptr) (corked, written int) { return 0, 0 }
