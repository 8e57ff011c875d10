package commands

import "time"

// OpenableURL lets the black-box tests check the start-up line's address
// without listening on every interface.
var OpenableURL = openableURL

// SetWatchDelay sets how long serve --watch waits for the dataset to stay
// unchanged, for the tests that watch in this process, which change a
// dataset many times over. It must be called before any test starts.
func SetWatchDelay(d time.Duration) { watchDelay = d }
